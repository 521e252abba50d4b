//! Point–triangle squared distance (3D): case selection, value, derivatives and
//! closest-point coefficients. Stacked nodes `x = [p, t0, t1, t2]`.

use super::ad::Scalar;
use super::point_edge::{self, PointEdgeCase};
use super::vector::{cross, dot, norm_sq, sub};
use super::{derivatives_of, diff, nodes_3d, point_point, Derivatives, NEARLY_PARALLEL_SIN_SQ};

/// Which part of the triangle `t0 t1 t2` is closest to the point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PointTriangleCase {
    /// The vertex `t_k` (k = 0, 1, 2).
    Vertex(u8),
    /// The interior of edge k, which joins `t_k` and `t_{(k+1) % 3}`.
    Edge(u8),
    /// The triangle's interior: the distance is the point–plane distance.
    Interior,
}

/// The point–plane formula `(q·n)² / |n|²` with `n = e1 × e2` of the differences
/// `e1 = t1 − t0`, `e2 = t2 − t0`, `q = p − t0`, generic over the scalar type.
#[inline]
pub(super) fn interior_formula<S: Scalar>(e1: &[S], e2: &[S], q: &[S]) -> S {
    let (e1, e2, q): ([S; 3], [S; 3], [S; 3]) = (
        [e1[0], e1[1], e1[2]],
        [e2[0], e2[1], e2[2]],
        [q[0], q[1], q[2]],
    );
    let n = cross(&e1, &e2);
    dot(&q, &n).sq() / norm_sq(&n)
}

/// [`interior_formula`] at the point `p` and the triangle `t`.
fn interior_value(p: &[f64], t: [&[f64]; 3]) -> f64 {
    interior_formula(&diff(t[1], t[0]), &diff(t[2], t[0]), &diff(p, t[0]))
}

/// The triangle's (unnormalised) normal `n = (t1 − t0) × (t2 − t0)` and `|n|²` when
/// the triangle is not degenerate (`sin²` of its angle at `t0` above
/// [`NEARLY_PARALLEL_SIN_SQ`]).
fn normal(t: [&[f64]; 3]) -> Option<([f64; 3], f64)> {
    let e1: [f64; 3] = sub(t[1], t[0]);
    let e2: [f64; 3] = sub(t[2], t[0]);
    let n = cross(&e1, &e2);
    let nn = norm_sq(&n);
    (nn > NEARLY_PARALLEL_SIN_SQ * norm_sq(&e1) * norm_sq(&e2)).then_some((n, nn))
}

/// Barycentric coordinates of the projection of `p` on the triangle's plane,
/// multiplied by `|n|²`: entry k is `((t_{k+1} − p) × (t_{k+2} − p))·n`.
fn scaled_barycentrics(p: &[f64], t: [&[f64]; 3], n: &[f64; 3]) -> [f64; 3] {
    std::array::from_fn(|k| {
        let a: [f64; 3] = sub(t[(k + 1) % 3], p);
        let b: [f64; 3] = sub(t[(k + 2) % 3], p);
        dot(&cross(&a, &b), n)
    })
}

/// The case of a point–triangle pair with its squared distance.
fn classify(p: &[f64], t: [&[f64]; 3]) -> (PointTriangleCase, f64) {
    if let Some((n, _)) = normal(t) {
        if scaled_barycentrics(p, t, &n).iter().all(|&b| b > 0.0) {
            return (PointTriangleCase::Interior, interior_value(p, t));
        }
    }
    // The projection falls outside (or the triangle is degenerate): the closest
    // point lies on the boundary, on the nearest of the three edges.
    let mut best = (PointTriangleCase::Vertex(0), f64::NAN);
    for k in 0..3 {
        let (a, b) = (t[k], t[(k + 1) % 3]);
        let case = point_edge::point_edge_case(p, a, b);
        let d = point_edge::value_in_case(p, a, b, case);
        if k == 0 || d < best.1 {
            let k = k as u8;
            let case = match case {
                PointEdgeCase::Point0 => PointTriangleCase::Vertex(k),
                PointEdgeCase::Point1 => PointTriangleCase::Vertex((k + 1) % 3),
                PointEdgeCase::Interior => PointTriangleCase::Edge(k),
            };
            best = (case, d);
        }
    }
    best
}

/// Which part of the triangle `t0 t1 t2` is closest to `p` (3D coordinates in m):
/// the interior when the projection of `p` on the triangle's plane falls strictly
/// inside a non-degenerate triangle, else the vertex or edge of the nearest of its
/// three edges.
pub fn point_triangle_case(p: &[f64], t0: &[f64], t1: &[f64], t2: &[f64]) -> PointTriangleCase {
    classify(p, [t0, t1, t2]).0
}

