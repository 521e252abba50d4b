//! Tests of the edge–edge squared distance: derivatives against finite differences
//! in every case, parallel, nearly parallel and degenerate edges, and a property
//! test that the value is the brute-force minimum distance over many kinds of
//! configurations, with the closest-point coefficients reproducing it.

use super::super::test_support::{
    brute_segment_segment, check_derivatives, check_minimum_distance, combination_norm_sq, config,
};
use super::*;
use proptest::prelude::*;
use EdgeEdgeCase::*;

fn nodes(x: &[f64]) -> [&[f64]; 4] {
    [&x[..3], &x[3..6], &x[6..9], &x[9..12]]
}

fn value(x: &[f64]) -> f64 {
    let e = nodes(x);
    edge_edge_distance_sq(e[0], e[1], e[2], e[3])
}

fn case(x: &[f64]) -> EdgeEdgeCase {
    let e = nodes(x);
    edge_edge_case(e[0], e[1], e[2], e[3])
}

fn brute(x: &[f64]) -> f64 {
    let e = nodes(x);
    brute_segment_segment(e[0], e[1], e[2], e[3])
}

fn stack(e: [[f64; 3]; 4]) -> [f64; 12] {
    std::array::from_fn(|i| e[i / 3][i % 3])
}

const EA0: [f64; 3] = [0.02, -0.03, 0.05];
const EA1: [f64; 3] = [1.05, 0.04, -0.06];

/// The nodes a case involves.
fn active(case: EdgeEdgeCase) -> Vec<usize> {
    point_point_nodes(case)
        .map(|n| n.to_vec())
        .or(point_edge_nodes(case).map(|n| n.to_vec()))
        .unwrap_or(vec![0, 1, 2, 3])
}

fn check_zero_rows(x: &[f64], d: &Derivatives, case: EdgeEdgeCase) {
    let active = active(case);
    for node in (0..4).filter(|k| !active.contains(k)) {
        for i in 3 * node..3 * node + 3 {
            assert_eq!(d.gradient[i], 0.0, "{x:?}");
            assert!((0..12).all(|j| d.hessian[i * 12 + j] == 0.0));
        }
    }
}

fn check_coefficients(x: &[f64]) {
    let c = combination_norm_sq(x, &edge_edge_coefficients(x), 3);
    let v = value(x);
    assert!((c - v).abs() <= 1e-13 * (1.0 + v), "{c} vs {v}");
}

#[test]
fn derivatives_match_finite_differences_in_every_case() {
    let cases = [
        ([0.5, -0.5, 0.3], [0.45, 0.5, 0.35], LineLine),
        ([-0.5, -0.3, 0.2], [-1.0, -1.0, 0.5], Ea0Eb0),
        ([-1.0, -1.0, 0.5], [-0.5, -0.3, 0.2], Ea0Eb1),
        ([1.5, 0.3, 0.2], [2.0, 1.0, 0.4], Ea1Eb0),
        ([2.0, 1.0, 0.4], [1.5, 0.3, 0.2], Ea1Eb1),
        ([-0.3, -0.5, 0.2], [-0.35, 0.5, 0.25], Ea0Eb),
        ([1.35, -0.5, 0.2], [1.3, 0.5, 0.25], Ea1Eb),
        ([0.4, 0.2, 0.3], [0.5, 1.0, 0.8], Eb0Ea),
        ([0.5, 1.0, 0.8], [0.4, 0.2, 0.3], Eb1Ea),
    ];
    for (eb0, eb1, expected) in cases {
        let x = stack([EA0, EA1, eb0, eb1]);
        assert_eq!(case(&x), expected);
        assert!((value(&x) - brute(&x)).abs() <= 1e-14);
        let d = edge_edge_distance_sq_derivatives(&x);
        assert_eq!(d.n, 12);
        check_derivatives(&x, &d, value, edge_edge_distance_sq_derivatives, 1.0, 1e-6);
        check_zero_rows(&x, &d, expected);
        check_coefficients(&x);
    }
}

/// Derivatives of the formula of a fixed case against finite differences of
/// the same formula (for configurations where the case selection is a tie or
/// where finite-difference steps would cross into another case).
fn check_fixed_case(x: &[f64], case: EdgeEdgeCase, scale: f64, tol: f64) {
    let d = derivatives_in_case(x, case);
    check_derivatives(
        x,
        &d,
        |y| value_in_case(y, case),
        |y| derivatives_in_case(y, case),
        scale,
        tol,
    );
    check_zero_rows(x, &d, case);
}

