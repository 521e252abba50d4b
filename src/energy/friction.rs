//! Lagged IPC friction for the node–wall stencil (seed 001).
//!
//! At the start of each step every node `i` in contact with wall `w` (distance
//! `d < d̂`) gets a lagged normal force `λ` (N) and unit normal `n`, fixed for the
//! step. With `T = I − n nᵀ`, the tangential displacement over the step is
//! `u = T (x − xⁿ)` (m) and the dissipative potential is `D = μ λ f0(|u|)` (J),
//! added to Ψ (so it carries the `c h²` factor in E like every potential).
//!
//! `ε = ε_v h` (m) is the tangential displacement below which static friction is
//! ramped in: `f1(y) = 2y/ε − y²/ε²` for `y < ε`, else 1 (C¹), and `f0` its
//! antiderivative with `f0(ε) = ε`: `f0(y) = y²/ε − y³/(3ε²) + ε/3` below `ε`,
//! `y` above. Gradient `μ λ (f1(y)/y) u`; Hessian
//! `μ λ [(f1/y) T + (f1′ − f1/y) û ûᵀ]`, PSD in both regimes because `f1′ ≥ 0`,
//! `f1/y ≥ 0` and `û` lies in the tangent plane.

use serde::Serialize;

/// Friction parameters of a scene.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrictionParams {
    /// Velocity ε_v (m/s) below which friction is static (smoothed).
    pub eps_v: f64,
    /// Coefficient μ (dimensionless) of each plane wall, in wall order; missing = 0.
    pub plane_mu: Vec<f64>,
    /// Coefficient μ (dimensionless) of each implicit wall, in wall order; missing = 0.
    pub implicit_mu: Vec<f64>,
}

impl Default for FrictionParams {
    fn default() -> Self {
        Self {
            eps_v: 1e-3,
            plane_mu: vec![],
            implicit_mu: vec![],
        }
    }
}

impl FrictionParams {
    /// Whether any wall has μ > 0.
    pub fn any(&self) -> bool {
        self.plane_mu
            .iter()
            .chain(&self.implicit_mu)
            .any(|m| *m > 0.0)
    }

    /// μ of wall `w` counted over plane walls first, then implicit walls.
    pub fn mu(&self, w: usize, planes: usize) -> f64 {
        if w < planes {
            self.plane_mu.get(w).copied().unwrap_or(0.0)
        } else {
            self.implicit_mu.get(w - planes).copied().unwrap_or(0.0)
        }
    }
}

/// `f0(y)` (m) for the smoothing length `eps = ε_v h` (m).
#[inline]
pub fn f0(y: f64, eps: f64) -> f64 {
    if y < eps {
        y * y / eps - y * y * y / (3.0 * eps * eps) + eps / 3.0
    } else {
        y
    }
}

/// `f1(y) / y` (1/m), finite at `y = 0` (`2/ε`).
#[inline]
pub fn f1_over_y(y: f64, eps: f64) -> f64 {
    if y < eps {
        2.0 / eps - y / (eps * eps)
    } else {
        1.0 / y
    }
}

/// `f1′(y) − f1(y)/y` (1/m): `−y/ε²` below `ε`, `−1/y` above.
#[inline]
fn f1_prime_minus_over_y(y: f64, eps: f64) -> f64 {
    if y < eps {
        -y / (eps * eps)
    } else {
        -1.0 / y
    }
}

/// Writes the tangential displacement `u = (I − n nᵀ) dx` (m) into `out`.
#[inline]
pub fn tangent_displacement(normal: &[f64], dx: &[f64], out: &mut [f64]) {
    let nd: f64 = normal.iter().zip(dx).map(|(a, b)| a * b).sum();
    for k in 0..dx.len() {
        out[k] = dx[k] - nd * normal[k];
    }
}

fn norm(u: &[f64]) -> f64 {
    u.iter().map(|c| c * c).sum::<f64>().sqrt()
}

/// `D = μ λ f0(|T dx|)` (J) for the step displacement `dx = x − xⁿ` (m), lagged
/// normal force `lambda` (N), unit normal `normal` and `eps = ε_v h` (m).
pub fn friction_value(mu: f64, lambda: f64, eps: f64, normal: &[f64], dx: &[f64]) -> f64 {
    let mut u = [0.0; 3];
    let dim = dx.len();
    tangent_displacement(normal, dx, &mut u[..dim]);
    mu * lambda * f0(norm(&u[..dim]), eps)
}

/// Adds `∂D/∂x = μ λ (f1(|u|)/|u|) u` (N) to `out`.
pub fn friction_gradient(
    mu: f64,
    lambda: f64,
    eps: f64,
    normal: &[f64],
    dx: &[f64],
    out: &mut [f64],
) {
    let mut u = [0.0; 3];
    let dim = dx.len();
    tangent_displacement(normal, dx, &mut u[..dim]);
    let s = mu * lambda * f1_over_y(norm(&u[..dim]), eps);
    for k in 0..dim {
        out[k] += s * u[k];
    }
}

/// Adds `scale ·` the PSD Hessian `μ λ [(f1/y) T + (f1′ − f1/y) û ûᵀ]` (N/m) to the
/// row-major `dim × dim` block `out`.
pub fn friction_hessian(
    mu: f64,
    lambda: f64,
    eps: f64,
    normal: &[f64],
    dx: &[f64],
    scale: f64,
    out: &mut [f64],
) {
    let mut u = [0.0; 3];
    let dim = dx.len();
    tangent_displacement(normal, dx, &mut u[..dim]);
    let y = norm(&u[..dim]);
    let ml = scale * mu * lambda;
    let a = ml * f1_over_y(y, eps);
    let b = if y > 0.0 {
        ml * f1_prime_minus_over_y(y, eps) / (y * y)
    } else {
        0.0
    };
    for r in 0..dim {
        for c in 0..dim {
            let t = if r == c { 1.0 } else { 0.0 } - normal[r] * normal[c];
            out[r * dim + c] += a * t + b * u[r] * u[c];
        }
    }
}
