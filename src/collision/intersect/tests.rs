//! Hand cases of the intersection checks: crossing, touching, collinear,
//! coplanar and zero-length configurations, near misses by 1e-15 or one ulp,
//! degenerate triangles, non-finite coordinates, and small meshes (a bow tie, a
//! pierced tetrahedron) with shared nodes excluded.

use super::*;

/// Next representable value above.
fn up(v: f64) -> f64 {
    if v == 0.0 {
        f64::from_bits(1)
    } else if v > 0.0 {
        f64::from_bits(v.to_bits() + 1)
    } else {
        f64::from_bits(v.to_bits() - 1)
    }
}
/// Next representable value below.
fn down(v: f64) -> f64 {
    -up(-v)
}

fn seg2(p0: [f64; 2], p1: [f64; 2], q0: [f64; 2], q1: [f64; 2]) -> bool {
    let r = segments_intersect_2d(p0, p1, q0, q1);
    // The answer must not depend on the order of segments or endpoints.
    for (a, b, c, d) in [
        (p1, p0, q0, q1),
        (p0, p1, q1, q0),
        (q0, q1, p0, p1),
        (q1, q0, p1, p0),
    ] {
        assert_eq!(segments_intersect_2d(a, b, c, d), r);
    }
    r
}

#[test]
fn segments_2d_hand_cases() {
    // Crossing.
    assert!(seg2([0.0, 0.0], [2.0, 2.0], [0.0, 2.0], [2.0, 0.0]));
    // Touching at an endpoint (distinct nodes, same position).
    assert!(seg2([0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [2.0, 1.0]));
    // T-junction.
    assert!(seg2([0.0, 0.0], [2.0, 0.0], [1.0, 0.0], [1.0, 1.0]));
    // Parallel apart.
    assert!(!seg2([0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]));
    // Not parallel, lines cross outside both segments.
    assert!(!seg2([0.0, 0.0], [1.0, 0.0], [2.0, -1.0], [2.0, 1.0]));
    // Collinear overlapping, containing, touching, disjoint.
    assert!(seg2([0.0, 0.0], [2.0, 0.0], [1.0, 0.0], [3.0, 0.0]));
    assert!(seg2([0.0, 0.0], [3.0, 3.0], [1.0, 1.0], [2.0, 2.0]));
    assert!(seg2([0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [2.0, 0.0]));
    assert!(!seg2([0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [3.0, 0.0]));
    assert!(!seg2([0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]));
    // Zero-length edges.
    assert!(seg2([0.5, 0.0], [0.5, 0.0], [0.0, 0.0], [1.0, 0.0]));
    assert!(!seg2([0.5, 1e-300], [0.5, 1e-300], [0.0, 0.0], [1.0, 0.0]));
    assert!(!seg2([1.5, 0.0], [1.5, 0.0], [0.0, 0.0], [1.0, 0.0]));
    assert!(seg2([0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]));
    assert!(!seg2([0.5, 0.5], [0.5, 0.5], [0.5, 0.6], [0.5, 0.6]));
}

#[test]
fn segments_2d_near_misses() {
    // A T-junction with the stem ending 1e-15 short of / past the bar on the
    // line y = x / 3 (the point (1.5, 0.5) lies exactly on it).
    let (a, b) = ([0.0, 0.0], [3.0, 1.0]);
    assert!(seg2(a, b, [1.5, 0.5], [1.5, 2.0]));
    assert!(!seg2(a, b, [1.5, 0.5 + 1e-15], [1.5, 2.0]));
    assert!(seg2(a, b, [1.5, 0.5 - 1e-15], [1.5, 2.0]));
    // One ulp, on a diagonal.
    let (a, b) = ([0.0, 0.0], [1.0, 1.0]);
    assert!(seg2(a, b, [0.5, 0.5], [0.5, 1.0]));
    assert!(!seg2(a, b, [0.5, up(0.5)], [0.5, 1.0]));
    assert!(seg2(a, b, [0.5, down(0.5)], [0.5, 1.0]));
    // Collinear segments 1e-15 apart along the line, and one ulp off the line.
    assert!(!seg2(
        [0.0, 0.0],
        [1.0, 0.0],
        [1.0 + 1e-15, 0.0],
        [2.0, 0.0]
    ));
    assert!(!seg2([0.0, 0.0], [1.0, 1.0], [1.0, up(1.0)], [2.0, 2.0]));
    // Nearly parallel crossing.
    assert!(seg2([0.0, 0.0], [1.0, 1e-15], [0.0, 1e-15], [1.0, 0.0]));
    assert!(!seg2([0.0, 0.0], [1.0, 1e-15], [0.0, 2e-15], [1.0, 2e-15]));
}

#[test]
fn non_finite_is_conservative() {
    assert!(segments_intersect_2d(
        [f64::NAN, 0.0],
        [1.0, 0.0],
        [5.0, 5.0],
        [6.0, 6.0]
    ));
    let t = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    assert!(segment_triangle_intersect_3d(
        [9.0, 9.0, f64::INFINITY],
        [9.0, 9.0, 9.0],
        t[0],
        t[1],
        t[2]
    ));
    let x = [0.0, 0.0, 1.0, 0.0, f64::NAN, 0.0, 9.0, 9.0, 8.0, 8.0];
    let edges = [[0, 1], [2, 3], [3, 4]];
    assert_eq!(
        segment_intersections_2d(&x, &edges, |_, _| true),
        vec![[0, 1]]
    );
}

const TRI: [[f64; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

fn seg_tri(p: [f64; 3], q: [f64; 3], t: [[f64; 3]; 3]) -> bool {
    let r = segment_triangle_intersect_3d(p, q, t[0], t[1], t[2]);
    // Independent of endpoint order and of the triangle's vertex order.
    let [a, b, c] = t;
    for (p, q, a, b, c) in [
        (q, p, a, b, c),
        (p, q, b, c, a),
        (p, q, c, a, b),
        (p, q, b, a, c),
        (q, p, a, c, b),
    ] {
        assert_eq!(segment_triangle_intersect_3d(p, q, a, b, c), r);
    }
    r
}

#[test]
fn segment_triangle_hand_cases() {
    // Through the interior, an edge, a vertex.
    assert!(seg_tri([0.25, 0.25, -1.0], [0.25, 0.25, 1.0], TRI));
    assert!(seg_tri([0.5, 0.0, -1.0], [0.5, 0.0, 1.0], TRI));
    assert!(seg_tri([0.5, 0.5, -1.0], [0.5, 0.5, 1.0], TRI));
    assert!(seg_tri([0.0, 0.0, -1.0], [0.0, 0.0, 1.0], TRI));
    assert!(seg_tri([-1.0, -1.0, -1.0], [1.0, 1.0, 1.0], TRI));
    // Missing: crossing the plane outside, same side, parallel above.
    assert!(!seg_tri([0.75, 0.75, -1.0], [0.75, 0.75, 1.0], TRI));
    assert!(!seg_tri([0.25, 0.25, 0.5], [0.25, 0.25, 1.0], TRI));
    assert!(!seg_tri([0.0, 0.0, 1.0], [1.0, 1.0, 1.0], TRI));
    // Touching with an endpoint: on the face, on an edge, at a vertex; and an
    // endpoint in the plane but outside.
    assert!(seg_tri([0.25, 0.25, 0.0], [0.25, 0.25, 1.0], TRI));
    assert!(seg_tri([0.5, 0.5, 0.0], [3.0, 3.0, 1.0], TRI));
    assert!(seg_tri([1.0, 0.0, 0.0], [2.0, 0.0, 1.0], TRI));
    assert!(!seg_tri([1.0, 1.0, 0.0], [0.0, 0.0, 1.0], TRI));
    // Coplanar: inside, crossing, outside, sharing a vertex position, along an
    // edge, touching an edge at one point.
    assert!(seg_tri([0.1, 0.1, 0.0], [0.2, 0.2, 0.0], TRI));
    assert!(seg_tri([-1.0, 0.25, 0.0], [2.0, 0.25, 0.0], TRI));
    assert!(!seg_tri([2.0, 2.0, 0.0], [3.0, 3.0, 0.0], TRI));
    assert!(seg_tri(
        [-1.0, 2.0, 0.0],
        [2.0, -1.0 + 1e-15, 0.0],
        [TRI[1], TRI[2], [1.0, 1.0, 0.0]]
    ));
    assert!(seg_tri([1.0, 0.0, 0.0], [2.0, 0.0, 0.0], TRI));
    assert!(seg_tri([-1.0, 0.0, 0.0], [0.5, 0.0, 0.0], TRI));
    assert!(seg_tri([0.5, 0.5, 0.0], [2.0, 2.0, 0.0], TRI));
    assert!(!seg_tri([0.5 + 1e-15, 0.5, 0.0], [2.0, 2.0, 0.0], TRI));
    assert!(!seg_tri([-1.0, 2.0, 0.0], [2.0, -1.0 + 1e-15, 0.0], TRI));
    // Coplanar, tilted plane x + y + z = 1 (all points exactly on it).
    let tilted = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    assert!(seg_tri([0.25, 0.25, 0.5], [0.5, 0.5, 0.0], tilted));
    assert!(seg_tri([0.25, 0.25, 0.5], [0.125, 0.125, 0.75], tilted));
    assert!(!seg_tri([-0.5, 0.75, 0.75], [-1.0, 1.0, 1.0], tilted));
    assert!(seg_tri([-0.5, 0.75, 0.75], [0.75, -0.5, 0.75], tilted));
    // Zero-length edges.
    assert!(seg_tri([0.25, 0.25, 0.0], [0.25, 0.25, 0.0], TRI));
    assert!(seg_tri([0.0, 1.0, 0.0], [0.0, 1.0, 0.0], TRI));
    assert!(!seg_tri([0.25, 0.25, 1e-300], [0.25, 0.25, 1e-300], TRI));
    assert!(!seg_tri([1.0, 1.0, 0.0], [1.0, 1.0, 0.0], TRI));
}

#[test]
fn segment_triangle_near_misses() {
    // Crossing the plane 1e-15 outside / inside the hypotenuse x + y = 1.
    assert!(!seg_tri(
        [0.5 + 1e-15, 0.5, -1.0],
        [0.5 + 1e-15, 0.5, 1.0],
        TRI
    ));
    assert!(seg_tri(
        [0.5 - 1e-15, 0.5, -1.0],
        [0.5 - 1e-15, 0.5, 1.0],
        TRI
    ));
    // Stopping 1e-15 short of the face / reaching 1e-15 past it.
    assert!(!seg_tri([0.25, 0.25, 1e-15], [0.25, 0.25, 1.0], TRI));
    assert!(seg_tri([0.25, 0.25, -1e-15], [0.25, 0.25, 1.0], TRI));
    // Near a vertex: one ulp past it, on it, one ulp inside the edge.
    assert!(!seg_tri([up(1.0), 0.0, -1.0], [up(1.0), 0.0, 1.0], TRI));
    assert!(seg_tri([1.0, 0.0, -1.0], [1.0, 0.0, 1.0], TRI));
    assert!(seg_tri([down(1.0), 0.0, -1.0], [down(1.0), 0.0, 1.0], TRI));
    assert!(!seg_tri([1.0, 0.0, 1e-15], [2.0, 0.0, 1.0], TRI));
    assert!(seg_tri([1.0, 0.0, -1e-15], [0.0, 0.0, 1.0], TRI));
    assert!(!seg_tri([1.0, 0.0, -1e-15], [2.0, 0.0, 1.0], TRI));
    // A subnormal offset still decides correctly.
    assert!(!seg_tri([1.0, 0.0, up(0.0)], [2.0, 0.0, 1.0], TRI));
    // Slanted segment through the tilted triangle's edge, one ulp either side.
    let tilted = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    assert!(seg_tri([0.5, 0.5, 0.0], [0.0, 0.0, 0.0], tilted));
    assert!(!seg_tri([up(0.5), 0.5, 0.0], [2.0, 2.0, 0.0], tilted));
    assert!(seg_tri([up(0.5), 0.5, 0.0], [0.0, 0.0, 0.0], tilted));
}

#[test]
fn degenerate_triangles() {
    let line = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
    assert!(seg_tri([0.5, -1.0, 0.0], [0.5, 1.0, 0.0], line));
    assert!(seg_tri([1.5, -1.0, -1.0], [1.5, 1.0, 1.0], line));
    assert!(!seg_tri([0.5, -1.0, 1.0], [0.5, 1.0, 1.0], line));
    assert!(!seg_tri([2.5, -1.0, 0.0], [2.5, 1.0, 0.0], line));
    assert!(seg_tri([2.0, 0.0, 0.0], [3.0, 0.0, 0.0], line));
    assert!(!seg_tri([up(2.0), 0.0, 0.0], [3.0, 0.0, 0.0], line));
    let point = [[1.0, 1.0, 1.0]; 3];
    assert!(seg_tri([0.0, 0.0, 0.0], [2.0, 2.0, 2.0], point));
    assert!(!seg_tri([0.0, 0.0, 0.0], [2.0, 2.0, up(2.0)], point));
    assert!(seg_tri([1.0, 1.0, 1.0], [1.0, 1.0, 1.0], point));
}

#[test]
fn segments_3d() {
    let o = [0.0; 3];
    for (p0, p1, q0, q1, hit) in [
        // Crossing at (1, 1, 1), and missing it by one ulp.
        (o, [2.0; 3], [0.0, 2.0, 0.0], [2.0, 0.0, 2.0], true),
        (o, [2.0; 3], [0.0, 2.0, 0.0], [2.0, 0.0, up(2.0)], false),
        // Skew lines whose projections onto two axis planes cross.
        (o, [1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0], false),
        // Collinear along an axis, overlapping and apart.
        (o, [0.0, 0.0, 2.0], [0.0, 0.0, 1.0], [0.0, 0.0, 3.0], true),
        (o, [0.0, 0.0, 1.0], [0.0, 0.0, 2.0], [0.0, 0.0, 3.0], false),
    ] {
        assert_eq!(
            segments_intersect_3d(p0, p1, q0, q1),
            hit,
            "{p0:?} {p1:?} {q0:?} {q1:?}"
        );
    }
}

#[test]
fn mesh_2d_bowtie_and_shared_nodes() {
    // A bow tie: edges 0 (0-1) and 2 (2-3) cross; adjacent edges touch at
    // shared nodes and are excluded.
    let x = [0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0];
    let edges = [[0, 1], [1, 2], [2, 3], [3, 0]];
    assert_eq!(
        segment_intersections_2d(&x, &edges, |_, _| true),
        vec![[0, 2]]
    );
    assert!(segment_intersections_2d(&x, &edges, |i, j| (i, j) != (0, 2)).is_empty());
    // A square: only shared-node contacts, so nothing.
    let x = [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0];
    assert!(segment_intersections_2d(&x, &edges, |_, _| true).is_empty());
    // A duplicate node at the same position (distinct index) does count.
    let x = [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 2.0, 0.0];
    let edges = [[0, 1], [2, 3]];
    assert_eq!(
        segment_intersections_2d(&x, &edges, |_, _| true),
        vec![[0, 1]]
    );
}

#[test]
fn mesh_3d_tetrahedron_and_piercing_edge() {
    // A tetrahedron (edges and faces share nodes: nothing) plus an edge
    // (nodes 4, 5) piercing face 0 and face 3 of it.
    let x = [
        0.0, 0.0, 0.0, //
        1.0, 0.0, 0.0, //
        0.0, 1.0, 0.0, //
        0.0, 0.0, 1.0, //
        0.2, 0.2, -1.0, //
        0.2, 0.2, 2.0, //
    ];
    let tris = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    let edges = [[0, 1], [1, 2], [2, 0], [0, 3], [1, 3], [2, 3], [4, 5]];
    let hits = edge_triangle_intersections_3d(&x, &edges, &tris, |_, _| true);
    assert_eq!(hits, vec![[6, 0], [6, 3]]);
    let kept = edge_triangle_intersections_3d(&x, &edges, &tris, |_, t| t != 0);
    assert_eq!(kept, vec![[6, 3]]);
    let tet_only = edge_triangle_intersections_3d(&x, &edges[..6], &tris, |_, _| true);
    assert!(tet_only.is_empty());
}
