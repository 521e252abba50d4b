//! Edge–edge squared distance (3D): case selection, value, derivatives and
//! closest-point coefficients. Stacked nodes `x = [ea0, ea1, eb0, eb1]`.
//!
//! The squared distance between `ea(s) = ea0 + s (ea1 − ea0)` and
//! `eb(t) = eb0 + t (eb1 − eb0)` is a convex quadratic in `(s, t) ∈ [0, 1]²`. When
//! the edges are not nearly parallel and its unconstrained minimiser lies strictly
//! inside the square, the case is line–line; otherwise the minimum lies on the
//! square's boundary, i.e. it is the smallest of the four point–edge distances
//! `ea0–eb`, `ea1–eb`, `eb0–ea`, `eb1–ea`, whose own case (endpoint or interior)
//! gives a point–point or point–edge case.

use super::ad::Scalar;
use super::point_edge::{self, PointEdgeCase};
use super::vector::{cross, dot, norm_sq, sub};
use super::{derivatives_of, diff, nodes_3d, point_point, Derivatives, NEARLY_PARALLEL_SIN_SQ};

/// Which sub-primitives of the edges `ea = ea0–ea1` and `eb = eb0–eb1` realise
/// their distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdgeEdgeCase {
    /// Point–point `ea0`–`eb0`.
    Ea0Eb0,
    /// Point–point `ea0`–`eb1`.
    Ea0Eb1,
    /// Point–point `ea1`–`eb0`.
    Ea1Eb0,
    /// Point–point `ea1`–`eb1`.
    Ea1Eb1,
    /// Point–edge: `ea0` against the interior of `eb`.
    Ea0Eb,
    /// Point–edge: `ea1` against the interior of `eb`.
    Ea1Eb,
    /// Point–edge: `eb0` against the interior of `ea`.
    Eb0Ea,
    /// Point–edge: `eb1` against the interior of `ea`.
    Eb1Ea,
    /// Line–line: both closest points are interior to their edges.
    LineLine,
}

/// The line–line formula `(w·n)² / |n|²` with `n = u × v` of the differences
/// `u = ea1 − ea0`, `v = eb1 − eb0`, `w = ea0 − eb0`, generic over the scalar
/// type.
#[inline]
pub(super) fn line_line_formula<S: Scalar>(u: &[S], v: &[S], w: &[S]) -> S {
    let (u, v, w): ([S; 3], [S; 3], [S; 3]) =
        ([u[0], u[1], u[2]], [v[0], v[1], v[2]], [w[0], w[1], w[2]]);
    let n = cross(&u, &v);
    dot(&w, &n).sq() / norm_sq(&n)
}

/// [`line_line_formula`] at the edges `ea0–ea1`, `eb0–eb1`.
fn line_line_value(ea0: &[f64], ea1: &[f64], eb0: &[f64], eb1: &[f64]) -> f64 {
    line_line_formula(&diff(ea1, ea0), &diff(eb1, eb0), &diff(ea0, eb0))
}

/// `c = |u × v|²` (m⁴) of the edge vectors `u = ea1 − ea0`, `v = eb1 − eb0`, the
/// quantity the mollifier is a function of, generic over the scalar type.
#[inline]
pub(super) fn cross_norm_sq_formula<S: Scalar>(u: &[S], v: &[S]) -> S {
    let (u, v): ([S; 3], [S; 3]) = ([u[0], u[1], u[2]], [v[0], v[1], v[2]]);
    norm_sq(&cross(&u, &v))
}

/// `|(ea1 − ea0) × (eb1 − eb0)|²` (m⁴): the squared area term that vanishes for
/// parallel edges, compared with [`super::edge_edge_mollifier_threshold`] by the
/// mollifier.
pub fn edge_edge_cross_norm_sq(ea0: &[f64], ea1: &[f64], eb0: &[f64], eb1: &[f64]) -> f64 {
    cross_norm_sq_formula(&diff(ea1, ea0), &diff(eb1, eb0))
}

