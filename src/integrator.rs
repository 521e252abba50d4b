//! Per-node formulas of the time integrators (docs/PHYSICS.md): the predicted
//! position that the inertia term pulls towards, and the velocity (and
//! acceleration) update once Newton has found `xⁿ⁺¹`. Mirrored by the GPU's
//! update kernel.

use crate::model::Integrator;

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

/// TEMPORARY (replaced by the CPU backend helper's version at merge).
pub fn initial_acceleration(model: &crate::model::Model) -> Vec<f64> {
    crate::backend::cpu::CpuBackend::new(model.clone())
        .accelerations()
        .to_vec()
}
