//! The work a script does (J): the force it needs at each driven node to hold the
//! node where the step put it, times the node's move over the step.
//!
//! The step solves `∇E(x) = 0` for the free nodes, `E = ½ (x − x̃)ᵀ M (x − x̃) + c h² Ψ(x)`;
//! at a driven node the residual is what the script supplies:
//! `f_i = ∇_i E(xⁿ⁺¹) / (c h²) = m_i (x_i − x̃_i)/(c h²) + ∇_i Ψ(xⁿ⁺¹)` (N), and the step's
//! work is `Σ f_i · (x_i^{n+1} − x_i^n)`. It covers the springs, gravity, the walls'
//! and the pairs' barriers and the driven nodes' own inertia; friction forces on
//! driven nodes are left out (docs/SCRIPTED.md).

use crate::collision::pairs::Pair;
use crate::model::Model;
use crate::potential::{
    node_potential_gradient, pair_barrier_gradient, spring_gradients, Adjacency,
};

/// Per-step reaction forces of the driven nodes, with the model's node → springs
/// adjacency built once.
#[derive(Debug)]
pub struct Reactions {
    offsets: Vec<u32>,
    springs: Vec<u32>,
    /// Whether bodies touch each other or themselves (pair barriers act).
    contact: bool,
    /// The pairs never treated as contacts (the model's rest exclusions).
    excluded: Vec<Pair>,
}

impl Reactions {
    /// The adjacency and exclusions of `model`.
    pub fn new(model: &Model) -> Self {
        let (offsets, springs) = model.node_springs();
        let contact = model.self_contact.enabled && !model.collision.is_empty();
        Self {
            offsets,
            springs,
            contact,
            excluded: if contact {
                model.rest_exclusions()
            } else {
                vec![]
            },
        }
    }

    /// The exclusions (for the drive's CCD bound).
    pub fn excluded(&self) -> &[Pair] {
        &self.excluded
    }

    /// The force (N, `nodes.len() × dim`) the script applies at each of `nodes` at
    /// positions `x` (m, every node) with the driven nodes' predictions `pred` (m,
    /// `nodes.len() × dim`, the integrator's x̃).
    pub fn forces(&self, model: &Model, x: &[f64], nodes: &[u32], pred: &[f64]) -> Vec<f64> {
        let dim = model.dim;
        let mut spring_grad = vec![0.0; model.springs.len() * dim];
        spring_gradients(model, x, &mut spring_grad);
        let pairs = self
            .contact
            .then(|| pair_barrier_gradient(model, x, &self.excluded));
        let adjacency = Adjacency {
            offsets: &self.offsets,
            springs: &self.springs,
        };
        let weight = model.solver.potential_weight();
        let mut out = vec![0.0; nodes.len() * dim];
        for (k, &i) in nodes.iter().enumerate() {
            let i = i as usize;
            let o = &mut out[k * dim..(k + 1) * dim];
            node_potential_gradient(model, adjacency, &spring_grad, x, i, |_| {}, o);
            for c in 0..dim {
                let inertia = model.mass[i] * (x[i * dim + c] - pred[k * dim + c]) / weight;
                let pair = pairs.as_ref().map_or(0.0, |g| g[i * dim + c]);
                o[c] += inertia + pair;
            }
        }
        out
    }
}
