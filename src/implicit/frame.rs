//! Where a moving implicit wall stands (docs/SCRIPTED.md): the rigid map from world
//! coordinates to the wall's own, those its expression `W` is written in, and how a
//! point fixed to the wall moves over a step. A wall moved by the pose (u, R) about
//! its centre c puts its own point y at `x = c + u + R (y − c)`, so it sees a world
//! point x at `y = Rᵀ (x − c − u) + c`: `W_t(x) = W(y)`, `∇W_t = Rᵀ ∇W`,
//! `∇²W_t = Rᵀ ∇²W R`. A 2D wall turns about z and uses the upper-left 2 × 2.
//! The GPU twin is `implicit_to_wall` and friends in `shaders/contact.wgsl`.

// Index loops over the d components mirror the WGSL kernels.
#![allow(clippy::needless_range_loop)]

use crate::script::Pose;

/// The world-to-wall map `y = rot x + offset` (rot orthogonal, row-major; m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Rows of the rotation taking world vectors into the wall's frame.
    pub rot: [[f64; 3]; 3],
    /// The translation (m).
    pub offset: [f64; 3],
}

impl Frame {
    /// The wall where the scene puts it.
    pub const IDENTITY: Frame = Frame {
        rot: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        offset: [0.0; 3],
    };

    /// The frame of a wall moved by `pose` about `center` (m, `dim` components).
    pub fn of_pose(pose: &Pose, center: &[f64]) -> Frame {
        let r = &pose.rotation;
        let mut c = [0.0; 3];
        c[..center.len()].copy_from_slice(center);
        let mut f = Frame::IDENTITY;
        for row in 0..3 {
            // row `row` of Rᵀ is column `row` of R
            f.rot[row] = [r[row], r[3 + row], r[6 + row]];
        }
        let moved: [f64; 3] = [0, 1, 2].map(|k| c[k] + pose.translate[k]);
        for row in 0..3 {
            f.offset[row] = c[row] - (0..3).map(|k| f.rot[row][k] * moved[k]).sum::<f64>();
        }
        f
    }

    /// `y = rot x + offset`: the world point `x` (`dim` components) in the wall's
    /// frame (the first `dim` components of the result).
    pub fn to_wall(&self, x: &[f64]) -> [f64; 3] {
        let mut y = [0.0; 3];
        for row in 0..x.len() {
            y[row] = self.offset[row] + (0..x.len()).map(|k| self.rot[row][k] * x[k]).sum::<f64>();
        }
        y
    }

    /// `rot p`: the world vector `p` in the wall's frame.
    pub fn dir_to_wall(&self, p: &[f64]) -> [f64; 3] {
        let mut y = [0.0; 3];
        for row in 0..p.len() {
            y[row] = (0..p.len()).map(|k| self.rot[row][k] * p[k]).sum::<f64>();
        }
        y
    }

    /// `rotᵀ g`: a vector of the wall's frame (a gradient, a normal) in world
    /// coordinates; `dim` components used.
    pub fn to_world(&self, g: &[f64; 3], dim: usize) -> [f64; 3] {
        let mut out = [0.0; 3];
        for row in 0..dim {
            out[row] = (0..dim).map(|k| self.rot[k][row] * g[k]).sum::<f64>();
        }
        out
    }

    /// `rotᵀ H rot`: a Hessian of the wall's frame in world coordinates.
    pub fn hessian_to_world(&self, h: &[[f64; 3]; 3], dim: usize) -> [[f64; 3]; 3] {
        let mut out = [[0.0; 3]; 3];
        for r in 0..dim {
            for c in 0..dim {
                let mut s = 0.0;
                for a in 0..dim {
                    for b in 0..dim {
                        s += self.rot[a][r] * h[a][b] * self.rot[b][c];
                    }
                }
                out[r][c] = s;
            }
        }
        out
    }

    /// How the wall's point at world `x` moves when the wall goes from `self` to
    /// `to`: `x ↦ x + D x + s`, D and s in a [`Carry`].
    pub fn carry_to(&self, to: &Frame) -> Carry {
        // x' = toᵀ (self x + offset − to.offset)
        let mut carry = Carry::NONE;
        for r in 0..3 {
            for c in 0..3 {
                let m: f64 = (0..3).map(|k| to.rot[k][r] * self.rot[k][c]).sum();
                carry.d[r][c] = m - if r == c { 1.0 } else { 0.0 };
            }
            carry.s[r] = (0..3)
                .map(|k| to.rot[k][r] * (self.offset[k] - to.offset[k]))
                .sum();
        }
        carry
    }
}

/// The displacement `D x + s` (m) of a wall's point at `x` over a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Carry {
    /// Rows of D (dimensionless).
    pub d: [[f64; 3]; 3],
    /// s (m).
    pub s: [f64; 3],
}