#[test]
fn parallel_edges_fall_back_to_point_edge_cases() {
    let u: [f64; 3] = std::array::from_fn(|i| EA1[i] - EA0[i]);
    let off = [0.01, 0.2, 0.1];
    let along = |s: f64, extra: [f64; 3]| -> [f64; 3] {
        std::array::from_fn(|i| EA0[i] + s * u[i] + off[i] + extra[i])
    };
    // Disjoint along the common direction: the nearest endpoints, robustly.
    let x = stack([EA0, EA1, along(1.5, [0.0; 3]), along(2.5, [0.0; 3])]);
    assert_eq!(case(&x), Ea1Eb0);
    let d = edge_edge_distance_sq_derivatives(&x);
    check_derivatives(&x, &d, value, edge_edge_distance_sq_derivatives, 1.0, 1e-6);
    check_coefficients(&x);
    // Overlapping, exactly and nearly parallel (tilts far below and just below
    // the threshold): a point–edge case with the true distance.
    for tilt in [0.0, 1e-12, 1e-9, 3e-8] {
        let x = stack([
            EA0,
            EA1,
            along(0.3, [0.0; 3]),
            along(0.7, [0.0, tilt, tilt]),
        ]);
        let c = case(&x);
        assert!(matches!(c, Eb0Ea | Eb1Ea | Ea0Eb | Ea1Eb), "{c:?}");
        assert!(
            (value(&x) - brute(&x)).abs() <= 1e-15,
            "{} vs {}",
            value(&x),
            brute(&x)
        );
        check_fixed_case(&x, c, 1.0, 1e-6);
        check_coefficients(&x);
    }
    // Nearly parallel, crossing (distance 0 at the middle) below the
    // threshold: the fallback errs by at most sin²θ·L².
    let x = stack([
        EA0,
        EA1,
        along(-0.2, [0.0, 1e-8, 0.0]),
        along(1.2, [0.0, -1e-8, 0.0]),
    ]);
    assert_ne!(case(&x), LineLine);
    assert!((value(&x) - brute(&x)).abs() <= 1e-14);
}

#[test]
fn nearly_parallel_edges_above_the_threshold_use_line_line() {
    // Edges crossing at an angle of about 2e-5 rad: line–line, with derivatives
    // checked at a step small against the angle.
    let x = stack([
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [-0.2, -1e-5, 0.01],
        [1.2, 2e-5, 0.01],
    ]);
    assert_eq!(case(&x), LineLine);
    assert!((value(&x) - 1e-4).abs() <= 1e-12);
    assert!((value(&x) - brute(&x)).abs() <= 1e-12);
    let d = edge_edge_distance_sq_derivatives(&x);
    check_derivatives(&x, &d, value, edge_edge_distance_sq_derivatives, 1e-4, 1e-5);
    check_coefficients(&x);
}

#[test]
fn degenerate_edges() {
    // A zero-length edge is a point.
    let p = [0.3, 0.4, 0.5];
    let x = stack([p, p, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]);
    assert_eq!(case(&x), Ea0Eb);
    assert!((value(&x) - 0.41).abs() < 1e-15);
    check_fixed_case(&x, Ea0Eb, 1.0, 1e-6);
    check_coefficients(&x);
    // Both zero-length.
    let x = stack([p, p, [0.0; 3], [0.0; 3]]);
    assert_eq!(case(&x), Ea0Eb0);
    assert!((value(&x) - 0.5).abs() < 1e-15);
    // Collinear overlapping edges touch.
    let x = stack([[0.0; 3], [1.0, 1.0, 1.0], [0.5; 3], [2.0; 3]]);
    assert_eq!(value(&x), 0.0);
    check_coefficients(&x);
    // Shared endpoint.
    let x = stack([[0.0; 3], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]);
    assert_eq!(value(&x), 0.0);
    assert_eq!(edge_edge_coefficients(&x), [0.0, 1.0, -1.0, -0.0]);
}

/// An edge–edge configuration: `kind` picks random, parallel, nearly parallel
/// (tilt 10^-k, k = 3..15, around the threshold), coplanar, touching
/// endpoints, an endpoint on the other edge, collinear, one zero-length edge,
/// intersecting, or both zero-length.
fn configuration(kind: u8, r: &[f64]) -> [f64; 12] {
    let mut x: [f64; 12] = std::array::from_fn(|i| r[i]);
    let u: [f64; 3] = std::array::from_fn(|i| x[3 + i] - x[i]);
    let a = r[12] * 1.5;
    let b = r[13] * 1.5;
    match kind {
        1 | 2 => {
            for i in 0..3 {
                x[9 + i] = x[6 + i] + a * u[i];
            }
            if kind == 2 {
                let tilt = 10f64.powf(-3.0 - 12.0 * r[14].abs());
                for i in 0..3 {
                    x[9 + i] += tilt * r[15 + i];
                }
            }
        }
        3 => {
            for k in 0..4 {
                x[3 * k + 2] = 0.25;
            }
        }
        4 => x[6..9].copy_from_slice(&r[3..6]),
        5 => {
            for i in 0..3 {
                x[6 + i] = x[i] + a.abs().min(1.0) * u[i];
            }
        }
        6 => {
            for k in 2..4 {
                let s = if k == 2 { a } else { b };
                for i in 0..3 {
                    x[3 * k + i] = x[i] + s * u[i];
                }
            }
        }
        7 => x.copy_within(0..3, 3),
        8 => {
            let s = r[14].abs();
            let d: [f64; 3] = std::array::from_fn(|i| r[15 + i]);
            for i in 0..3 {
                let q = x[i] + s * u[i];
                x[6 + i] = q - a.abs() * d[i];
                x[9 + i] = q + b.abs() * d[i];
            }
        }
        9 => {
            x.copy_within(0..3, 3);
            x.copy_within(6..9, 9);
        }
        _ => {}
    }
    x
}

proptest! {
    #![proptest_config(config(3000))]

    /// The value equals the brute-force minimum distance between the
    /// segments, and the coefficients reproduce it.
    #[test]
    fn value_is_the_minimum_distance(
        kind in 0u8..10,
        r in proptest::collection::vec(-1.0f64..1.0, 18),
    ) {
        let x = configuration(kind, &r);
        let d = value(&x);
        check_minimum_distance(&x, d, brute(&x), &edge_edge_coefficients(&x), case(&x))?;
        prop_assert_eq!(edge_edge_distance_sq_derivatives(&x).value, d);
    }
}
