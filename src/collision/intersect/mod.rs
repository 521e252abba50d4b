//! Exact intersection checks between mesh primitives.
//!
//! Used after accepted steps (in tests) and as a user command over a finished
//! run, to verify that no two surfaces pass through each other:
//!
//! * 2D: [`segment_intersections_2d`] lists the pairs of edges that intersect;
//! * 3D: [`edge_triangle_intersections_3d`] lists the (edge, triangle) pairs that
//!   intersect. Two closed triangle meshes intersect exactly when an edge of one
//!   meets a triangle of the other, so this covers triangle-triangle contact.
//!
//! Primitives are **closed** sets: touching counts as intersecting (an endpoint
//! on a segment, a segment grazing a triangle's vertex or edge, a segment lying
//! in a triangle's plane and overlapping it). Pairs that share a node are never
//! reported (adjacent primitives always touch).
//!
//! # Exactness
//!
//! Candidates come from the broad phase ([`super::broad_phase`], boxes of the
//! primitives, not inflated, closed, so touching primitives are never lost); the
//! decision is then made only with the sign of `robust::orient2d` /
//! `robust::orient3d` (adaptive exact predicates) and with comparisons of input
//! coordinates. No new coordinates are ever computed (no intersection points, no
//! normals), so the answer is exact for the given `f64` coordinates, as long as
//! the predicates' intermediate products neither overflow nor underflow (far
//! outside any physical range: roughly coordinates beyond 1e±50 m).
//!
//! Degenerate inputs are handled: collinear or coplanar configurations,
//! zero-length edges (points) and degenerate triangles (collinear vertices, whose
//! point set is the union of their edges). A coplanar segment and triangle are
//! tested in an axis plane onto which the triangle's plane projects one-to-one
//! (a plane whose projected triangle has non-zero exact `orient2d`); such a
//! projection is an affine bijection of the plane, so it preserves incidence and
//! orientation signs (up to one global sign), hence the 2D answer is the 3D
//! answer.
//!
//! # Non-finite coordinates
//!
//! A pair is reported as intersecting whenever a coordinate involved is NaN or
//! infinite (conservative: a broken state must not pass the check). A primitive
//! with a NaN coordinate has a NaN box, which the broad phase pairs with every
//! other primitive, so it is reported against every primitive it shares no node
//! with (and that `keep` accepts).
//!
//! # Files
//!
//! This file holds the mesh-level checks; `predicates.rs` the exact
//! primitive-level tests (re-exported here); `tests.rs` the hand cases and
//! `proptests.rs` the property tests against independent references.

mod predicates;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

pub use predicates::{segment_triangle_intersect_3d, segments_intersect_2d, segments_intersect_3d};

use super::broad_phase::{overlapping_pairs, self_overlapping_pairs, Aabb};

/// Node `n` of the flat `nodes × 2` position array `x`.
fn point2(x: &[f64], n: u32) -> [f64; 2] {
    let i = n as usize * 2;
    [x[i], x[i + 1]]
}

/// Node `n` of the flat `nodes × 3` position array `x`.
fn point3(x: &[f64], n: u32) -> [f64; 3] {
    let i = n as usize * 3;
    [x[i], x[i + 1], x[i + 2]]
}

/// 2D: every pair of edges (indices into `edges`, `i < j`) that share no node,
/// that `keep(i, j)` accepts, and whose closed segments intersect (touching
/// counts), sorted, each once.
///
/// `x` is the flat `nodes × 2` position array (m); `edges` holds node indices.
/// Exact for the given coordinates (see the module docs); non-finite coordinates
/// are reported conservatively. `keep` is called only for pairs whose boxes
/// overlap and that share no node.
///
/// Panics if a node index is out of range of `x`.
pub fn segment_intersections_2d(
    x: &[f64],
    edges: &[[u32; 2]],
    keep: impl Fn(u32, u32) -> bool,
) -> Vec<[u32; 2]> {
    intersecting_pairs::<2, 2>(2, x, edges, None, keep, |e, f| {
        segments_intersect_2d(
            point2(x, e[0]),
            point2(x, e[1]),
            point2(x, f[0]),
            point2(x, f[1]),
        )
    })
}

/// 3D: every `(edge, triangle)` pair (indices into `edges` and `triangles`)
/// that shares no node, that `keep(edge, triangle)` accepts, and whose closed
/// segment and closed triangle intersect (touching counts; coplanar overlap
/// counts), sorted, each once.
///
/// `x` is the flat `nodes × 3` position array (m); `edges` and `triangles` hold
/// node indices. Exact for the given coordinates (see the module docs);
/// non-finite coordinates are reported conservatively. `keep` is called only for
/// pairs whose boxes overlap and that share no node.
///
/// Panics if a node index is out of range of `x`.
pub fn edge_triangle_intersections_3d(
    x: &[f64],
    edges: &[[u32; 2]],
    triangles: &[[u32; 3]],
    keep: impl Fn(u32, u32) -> bool,
) -> Vec<[u32; 2]> {
    intersecting_pairs(3, x, edges, Some(triangles), keep, |e, t| {
        segment_triangle_intersect_3d(
            point3(x, e[0]),
            point3(x, e[1]),
            point3(x, t[0]),
            point3(x, t[1]),
            point3(x, t[2]),
        )
    })
}

/// The pairs `[i, j]` of primitives `a[i]`, `b[j]` (node indices into the flat
/// `nodes × dim` positions `x`) whose boxes overlap, that share no node, that
/// `keep(i, j)` accepts and for which `hit(a[i], b[j])` is true, sorted, each
/// once. With `b = None`, the pairs `i < j` of `a` with itself.
fn intersecting_pairs<const A: usize, const B: usize>(
    dim: usize,
    x: &[f64],
    a: &[[u32; A]],
    b: Option<&[[u32; B]]>,
    keep: impl Fn(u32, u32) -> bool,
    hit: impl Fn(&[u32], &[u32]) -> bool + Sync,
) -> Vec<[u32; 2]> {
    let a_boxes: Vec<Aabb> = a.iter().map(|p| Aabb::of_points(dim, x, p)).collect();
    let other = |j: u32| -> &[u32] {
        match b {
            Some(b) => &b[j as usize],
            None => &a[j as usize],
        }
    };
    let filter = |i: u32, j: u32| {
        let (p, q) = (&a[i as usize], other(j));
        !p.iter().any(|n| q.contains(n)) && keep(i, j)
    };
    let candidates = match b {
        Some(b) => {
            let b_boxes: Vec<Aabb> = b.iter().map(|q| Aabb::of_points(dim, x, q)).collect();
            overlapping_pairs(&a_boxes, &b_boxes, filter)
        }
        None => self_overlapping_pairs(&a_boxes, filter),
    };
    let hits = crate::parallel::map(candidates.len(), |c| {
        let [i, j] = candidates[c];
        hit(&a[i as usize], other(j))
    });
    candidates
        .into_iter()
        .zip(hits)
        .filter_map(|(pair, h)| h.then_some(pair))
        .collect()
}