impl Carry {
    /// A wall that did not move.
    pub const NONE: Carry = Carry {
        d: [[0.0; 3]; 3],
        s: [0.0; 3],
    };

    /// The displacement (m) of the wall's point at `x` into `out[..x.len()]`.
    pub fn at(&self, x: &[f64], out: &mut [f64]) {
        for r in 0..x.len() {
            out[r] = self.s[r] + (0..x.len()).map(|k| self.d[r][k] * x[k]).sum::<f64>();
        }
    }
}

impl Carry {
    /// The move (m) of the wall's point that passes `x` half way through it (its
    /// chord, whose direction is the wall's velocity there to second order, where
    /// [`Carry::at`] from the point's start is off by the turn's sagitta): `c − ½ D c`,
    /// `c` the move from `x`, into `out[..x.len()]`.
    pub fn through(&self, x: &[f64], out: &mut [f64]) {
        let dim = x.len();
        let mut c = [0.0; 3];
        self.at(x, &mut c[..dim]);
        for r in 0..dim {
            out[r] = c[r] - 0.5 * (0..dim).map(|k| self.d[r][k] * c[k]).sum::<f64>();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::Motion;

    fn quarter_turn_and_shift() -> (Pose, Vec<f64>) {
        let m = Motion::Rigid {
            velocity: [1.0, 0.0, 0.0],
            omega: [0.0, 0.0, std::f64::consts::FRAC_PI_2],
            start: 0.0,
            stop: f64::INFINITY,
        };
        (m.pose(1.0).unwrap(), vec![1.0, 1.0])
    }

    #[test]
    fn a_frame_sees_the_moved_walls_point_where_it_was() {
        let (pose, c) = quarter_turn_and_shift();
        let f = Frame::of_pose(&pose, &c);
        // the wall's own point (2, 1) goes to c + u + R (y − c) = (1,1)+(1,0)+(0,1)
        let y = f.to_wall(&[2.0, 2.0]);
        assert!(
            (y[0] - 2.0).abs() < 1e-12 && (y[1] - 1.0).abs() < 1e-12,
            "{y:?}"
        );
        let back = f.to_world(&f.dir_to_wall(&[0.3, -0.7]), 2);
        assert!((back[0] - 0.3).abs() < 1e-12 && (back[1] + 0.7).abs() < 1e-12);
    }

    #[test]
    fn a_moved_walls_gradient_and_hessian_match_finite_differences() {
        use crate::implicit::shapes::{shape_expr, Shape};
        use crate::implicit::ImplicitWall;
        let m = Motion::Rigid {
            velocity: [0.1, -0.2, 0.3],
            omega: [0.4, 0.5, -0.6],
            start: 0.0,
            stop: f64::INFINITY,
        };
        let wall = ImplicitWall {
            expr: shape_expr(&Shape::Ellipsoid(vec![1.0, 2.0, 3.0]), &[0.1, 0.2, 0.3]),
            label: "ellipsoid".into(),
            frame: Some(Frame::of_pose(&m.pose(1.3).unwrap(), &[0.5, 0.0, -0.5])),
        };
        let x = [0.3, -0.4, 0.7];
        let du = wall.dual(&x);
        let h = 1e-6;
        for k in 0..3 {
            let (mut a, mut b) = (x, x);
            a[k] += h;
            b[k] -= h;
            let fd = (wall.distance(&a) - wall.distance(&b)) / (2.0 * h);
            assert!((fd - du.g[k]).abs() < 1e-8, "∂{k}: {fd} vs {}", du.g[k]);
            let (ga, gb) = (wall.dual(&a).g, wall.dual(&b).g);
            for c in 0..3 {
                let fd = (ga[c] - gb[c]) / (2.0 * h);
                assert!((fd - du.h[k][c]).abs() < 1e-7, "∂{k}∂{c}");
            }
        }
        assert!((du.v - wall.distance(&x)).abs() < 1e-15);
    }

    #[test]
    fn a_carry_moves_a_point_fixed_to_the_wall_with_it() {
        let (pose, c) = quarter_turn_and_shift();
        let (f0, f1) = (Frame::IDENTITY, Frame::of_pose(&pose, &c));
        let carry = f0.carry_to(&f1);
        let x = [2.0, 1.0];
        let mut d = [0.0; 2];
        carry.at(&x, &mut d);
        let moved = [x[0] + d[0], x[1] + d[1]];
        // the same wall point, seen from the new frame, is where it was
        let y = f1.to_wall(&moved);
        assert!(
            (y[0] - 2.0).abs() < 1e-12 && (y[1] - 1.0).abs() < 1e-12,
            "{y:?}"
        );
        assert_eq!(Frame::IDENTITY.carry_to(&Frame::IDENTITY), Carry::NONE);
    }
}
