//! Property tests of the intersection checks against independent references:
//! an exact oracle on small integer coordinates (`i128` parametric solutions),
//! plain float tests where their answer is clear of every boundary, and an
//! all-pairs loop (no broad phase) for the mesh-level functions.

use super::*;
use proptest::prelude::*;

// ---- Independent exact oracle on small integer coordinates (i128). ----

type V = [i128; 3];

fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: V, b: V) -> i128 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn det(a: V, b: V, c: V) -> i128 {
    dot(a, cross(b, c))
}
const ZERO: V = [0; 3];

/// Whether `num / den` (den > 0) lies in [0, 1].
fn unit(num: i128, den: i128) -> bool {
    0 <= num && num <= den
}

/// Closed segments in 3D (2D inputs have z = 0), by parametric solution.
fn oracle_seg_seg(p0: V, p1: V, q0: V, q1: V) -> bool {
    let (r, s, w) = (sub(p1, p0), sub(q1, q0), sub(q0, p0));
    let m = cross(r, s);
    if dot(w, m) != 0 {
        return false; // skew
    }
    if m != ZERO {
        // p0 + t r = q0 + u s  =>  t m = w x s,  u m = w x r.
        let mm = dot(m, m);
        return unit(dot(cross(w, s), m), mm) && unit(dot(cross(w, r), m), mm);
    }
    let on = |x: V, a: V, d: V| cross(sub(x, a), d) == ZERO && unit(dot(sub(x, a), d), dot(d, d));
    match (r == ZERO, s == ZERO) {
        (true, true) => p0 == q0,
        (true, false) => on(p0, q0, s),
        (false, true) => on(q0, p0, r),
        (false, false) => {
            if cross(w, r) != ZERO {
                return false; // parallel lines
            }
            let (t0, t1) = (dot(w, r), dot(sub(q1, p0), r));
            t0.min(t1) <= dot(r, r) && t0.max(t1) >= 0
        }
    }
}

/// Closed segment against closed triangle, by Cramer's rule, with the
/// parallel and degenerate cases split out.
fn oracle_seg_tri(p: V, q: V, a: V, b: V, c: V) -> bool {
    let (d, e1, e2) = (sub(q, p), sub(b, a), sub(c, a));
    let n = cross(e1, e2);
    if n == ZERO {
        return oracle_seg_seg(p, q, a, b)
            || oracle_seg_seg(p, q, b, c)
            || oracle_seg_seg(p, q, c, a);
    }
    let big_d = det(d, e1, e2);
    let rhs = sub(a, p);
    if big_d != 0 {
        // p + t d = a + u e1 + v e2.
        let neg = |v: V| [-v[0], -v[1], -v[2]];
        let s = big_d.signum();
        let t = s * det(rhs, neg(e1), neg(e2));
        let u = s * det(d, rhs, neg(e2));
        let v = s * det(d, neg(e1), rhs);
        let den = s * det(d, neg(e1), neg(e2));
        return unit(t, den) && u >= 0 && v >= 0 && u + v <= den;
    }
    if dot(rhs, n) != 0 {
        return false; // parallel to the plane, off it
    }
    let inside = |x: V| {
        dot(cross(sub(b, a), sub(x, a)), n) >= 0
            && dot(cross(sub(c, b), sub(x, b)), n) >= 0
            && dot(cross(sub(a, c), sub(x, c)), n) >= 0
    };
    inside(p)
        || inside(q)
        || oracle_seg_seg(p, q, a, b)
        || oracle_seg_seg(p, q, b, c)
        || oracle_seg_seg(p, q, c, a)
}

fn f2(v: [i64; 2]) -> [f64; 2] {
    [v[0] as f64, v[1] as f64]
}
fn f3(v: [i64; 3]) -> [f64; 3] {
    [v[0] as f64, v[1] as f64, v[2] as f64]
}
fn i2(v: [i64; 2]) -> V {
    [i128::from(v[0]), i128::from(v[1]), 0]
}
fn i3(v: [i64; 3]) -> V {
    v.map(i128::from)
}

