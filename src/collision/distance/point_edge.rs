//! Point–edge squared distance (2D and 3D): case selection, value, derivatives and
//! closest-point coefficients. Stacked nodes `x = [p, e0, e1]`.

use super::ad::Scalar;
use super::vector::{cross, norm_sq, sub};
use super::{derivatives_of, diff, point_point, Derivatives};

/// Which part of the edge `e0–e1` is closest to the point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PointEdgeCase {
    /// The endpoint `e0` (also the case of a zero-length edge).
    Point0,
    /// The endpoint `e1`.
    Point1,
    /// The edge's interior: the distance is the point–line distance.
    Interior,
}

/// The point–line formula `|a × b|² / |b − a|²` of the differences
/// `a = e0 − p`, `b = e1 − p` (2 or 3 coordinates; in 2D the cross product is the
/// scalar `a_x b_y − a_y b_x`), generic over the scalar type.
#[inline]
pub(super) fn interior_formula<S: Scalar>(a: &[S], b: &[S]) -> S {
    if a.len() == 2 {
        let e: [S; 2] = sub(b, a);
        (a[0] * b[1] - a[1] * b[0]).sq() / norm_sq(&e)
    } else {
        let e: [S; 3] = sub(b, a);
        let (a, b): ([S; 3], [S; 3]) = ([a[0], a[1], a[2]], [b[0], b[1], b[2]]);
        norm_sq(&cross(&a, &b)) / norm_sq(&e)
    }
}

/// [`interior_formula`] at the point `p` and the edge `e0–e1`.
#[inline]
pub(super) fn interior_value(p: &[f64], e0: &[f64], e1: &[f64]) -> f64 {
    let dim = p.len();
    interior_formula(&diff(e0, p)[..dim], &diff(e1, p)[..dim])
}

/// Derivatives of the point–line formula for the point node `p` and the edge
/// nodes `e0`, `e1` of `x` (`dim` coordinates each, `n` in all).
pub(super) fn interior_derivatives(
    x: &[f64],
    dim: usize,
    [p, e0, e1]: [usize; 3],
    n: usize,
) -> Derivatives {
    let diffs = [[e0, p], [e1, p]];
    match dim {
        2 => derivatives_of::<4>(x, 2, &diffs, n, |v| interior_formula(&v[..2], &v[2..])),
        3 => derivatives_of::<6>(x, 3, &diffs, n, |v| interior_formula(&v[..3], &v[3..])),
        _ => panic!("point-edge distance: dim must be 2 or 3, got {dim}"),
    }
}

/// Unclamped parameter `t = (p − e0)·(e1 − e0) / |e1 − e0|²` of the projection of
/// `p` on the edge's line (dimensionless); 0 for a zero-length edge.
pub(super) fn parameter(p: &[f64], e0: &[f64], e1: &[f64]) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for i in 0..p.len() {
        let e = e1[i] - e0[i];
        num += (p[i] - e0[i]) * e;
        den += e * e;
    }
    if den > 0.0 {
        num / den
    } else {
        0.0
    }
}

/// The case of a point–edge pair from its parameter `t`.
fn case_of_parameter(t: f64) -> PointEdgeCase {
    if t <= 0.0 {
        PointEdgeCase::Point0
    } else if t >= 1.0 {
        PointEdgeCase::Point1
    } else {
        PointEdgeCase::Interior
    }
}

/// Which part of the edge `e0–e1` is closest to `p` (coordinates in m, 2D or 3D):
/// an endpoint when the projection of `p` on the edge's line falls at or beyond
/// it, else the interior.
pub fn point_edge_case(p: &[f64], e0: &[f64], e1: &[f64]) -> PointEdgeCase {
    case_of_parameter(parameter(p, e0, e1))
}

/// The value of a point–edge pair in a given case.
pub(super) fn value_in_case(p: &[f64], e0: &[f64], e1: &[f64], case: PointEdgeCase) -> f64 {
    match case {
        PointEdgeCase::Point0 => point_point::value(p, e0),
        PointEdgeCase::Point1 => point_point::value(p, e1),
        PointEdgeCase::Interior => interior_value(p, e0, e1),
    }
}