/// The parameters `(s, t)` of the closest points of the two infinite lines, or
/// `None` when the edges are nearly parallel (`sin² θ ≤` [`NEARLY_PARALLEL_SIN_SQ`],
/// which includes a zero-length edge).
///
/// With `r = eb0 − ea0` and `n = u × v`: `s = ((r × v)·n)/|n|²` and
/// `t = ((r × u)·n)/|n|²`, which avoid the cancellation of the normal-equation
/// form.
fn line_parameters(ea0: &[f64], ea1: &[f64], eb0: &[f64], eb1: &[f64]) -> Option<(f64, f64)> {
    let u: [f64; 3] = sub(ea1, ea0);
    let v: [f64; 3] = sub(eb1, eb0);
    let n = cross(&u, &v);
    let nn = norm_sq(&n);
    if nn <= NEARLY_PARALLEL_SIN_SQ * norm_sq(&u) * norm_sq(&v) {
        return None;
    }
    let r: [f64; 3] = sub(eb0, ea0);
    let s = dot(&cross(&r, &v), &n) / nn;
    let t = dot(&cross(&r, &u), &n) / nn;
    Some((s, t))
}

/// The four point–edge sub-pairs on the boundary of the parameter square: for each,
/// the point's node, the edge's two nodes, and the cases its point–edge cases map
/// to (`Point0`, `Point1`, `Interior`).
const BOUNDARY: [(usize, [usize; 2], [EdgeEdgeCase; 3]); 4] = {
    use EdgeEdgeCase::*;
    [
        (0, [2, 3], [Ea0Eb0, Ea0Eb1, Ea0Eb]),
        (1, [2, 3], [Ea1Eb0, Ea1Eb1, Ea1Eb]),
        (2, [0, 1], [Ea0Eb0, Ea1Eb0, Eb0Ea]),
        (3, [0, 1], [Ea0Eb1, Ea1Eb1, Eb1Ea]),
    ]
};

/// The case of an edge–edge pair with its squared distance.
fn classify(e: [&[f64]; 4]) -> (EdgeEdgeCase, f64) {
    if let Some((s, t)) = line_parameters(e[0], e[1], e[2], e[3]) {
        if s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0 {
            return (
                EdgeEdgeCase::LineLine,
                line_line_value(e[0], e[1], e[2], e[3]),
            );
        }
    }
    let mut best = (EdgeEdgeCase::Ea0Eb0, f64::NAN);
    for (k, &(p, [a, b], cases)) in BOUNDARY.iter().enumerate() {
        let case = point_edge::point_edge_case(e[p], e[a], e[b]);
        let d = point_edge::value_in_case(e[p], e[a], e[b], case);
        if k == 0 || d < best.1 {
            let i = match case {
                PointEdgeCase::Point0 => 0,
                PointEdgeCase::Point1 => 1,
                PointEdgeCase::Interior => 2,
            };
            best = (cases[i], d);
        }
    }
    best
}

/// Which sub-primitives of the edges `ea0–ea1` and `eb0–eb1` (3D coordinates in m)
/// realise their distance: line–line when the closest points of the two lines are
/// strictly inside both edges and the edges are not nearly parallel (see
/// [`NEARLY_PARALLEL_SIN_SQ`]), else the smallest of the four point–edge
/// distances, reduced to a point–point case when its closest point is an endpoint.
pub fn edge_edge_case(ea0: &[f64], ea1: &[f64], eb0: &[f64], eb1: &[f64]) -> EdgeEdgeCase {
    classify([ea0, ea1, eb0, eb1]).0
}

/// Squared distance (m²) between the closed segments `ea0–ea1` and `eb0–eb1` (3D
/// coordinates in m): the formula of [`edge_edge_case`]'s case.
pub fn edge_edge_distance_sq(ea0: &[f64], ea1: &[f64], eb0: &[f64], eb1: &[f64]) -> f64 {
    classify([ea0, ea1, eb0, eb1]).1
}

