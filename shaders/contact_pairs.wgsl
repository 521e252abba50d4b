// Contact between and within bodies on the GPU (IPC self-contact), per primitive
// pair: the collision mesh, the pair list the broad phase builds
// (kernels/broad_phase.wgsl), and per pair its nodes, squared distance, barrier with
// gradient and PSD-projected Hessian, and additive CCD bound. 2D point–edge pairs so
// far. CPU twins: src/collision/{pairs,barrier,ccd,psd}.rs,
// src/backend/cpu/self_contact.rs.
// #import state.wgsl
// #import energy/barrier.wgsl

// `pairs` (u32): [0] pairs in the list (0 while the broad phase's list overflowed its
// capacity), [1] pairs the broad phase found; from PAIR_LIST a record of PAIR_WORDS
// per pair (vertex node, edge index, the edge's two nodes), sorted; then per node the start of its incidence
// entries (n + 1); then the entries (pair × 4 + slot), each node's ascending.
const PAIR_LIST: u32 = 4u;
const PAIR_WORDS: u32 = 4u;
// Reals per pair in `pair_terms`: the gradient (up to 12), then the row-major
// Hessian (up to 12 × 12), both weighted by c h².
const PAIR_TERMS: u32 = 156u;
// The share of its gap a pair keeps at the CCD bound (twin of
// backend::cpu::self_contact::CCD_KEEP) and the iteration cap of additive CCD.
const CCD_KEEP: real = 0.1;
const CCD_MAX_ITERATIONS: u32 = 100000u;

fn pair_capacity() -> u32 {
    return P.contact_pairs.x;
}

// Pairs in the current list.
fn pair_count() -> u32 {
    return pairs[0];
}

fn incidence_offsets_at() -> u32 {
    return PAIR_LIST + PAIR_WORDS * pair_capacity();
}

fn incidence_at() -> u32 {
    return incidence_offsets_at() + P.n_nodes + 1u;
}

// The range of node i's incidence entries.
fn incidence_range(i: u32) -> vec2<u32> {
    return vec2<u32>(pairs[incidence_offsets_at() + i], pairs[incidence_offsets_at() + i + 1u]);
}

// Incidence entry e as (pair, the node's slot in it).
fn incidence_entry(e: u32) -> vec2<u32> {
    let entry = pairs[incidence_at() + e];
    return vec2<u32>(entry / 4u, entry % 4u);
}

// The collision mesh in `contact_mesh` (u32), regions at P.contact_mesh_at: edges
// (two nodes each), vertices (a node each), node tags ((body << 1) | 1 where the
// body collides with itself), per vertex the start of its excluded edges (V + 1),
// then those edges, each vertex's ascending (mesh neighbours closer than 2 d̂ at rest).
fn mesh_edge(e: u32) -> vec2<u32> {
    let b = P.contact_mesh_at.x + 2u * e;
    return vec2<u32>(contact_mesh[b], contact_mesh[b + 1u]);
}

fn mesh_vertex(v: u32) -> u32 {
    return contact_mesh[P.contact_mesh_at.y + v];
}

// Whether primitives of the bodies of nodes a and b may collide.
fn bodies_may_collide(a: u32, b: u32) -> bool {
    let ta = contact_mesh[P.contact_mesh_at.z + a];
    let tb = contact_mesh[P.contact_mesh_at.z + b];
    return (ta >> 1u) != (tb >> 1u) || (ta & 1u) == 1u;
}

// Whether the pair (vertex slot v, edge e) is excluded for good.
fn pair_excluded(v: u32, e: u32) -> bool {
    let starts = P.contact_mesh_at.w;
    var lo = contact_mesh[starts + v];
    var hi = contact_mesh[starts + v + 1u];
    let list = starts + P.contact_counts.x + 1u;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        let m = contact_mesh[list + mid];
        if (m == e) { return true; }
        if (m < e) { lo = mid + 1u; } else { hi = mid; }
    }
    return false;
}

// The nodes of pair t in stacked order (point, edge ends; the fourth unused in 2D).
fn pair_nodes(t: u32) -> vec4<u32> {
    let b = PAIR_LIST + PAIR_WORDS * t;
    return vec4<u32>(pairs[b], pairs[b + 2u], pairs[b + 3u], 0u);
}

