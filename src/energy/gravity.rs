//! Gravitational potential `−m g·x` of one node (J); its Hessian is zero.

/// `−m g·x` (J), `g` in m/s².
#[inline]
pub fn gravity_value(mass: f64, g: &[f64], x: &[f64]) -> f64 {
    -mass * super::dot(g, x)
}

/// Writes `−m g` (N) into `out`.
#[inline]
pub fn gravity_gradient(mass: f64, g: &[f64], out: &mut [f64]) {
    for (o, gc) in out.iter_mut().zip(g) {
        *o = -mass * gc;
    }
}