fn ip2() -> impl Strategy<Value = [i64; 2]> {
    proptest::array::uniform2(-3i64..=3)
}
fn ip3() -> impl Strategy<Value = [i64; 3]> {
    proptest::array::uniform3(-2i64..=2)
}
fn fp2() -> impl Strategy<Value = [f64; 2]> {
    proptest::array::uniform2(-1.0..1.0f64)
}
fn fp3() -> impl Strategy<Value = [f64; 3]> {
    proptest::array::uniform3(-1.0..1.0f64)
}

// ---- Float references, used only where the answer is unambiguous. ----

/// `Some(answer)` when a plain float parametric test is well away from
/// every boundary, else `None`.
fn float_seg_seg(p0: [f64; 2], p1: [f64; 2], q0: [f64; 2], q1: [f64; 2]) -> Option<bool> {
    let r = [p1[0] - p0[0], p1[1] - p0[1]];
    let s = [q1[0] - q0[0], q1[1] - q0[1]];
    let w = [q0[0] - p0[0], q0[1] - p0[1]];
    let cr = |a: [f64; 2], b: [f64; 2]| a[0] * b[1] - a[1] * b[0];
    let den = cr(r, s);
    if den.abs() < 1e-3 {
        return None;
    }
    let (t, u) = (cr(w, s) / den, cr(w, r) / den);
    classify(&[t, 1.0 - t, u, 1.0 - u])
}

/// All margins clearly positive: inside; one clearly negative: outside.
fn classify(margins: &[f64]) -> Option<bool> {
    const EPS: f64 = 1e-6;
    if margins.iter().all(|&m| m > EPS) {
        Some(true)
    } else if margins.iter().any(|&m| m < -EPS) {
        Some(false)
    } else {
        None
    }
}