// Nodes of a pair (3 for point–edge).
const PAIR_NODES: u32 = 3u;

// Stacked coordinates of a pair's nodes.
struct Stacked {
    s: array<vec3<real>, 4>,
}

fn stacked_at(nodes: vec4<u32>, alpha: real) -> Stacked {
    var o: Stacked;
    for (var l = 0u; l < PAIR_NODES; l++) {
        o.s[l] = load_x(nodes[l]) + alpha * load_p(nodes[l]);
    }
    return o;
}

fn stacked_x(nodes: vec4<u32>) -> Stacked {
    var o: Stacked;
    for (var l = 0u; l < PAIR_NODES; l++) {
        o.s[l] = load_x(nodes[l]);
    }
    return o;
}

// The unclamped parameter of p's projection on the line of e0–e1 (0 for a
// zero-length edge).
fn point_edge_parameter(p: vec3<real>, e0: vec3<real>, e1: vec3<real>) -> real {
    let e = e1 - e0;
    let den = dot(e, e);
    if (den > 0.0) { return dot(p - e0, e) / den; }
    return 0.0;
}

// |a × b|² with the 2D cross product a_x b_y − a_y b_x where z = 0.
fn cross_sq(a: vec3<real>, b: vec3<real>) -> real {
    let c = cross(a, b);
    return dot(c, c);
}

// Squared point–edge distance (m²), the case chosen by the projection's parameter.
fn point_edge_distance_sq(p: vec3<real>, e0: vec3<real>, e1: vec3<real>) -> real {
    let t = point_edge_parameter(p, e0, e1);
    if (t <= 0.0) { return dot(p - e0, p - e0); }
    if (t >= 1.0) { return dot(p - e1, p - e1); }
    let e = e1 - e0;
    return cross_sq(e0 - p, e1 - p) / dot(e, e);
}

fn stacked_distance_sq(st: Stacked) -> real {
    return point_edge_distance_sq(st.s[0], st.s[1], st.s[2]);
}

// The contact weight of a pair (m in 2D): the point's.
fn pair_weight(n: vec4<u32>) -> real {
    return nodes[n.x].area;
}

// The barrier energy (J, without c h²) of a pair at squared distance dsq; BIG at d ≤ 0.
fn pair_barrier_value(area: real, dsq: real) -> real {
    if (dsq >= P.dhat * P.dhat) { return 0.0; }
    return barrier_value(P.barrier_kind, P.kappa, P.dhat, area, sqrt(max(dsq, 0.0)));
}

// l_p (m): the largest node displacement on the point's side plus the largest on the
// edge's, after taking out the pair's mean displacement. Twin of
// collision::ccd::displacement_bound.
fn displacement_bound(q: Stacked) -> real {
    var mean = vec3<real>(0.0);
    for (var l = 0u; l < PAIR_NODES; l++) { mean += q.s[l]; }
    mean = mean / real(PAIR_NODES);
    var side = vec2<real>(0.0);
    for (var l = 0u; l < PAIR_NODES; l++) {
        let u = q.s[l] - mean;
        let k = select(1u, 0u, l == 0u);
        side[k] = max(side[k], dot(u, u));
    }
    return sqrt(side.x) + sqrt(side.y);
}

// Additive CCD (twin of collision::ccd::additive_ccd with ξ = 0, keep = CCD_KEEP,
// t_max = 1): the largest t ∈ [0, 1] such that the pair moving from x to x + t p
// keeps at least CCD_KEEP of its gap.
fn pair_ccd(nodes: vec4<u32>) -> real {
    let x0 = stacked_x(nodes);
    var q: Stacked;
    for (var l = 0u; l < PAIR_NODES; l++) { q.s[l] = load_p(nodes[l]); }
    let d0_sq = stacked_distance_sq(x0);
    if (d0_sq <= 0.0) { return 0.0; }
    let lp = displacement_bound(q);
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
        for (var l = 0u; l < PAIR_NODES; l++) { y.s[l] = x0.s[l] + t_next * q.s[l]; }
        let dsq = stacked_distance_sq(y);
        let new_gap = dsq / sqrt(dsq);
        let passed = select(new_gap >= goal, new_gap > 0.0, first);
        if (!passed) { return t; }
        t = t_next;
        gap = new_gap;
        if (at_end) { return 1.0; }
    }
    return t;
}
