//! Mass-spring energy of one spring between nodes a and b (seed 003):
//! `Ψ = ½ k l² (|d|²/l² − 1)²` with `d = x_a − x_b`, rest length `l` (m),
//! stiffness `k` (N/m). The node-pair Hessian is `[[H_d, −H_d], [−H_d, H_d]]`,
//! so everything is expressed through the `dim × dim` block `H_d`.

/// Spring energy (J) for the difference vector `d = x_a − x_b`.
#[inline]
pub fn spring_value(d: &[f64], rest_length_sq: f64, stiffness: f64) -> f64 {
    let q = super::dot(d, d) / rest_length_sq - 1.0;
    0.5 * stiffness * rest_length_sq * q * q
}

/// Writes `∂Ψ/∂x_a = 2k (|d|²/l² − 1) d` (N) into `out`; `∂Ψ/∂x_b` is its negative.
#[inline]
pub fn spring_gradient(d: &[f64], rest_length_sq: f64, stiffness: f64, out: &mut [f64]) {
    let s = 2.0 * stiffness * (super::dot(d, d) / rest_length_sq - 1.0);
    for (o, dc) in out.iter_mut().zip(d) {
        *o = s * dc;
    }
}

/// Writes the exact block `H_d = (2k/l²)(2 d dᵀ + (|d|² − l²) I)` (N/m), row-major
/// `dim × dim`, into `out` (not projected; for checks).
pub fn spring_hessian_exact(d: &[f64], rest_length_sq: f64, stiffness: f64, out: &mut [f64]) {
    let dim = d.len();
    let c = 2.0 * stiffness / rest_length_sq;
    let dd = super::dot(d, d);
    for r in 0..dim {
        for col in 0..dim {
            let id = if r == col { dd - rest_length_sq } else { 0.0 };
            out[r * dim + col] = c * (2.0 * d[r] * d[col] + id);
        }
    }
}

/// Writes the PSD projection of `H_d` (N/m), row-major `dim × dim`, into `out`.
///
/// `H_d` has eigenvalue `(2k/l²)(3|d|² − l²)` along `d` and `(2k/l²)(|d|² − l²)`
/// across it; both are clamped at zero. The pair block `[[H, −H], [−H, H]]` has the
/// eigenvalues of `2H_d` and zeros, so projecting `H_d` projects the pair block.
pub fn spring_hessian(d: &[f64], rest_length_sq: f64, stiffness: f64, out: &mut [f64]) {
    let dim = d.len();
    let c = 2.0 * stiffness / rest_length_sq;
    let dd = super::dot(d, d);
    let across = (c * (dd - rest_length_sq)).max(0.0);
    let along = (c * (3.0 * dd - rest_length_sq)).max(0.0);
    // H = across·I + (along − across)·d dᵀ/|d|²
    let s = if dd > 0.0 { (along - across) / dd } else { 0.0 };
    for r in 0..dim {
        for col in 0..dim {
            let id = if r == col { across } else { 0.0 };
            out[r * dim + col] = id + s * d[r] * d[col];
        }
    }
}
