//! The rigid part of a velocity field, body by body: the translation and rotation
//! with the body's linear and angular momentum. The restitution law reads a contact's
//! normal velocity off it, so that a body's bounce is that of its bulk motion (its
//! centre of mass and spin), not of a node's vibration; a single particle's rigid
//! part is its velocity.

use crate::model::Model;
use glam::{DMat3, DVec3};

/// The rigid bodies of a model: its nodes joined by springs (a scene body of many
/// particles is as many bodies; a mesh in two pieces, two).
pub struct Bodies {
    /// Per body, its nodes in increasing order.
    members: Vec<Vec<usize>>,
    /// Per node, its body.
    body_of: Vec<u32>,
}

impl Bodies {
    /// The bodies of `model`: the connected components of its spring graph.
    pub fn new(model: &Model) -> Self {
        let n = model.num_nodes();
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        for s in &model.springs {
            let (a, b) = (
                root(&mut parent, s.a as usize),
                root(&mut parent, s.b as usize),
            );
            if a != b {
                parent[a.max(b)] = a.min(b);
            }
        }
        let mut index = vec![u32::MAX; n];
        let mut members: Vec<Vec<usize>> = Vec::new();
        let body_of = (0..n)
            .map(|i| {
                let r = root(&mut parent, i);
                if index[r] == u32::MAX {
                    index[r] = members.len() as u32;
                    members.push(Vec::new());
                }
                members[index[r] as usize].push(i);
                index[r]
            })
            .collect();
        Self { members, body_of }
    }

    /// The body of node `i`.
    pub fn of(&self, i: u32) -> u32 {
        self.body_of[i as usize]
    }

    /// The rigid part of `v` (m/s) at positions `x` (m), `nodes × dim`. Fixed nodes
    /// keep their own (zero) velocity, and a body with fixed nodes is not rigid in
    /// the sense of a free body: its nodes keep theirs.
    pub fn rigid(&self, model: &Model, x: &[f64], v: &[f64]) -> Vec<f64> {
        let mut out = v.to_vec();
        for r in self.free(model) {
            let f = Frame::of(model, x, r);
            let (mut p, mut l) = (DVec3::ZERO, DVec3::ZERO);
            for &i in r {
                let u = model.mass[i] * at(v, model.dim, i);
                p += u;
                l += (at(x, model.dim, i) - f.centre).cross(u);
            }
            f.write(model, x, r, p, l, &mut out);
        }
        out
    }

    /// `y` with the rigid part of each free body replaced by the body's rigid
    /// response to the node impulses `g` (N·s, `nodes × dim`): its momentum changes
    /// by Σ g and its angular momentum by Σ r × g, as a rigid body's would, while
    /// its shape responds as `y` does.
    pub fn with_rigid_response(&self, model: &Model, x: &[f64], y: &[f64], g: &[f64]) -> Vec<f64> {
        let own = self.rigid(model, x, y);
        let mut out: Vec<f64> = y.iter().zip(&own).map(|(a, b)| a - b).collect();
        let mut response = vec![0.0; y.len()];
        let dim = model.dim;
        for r in self.free(model) {
            let f = Frame::of(model, x, r);
            let (mut p, mut l) = (DVec3::ZERO, DVec3::ZERO);
            for &i in r {
                let u = at(g, dim, i);
                p += u;
                l += (at(x, dim, i) - f.centre).cross(u);
            }
            f.write(model, x, r, p, l, &mut response);
            for &i in r {
                for k in i * dim..(i + 1) * dim {
                    out[k] += response[k];
                }
            }
        }
        for r in self.members.iter().filter(|r| !is_free(model, r)) {
            for &i in r {
                out[i * dim..(i + 1) * dim].copy_from_slice(&y[i * dim..(i + 1) * dim]);
            }
        }
        out
    }

    /// The bodies that move as rigid bodies when free: more than one node, none fixed.
    fn free<'a>(&'a self, model: &'a Model) -> impl Iterator<Item = &'a [usize]> {
        self.members
            .iter()
            .filter(move |r| is_free(model, r))
            .map(Vec::as_slice)
    }
}

