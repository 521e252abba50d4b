// The squared distance of a contact pair from its stacked coordinates, by the case
// that realises it (the CPU's case selection: src/collision/distance/), with the
// closest points' coefficients that pair_derivatives.wgsl differentiates.
// #import precision.wgsl

// Pair kinds, in the order of collision::PairKind: point–edge [vertex node, edge],
// point–triangle [vertex node, face], edge–edge [edge, edge] with a < b.
const KIND_POINT_EDGE: u32 = 0u;
const KIND_POINT_TRIANGLE: u32 = 1u;
const KIND_EDGE_EDGE: u32 = 2u;

// sin² of the angle below which two directions count as parallel (twin of
// collision::distance::NEARLY_PARALLEL_SIN_SQ): no line–line or point–plane case.
const NEARLY_PARALLEL_SIN_SQ: real = 1e-14;

// Stacked coordinates of a pair's nodes.
struct Stacked {
    s: array<vec3<real>, 4>,
}

// The unclamped parameter of p's projection on the line of e0–e1 (0 for a
// zero-length edge).
fn point_edge_parameter(p: vec3<real>, e0: vec3<real>, e1: vec3<real>) -> real {
    let e = e1 - e0;
    let den = dot(e, e);
    if (den > 0.0) { return dot(p - e0, e) / den; }
    return 0.0;
}

// |a × b|² (the 2D cross product a_x b_y − a_y b_x where z = 0).
fn cross_sq(a: vec3<real>, b: vec3<real>) -> real {
    let c = cross(a, b);
    return dot(c, c);
}

// The unit vector of stacked slot l.
fn slot_unit(l: u32) -> vec4<real> {
    return vec4<real>(
        select(real(0.0), 1.0, l == 0u),
        select(real(0.0), 1.0, l == 1u),
        select(real(0.0), 1.0, l == 2u),
        select(real(0.0), 1.0, l == 3u),
    );
}

// The case of a pair's distance as its closest points give it: the squared distance
// (m²) by the case's formula (point–point, point–line, point–plane, line–line), and
// the closest points' difference v = Σ_l β_l s_l with β affine in `free` (0 to 2)
// parameters λ of the closest points, ∂β/∂λ_j = dbeta[j].
struct Closest {
    dsq: real,
    beta: vec4<real>,
    dbeta0: vec4<real>,
    dbeta1: vec4<real>,
    free: u32,
}

// Point–point, slots a and b.
fn closest_point_point(st: Stacked, a: u32, b: u32) -> Closest {
    var o: Closest;
    let d = st.s[a] - st.s[b];
    o.dsq = dot(d, d);
    o.beta = slot_unit(a) - slot_unit(b);
    o.free = 0u;
    return o;
}

// Point slot p against the edge of slots a–b, the case chosen by the projection's
// parameter (twin of distance::point_edge's case selection).
fn closest_point_edge(st: Stacked, p: u32, a: u32, b: u32) -> Closest {
    let t = point_edge_parameter(st.s[p], st.s[a], st.s[b]);
    if (t <= 0.0) { return closest_point_point(st, p, a); }
    if (t >= 1.0) { return closest_point_point(st, p, b); }
    var o: Closest;
    let e = st.s[b] - st.s[a];
    o.dsq = cross_sq(st.s[a] - st.s[p], st.s[b] - st.s[p]) / dot(e, e);
    o.beta = slot_unit(p) - (1.0 - t) * slot_unit(a) - t * slot_unit(b);
    o.dbeta0 = slot_unit(a) - slot_unit(b);
    o.free = 1u;
    return o;
}

// The nearer of two cases (the first on a tie, as the CPU's strict comparison).
fn nearer(best: Closest, c: Closest) -> Closest {
    if (c.dsq < best.dsq) { return c; }
    return best;
}

// Point–triangle [p, t0, t1, t2]: the interior where the projection falls strictly
// inside a non-degenerate triangle, else the nearest of the three edges (twin of
// distance::point_triangle's classify).
fn closest_point_triangle(st: Stacked) -> Closest {
    let p = st.s[0];
    let t0 = st.s[1];
    let t1 = st.s[2];
    let t2 = st.s[3];
    let e1 = t1 - t0;
    let e2 = t2 - t0;
    let n = cross(e1, e2);
    let nn = dot(n, n);
    if (nn > NEARLY_PARALLEL_SIN_SQ * dot(e1, e1) * dot(e2, e2)) {
        let w0 = dot(cross(t1 - p, t2 - p), n);
        let w1 = dot(cross(t2 - p, t0 - p), n);
        let w2 = dot(cross(t0 - p, t1 - p), n);
        if (w0 > 0.0 && w1 > 0.0 && w2 > 0.0) {
            let qn = dot(p - t0, n);
            let beta = slot_unit(0u) - (w0 / nn) * slot_unit(1u) - (w1 / nn) * slot_unit(2u) - (w2 / nn) * slot_unit(3u);
            // λ = the barycentrics of t1 and t2, t0's being 1 − λ0 − λ1
            return Closest(qn * qn / nn, beta, slot_unit(1u) - slot_unit(2u), slot_unit(1u) - slot_unit(3u), 2u);
        }
    }
    var best = closest_point_edge(st, 0u, 1u, 2u);
    best = nearer(best, closest_point_edge(st, 0u, 2u, 3u));
    return nearer(best, closest_point_edge(st, 0u, 3u, 1u));
}

