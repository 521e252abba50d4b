//! Seed 000's IPC barrier on the height `x` (m) of a particle above the ground,
//! without a contact area: `B(x) = −ln(x/d̂)(x − d̂)²`, active for `0 < x < d̂`,
//! `+∞` at and below the ground, zero from `d̂` up. The restitution study adds
//! `κ B` to the incremental potential as the seed does (see [`super::particle`]).

/// `B(x) = −ln(x/d̂)(x − d̂)²` (m²): `+∞` for `x ≤ 0`, 0 for `x ≥ d̂`.
pub fn value(x: f64, dhat: f64) -> f64 {
    if x >= dhat {
        0.0
    } else if x <= 0.0 {
        f64::INFINITY
    } else {
        -(x / dhat).ln() * (x - dhat) * (x - dhat)
    }
}

/// `B′(x) = (d̂ − x)(2 ln(x/d̂) − d̂/x + 1)` (m); 0 outside `(0, d̂)`.
pub fn gradient(x: f64, dhat: f64) -> f64 {
    if x <= 0.0 || x >= dhat {
        0.0
    } else {
        (dhat - x) * (2.0 * (x / dhat).ln() - dhat / x + 1.0)
    }
}

/// `B″(x) = (d̂/x + 2) d̂/x − 2 ln(x/d̂) − 3` (dimensionless); 0 outside `(0, d̂)`.
pub fn hessian(x: f64, dhat: f64) -> f64 {
    if x <= 0.0 || x >= dhat {
        0.0
    } else {
        let r = dhat / x;
        (r + 2.0) * r - 2.0 * (x / dhat).ln() - 3.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivatives_match_finite_differences() {
        let dhat = 1e-2;
        for &x in &[1e-4, 1e-3, 4e-3, 9e-3] {
            let e = 1e-7 * x;
            let fd1 = (value(x + e, dhat) - value(x - e, dhat)) / (2.0 * e);
            let fd2 = (gradient(x + e, dhat) - gradient(x - e, dhat)) / (2.0 * e);
            assert!((fd1 - gradient(x, dhat)).abs() < 1e-6 * gradient(x, dhat).abs().max(1e-9));
            assert!((fd2 - hessian(x, dhat)).abs() < 1e-5 * hessian(x, dhat).abs());
        }
        assert_eq!(value(2e-2, dhat), 0.0);
        assert_eq!(value(0.0, dhat), f64::INFINITY);
        assert_eq!(gradient(-1.0, dhat), 0.0);
    }
}
