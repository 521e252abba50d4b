//! Per-node formulas of the time integrators (docs/PHYSICS.md): the predicted
//! position that the inertia term pulls towards, and the velocity (and
//! acceleration) update once Newton has found `xⁿ⁺¹`, and Newmark's initial
//! acceleration. Mirrored by the GPU's step kernels (shaders/integrator.wgsl).

use crate::model::{Integrator, Model};
use crate::parallel;
use crate::potential::{node_potential_gradient, spring_gradients, Adjacency};

/// Predicted position of one component: `xⁿ + h vⁿ` (Euler) or `xⁿ + h vⁿ + (h²/4) aⁿ` (Newmark).
#[inline]
pub fn predict(integrator: Integrator, h: f64, xn: f64, v: f64, a: f64) -> f64 {
    match integrator {
        Integrator::ImplicitEuler => xn + h * v,
        Integrator::Newmark => xn + h * v + 0.25 * h * h * a,
    }
}

/// New `(v, a)` of one component from `xⁿ`, `xⁿ⁺¹`, the prediction and the old `(v, a)`.
/// Euler: `v = (xⁿ⁺¹ − xⁿ)/h`, a unchanged (unused). Newmark: `aⁿ⁺¹ = (4/h²)(xⁿ⁺¹ − x̂)`,
/// `vⁿ⁺¹ = vⁿ + (h/2)(aⁿ + aⁿ⁺¹)`.
#[inline]
pub fn update(
    integrator: Integrator,
    h: f64,
    xn: f64,
    x: f64,
    x_pred: f64,
    v: f64,
    a: f64,
) -> (f64, f64) {
    match integrator {
        Integrator::ImplicitEuler => ((x - xn) / h, a),
        Integrator::Newmark => {
            let a_new = 4.0 / (h * h) * (x - x_pred);
            (v + 0.5 * h * (a + a_new), a_new)
        }
    }
}

/// Newmark's consistent initial acceleration `a⁰ = −M⁻¹∇Ψ(x⁰)` (m/s²), `nodes × dim`,
/// at the model's initial positions (0 for fixed nodes). Both backends start from it.
pub fn initial_acceleration(model: &Model) -> Vec<f64> {
    let dim = model.dim;
    let (offsets, springs) = model.node_springs();
    let adjacency = Adjacency {
        offsets: &offsets,
        springs: &springs,
    };
    let mut spring_grad = vec![0.0; model.springs.len() * dim];
    spring_gradients(model, &model.x0, &mut spring_grad);
    let pairs = pair_barrier_gradient(model);
    let mut acc = vec![0.0; model.num_nodes() * dim];
    parallel::for_each_piece(&mut acc, dim, |i, out| {
        if !model.fixed[i] {
            // No friction contact exists before the first step.
            let x = &model.x0;
            node_potential_gradient(model, adjacency, &spring_grad, x, i, |_| {}, out);
            let m = model.mass[i];
            for (c, o) in out.iter_mut().enumerate() {
                *o = -(*o + pairs[i * dim + c]) / m;
            }
        } else {
            out.iter_mut().for_each(|c| *c = 0.0);
        }
    });
    acc
}

/// The gradient (N, `nodes × dim`) of the barriers between and within bodies at the
/// model's initial positions: the pairs that start closer than d̂ push on a⁰ as the
/// walls' barrier does. Zero without self-contact.
fn pair_barrier_gradient(model: &Model) -> Vec<f64> {
    use crate::collision::barrier::{pair_barrier, pair_weight};
    use crate::collision::pairs::{candidates, rest_neighbours, stacked, Motion};
    let (dim, x) = (model.dim, &model.x0);
    let mut grad = vec![0.0; x.len()];
    let mesh = &model.collision;
    if !model.self_contact.enabled || mesh.is_empty() {
        return grad;
    }
    let dhat = model.barrier.dhat;
    let excluded = rest_neighbours(mesh, x, crate::collision::REST_EXCLUSION * dhat);
    for pair in candidates(mesh, Motion { x, sweep: None }, dhat, &excluded) {
        let (nodes, k, s) = stacked(mesh, x, pair);
        let w = pair_weight(pair.kind, &nodes, &model.contact_area);
        let eps_x = mesh.mollifier_threshold(pair);
        if let Some(b) = pair_barrier(pair.kind, dim, &s, &model.barrier, w, eps_x, false) {
            for (l, &i) in nodes[..k].iter().enumerate() {
                for c in 0..dim {
                    grad[i as usize * dim + c] += b.gradient[l * dim + c];
                }
            }
        }
    }
    grad
}
