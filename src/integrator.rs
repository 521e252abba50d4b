//! Per-node formulas of the time integrators (docs/PHYSICS.md): the predicted
//! position that the inertia term pulls towards, and the velocity (and
//! acceleration) update once Newton has found `xⁿ⁺¹`, and Newmark's initial
//! acceleration. Mirrored by the GPU's step kernels (shaders/integrator.wgsl).

use crate::model::{Integrator, Model};
use crate::parallel;
use crate::potential::{
    node_potential_gradient, pair_barrier_gradient, spring_gradients, Adjacency,
};

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
    let pairs = match model.self_contact.enabled && !model.collision.is_empty() {
        true => pair_barrier_gradient(model, &model.x0, &model.rest_exclusions()),
        false => vec![0.0; model.x0.len()],
    };
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
