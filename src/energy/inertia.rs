//! Inertia term `½ m |x − x̃|²` of one node (J), with `x̃` the integrator's predicted position.

/// `½ m |x − x̃|²` (J).
#[inline]
pub fn inertia_value(mass: f64, x: &[f64], x_pred: &[f64]) -> f64 {
    0.5 * mass
        * x.iter()
            .zip(x_pred)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
}

/// Writes `m (x − x̃)` (N·s²/m · m = kg·m) into `out`.
#[inline]
pub fn inertia_gradient(mass: f64, x: &[f64], x_pred: &[f64], out: &mut [f64]) {
    for ((o, a), b) in out.iter_mut().zip(x).zip(x_pred) {
        *o = mass * (a - b);
    }
}

/// The Hessian is `m I`; this returns its diagonal entry `m` (kg).
#[inline]
pub fn inertia_hessian(mass: f64) -> f64 {
    mass
}