fn float_seg_tri(p: [f64; 3], q: [f64; 3], a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> Option<bool> {
    let s3 = |x: [f64; 3], y: [f64; 3]| [x[0] - y[0], x[1] - y[1], x[2] - y[2]];
    let cr = |x: [f64; 3], y: [f64; 3]| {
        [
            x[1] * y[2] - x[2] * y[1],
            x[2] * y[0] - x[0] * y[2],
            x[0] * y[1] - x[1] * y[0],
        ]
    };
    let dt = |x: [f64; 3], y: [f64; 3]| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    let (d, e1, e2) = (s3(q, p), s3(b, a), s3(c, a));
    let h = cr(d, e2);
    let det = dt(e1, h);
    if det.abs() < 1e-3 {
        return None;
    }
    let w = s3(p, a);
    let u = dt(w, h) / det;
    let qv = cr(w, e1);
    let v = dt(d, qv) / det;
    let t = dt(e2, qv) / det;
    classify(&[u, v, 1.0 - u - v, t, 1.0 - t])
}

/// Every pair, no broad phase: the reference for the mesh-level functions.
fn all_pairs_2d(x: &[f64], edges: &[[u32; 2]]) -> Vec<[u32; 2]> {
    let mut out = Vec::new();
    for (i, ei) in edges.iter().enumerate() {
        for (j, ej) in edges.iter().enumerate().skip(i + 1) {
            let shared = ei.iter().any(|n| ej.contains(n));
            let p = |n: u32| point2(x, n);
            if !shared && segments_intersect_2d(p(ei[0]), p(ei[1]), p(ej[0]), p(ej[1])) {
                out.push([i as u32, j as u32]);
            }
        }
    }
    out
}

fn all_pairs_3d(x: &[f64], edges: &[[u32; 2]], tris: &[[u32; 3]]) -> Vec<[u32; 2]> {
    let mut out = Vec::new();
    for (i, e) in edges.iter().enumerate() {
        for (j, t) in tris.iter().enumerate() {
            let shared = e.iter().any(|n| t.contains(n));
            let p = |n: u32| point3(x, n);
            if !shared && segment_triangle_intersect_3d(p(e[0]), p(e[1]), p(t[0]), p(t[1]), p(t[2]))
            {
                out.push([i as u32, j as u32]);
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn segments_2d_match_integer_oracle(p0 in ip2(), p1 in ip2(), q0 in ip2(), q1 in ip2()) {
        let got = segments_intersect_2d(f2(p0), f2(p1), f2(q0), f2(q1));
        prop_assert_eq!(got, oracle_seg_seg(i2(p0), i2(p1), i2(q0), i2(q1)));
    }

    #[test]
    fn segments_3d_match_integer_oracle(p0 in ip3(), p1 in ip3(), q0 in ip3(), q1 in ip3()) {
        let got = segments_intersect_3d(f3(p0), f3(p1), f3(q0), f3(q1));
        prop_assert_eq!(got, oracle_seg_seg(i3(p0), i3(p1), i3(q0), i3(q1)));
    }

    #[test]
    fn segment_triangle_matches_integer_oracle(
        p in ip3(), q in ip3(), a in ip3(), b in ip3(), c in ip3(),
        flat in any::<bool>(),
    ) {
        // Half the cases flattened onto z = 0 to make coplanarity common.
        let fl = |v: [i64; 3]| if flat { [v[0], v[1], 0] } else { v };
        let (p, q, a, b, c) = (fl(p), fl(q), fl(a), fl(b), fl(c));
        let got = segment_triangle_intersect_3d(f3(p), f3(q), f3(a), f3(b), f3(c));
        prop_assert_eq!(got, oracle_seg_tri(i3(p), i3(q), i3(a), i3(b), i3(c)));
    }

    #[test]
    fn segments_2d_match_float_where_clear(p0 in fp2(), p1 in fp2(), q0 in fp2(), q1 in fp2()) {
        if let Some(expect) = float_seg_seg(p0, p1, q0, q1) {
            prop_assert_eq!(segments_intersect_2d(p0, p1, q0, q1), expect);
        }
    }

    #[test]
    fn segment_triangle_matches_float_where_clear(
        p in fp3(), q in fp3(), a in fp3(), b in fp3(), c in fp3(),
    ) {
        if let Some(expect) = float_seg_tri(p, q, a, b, c) {
            prop_assert_eq!(segment_triangle_intersect_3d(p, q, a, b, c), expect);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn mesh_2d_matches_all_pairs(
        nodes in proptest::collection::vec(proptest::array::uniform2(-4i64..=4), 2..14),
        raw in proptest::collection::vec((0usize..100, 0usize..100), 0..20),
    ) {
        let n = nodes.len();
        let x: Vec<f64> = nodes.iter().flat_map(|&v| f2(v)).collect();
        let edges: Vec<[u32; 2]> = raw.iter().map(|&(a, b)| [(a % n) as u32, (b % n) as u32]).collect();
        let got = segment_intersections_2d(&x, &edges, |_, _| true);
        prop_assert_eq!(got, all_pairs_2d(&x, &edges));
    }

    #[test]
    fn mesh_3d_matches_all_pairs(
        nodes in proptest::collection::vec(proptest::array::uniform3(-3i64..=3), 3..14),
        raw_e in proptest::collection::vec((0usize..100, 0usize..100), 0..16),
        raw_t in proptest::collection::vec((0usize..100, 0usize..100, 0usize..100), 0..12),
    ) {
        let n = nodes.len();
        let x: Vec<f64> = nodes.iter().flat_map(|&v| f3(v)).collect();
        let edges: Vec<[u32; 2]> = raw_e.iter().map(|&(a, b)| [(a % n) as u32, (b % n) as u32]).collect();
        let tris: Vec<[u32; 3]> = raw_t
            .iter()
            .map(|&(a, b, c)| [(a % n) as u32, (b % n) as u32, (c % n) as u32])
            .collect();
        let got = edge_triangle_intersections_3d(&x, &edges, &tris, |_, _| true);
        prop_assert_eq!(got, all_pairs_3d(&x, &edges, &tris));
    }
}
