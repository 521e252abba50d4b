//! The contacts the restitution law follows: each free node against each wall that
//! has an e, and each pair of collision primitives where the pairs have one, with
//! the contact's distance measure d (m) and its gradient ∇d over the contact's nodes.
//!
//! The distance measure is the one the barrier acts on: `n·(x − o)` for a plane wall,
//! `W(x)` for an implicit wall, the primitives' distance `√(d²)` for a pair. Its rate
//! `ḋ = ∇d · v` is the contact's normal relative velocity (m/s where |∇d| = 1).

use crate::collision::barrier::distance_derivatives;
use crate::collision::pairs::{candidates, stacked, Motion, Pair};
use crate::contact::{walls, Wall};
use crate::model::{Model, RestitutionParams};

/// Which contact: a node against a wall (the wall's index in the contact layer's
/// order), or a pair of primitives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    /// Node `node` against wall `wall`.
    Wall {
        /// The node.
        node: u32,
        /// The wall ([`crate::contact::walls`] order).
        wall: u32,
    },
    /// Two collision primitives.
    Pair(Pair),
}

/// One contact at the current positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Which contact.
    pub key: Key,
    /// Its distance measure d (m).
    pub d: f64,
    /// Its nodes (the first `k`).
    pub nodes: [u32; 4],
    /// How many nodes.
    pub k: usize,
    /// ∇d over the nodes, `k × dim` stacked (dimensionless).
    pub grad: [f64; 12],
    /// Its coefficient of restitution.
    pub e: f64,
}

impl Contact {
    /// `ḋ = ∇d · v` (m/s) for node velocities `v` (`nodes × dim`).
    pub fn rate(&self, v: &[f64], dim: usize) -> f64 {
        let mut r = 0.0;
        for (l, &i) in self.nodes[..self.k].iter().enumerate() {
            for c in 0..dim {
                r += self.grad[l * dim + c] * v[i as usize * dim + c];
            }
        }
        r
    }

    /// `a = ∇d · g` (m/s²): how gravity `g` (`dim` components, the same on every
    /// node) changes ḋ; 0 for a pair (its distance does not change under a common
    /// translation).
    pub fn gravity_rate(&self, g: &[f64], dim: usize) -> f64 {
        (0..self.k)
            .map(|l| (0..dim).map(|c| self.grad[l * dim + c] * g[c]).sum::<f64>())
            .sum()
    }
}

/// Node `node` against wall `wall` at `x`; `None` where that wall has no e or the
/// measure is not finite.
fn wall_contact(
    model: &Model,
    params: &RestitutionParams,
    node: u32,
    wall: u32,
    x: &[f64],
) -> Option<Contact> {
    let e = body_e(model, params, node).or(params.walls.get(wall as usize).copied().flatten())?;
    let dim = model.dim;
    let i = node as usize;
    let xi = &x[i * dim..(i + 1) * dim];
    let mut grad = [0.0; 12];
    let d = match walls(model).nth(wall as usize)? {
        Wall::Plane(w) => {
            grad[..dim].copy_from_slice(&w.normal);
            w.distance(xi)
        }
        Wall::Implicit(w) => {
            let dual = w.dual(xi);
            grad[..dim].copy_from_slice(&dual.g[..dim]);
            dual.v
        }
    };
    d.is_finite().then_some(Contact {
        key: Key::Wall { node, wall },
        d,
        nodes: [node, 0, 0, 0],
        k: 1,
        grad,
        e,
    })
}

/// The e of node `node`'s scene body, where it sets one.
fn body_e(model: &Model, params: &RestitutionParams, node: u32) -> Option<f64> {
    let i = node as usize;
    let b = model
        .bodies
        .partition_point(|b| b.first_node + b.nodes <= i);
    params.bodies.get(b).copied().flatten()
}

/// The pair `pair` at `x`; `None` where neither side has an e or the primitives touch.
fn pair_contact(
    model: &Model,
    params: &RestitutionParams,
    pair: Pair,
    x: &[f64],
) -> Option<Contact> {
    let mesh = &model.collision;
    let (nodes, k, s) = stacked(mesh, x, pair);
    let side = |node: u32| body_e(model, params, node).or(params.pairs);
    let e = match (side(nodes[0]), side(nodes[k - 1])) {
        (Some(a), Some(b)) => 0.5 * (a + b),
        (a, b) => a.or(b)?,
    };
    let der = distance_derivatives(pair.kind, mesh.dim, &s);
    let d = der.value.max(0.0).sqrt();
    if d <= 0.0 || !d.is_finite() {
        return None;
    }
    let mut grad = [0.0; 12];
    for (g, ds) in grad.iter_mut().zip(&der.gradient[..k * mesh.dim]) {
        *g = ds / (2.0 * d);
    }
    Some(Contact {
        key: Key::Pair(pair),
        d,
        nodes,
        k,
        grad,
        e,
    })
}

/// The contact `key` at `x`, wherever it is (a contact being followed after it has
/// left d̂).
pub fn at(model: &Model, params: &RestitutionParams, key: Key, x: &[f64]) -> Option<Contact> {
    match key {
        Key::Wall { node, wall } => wall_contact(model, params, node, wall, x),
        Key::Pair(pair) => pair_contact(model, params, pair, x),
    }
}

/// Every contact with an e within d̂ at `x` (walls by node, then pairs in the broad
/// phase's order); `excluded` are the mesh neighbours never treated as contacts.
pub fn near(
    model: &Model,
    params: &RestitutionParams,
    excluded: &[Pair],
    x: &[f64],
) -> Vec<Contact> {
    let dhat = model.barrier.dhat;
    let mut out = Vec::new();
    let n_walls = walls(model).count() as u32;
    let any = |v: &[Option<f64>]| v.iter().any(Option::is_some);
    if any(&params.walls) || any(&params.bodies) {
        for node in 0..model.num_nodes() as u32 {
            if model.fixed[node as usize] {
                continue;
            }
            for wall in 0..n_walls {
                if let Some(c) = wall_contact(model, params, node, wall, x) {
                    if c.d < dhat {
                        out.push(c);
                    }
                }
            }
        }
    }
    let mesh = &model.collision;
    if (params.pairs.is_some() || any(&params.bodies))
        && model.self_contact.enabled
        && !mesh.is_empty()
    {
        let motion = Motion { x, sweep: None };
        for pair in candidates(mesh, motion, dhat, excluded) {
            if let Some(c) = pair_contact(model, params, pair, x) {
                if c.d < dhat {
                    out.push(c);
                }
            }
        }
    }
    out
}
