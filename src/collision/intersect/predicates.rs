//! The exact predicates of the intersection checks: orientation signs from
//! `robust`, and the closed segment–segment (2D, 3D) and segment–triangle (3D)
//! tests built on them (see the parent module's docs on exactness).

use robust::{orient2d, orient3d, Coord, Coord3D};

/// Sign of a predicate value: 1, -1 or 0.
fn sign(v: f64) -> i32 {
    if v > 0.0 {
        1
    } else if v < 0.0 {
        -1
    } else {
        0
    }
}

/// Exact sign of the orientation of `c` relative to the directed line `a → b`
/// (positive: counterclockwise).
fn orient_2(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> i32 {
    let p = |v: [f64; 2]| Coord { x: v[0], y: v[1] };
    sign(orient2d(p(a), p(b), p(c)))
}

/// Exact sign of the orientation of `d` relative to the plane through `a, b, c`
/// (zero: coplanar). Only compared between calls with the same `a, b, c` order.
fn orient_3(a: [f64; 3], b: [f64; 3], c: [f64; 3], d: [f64; 3]) -> i32 {
    let p = |v: [f64; 3]| Coord3D {
        x: v[0],
        y: v[1],
        z: v[2],
    };
    sign(orient3d(p(a), p(b), p(c), p(d)))
}

/// Whether `c` lies in the closed axis-aligned box spanned by `a` and `b`.
fn in_span(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> bool {
    (0..2).all(|k| a[k].min(b[k]) <= c[k] && c[k] <= a[k].max(b[k]))
}

/// The point `v` with coordinate `axis` dropped (the remaining two in cyclic
/// order).
fn drop_axis(v: [f64; 3], axis: usize) -> [f64; 2] {
    [v[(axis + 1) % 3], v[(axis + 2) % 3]]
}

/// Whether every coordinate of `points` is finite.
fn finite<const N: usize>(points: &[[f64; N]]) -> bool {
    points.iter().flatten().all(|v| v.is_finite())
}

/// Whether the closed 2D segments `p0 p1` and `q0 q1` (m) share a point.
///
/// Exact (orientation signs and coordinate comparisons only); handles crossing,
/// touching, T-junctions, collinear overlap and zero-length segments. Returns
/// `true` if any coordinate is not finite (conservative).
pub fn segments_intersect_2d(p0: [f64; 2], p1: [f64; 2], q0: [f64; 2], q1: [f64; 2]) -> bool {
    if !finite(&[p0, p1, q0, q1]) {
        return true;
    }
    let d1 = orient_2(q0, q1, p0);
    let d2 = orient_2(q0, q1, p1);
    let d3 = orient_2(p0, p1, q0);
    let d4 = orient_2(p0, p1, q1);
    // Proper crossing: each segment's endpoints strictly on both sides of the
    // other's line.
    if d1 * d2 < 0 && d3 * d4 < 0 {
        return true;
    }
    // Otherwise they meet only if an endpoint lies on the other segment
    // (a zero orientation means collinear with it, or that segment is a point,
    // in which case the span test asks for equality).
    (d1 == 0 && in_span(q0, q1, p0))
        || (d2 == 0 && in_span(q0, q1, p1))
        || (d3 == 0 && in_span(p0, p1, q0))
        || (d4 == 0 && in_span(p0, p1, q1))
}

/// Whether the closed 3D segments `p0 p1` and `q0 q1` (m) share a point.
///
/// Exact. Segments that are not coplanar never meet; coplanar ones meet exactly
/// when their projections onto all three axis planes meet (one of those planes
/// is one-to-one on a plane holding both segments, and a real common point
/// projects to a common point in every plane). Returns `true` if any coordinate
/// is not finite (conservative).
pub fn segments_intersect_3d(p0: [f64; 3], p1: [f64; 3], q0: [f64; 3], q1: [f64; 3]) -> bool {
    if !finite(&[p0, p1, q0, q1]) {
        return true;
    }
    if orient_3(p0, p1, q0, q1) != 0 {
        return false;
    }
    (0..3).all(|k| {
        let d = |v| drop_axis(v, k);
        segments_intersect_2d(d(p0), d(p1), d(q0), d(q1))
    })
}

/// Whether `p` lies in the closed 2D triangle `a b c`, which must be
/// non-degenerate (exact).
fn point_in_triangle_2d(p: [f64; 2], a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> bool {
    let s = [orient_2(a, b, p), orient_2(b, c, p), orient_2(c, a, p)];
    s.iter().all(|&v| v >= 0) || s.iter().all(|&v| v <= 0)
}

/// Whether the closed 2D segment `p q` meets the closed non-degenerate triangle
/// `a b c` (exact).
fn segment_triangle_2d(p: [f64; 2], q: [f64; 2], a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> bool {
    // A closed convex triangle: either an endpoint is inside, or the segment
    // crosses the boundary.
    point_in_triangle_2d(p, a, b, c)
        || point_in_triangle_2d(q, a, b, c)
        || segments_intersect_2d(p, q, a, b)
        || segments_intersect_2d(p, q, b, c)
        || segments_intersect_2d(p, q, c, a)
}

/// Whether the projections of the segment `p q` and the triangle `a b c` onto the
/// plane without coordinate `axis` (one onto which the triangle projects one-to-one)
/// are strictly separated by the line of a triangle edge or of the segment: then the
/// 3D sets are disjoint too (a common point would project to a common point). Exact
/// signs; a quick answer for the coplanar neighbours of a flat mesh, whose 3D
/// orientation is exactly 0 and costs the adaptive predicate its slowest path.
fn separated_in_projection(
    p: [f64; 3],
    q: [f64; 3],
    a: [f64; 3],
    b: [f64; 3],
    c: [f64; 3],
    axis: usize,
) -> bool {
    let [p, q, a, b, c] = [p, q, a, b, c].map(|v| drop_axis(v, axis));
    // The triangle's orientation is non-zero in this projection: each edge has the
    // third vertex strictly on one side.
    let side = orient_2(a, b, c);
    let outside = |u, v| orient_2(u, v, p) == -side && orient_2(u, v, q) == -side;
    if outside(a, b) || outside(b, c) || outside(c, a) {
        return true;
    }
    let s = [orient_2(p, q, a), orient_2(p, q, b), orient_2(p, q, c)];
    s.iter().all(|&v| v > 0) || s.iter().all(|&v| v < 0)
}

/// The axis to drop so that the triangle `a b c` projects one-to-one (its
/// projected exact orientation is non-zero; the largest one is taken for good
/// conditioning), or `None` if the triangle is degenerate (collinear vertices).
fn projection_axis(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> Option<usize> {
    let mut best = None;
    let mut best_size = 0.0;
    for k in 0..3 {
        let d = |v| {
            let w = drop_axis(v, k);
            Coord { x: w[0], y: w[1] }
        };
        let size = orient2d(d(a), d(b), d(c)).abs();
        if size > best_size {
            best_size = size;
            best = Some(k);
        }
    }
    best
}

/// Whether the closed 3D segment `p q` and the closed triangle `a b c` (m)
/// share a point.
///
/// Exact. Handles a segment crossing the interior, passing through an edge or a
/// vertex, touching with an endpoint, lying in the triangle's plane (overlap
/// counts), zero-length segments and degenerate triangles (collinear vertices:
/// tested as the union of their edges). Returns `true` if any coordinate is not
/// finite (conservative).
pub fn segment_triangle_intersect_3d(
    p: [f64; 3],
    q: [f64; 3],
    a: [f64; 3],
    b: [f64; 3],
    c: [f64; 3],
) -> bool {
    if !finite(&[p, q, a, b, c]) {
        return true;
    }
    let Some(axis) = projection_axis(a, b, c) else {
        // Collinear vertices: the triangle is the hull of its longest edge.
        return segments_intersect_3d(p, q, a, b)
            || segments_intersect_3d(p, q, b, c)
            || segments_intersect_3d(p, q, c, a);
    };
    if separated_in_projection(p, q, a, b, c, axis) {
        return false;
    }
    let sp = orient_3(a, b, c, p);
    let sq = orient_3(a, b, c, q);
    if sp * sq > 0 {
        // Both endpoints strictly on the same side of the plane.
        return false;
    }
    if sp == 0 && sq == 0 {
        // The segment lies in the triangle's plane.
        let d = |v| drop_axis(v, axis);
        return segment_triangle_2d(d(p), d(q), d(a), d(b), d(c));
    }
    // The segment meets the plane in exactly one point (an endpoint if one of
    // sp, sq is zero), and that point is in the closed triangle exactly when
    // the line p q passes on the same side of (or through) all three edge
    // lines.
    let s = [
        orient_3(p, q, a, b),
        orient_3(p, q, b, c),
        orient_3(p, q, c, a),
    ];
    s.iter().all(|&v| v >= 0) || s.iter().all(|&v| v <= 0)
}