/// Squared distance (m²) between the point `p` and the closed triangle `t0 t1 t2`
/// (3D coordinates in m): the formula of [`point_triangle_case`]'s case.
pub fn point_triangle_distance_sq(p: &[f64], t0: &[f64], t1: &[f64], t2: &[f64]) -> f64 {
    classify(p, [t0, t1, t2]).1
}

/// The derivatives of the formula of `case` at `x = [p, t0, t1, t2]`.
fn derivatives_in_case(x: &[f64], case: PointTriangleCase) -> Derivatives {
    match case {
        PointTriangleCase::Vertex(k) => point_point::derivatives(x, 3, [0, 1 + k as usize], 12),
        PointTriangleCase::Edge(k) => {
            let nodes = [0, 1 + k as usize, 1 + (k as usize + 1) % 3];
            point_edge::interior_derivatives(x, 3, nodes, 12)
        }
        PointTriangleCase::Interior => {
            derivatives_of::<9>(x, 3, &[[2, 1], [3, 1], [0, 1]], 12, |v| {
                interior_formula(&v[..3], &v[3..6], &v[6..])
            })
        }
    }
}

/// Value (m²), gradient (m) and Hessian (dimensionless) of the point–triangle
/// squared distance with respect to `x = [p, t0, t1, t2]` (length 12, `n = 12`),
/// in the case [`point_triangle_case`] picks at `x`; nodes outside the case get
/// zero rows.
pub fn point_triangle_distance_sq_derivatives(x: &[f64]) -> Derivatives {
    let [p, t0, t1, t2] = nodes_3d(x);
    derivatives_in_case(x, classify(p, [t0, t1, t2]).0)
}

