//! Scripted motion of driven nodes (docs/SCRIPTED.md): what a driven node set's
//! prescribed pose is at each time. A [`Drive`] holds its nodes' positions at
//! `t = 0` and a [`Motion`]; [`Drive::targets`] puts every node where the motion's
//! rigid pose at time `t` takes it, `c + u(t) + R(t) (x⁰ − c)` about the set's centre
//! `c`. How the run follows the targets without letting anything pass through
//! anything is [`crate::drive`]'s.

use glam::{DMat3, DQuat, DVec3};

/// A rigid pose: a rotation (row-major 3 × 3; 2D uses its upper-left 2 × 2) about a
/// drive's centre, then a translation (m).
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    /// Translation (m), `dim` components (3 stored; a 2D pose's third is 0).
    pub translate: [f64; 3],
    /// Rotation matrix, row-major.
    pub rotation: [f64; 9],
}

impl Pose {
    /// The identity pose (the nodes where they start).
    pub fn identity() -> Self {
        Self {
            translate: [0.0; 3],
            rotation: DMat3::IDENTITY.transpose().to_cols_array(),
        }
    }

    /// The pose a fraction `alpha` ∈ [0, 1] of the way from `self` to `to`: the
    /// translation interpolated linearly, the rotation along the shortest arc.
    pub fn lerp(&self, to: &Pose, alpha: f64) -> Pose {
        // from_cols_array of row-major data is the transpose: R = that, transposed.
        let rot = |p: &Pose| DQuat::from_mat3(&DMat3::from_cols_array(&p.rotation).transpose());
        let r = rot(self).slerp(rot(to), alpha);
        Self {
            translate: [0, 1, 2]
                .map(|k| self.translate[k] + alpha * (to.translate[k] - self.translate[k])),
            rotation: DMat3::from_quat(r).transpose().to_cols_array(),
        }
    }

    /// Translation `u` (m) and a rotation by `angle` (rad) about `axis` (a unit
    /// vector; 2D motions rotate about z).
    fn new(u: [f64; 3], axis: [f64; 3], angle: f64) -> Self {
        let r = DMat3::from_axis_angle(DVec3::from(axis), angle);
        Self {
            translate: u,
            // glam stores columns; the transpose's columns are the rows.
            rotation: r.transpose().to_cols_array(),
        }
    }
}

/// One keyframe of [`Motion::Keyframes`].
#[derive(Clone, Debug, PartialEq)]
pub struct Keyframe {
    /// Time (s).
    pub time: f64,
    /// Translation at that time (m), 3 components (z = 0 in 2D).
    pub translate: [f64; 3],
    /// Rotation angle about the drive's axis at that time (rad).
    pub angle: f64,
}

/// A driven set's prescribed motion.
#[derive(Clone, Debug, PartialEq)]
pub enum Motion {
    /// Constant velocity `velocity` (m/s) and angular velocity `omega` (rad/s, a
    /// vector along the axis; 2D: `[0, 0, ω]`) from `start` to `stop` (s): the pose
    /// at `t` is that of `τ = clamp(t, start, stop) − start`, translation `v τ`,
    /// rotation by `|ω| τ` about the centre as it moves (a screw motion where both act).
    Rigid {
        /// Velocity (m/s), 3 components.
        velocity: [f64; 3],
        /// Angular velocity (rad/s), 3 components.
        omega: [f64; 3],
        /// Start time (s).
        start: f64,
        /// Stop time (s); `+∞` for none.
        stop: f64,
    },
    /// Piecewise-linear keyframes (translation and angle about `axis`, sorted by
    /// time): before the first the first frame's pose, after the last the last's.
    Keyframes {
        /// Unit rotation axis (z in 2D).
        axis: [f64; 3],
        /// The frames, times strictly increasing.
        frames: Vec<Keyframe>,
    },
    /// Targets set from outside before each step (the library's
    /// `Simulation::set_targets`, Python's `Simulation.set_targets`); until then the
    /// nodes stay where they are.
    External,
}