/// Squared distance (m²) between the point `p` and the closed segment `e0–e1`
/// (coordinates in m, 2D or 3D): the formula of [`point_edge_case`]'s case.
pub fn point_edge_distance_sq(p: &[f64], e0: &[f64], e1: &[f64]) -> f64 {
    value_in_case(p, e0, e1, point_edge_case(p, e0, e1))
}

/// Value (m²), gradient (m) and Hessian (dimensionless) of the point–edge squared
/// distance with respect to `x = [p, e0, e1]` (length `3·dim`, `n = 3·dim`), in the
/// case [`point_edge_case`] picks at `x`; nodes outside the case get zero rows.
///
/// # Panics
/// If `dim` is not 2 or 3.
pub fn point_edge_distance_sq_derivatives(x: &[f64], dim: usize) -> Derivatives {
    assert!(
        dim == 2 || dim == 3,
        "point-edge distance: dim must be 2 or 3, got {dim}"
    );
    let n = 3 * dim;
    match point_edge_case(&x[..dim], &x[dim..2 * dim], &x[2 * dim..n]) {
        PointEdgeCase::Point0 => point_point::derivatives(x, dim, [0, 1], n),
        PointEdgeCase::Point1 => point_point::derivatives(x, dim, [0, 2], n),
        PointEdgeCase::Interior => interior_derivatives(x, dim, [0, 1, 2], n),
    }
}