/// Closest-point coefficients `β = [1, −b0, −b1, −b2]` (dimensionless) of the pair
/// `x = [p, t0, t1, t2]`, with `b` the barycentric coordinates of the closest
/// point of the triangle as the case selection picks it: `Σ_i β_i x_i` is the
/// vector from that closest point to `p`, of length the distance.
pub fn point_triangle_coefficients(x: &[f64]) -> [f64; 4] {
    let [p, t0, t1, t2] = nodes_3d(x);
    let t = [t0, t1, t2];
    let mut b = [0.0; 3];
    match classify(p, t).0 {
        PointTriangleCase::Vertex(k) => b[k as usize] = 1.0,
        PointTriangleCase::Edge(k) => {
            let (i, j) = (k as usize, (k as usize + 1) % 3);
            let s = point_edge::parameter(p, t[i], t[j]);
            b[i] = 1.0 - s;
            b[j] = s;
        }
        PointTriangleCase::Interior => {
            // The interior case implies a non-degenerate triangle.
            if let Some((n, nn)) = normal(t) {
                let w = scaled_barycentrics(p, t, &n);
                b = [w[0] / nn, w[1] / nn, w[2] / nn];
            }
        }
    }
    [1.0, -b[0], -b[1], -b[2]]
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{
        brute_point_triangle, check_derivatives, check_minimum_distance, combination_norm_sq,
        config,
    };
    use super::*;
    use proptest::prelude::*;

    fn value(x: &[f64]) -> f64 {
        point_triangle_distance_sq(&x[..3], &x[3..6], &x[6..9], &x[9..12])
    }

    fn stack(p: [f64; 3], t: &[[f64; 3]; 3]) -> [f64; 12] {
        let mut x = [0.0; 12];
        x[..3].copy_from_slice(&p);
        for k in 0..3 {
            x[3 + 3 * k..6 + 3 * k].copy_from_slice(&t[k]);
        }
        x
    }

    const TRIANGLE: [[f64; 3]; 3] = [[0.02, -0.03, 0.05], [1.1, 0.05, -0.1], [0.1, 0.9, 0.15]];

    #[test]
    fn derivatives_match_finite_differences_in_every_case() {
        use PointTriangleCase::*;
        for (p, case) in [
            ([0.3, 0.25, 0.6], Interior),
            ([0.3, 0.25, -0.4], Interior),
            ([-0.5, -0.6, 0.3], Vertex(0)),
            ([1.7, -0.3, 0.2], Vertex(1)),
            ([-0.1, 1.7, -0.3], Vertex(2)),
            ([0.5, -0.5, 0.2], Edge(0)),
            ([0.9, 0.8, 0.1], Edge(1)),
            ([-0.5, 0.5, -0.2], Edge(2)),
        ] {
            let x = stack(p, &TRIANGLE);
            let brute = brute_point_triangle(&x[..3], &x[3..6], &x[6..9], &x[9..]);
            assert!((value(&x) - brute).abs() <= 1e-14 * (1.0 + brute));
            assert_eq!(
                point_triangle_case(&x[..3], &x[3..6], &x[6..9], &x[9..]),
                case
            );
            let d = point_triangle_distance_sq_derivatives(&x);
            assert_eq!(d.n, 12);
            check_derivatives(
                &x,
                &d,
                value,
                point_triangle_distance_sq_derivatives,
                1.0,
                1e-6,
            );
            // Nodes outside the case have zero rows.
            let active: Vec<usize> = match case {
                Vertex(k) => vec![0, 1 + k as usize],
                Edge(k) => vec![0, 1 + k as usize, 1 + (k as usize + 1) % 3],
                Interior => vec![0, 1, 2, 3],
            };
            for node in (0..4).filter(|k| !active.contains(k)) {
                for i in 3 * node..3 * node + 3 {
                    assert_eq!(d.gradient[i], 0.0);
                    assert!((0..12).all(|j| d.hessian[i * 12 + j] == 0.0));
                }
            }
            let c = combination_norm_sq(&x, &point_triangle_coefficients(&x), 3);
            assert!((c - d.value).abs() <= 1e-14 * (1.0 + d.value));
        }
    }

    #[test]
    fn degenerate_triangle_uses_its_edges() {
        // Collinear corners: the point above the segment's middle is nearest the
        // long edge, never the (undefined) plane.
        let t = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
        let x = stack([0.5, 0.3, 0.4], &t);
        let case = point_triangle_case(&x[..3], &x[3..6], &x[6..9], &x[9..]);
        assert!(matches!(
            case,
            PointTriangleCase::Edge(0) | PointTriangleCase::Edge(2)
        ));
        assert!((value(&x) - 0.25).abs() < 1e-15);
        let d = point_triangle_distance_sq_derivatives(&x);
        assert!(d.value.is_finite() && d.hessian.iter().all(|h| h.is_finite()));
        // All corners equal.
        let t = [[0.5; 3]; 3];
        let x = stack([0.5, 0.5, 1.5], &t);
        assert_eq!(value(&x), 1.0);
    }

    /// A point–triangle configuration: `kind` picks random, point in the
    /// triangle's plane, point on an edge, point at a vertex, point just off the
    /// plane, collinear (degenerate) triangle, or a sliver triangle.
    fn configuration(kind: u8, r: &[f64]) -> [f64; 12] {
        let mut x: [f64; 12] = std::array::from_fn(|i| r[i]);
        let (a, b) = (r[12] * 1.5 - 0.25, r[13] * 1.5 - 0.25);
        let corner = |x: &[f64; 12], k: usize, i: usize| x[3 + 3 * k + i];
        let point_at = |x: &mut [f64; 12], a: f64, b: f64, h: f64| {
            let (e1, e2): ([f64; 3], [f64; 3]) = (
                std::array::from_fn(|i| corner(x, 1, i) - corner(x, 0, i)),
                std::array::from_fn(|i| corner(x, 2, i) - corner(x, 0, i)),
            );
            let n = cross(&e1, &e2);
            for i in 0..3 {
                x[i] = corner(x, 0, i) + a * e1[i] + b * e2[i] + h * n[i];
            }
        };
        match kind {
            1 => point_at(&mut x, a, b, 0.0),
            2 => {
                let k = (r[14].abs() * 3.0) as usize % 3;
                let s = r[13].abs();
                for i in 0..3 {
                    x[i] = corner(&x, k, i) + s * (corner(&x, (k + 1) % 3, i) - corner(&x, k, i));
                }
            }
            3 => {
                let k = (r[14].abs() * 3.0) as usize % 3;
                for i in 0..3 {
                    x[i] = corner(&x, k, i);
                }
            }
            4 => point_at(&mut x, a.abs() * 0.5, b.abs() * 0.5, 1e-9 * r[14]),
            5 => {
                for i in 0..3 {
                    x[9 + i] = corner(&x, 0, i) + a * 2.0 * (corner(&x, 1, i) - corner(&x, 0, i));
                }
            }
            6 => {
                for i in 0..3 {
                    x[9 + i] = 0.5 * (corner(&x, 0, i) + corner(&x, 1, i)) + 1e-6 * r[12 + i];
                }
            }
            _ => {}
        }
        x
    }

    proptest! {
        #![proptest_config(config(2000))]

        /// The value equals the brute-force minimum distance over the triangle,
        /// and the coefficients reproduce it.
        #[test]
        fn value_is_the_minimum_distance(
            (kind, r) in (0u8..7, proptest::collection::vec(-1.0f64..1.0, 15)),
        ) {
            let x = configuration(kind, &r);
            let d = value(&x);
            let brute = brute_point_triangle(&x[..3], &x[3..6], &x[6..9], &x[9..]);
            let beta = point_triangle_coefficients(&x);
            check_minimum_distance(&x, d, brute, &beta, kind)?;
            prop_assert_eq!(point_triangle_distance_sq_derivatives(&x).value, d);
        }
    }
}