/// The two nodes of a point–point case.
fn point_point_nodes(case: EdgeEdgeCase) -> Option<[usize; 2]> {
    use EdgeEdgeCase::*;
    match case {
        Ea0Eb0 => Some([0, 2]),
        Ea0Eb1 => Some([0, 3]),
        Ea1Eb0 => Some([1, 2]),
        Ea1Eb1 => Some([1, 3]),
        _ => None,
    }
}

/// The point's node and the edge's two nodes of a point–edge case.
fn point_edge_nodes(case: EdgeEdgeCase) -> Option<[usize; 3]> {
    use EdgeEdgeCase::*;
    match case {
        Ea0Eb => Some([0, 2, 3]),
        Ea1Eb => Some([1, 2, 3]),
        Eb0Ea => Some([2, 0, 1]),
        Eb1Ea => Some([3, 0, 1]),
        _ => None,
    }
}

/// The value of the formula of `case` at `x = [ea0, ea1, eb0, eb1]`.
#[cfg(test)]
fn value_in_case(x: &[f64], case: EdgeEdgeCase) -> f64 {
    let node = |k: usize| &x[3 * k..3 * k + 3];
    if let Some([a, b]) = point_point_nodes(case) {
        point_point::value(node(a), node(b))
    } else if let Some([p, a, b]) = point_edge_nodes(case) {
        point_edge::interior_value(node(p), node(a), node(b))
    } else {
        line_line_value(node(0), node(1), node(2), node(3))
    }
}

/// The derivatives of the formula of `case` at `x = [ea0, ea1, eb0, eb1]`.
fn derivatives_in_case(x: &[f64], case: EdgeEdgeCase) -> Derivatives {
    if let Some(nodes) = point_point_nodes(case) {
        point_point::derivatives(x, 3, nodes, 12)
    } else if let Some(nodes) = point_edge_nodes(case) {
        point_edge::interior_derivatives(x, 3, nodes, 12)
    } else {
        derivatives_of::<9>(x, 3, &[[1, 0], [3, 2], [0, 2]], 12, |v| {
            line_line_formula(&v[..3], &v[3..6], &v[6..])
        })
    }
}

/// Value (m²), gradient (m) and Hessian (dimensionless) of the edge–edge squared
/// distance with respect to `x = [ea0, ea1, eb0, eb1]` (length 12, `n = 12`), in
/// the case [`edge_edge_case`] picks at `x`; nodes outside the case get zero rows.
pub fn edge_edge_distance_sq_derivatives(x: &[f64]) -> Derivatives {
    derivatives_in_case(x, classify(nodes_3d(x)).0)
}

/// Closest-point coefficients `β = [1 − s, s, −(1 − t), −t]` (dimensionless) of the
/// pair `x = [ea0, ea1, eb0, eb1]`, with `s, t ∈ [0, 1]` the closest points'
/// parameters on `ea` and `eb` as the case selection picks them: `Σ_i β_i x_i` is
/// the vector from the closest point of `eb` to the closest point of `ea`, of
/// length the distance.
pub fn edge_edge_coefficients(x: &[f64]) -> [f64; 4] {
    use EdgeEdgeCase::*;
    let e = nodes_3d(x);
    let (s, t) = match classify(e).0 {
        Ea0Eb0 => (0.0, 0.0),
        Ea0Eb1 => (0.0, 1.0),
        Ea1Eb0 => (1.0, 0.0),
        Ea1Eb1 => (1.0, 1.0),
        Ea0Eb => (0.0, point_edge::parameter(e[0], e[2], e[3])),
        Ea1Eb => (1.0, point_edge::parameter(e[1], e[2], e[3])),
        Eb0Ea => (point_edge::parameter(e[2], e[0], e[1]), 0.0),
        Eb1Ea => (point_edge::parameter(e[3], e[0], e[1]), 1.0),
        LineLine => line_parameters(e[0], e[1], e[2], e[3]).unwrap_or((0.0, 0.0)),
    };
    [1.0 - s, s, -(1.0 - t), -t]
}

#[cfg(test)]
#[path = "edge_edge/tests.rs"]
mod tests;
