//! The work friction against a moving wall does over a step (J): the lagged friction
//! force of each node on the wall, `−∂D/∂x` with the slip measured relative to the
//! wall, times how far the wall's point under the node moved. A belt's work on a box
//! it carries, which `drive_work` holds with the barriers' (docs/SCRIPTED.md).

use super::walls::Walls;
use crate::energy::barrier::barrier_gradient;
use crate::energy::friction::friction_gradient;
use crate::model::Model;
use crate::script::WallParts;

/// One node's lagged friction contact with a moving wall.
#[derive(Clone, Debug)]
struct Contact {
    /// The moving wall (index into `Model::moving_walls`).
    wall: usize,
    node: usize,
    /// μ (dimensionless) and λ (N).
    mu: f64,
    lambda: f64,
    /// Unit normal at the step's start.
    normal: [f64; 3],
    /// The node's position at the step's start (m).
    start: [f64; 3],
    /// How far the wall's point there moved in the step (m).
    moved: [f64; 3],
}

/// The step's friction contacts with moving walls.
#[derive(Debug, Default)]
pub struct WallFriction {
    contacts: Vec<Contact>,
}

impl WallFriction {
    /// The lagged contacts of the free nodes at `x` (m, the step's start) with every
    /// moving wall that has friction, the walls where they are before their move.
    pub fn lag(model: &Model, walls: &Walls, x: &[f64]) -> Self {
        let (dim, b) = (model.dim, &model.barrier);
        let planes = model.walls.len();
        let mut contacts = vec![];
        for (wall, m) in model.moving_walls.iter().enumerate() {
            let slots: Vec<usize> = match &m.parts {
                WallParts::Plane(w) => vec![*w],
                WallParts::Implicit(r) => r.clone().map(|k| planes + k).collect(),
            };
            for slot in slots {
                let mu = model.friction.mu(slot, planes);
                if mu <= 0.0 {
                    continue;
                }
                for (node, xi) in x.chunks_exact(dim).enumerate() {
                    if model.fixed[node] {
                        continue;
                    }
                    let (d, g) = match slot < planes {
                        true => {
                            let p = &walls.planes[slot];
                            let mut n = [0.0; 3];
                            n[..dim].copy_from_slice(&p.normal);
                            (p.distance(xi), n)
                        }
                        false => {
                            let du = walls.implicit[slot - planes].dual(xi);
                            (du.v, du.g)
                        }
                    };
                    let len = g[..dim].iter().map(|c| c * c).sum::<f64>().sqrt();
                    let lambda = -barrier_gradient(b, model.contact_area[node], d) * len;
                    if !(lambda > 0.0 && len > 0.0 && len.is_finite()) {
                        continue;
                    }
                    let mut start = [0.0; 3];
                    start[..dim].copy_from_slice(xi);
                    contacts.push(Contact {
                        wall,
                        node,
                        mu,
                        lambda,
                        normal: g.map(|c| c / len),
                        start,
                        moved: [0.0; 3],
                    });
                }
            }
        }
        Self { contacts }
    }

    /// Records how far each contact's wall point moved, once the walls have moved.
    pub fn moved(&mut self, model: &Model, walls: &Walls) {
        let dim = model.dim;
        for c in &mut self.contacts {
            match &model.moving_walls[c.wall].parts {
                WallParts::Plane(w) => {
                    c.moved[..dim].copy_from_slice(&walls.shift[w * dim..(w + 1) * dim]);
                }
                WallParts::Implicit(r) => {
                    // the parts of one wall move alike
                    walls.carry[r.start].at(&c.start[..dim], &mut c.moved[..dim]);
                }
            }
        }
    }

    /// Each moving wall's friction work (J) with the nodes at `x` (the step's end).
    pub fn works(&self, model: &Model, x: &[f64]) -> Vec<f64> {
        let dim = model.dim;
        let eps = model.friction.eps_v * model.solver.dt;
        let mut works = vec![0.0; model.moving_walls.len()];
        for c in &self.contacts {
            let mut slip = [0.0; 3];
            for k in 0..dim {
                slip[k] = x[c.node * dim + k] - c.start[k] - c.moved[k];
            }
            let mut grad = [0.0; 3];
            let n = &c.normal[..dim];
            friction_gradient(c.mu, c.lambda, eps, n, &slip[..dim], &mut grad[..dim]);
            // the force on the node is −∂D/∂x; the wall's point moved by `moved`
            works[c.wall] -= (0..dim).map(|k| grad[k] * c.moved[k]).sum::<f64>();
        }
        works
    }
}