fn is_free(model: &Model, r: &[usize]) -> bool {
    r.len() >= 2 && !r.iter().any(|&i| model.fixed[i])
}

/// Node `i` of `s` as a 3-vector (z = 0 in 2D).
fn at(s: &[f64], dim: usize, i: usize) -> DVec3 {
    let p = &s[i * dim..(i + 1) * dim];
    DVec3::new(p[0], p[1], if dim == 3 { p[2] } else { 0.0 })
}

/// A body's mass, centre and inertia about it.
struct Frame {
    mass: f64,
    centre: DVec3,
    inertia: DMat3,
}

impl Frame {
    fn of(model: &Model, x: &[f64], r: &[usize]) -> Self {
        let (mut mass, mut c) = (0.0, DVec3::ZERO);
        for &i in r {
            mass += model.mass[i];
            c += model.mass[i] * at(x, model.dim, i);
        }
        let centre = c / mass;
        let mut inertia = DMat3::ZERO;
        for &i in r {
            let d = at(x, model.dim, i) - centre;
            let id = DMat3::from_diagonal(DVec3::splat(d.length_squared()));
            inertia += model.mass[i] * (id - outer(d, d));
        }
        Self {
            mass,
            centre,
            inertia,
        }
    }

    /// Writes the rigid velocity with momentum `p` and angular momentum `l` into
    /// the nodes `r` of `out`.
    fn write(&self, model: &Model, x: &[f64], r: &[usize], p: DVec3, l: DVec3, out: &mut [f64]) {
        let dim = model.dim;
        let vel = p / self.mass;
        let i = &self.inertia;
        let w = if dim == 2 {
            let izz = i.z_axis.z;
            DVec3::new(0.0, 0.0, if izz > 0.0 { l.z / izz } else { 0.0 })
        } else {
            // A body on a line (a rope) has no inertia about it: a small multiple of
            // the trace keeps the solve defined and that spin zero.
            let eps = 1e-12 * (i.x_axis.x + i.y_axis.y + i.z_axis.z);
            (*i + DMat3::from_diagonal(DVec3::splat(eps.max(f64::MIN_POSITIVE)))).inverse() * l
        };
        for &k in r {
            let u = vel + w.cross(at(x, dim, k) - self.centre);
            out[k * dim..(k + 1) * dim].copy_from_slice(&u.to_array()[..dim]);
        }
    }
}

/// `a bᵀ`.
fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> Model {
        crate::scene::parse(
            r#"
dimension = 2
[solver]
dt = 0.01
[contact]
dhat = 0.01
kappa = 1.0
[[bodies]]
generator = "grid"
size = [1.0, 1.0]
cells = [2, 2]
density = 1.0
spring_stiffness = 1.0
"#,
            "t.toml",
            "t",
        )
        .unwrap()
        .model
    }

    #[test]
    fn a_rigid_motion_is_its_own_rigid_part() {
        let m = square();
        let (w, vel) = (0.7, [0.3, -1.2]);
        let v: Vec<f64> =
            m.x0.chunks(2)
                .flat_map(|p| [vel[0] - w * p[1], vel[1] + w * p[0]])
                .collect();
        let r = Bodies::new(&m).rigid(&m, &m.x0, &v);
        for (a, b) in r.iter().zip(&v) {
            assert!((a - b).abs() < 1e-12, "{r:?} {v:?}");
        }
    }

    #[test]
    fn the_rigid_part_keeps_momentum_and_drops_a_squeeze() {
        let m = square();
        // A squeeze towards the centre (no momentum, no spin) on a uniform fall.
        let v: Vec<f64> = m.x0.chunks(2).flat_map(|p| [-p[0], -1.0 - p[1]]).collect();
        let r = Bodies::new(&m).rigid(&m, &m.x0, &v);
        for u in r.chunks(2) {
            assert!(u[0].abs() < 1e-12 && (u[1] + 1.0).abs() < 1e-12, "{r:?}");
        }
    }
}