impl Motion {
    /// The pose at time `t` (s); `None` for [`Motion::External`].
    pub fn pose(&self, t: f64) -> Option<Pose> {
        match self {
            Motion::Rigid {
                velocity,
                omega,
                start,
                stop,
            } => {
                let tau = t.clamp(*start, *stop) - start;
                let tau = if tau.is_finite() { tau.max(0.0) } else { 0.0 };
                let w = DVec3::from(*omega);
                let speed = w.length();
                let axis = if speed > 0.0 {
                    (w / speed).to_array()
                } else {
                    [0.0, 0.0, 1.0]
                };
                let u = (DVec3::from(*velocity) * tau).to_array();
                Some(Pose::new(u, axis, speed * tau))
            }
            Motion::Keyframes { axis, frames } => {
                let first = frames.first()?;
                let last = frames.last()?;
                let (u, angle) = if t <= first.time {
                    (first.translate, first.angle)
                } else if t >= last.time {
                    (last.translate, last.angle)
                } else {
                    let k = frames.partition_point(|f| f.time <= t);
                    let (a, b) = (&frames[k - 1], &frames[k]);
                    let s = (t - a.time) / (b.time - a.time);
                    let lerp = |p: f64, q: f64| p + s * (q - p);
                    let u = [0, 1, 2].map(|c| lerp(a.translate[c], b.translate[c]));
                    (u, lerp(a.angle, b.angle))
                };
                Some(Pose::new(u, *axis, angle))
            }
            Motion::External => None,
        }
    }
}

/// A set of nodes that follows a prescribed motion (the scene's `bodies.N.drive`).
#[derive(Clone, Debug, PartialEq)]
pub struct Drive {
    /// Name for messages and outputs: `<body>.drive<j>` or the scene's `name`.
    pub name: String,
    /// The driven nodes (model indices, ascending).
    pub nodes: Vec<u32>,
    /// Their positions at t = 0 (m), `nodes × dim`.
    pub rest: Vec<f64>,
    /// The rotation centre at t = 0 (m), `dim` components; it moves with the translation.
    pub center: Vec<f64>,
    /// The motion.
    pub motion: Motion,
}

impl Drive {
    /// Writes each node's target at time `t` (s) into `out` (`nodes × dim`, m);
    /// `false` (nothing written) for a motion set from outside.
    pub fn targets(&self, dim: usize, t: f64, out: &mut [f64]) -> bool {
        let Some(pose) = self.motion.pose(t) else {
            return false;
        };
        let r = &pose.rotation;
        for (k, x0) in self.rest.chunks_exact(dim).enumerate() {
            let o = &mut out[k * dim..(k + 1) * dim];
            for (row, oc) in o.iter_mut().enumerate() {
                let turned: f64 = (0..dim)
                    .map(|c| r[row * 3 + c] * (x0[c] - self.center[c]))
                    .sum();
                *oc = self.center[row] + pose.translate[row] + turned;
            }
        }
        true
    }
}

/// Which walls a [`MovingWall`] moves.
#[derive(Clone, Debug, PartialEq)]
pub enum WallParts {
    /// The plane wall of this index among the model's plane walls; it translates.
    Plane(usize),
    /// These implicit walls (the parts one scene wall was split into at its top-level
    /// `min`s); they translate and turn together.
    Implicit(std::ops::Range<usize>),
}

/// A wall that follows a motion (the scene's `walls.N.drive`): a plane wall's point
/// follows `origin + u(t)` (its normal stays); an implicit wall moves rigidly by the
/// motion's pose about `origin`, its rotation centre (see [`crate::implicit::Frame`]).
#[derive(Clone, Debug, PartialEq)]
pub struct MovingWall {
    /// Name for messages and outputs: `walls[i]`.
    pub name: String,
    /// The walls it moves.
    pub parts: WallParts,
    /// A plane wall's point, or an implicit wall's rotation centre (m) at t = 0,
    /// `dim` components.
    pub origin: Vec<f64>,
    /// The motion (a plane wall's rotation is the identity).
    pub motion: Motion,
}

