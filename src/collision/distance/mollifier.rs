//! The IPC edge–edge mollifier, which smoothly switches off edge–edge contact as
//! two edges become parallel (where the edge–edge distance's case changes without
//! the distance being smooth).
//!
//! With `c = |(ea1 − ea0) × (eb1 − eb0)|²` (m⁴) and a threshold `ε_x` from the rest
//! configuration, `m = (−c/ε_x + 2)·c/ε_x` for `c < ε_x` and `m = 1` otherwise: `m`
//! is C¹ in `c` (value 1 and slope 0 at `c = ε_x`) and vanishes for parallel
//! edges. The barrier of an edge–edge pair is multiplied by it.

use super::edge_edge::cross_norm_sq_formula;
use super::vector::{norm_sq, sub};
use super::{derivatives_of, diff, Derivatives};

/// Mollifier threshold `ε_x = 1e-3 · |ea1 − ea0|² · |eb1 − eb0|²` (m⁴) of an
/// edge–edge pair, from its rest (or initial) node positions (3D, m).
pub fn edge_edge_mollifier_threshold(
    ea0_rest: &[f64],
    ea1_rest: &[f64],
    eb0_rest: &[f64],
    eb1_rest: &[f64],
) -> f64 {
    let u: [f64; 3] = sub(ea1_rest, ea0_rest);
    let v: [f64; 3] = sub(eb1_rest, eb0_rest);
    mollifier_threshold_from_lengths(norm_sq(&u), norm_sq(&v))
}

/// The same threshold from the edges' squared rest lengths (m²): `1e-3 · la² · lb²`
/// (m⁴).
pub fn mollifier_threshold_from_lengths(la_sq: f64, lb_sq: f64) -> f64 {
    1e-3 * la_sq * lb_sq
}

/// The mollifier's value `(−c/ε_x + 2)·c/ε_x` for `c < ε_x`, else 1, of
/// `c = |e_a × e_b|²` (m⁴).
pub fn mollifier_of(c: f64, eps_x: f64) -> f64 {
    if c < eps_x {
        let r = c / eps_x;
        (-r + 2.0) * r
    } else {
        1.0
    }
}

/// The mollifier `m` (dimensionless) of the edge–edge pair `x = [ea0, ea1, eb0, eb1]`
/// (length 12, m) for the threshold `eps_x` (m⁴, from
/// [`edge_edge_mollifier_threshold`]), with its gradient (1/m) and Hessian (1/m²)
/// in `x` (`n = 12`): `m = (−c/ε_x + 2)·c/ε_x` for `c < ε_x`, else `m = 1` with
/// zero derivatives.
pub fn edge_edge_mollifier(x: &[f64], eps_x: f64) -> Derivatives {
    let node = |k: usize| &x[3 * k..3 * k + 3];
    let c: f64 = cross_norm_sq_formula(&diff(node(1), node(0)), &diff(node(3), node(2)));
    if c >= eps_x {
        let mut out = Derivatives::zeros(12);
        out.value = 1.0;
        return out;
    }
    let (m, dm, d2m) = (
        mollifier_of(c, eps_x),
        2.0 / eps_x - 2.0 * c / (eps_x * eps_x),
        -2.0 / (eps_x * eps_x),
    );
    derivatives_of::<6>(x, 3, &[[1, 0], [3, 2]], 12, |v| {
        cross_norm_sq_formula(&v[..3], &v[3..]).compose(m, dm, d2m)
    })
}

#[cfg(test)]
mod tests {
    use super::super::edge_edge_cross_norm_sq;
    use super::super::test_support::check_derivatives;
    use super::*;

    fn value(x: &[f64], eps_x: f64) -> f64 {
        edge_edge_mollifier(x, eps_x).value
    }

    /// Checks the mollifier's derivatives at `x` against finite differences.
    fn check_fd(x: &[f64], d: &Derivatives, eps_x: f64) {
        check_derivatives(
            x,
            d,
            |y| value(y, eps_x),
            |y| edge_edge_mollifier(y, eps_x),
            1.0,
            1e-6,
        );
    }

    fn c_of(x: &[f64]) -> f64 {
        edge_edge_cross_norm_sq(&x[..3], &x[3..6], &x[6..9], &x[9..])
    }

    /// Edges at an angle whose `sin` is about `angle`.
    fn pair(angle: f64) -> [f64; 12] {
        [
            0.02,
            -0.03,
            0.05,
            1.05,
            0.04,
            -0.06,
            0.1,
            0.3,
            0.2,
            1.1,
            0.31 + angle,
            0.18 + 0.5 * angle,
        ]
    }

    #[test]
    fn threshold_is_a_thousandth_of_the_squared_lengths_product() {
        let e =
            edge_edge_mollifier_threshold(&[0.0; 3], &[2.0, 0.0, 0.0], &[1.0; 3], &[1.0, 1.0, 4.0]);
        assert!((e - 1e-3 * 4.0 * 9.0).abs() < 1e-18);
    }

    #[test]
    fn derivatives_match_finite_differences_in_both_regimes() {
        let x = pair(0.02);
        let eps_rest = edge_edge_mollifier_threshold(&x[..3], &x[3..6], &x[6..9], &x[9..]);
        let c = c_of(&x);
        // Mollified (c < ε_x) with c well inside, and c near ε_x.
        for eps_x in [3.0 * c, 1.2 * c, eps_rest.max(1.5 * c)] {
            assert!(c < eps_x);
            let d = edge_edge_mollifier(&x, eps_x);
            assert!(d.value > 0.0 && d.value < 1.0);
            let r = c / eps_x;
            assert!((d.value - (2.0 - r) * r).abs() < 1e-15);
            check_fd(&x, &d, eps_x);
        }
        // Not mollified (c > ε_x): 1 with zero derivatives.
        let x = pair(0.5);
        let eps_x = 0.5 * c_of(&x);
        let d = edge_edge_mollifier(&x, eps_x);
        assert_eq!(d.value, 1.0);
        assert!(d.gradient.iter().chain(d.hessian.iter()).all(|&g| g == 0.0));
        check_fd(&x, &d, eps_x);
    }

    #[test]
    fn mollifier_is_c1_at_the_threshold_and_zero_when_parallel() {
        let x = pair(0.02);
        let c = c_of(&x);
        // Just below the switch the value tends to 1 and the gradient to 0.
        let max_abs = |v: &[f64]| v.iter().fold(0.0f64, |m, g| m.max(g.abs()));
        let d = edge_edge_mollifier(&x, c * (1.0 + 1e-9));
        assert!((d.value - 1.0).abs() < 1e-15);
        let half = edge_edge_mollifier(&x, 2.0 * c);
        let ratio = max_abs(&d.gradient) / max_abs(&half.gradient);
        assert!(ratio < 1e-8, "{ratio}");
        // Parallel edges: m = 0.
        let x = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 1.0, 0.0];
        let d = edge_edge_mollifier(&x, 1e-3);
        assert_eq!(d.value, 0.0);
    }
}
