//! Exact intersection predicates (Shewchuk's orientation tests from `robust`) on
//! the positions `x + t p` that a caller forms at the CCD bound, for the tests.

use super::tests::{flat, TRI};
use super::PairKind;
use robust::{orient2d, orient3d, Coord, Coord3D};

fn c2(a: &[f64]) -> Coord<f64> {
    Coord { x: a[0], y: a[1] }
}

fn c3(a: &[f64]) -> Coord3D<f64> {
    Coord3D {
        x: a[0],
        y: a[1],
        z: a[2],
    }
}

/// `c` (collinear with a, b) lies in the closed box of a, b: on the segment.
fn in_box(a: &[f64], b: &[f64], c: &[f64]) -> bool {
    a.iter()
        .zip(b)
        .zip(c)
        .all(|((a, b), c)| a.min(*b) <= *c && *c <= a.max(*b))
}

/// Exact: closed 2D segments [a0, a1] and [b0, b1] share a point.
fn segments_intersect_2d(a0: &[f64], a1: &[f64], b0: &[f64], b1: &[f64]) -> bool {
    let o1 = orient2d(c2(a0), c2(a1), c2(b0));
    let o2 = orient2d(c2(a0), c2(a1), c2(b1));
    let o3 = orient2d(c2(b0), c2(b1), c2(a0));
    let o4 = orient2d(c2(b0), c2(b1), c2(a1));
    let opposite = |u: f64, v: f64| (u > 0.0 && v < 0.0) || (u < 0.0 && v > 0.0);
    if opposite(o1, o2) && opposite(o3, o4) {
        return true;
    }
    (o1 == 0.0 && in_box(a0, a1, b0))
        || (o2 == 0.0 && in_box(a0, a1, b1))
        || (o3 == 0.0 && in_box(b0, b1, a0))
        || (o4 == 0.0 && in_box(b0, b1, a1))
}

/// Drops coordinate `axis` of a 3D point.
fn drop_axis(a: &[f64], axis: usize) -> [f64; 2] {
    match axis {
        0 => [a[1], a[2]],
        1 => [a[0], a[2]],
        _ => [a[0], a[1]],
    }
}

/// Exact, for coplanar points: an axis whose projection is injective on
/// their plane (some triple projects to a non-degenerate triangle), or None
/// when all points are collinear.
fn injective_axis(pts: &[&[f64]]) -> Option<usize> {
    (0..3).find(|&axis| {
        let q: Vec<[f64; 2]> = pts.iter().map(|a| drop_axis(a, axis)).collect();
        (0..q.len()).any(|i| {
            (i + 1..q.len())
                .any(|j| (j + 1..q.len()).any(|k| orient2d(c2(&q[i]), c2(&q[j]), c2(&q[k])) != 0.0))
        })
    })
}

/// Exact: 3D point on the closed segment [a, b].
fn point_on_segment_3d(p: &[f64], a: &[f64], b: &[f64]) -> bool {
    (0..3).all(|axis| {
        let (p2, a2, b2) = (drop_axis(p, axis), drop_axis(a, axis), drop_axis(b, axis));
        orient2d(c2(&a2), c2(&b2), c2(&p2)) == 0.0
    }) && in_box(a, b, p)
}

/// Exact: closed 3D segments share a point.
fn segments_intersect_3d(a0: &[f64], a1: &[f64], b0: &[f64], b1: &[f64]) -> bool {
    if orient3d(c3(a0), c3(a1), c3(b0), c3(b1)) != 0.0 {
        return false;
    }
    match injective_axis(&[a0, a1, b0, b1]) {
        Some(axis) => {
            let q = |a: &[f64]| drop_axis(a, axis);
            segments_intersect_2d(&q(a0), &q(a1), &q(b0), &q(b1))
        }
        // All four collinear: interval overlap along every coordinate.
        None => (0..3).all(|i| {
            a0[i].min(a1[i]).max(b0[i].min(b1[i])) <= a0[i].max(a1[i]).min(b0[i].max(b1[i]))
        }),
    }
}

/// Exact: 3D point in the closed triangle.
fn point_in_triangle_3d(p: &[f64], t0: &[f64], t1: &[f64], t2: &[f64]) -> bool {
    if orient3d(c3(t0), c3(t1), c3(t2), c3(p)) != 0.0 {
        return false;
    }
    match injective_axis(&[t0, t1, t2]) {
        Some(axis) => {
            let (q, a, b, c) = (
                drop_axis(p, axis),
                drop_axis(t0, axis),
                drop_axis(t1, axis),
                drop_axis(t2, axis),
            );
            let o = [
                orient2d(c2(&a), c2(&b), c2(&q)),
                orient2d(c2(&b), c2(&c), c2(&q)),
                orient2d(c2(&c), c2(&a), c2(&q)),
            ];
            o.iter().all(|&v| v >= 0.0) || o.iter().all(|&v| v <= 0.0)
        }
        None => {
            point_on_segment_3d(p, t0, t1)
                || point_on_segment_3d(p, t1, t2)
                || point_on_segment_3d(p, t2, t0)
        }
    }
}

/// Exact: the primitives of the pair with stacked nodes `y` share a point.
pub(super) fn intersects(kind: PairKind, dim: usize, y: &[f64]) -> bool {
    let n = |i: usize| &y[i * dim..(i + 1) * dim];
    match (kind, dim) {
        (PairKind::PointEdge, 2) => {
            orient2d(c2(n(1)), c2(n(2)), c2(n(0))) == 0.0 && in_box(n(1), n(2), n(0))
        }
        (PairKind::PointEdge, _) => point_on_segment_3d(n(0), n(1), n(2)),
        (PairKind::PointTriangle, _) => point_in_triangle_3d(n(0), n(1), n(2), n(3)),
        (PairKind::EdgeEdge, _) => segments_intersect_3d(n(0), n(1), n(2), n(3)),
    }
}

#[test]
fn exact_predicates_sanity() {
    assert!(intersects(
        PairKind::PointEdge,
        2,
        &[0.5, 0.0, 0.0, 0.0, 1.0, 0.0]
    ));
    assert!(!intersects(
        PairKind::PointEdge,
        2,
        &[0.5, 1e-300, 0.0, 0.0, 1.0, 0.0]
    ));
    assert!(!intersects(
        PairKind::PointEdge,
        2,
        &[1.5, 0.0, 0.0, 0.0, 1.0, 0.0]
    ));
    assert!(intersects(
        PairKind::PointTriangle,
        3,
        &flat(&[&[0.2, 0.2, 0.0], &TRI[0], &TRI[1], &TRI[2]])
    ));
    assert!(!intersects(
        PairKind::PointTriangle,
        3,
        &flat(&[&[0.6, 0.6, 0.0], &TRI[0], &TRI[1], &TRI[2]])
    ));
    // Edge a along x from -1 to 1 against edge b: crossing, collinear
    // overlapping, collinear apart.
    for (b, hit) in [
        ([[0.0, -1.0, 0.0], [0.0, 1.0, 0.0]], true),
        ([[0.5, 0.0, 0.0], [3.0, 0.0, 0.0]], true),
        ([[1.5, 0.0, 0.0], [3.0, 0.0, 0.0]], false),
    ] {
        let x = flat(&[&[-1.0, 0.0, 0.0], &[1.0, 0.0, 0.0], &b[0], &b[1]]);
        assert_eq!(intersects(PairKind::EdgeEdge, 3, &x), hit, "{b:?}");
    }
}