// Edge–edge [ea0, ea1, eb0, eb1]: line–line where both closest points of the lines
// are strictly inside not nearly parallel edges, else the nearest of the four
// point–edge sub-pairs (twin of distance::edge_edge's classify).
fn closest_edge_edge(st: Stacked) -> Closest {
    let u = st.s[1] - st.s[0];
    let v = st.s[3] - st.s[2];
    let n = cross(u, v);
    let nn = dot(n, n);
    if (nn > NEARLY_PARALLEL_SIN_SQ * dot(u, u) * dot(v, v)) {
        let r = st.s[2] - st.s[0];
        let s = dot(cross(r, v), n) / nn;
        let t = dot(cross(r, u), n) / nn;
        if (s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0) {
            let wn = dot(st.s[0] - st.s[2], n);
            let beta = (1.0 - s) * slot_unit(0u) + s * slot_unit(1u) - (1.0 - t) * slot_unit(2u) - t * slot_unit(3u);
            return Closest(wn * wn / nn, beta, slot_unit(1u) - slot_unit(0u), slot_unit(2u) - slot_unit(3u), 2u);
        }
    }
    var best = closest_point_edge(st, 0u, 2u, 3u);
    best = nearer(best, closest_point_edge(st, 1u, 2u, 3u));
    best = nearer(best, closest_point_edge(st, 2u, 0u, 1u));
    return nearer(best, closest_point_edge(st, 3u, 0u, 1u));
}

fn pair_closest(kind: u32, st: Stacked) -> Closest {
    if (kind == KIND_POINT_TRIANGLE) { return closest_point_triangle(st); }
    if (kind == KIND_EDGE_EDGE) { return closest_edge_edge(st); }
    return closest_point_edge(st, 0u, 1u, 2u);
}

// Squared distance (m²) of a pair from its stacked coordinates.
fn stacked_distance_sq(kind: u32, st: Stacked) -> real {
    return pair_closest(kind, st).dsq;
}


// The share of its gap a pair keeps at the CCD bound (twin of
// backend::cpu::self_contact::CCD_KEEP) and the iteration cap of additive CCD.
const CCD_KEEP: real = 0.1;
const CCD_MAX_ITERATIONS: u32 = 100000u;

// Nodes on the first side of a pair: the point, or edge a's two ends.
fn first_side_nodes(kind: u32) -> u32 {
    return select(1u, 2u, kind == KIND_EDGE_EDGE);
}

// l_p (m): the largest displacement q of a node on the first side plus the largest on
// the other, after taking out the pair's mean displacement; k nodes. Twin of
// collision::ccd::displacement_bound.
fn stacked_displacement_bound(kind: u32, k: u32, q: Stacked) -> real {
    var mean = vec3<real>(0.0);
    for (var l = 0u; l < k; l++) { mean += q.s[l]; }
    mean = mean / real(k);
    var side0: real = 0.0;
    var side1: real = 0.0;
    let split = first_side_nodes(kind);
    for (var l = 0u; l < k; l++) {
        let u = q.s[l] - mean;
        if (l < split) { side0 = max(side0, dot(u, u)); } else { side1 = max(side1, dot(u, u)); }
    }
    return sqrt(side0) + sqrt(side1);
}

// Additive CCD of a pair of k nodes at x0 moving by q (twin of
// collision::ccd::additive_ccd with ξ = 0, keep = CCD_KEEP, t_max = 1): the largest
// t ∈ [0, 1] such that the pair moving from x0 to x0 + t q keeps at least CCD_KEEP of
// its gap.
fn additive_ccd(kind: u32, k: u32, x0: Stacked, q: Stacked) -> real {
    let d0_sq = stacked_distance_sq(kind, x0);
    if (d0_sq <= 0.0) { return 0.0; }
    let lp = stacked_displacement_bound(kind, k, q);
    if (lp == 0.0) { return 1.0; }
    let goal = CCD_KEEP * (d0_sq / sqrt(d0_sq));
    var t: real = 0.0;
    var gap = d0_sq / sqrt(d0_sq);
    for (var it = 0u; it < CCD_MAX_ITERATIONS; it++) {
        let first = it == 0u;
        let eta = select(real(0.9), 1.0 - CCD_KEEP, first);
        var t_next = t + eta * gap / lp;
        let at_end = t_next >= 1.0;
        if (at_end) { t_next = 1.0; }
        if (!(t_next > t)) { return t; }
        var y: Stacked;
        for (var l = 0u; l < k; l++) { y.s[l] = x0.s[l] + t_next * q.s[l]; }
        let dsq = stacked_distance_sq(kind, y);
        let new_gap = dsq / sqrt(dsq);
        let passed = select(new_gap >= goal, new_gap > 0.0, first);
        if (!passed) { return t; }
        t = t_next;
        gap = new_gap;
        if (at_end) { return 1.0; }
    }
    return t;
}

// Twin of collision::pairs::NEAR_REACH: the near filter keeps a pair that may come
// within this many d̂.
const NEAR_REACH: real = 1.01;

// Whether a pair of k nodes at s, moving by at most `approach` (m, its displacement
// bound; 0 for a static test), may come within d̂ = dhat: its distance less the
// approach is below NEAR_REACH d̂ plus a margin for `real`'s rounding (twin of
// collision::near::may_come_within; NaN keeps the pair).
fn stacked_may_come_near(kind: u32, k: u32, s: Stacked, approach: real, dhat: real) -> bool {
    var scale: real = 0.0;
    for (var l = 0u; l < k; l++) {
        let a = abs(s.s[l]);
        scale = max(scale, max(a.x, max(a.y, a.z)));
    }
    let d = sqrt(max(stacked_distance_sq(kind, s), 0.0));
    let reach = NEAR_REACH * dhat + 64.0 * REAL_EPSILON * (scale + approach);
    return !(d - approach >= reach);
}