impl MovingWall {
    /// A plane wall's point (m) at time `t` (s); `None` for a motion set from outside.
    pub fn origin_at(&self, t: f64) -> Option<Vec<f64>> {
        let pose = self.motion.pose(t)?;
        Some(
            self.origin
                .iter()
                .zip(pose.translate)
                .map(|(o, u)| o + u)
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drive(motion: Motion) -> Drive {
        Drive {
            name: "d".into(),
            nodes: vec![0, 1],
            rest: vec![1.0, 0.0, 2.0, 0.0],
            center: vec![0.0, 0.0],
            motion,
        }
    }

    #[test]
    fn a_rigid_motion_turns_about_its_moving_centre_between_start_and_stop() {
        let d = drive(Motion::Rigid {
            velocity: [1.0, 0.0, 0.0],
            omega: [0.0, 0.0, std::f64::consts::PI],
            start: 1.0,
            stop: 1.5,
        });
        let mut x = [0.0; 4];
        assert!(d.targets(2, 0.5, &mut x));
        assert_eq!(x, [1.0, 0.0, 2.0, 0.0]);
        d.targets(2, 1.5, &mut x);
        // half a second: 0.5 m along x, a quarter turn about the moved centre
        let want = [0.5, 1.0, 0.5, 2.0];
        for (a, b) in x.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{x:?}");
        }
        let mut later = [0.0; 4];
        d.targets(2, 9.0, &mut later);
        assert_eq!(x, later, "the pose holds after stop");
    }

    #[test]
    fn keyframes_interpolate_translation_and_angle_and_hold_at_the_ends() {
        let d = drive(Motion::Keyframes {
            axis: [0.0, 0.0, 1.0],
            frames: vec![
                Keyframe {
                    time: 0.0,
                    translate: [0.0; 3],
                    angle: 0.0,
                },
                Keyframe {
                    time: 2.0,
                    translate: [0.0, -2.0, 0.0],
                    angle: std::f64::consts::PI,
                },
            ],
        });
        let mut x = [0.0; 4];
        d.targets(2, 1.0, &mut x);
        let want = [0.0, 0.0, 0.0, 1.0];
        for (a, b) in x.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{x:?}");
        }
        d.targets(2, 5.0, &mut x);
        assert!(
            (x[0] + 1.0).abs() < 1e-12 && (x[1] + 2.0).abs() < 1e-12,
            "{x:?}"
        );
        assert!(!drive(Motion::External).targets(2, 1.0, &mut x));
    }

    #[test]
    fn a_3d_rotation_follows_the_right_hand_rule() {
        let d = Drive {
            name: "d".into(),
            nodes: vec![0],
            rest: vec![1.0, 0.0, 0.0],
            center: vec![0.0; 3],
            motion: Motion::Rigid {
                velocity: [0.0; 3],
                omega: [0.0, 0.0, 1.0],
                start: 0.0,
                stop: f64::INFINITY,
            },
        };
        let mut x = [0.0; 3];
        d.targets(3, std::f64::consts::FRAC_PI_2, &mut x);
        assert!(x[0].abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12 && x[2].abs() < 1e-12);
    }

    #[test]
    fn a_pose_halfway_turns_half_the_angle() {
        let turn = |a: f64| Pose::new([2.0 * a, 0.0, 0.0], [0.0, 0.0, 1.0], a);
        let half = turn(0.2).lerp(&turn(1.0), 0.5);
        let want = turn(0.6);
        for (a, b) in half.rotation.iter().zip(&want.rotation) {
            assert!((a - b).abs() < 1e-12, "{half:?}");
        }
        assert!((half.translate[0] - 1.2).abs() < 1e-12);
    }
}