/// Closest-point coefficients `β = [1, −(1 − t), −t]` (dimensionless) of the pair
/// `x = [p, e0, e1]` (`dim` 2 or 3), with `t ∈ [0, 1]` the closest point's
/// parameter on the edge as the case selection clamps it: `Σ_i β_i x_i` is the
/// vector from the closest point of the edge to `p`, of length the distance.
pub fn point_edge_coefficients(x: &[f64], dim: usize) -> [f64; 3] {
    let (p, e0, e1) = (&x[..dim], &x[dim..2 * dim], &x[2 * dim..3 * dim]);
    let t = parameter(p, e0, e1);
    let t = match case_of_parameter(t) {
        PointEdgeCase::Point0 => 0.0,
        PointEdgeCase::Point1 => 1.0,
        PointEdgeCase::Interior => t,
    };
    [1.0, -(1.0 - t), -t]
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{
        brute_point_segment, check_derivatives, combination_norm_sq, config, golden_point_segment,
    };
    use super::*;
    use proptest::prelude::*;

    fn split(x: &[f64], dim: usize) -> (&[f64], &[f64], &[f64]) {
        (&x[..dim], &x[dim..2 * dim], &x[2 * dim..3 * dim])
    }

    fn value(x: &[f64], dim: usize) -> f64 {
        let (p, e0, e1) = split(x, dim);
        point_edge_distance_sq(p, e0, e1)
    }

    fn check_case(x: &[f64], dim: usize, expected: PointEdgeCase) {
        let (p, e0, e1) = split(x, dim);
        assert_eq!(point_edge_case(p, e0, e1), expected, "{x:?}");
        let d = point_edge_distance_sq_derivatives(x, dim);
        assert_eq!(d.n, 3 * dim);
        check_derivatives(
            x,
            &d,
            |y| value(y, dim),
            |y| point_edge_distance_sq_derivatives(y, dim),
            1.0,
            1e-6,
        );
        // Nodes outside the case have zero rows.
        let idle = match expected {
            PointEdgeCase::Point0 => Some(2),
            PointEdgeCase::Point1 => Some(1),
            PointEdgeCase::Interior => None,
        };
        if let Some(k) = idle {
            let n = 3 * dim;
            for i in k * dim..(k + 1) * dim {
                assert_eq!(d.gradient[i], 0.0);
                assert!((0..n).all(|j| d.hessian[i * n + j] == 0.0));
            }
        }
        let beta = point_edge_coefficients(x, dim);
        let v = value(x, dim);
        assert!((combination_norm_sq(x, &beta, dim) - v).abs() <= 1e-14 * (1.0 + v));
    }

    #[test]
    fn derivatives_match_finite_differences_in_every_case_2d() {
        let (e0, e1) = ([0.1, -0.05], [1.2, 0.3]);
        for (p, case) in [
            ([-0.4, 0.3], PointEdgeCase::Point0),
            ([1.7, 0.2], PointEdgeCase::Point1),
            ([0.5, 0.6], PointEdgeCase::Interior),
            ([0.7, -0.4], PointEdgeCase::Interior),
        ] {
            let x = [p[0], p[1], e0[0], e0[1], e1[0], e1[1]];
            check_case(&x, 2, case);
        }
    }

    #[test]
    fn derivatives_match_finite_differences_in_every_case_3d() {
        let (e0, e1) = ([0.1, -0.05, 0.2], [1.2, 0.3, -0.1]);
        for (p, case) in [
            ([-0.4, 0.3, 0.5], PointEdgeCase::Point0),
            ([1.7, 0.2, -0.3], PointEdgeCase::Point1),
            ([0.5, 0.6, 0.4], PointEdgeCase::Interior),
        ] {
            let x = [p[0], p[1], p[2], e0[0], e0[1], e0[2], e1[0], e1[1], e1[2]];
            check_case(&x, 3, case);
        }
    }

    #[test]
    fn special_configurations() {
        // Point on the edge, at an endpoint, on the line beyond, zero-length edge.
        let (e0, e1) = ([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
        assert_eq!(point_edge_distance_sq(&[0.5, 0.0, 0.0], &e0, &e1), 0.0);
        assert_eq!(point_edge_distance_sq(&[2.0, 0.0, 0.0], &e0, &e1), 0.0);
        assert_eq!(point_edge_distance_sq(&[3.0, 0.0, 0.0], &e0, &e1), 1.0);
        assert_eq!(
            point_edge_case(&[1.0, 1.0, 0.0], &e0, &e0),
            PointEdgeCase::Point0
        );
        assert_eq!(point_edge_distance_sq(&[1.0, 1.0, 0.0], &e0, &e0), 2.0);
        assert_eq!(
            point_edge_distance_sq(&[1.0, 1.0], &[0.0, 0.0], &[2.0, 0.0]),
            1.0
        );
        assert_eq!(
            point_edge_coefficients(&[3.0, 0.0, 0.0, 0.0, 2.0, 0.0], 2),
            [1.0, -0.0, -1.0]
        );
        assert_eq!(
            point_edge_coefficients(&[0.5, 1.0, 0.0, 0.0, 2.0, 0.0], 2),
            [1.0, -0.75, -0.25]
        );
    }

    /// A point–edge configuration: `kind` picks random, point on the edge's line,
    /// point on the edge, point at an endpoint, or a zero-length edge.
    fn configuration(kind: u8, r: &[f64], dim: usize) -> Vec<f64> {
        let mut x = r[..3 * dim].to_vec();
        let s = r[9] * 3.0 - 1.0;
        let on_edge = |x: &mut Vec<f64>, s: f64| {
            for i in 0..dim {
                x[i] = x[dim + i] + s * (x[2 * dim + i] - x[dim + i]);
            }
        };
        match kind {
            1 => on_edge(&mut x, s),
            2 => on_edge(&mut x, s.clamp(0.0, 1.0)),
            3 => on_edge(&mut x, 1.0),
            4 => {
                for i in 0..dim {
                    x[2 * dim + i] = x[dim + i];
                }
            }
            _ => {}
        }
        x
    }

    proptest! {
        #![proptest_config(config(2000))]

        /// The value equals the brute-force minimum distance (closed-form clamp
        /// and golden-section search), and the coefficients reproduce it.
        #[test]
        fn value_is_the_minimum_distance(
            kind in 0u8..5,
            dim in 2usize..=3,
            r in proptest::collection::vec(-1.0f64..1.0, 10),
        ) {
            let x = configuration(kind, &r, dim);
            let (p, e0, e1) = split(&x, dim);
            let d = point_edge_distance_sq(p, e0, e1);
            let brute = brute_point_segment(p, e0, e1);
            let golden = golden_point_segment(p, e0, e1);
            prop_assert!(d >= 0.0);
            prop_assert!((d - brute).abs() <= 1e-14 * (1.0 + brute), "{d} vs {brute}");
            prop_assert!((d - golden).abs() <= 1e-12 * (1.0 + golden), "{d} vs {golden}");
            let beta = point_edge_coefficients(&x, dim);
            let c = combination_norm_sq(&x, &beta, dim);
            prop_assert!((c - d).abs() <= 1e-13 * (1.0 + d), "{c} vs {d}");
            prop_assert_eq!(point_edge_distance_sq_derivatives(&x, dim).value, d);
        }
    }
}
