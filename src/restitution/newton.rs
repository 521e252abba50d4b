//! Seed 000's scalar Newton minimiser: step `Δx = −f′/f″`, stop when `|Δx|/h < tol`,
//! halve the step while `f(x + αΔx) ≥ f(x)`, at most 100 iterations. Kept apart from
//! the mesh solver in [`crate::newton`] so the study reproduces the seed bit for bit.

/// Iteration cap of the seed's Newton loop.
pub const MAX_ITERATIONS: u32 = 100;

/// The outcome of one scalar minimisation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalarNewton {
    /// The minimiser found (m).
    pub x: f64,
    /// Accepted Newton updates.
    pub iterations: u32,
    /// Whether a line search halved α down to zero (the seed then stops and keeps x).
    pub line_search_failed: bool,
}

/// Minimises `f` from `x0` with derivatives `df`, `ddf`; `h` (s) and `tol` (m/s) set the
/// stopping rule `|Δx|/h < tol`.
pub fn minimize(
    f: impl Fn(f64) -> f64,
    df: impl Fn(f64) -> f64,
    ddf: impl Fn(f64) -> f64,
    x0: f64,
    h: f64,
    tol: f64,
) -> ScalarNewton {
    let mut out = ScalarNewton {
        x: x0,
        iterations: 0,
        line_search_failed: false,
    };
    for _ in 0..MAX_ITERATIONS {
        let x = out.x;
        let fx = f(x);
        let delta = -df(x) / ddf(x);
        if (delta.abs() / h) < tol || delta.is_nan() {
            break;
        }
        let mut alpha = 1.0_f64;
        while alpha > 0.0 && f(x + alpha * delta) >= fx {
            alpha /= 2.0;
        }
        if alpha == 0.0 {
            out.line_search_failed = true;
            break;
        }
        out.x = x + alpha * delta;
        out.iterations += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_minimum_of_a_parabola_in_one_step() {
        let r = minimize(
            |x| (x - 3.0) * (x - 3.0),
            |x| 2.0 * (x - 3.0),
            |_| 2.0,
            0.0,
            1e-3,
            1e-5,
        );
        assert_eq!(r.x, 3.0);
        assert_eq!(r.iterations, 1);
        assert!(!r.line_search_failed);
    }
}
