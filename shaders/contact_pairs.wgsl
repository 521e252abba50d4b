// Contact between and within bodies on the GPU (IPC self-contact), per primitive
// pair: the collision mesh, the pair list the broad phase builds
// (kernels/broad_phase.wgsl), and per pair its nodes, squared distance, barrier with
// gradient and PSD-projected Hessian, and additive CCD bound. 2D point–edge pairs so
// far. CPU twins: src/collision/{pairs,barrier,ccd,psd}.rs,
// src/backend/cpu/self_contact.rs.
// #import state.wgsl
// #import energy/barrier.wgsl

// `pairs` (u32): [0] pairs in the list (0 while the broad phase's list overflowed its
// capacity), [1] pairs the broad phase found; from PAIR_LIST two primitives per pair
// (vertex node, edge index), sorted; then per node the start of its incidence
// entries (n + 1); then the entries (pair × 4 + slot), each node's ascending.
const PAIR_LIST: u32 = 4u;
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
    return PAIR_LIST + 2u * pair_capacity();
}

fn incidence_at() -> u32 {
    return incidence_offsets_at() + P.n_nodes + 1u;
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
    let e = mesh_edge(pairs[PAIR_LIST + 2u * t + 1u]);
    return vec4<u32>(pairs[PAIR_LIST + 2u * t], e.x, e.y, 0u);
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

// The squared distance's gradient (per node) and Hessian (dimensionless, 3 × 3
// blocks, row-major over nodes) in the case the projection picks. By the envelope
// theorem d² = |v|², v = Σ β_l s_l with the closest point's coefficients β; in the
// interior case (t free) the Hessian is 2 (β βᵀ ⊗ I) − F F ᵀ / (2 |e|²), with
// F_l = 2 β_l ∂v/∂t + 2 (∂β_l/∂t) v the mixed derivatives of |v|² in (s_l, t).
struct DistanceDerivatives {
    value: real,
    grad: array<vec3<real>, 4>,
    hess: array<real, 144>,
}

fn point_edge_derivatives(st: Stacked) -> DistanceDerivatives {
    var o: DistanceDerivatives;
    let p = st.s[0];
    let e0 = st.s[1];
    let e1 = st.s[2];
    let e = e1 - e0;
    var t = point_edge_parameter(p, e0, e1);
    var interior = true;
    if (t <= 0.0) {
        t = 0.0;
        interior = false;
    } else if (t >= 1.0) {
        t = 1.0;
        interior = false;
    }
    let beta = vec3<real>(1.0, -(1.0 - t), -t);
    let v = p - e0 - t * e;
    o.value = point_edge_distance_sq(p, e0, e1);
    // F_l (interior only): ∂v/∂t = −e, ∂β/∂t = (0, 1, −1).
    var f: array<vec3<real>, 3>;
    f[0] = -2.0 * e;
    f[1] = 2.0 * (1.0 - t) * e + 2.0 * v;
    f[2] = 2.0 * t * e - 2.0 * v;
    let ee = dot(e, e);
    let n = 3u * P.dim;
    for (var l = 0u; l < 3u; l++) {
        o.grad[l] = 2.0 * beta[l] * v;
        for (var k = 0u; k < 3u; k++) {
            for (var a = 0u; a < P.dim; a++) {
                for (var b = 0u; b < P.dim; b++) {
                    var h = select(real(0.0), 2.0 * beta[l] * beta[k], a == b);
                    if (interior && ee > 0.0) {
                        h -= f[l][a] * f[k][b] / (2.0 * ee);
                    }
                    o.hess[(l * P.dim + a) * n + k * P.dim + b] = h;
                }
            }
        }
    }
    return o;
}

// The barrier's second derivative in d (N/m), unclamped; 0 outside (0, d̂).
fn barrier_second(area: real, dist: real) -> real {
    if (dist >= P.dhat || dist <= 0.0) { return 0.0; }
    if (P.barrier_kind == BARRIER_BOOK) {
        return area * P.kappa * (dist + P.dhat) / (2.0 * dist * dist);
    }
    let r = P.dhat / dist;
    return -P.kappa * area * (2.0 * real_log(dist / P.dhat) + 3.0 - 2.0 * r - r * r);
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

// Symmetric eigen-decomposition of the leading n × n block of `a` (row-major, stride
// n) by cyclic Jacobi rotations, then the negative eigenvalues clamped to 0: the
// nearest PSD matrix. A matrix without a negative eigenvalue is left as it is.
// Twin of collision::psd::project_psd.
fn project_psd(a: ptr<function, array<real, 144>>, n: u32) {
    var m = *a;
    var v: array<real, 144>;
    for (var i = 0u; i < n * n; i++) { v[i] = 0.0; }
    for (var i = 0u; i < n; i++) { v[i * n + i] = 1.0; }
    var scale: real = 0.0;
    for (var i = 0u; i < n * n; i++) { scale += m[i] * m[i]; }
    if (scale == 0.0) { return; }
    for (var sweep = 0u; sweep < 60u; sweep++) {
        var off: real = 0.0;
        for (var p = 0u; p < n; p++) {
            for (var q = p + 1u; q < n; q++) { off += m[p * n + q] * m[p * n + q]; }
        }
        if (off <= REAL_EPSILON * REAL_EPSILON * 1e-4 * scale) { break; }
        for (var p = 0u; p < n; p++) {
            for (var q = p + 1u; q < n; q++) {
                let apq = m[p * n + q];
                if (apq == 0.0) { continue; }
                let theta = (m[q * n + q] - m[p * n + p]) / (2.0 * apq);
                var t = 1.0 / (abs(theta) + sqrt(theta * theta + 1.0));
                if (theta < 0.0) { t = -t; }
                let c = 1.0 / sqrt(t * t + 1.0);
                let s = t * c;
                for (var k = 0u; k < n; k++) {
                    let mkp = m[k * n + p];
                    let mkq = m[k * n + q];
                    m[k * n + p] = c * mkp - s * mkq;
                    m[k * n + q] = s * mkp + c * mkq;
                }
                for (var k = 0u; k < n; k++) {
                    let mpk = m[p * n + k];
                    let mqk = m[q * n + k];
                    m[p * n + k] = c * mpk - s * mqk;
                    m[q * n + k] = s * mpk + c * mqk;
                }
                for (var k = 0u; k < n; k++) {
                    let vkp = v[k * n + p];
                    let vkq = v[k * n + q];
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    var negative = false;
    for (var k = 0u; k < n; k++) {
        if (m[k * n + k] < 0.0) { negative = true; }
    }
    if (!negative) { return; }
    for (var r = 0u; r < n; r++) {
        for (var c = r; c < n; c++) {
            var s: real = 0.0;
            for (var k = 0u; k < n; k++) {
                let l = m[k * n + k];
                if (l > 0.0) { s += l * v[r * n + k] * v[c * n + k]; }
            }
            (*a)[r * n + c] = s;
            (*a)[c * n + r] = s;
        }
    }
}

// One pair's barrier terms, weighted by c h²: gradient (N·s², per node) and
// PSD-projected Hessian (kg, row-major over the stacked coordinates); active where
// 0 < d < d̂. Twin of collision::barrier::pair_barrier.
struct PairBarrier {
    is_active: bool,
    grad: array<vec3<real>, 4>,
    hess: array<real, 144>,
}

fn pair_barrier_terms(nodes: vec4<u32>, st: Stacked) -> PairBarrier {
    var o: PairBarrier;
    o.is_active = false;
    let dsq = stacked_distance_sq(st);
    if (dsq >= P.dhat * P.dhat || dsq <= 0.0) { return o; }
    o.is_active = true;
    let ds = point_edge_derivatives(st);
    let area = pair_weight(nodes);
    let dist = sqrt(ds.value);
    let b1 = barrier_gradient(P.barrier_kind, P.kappa, P.dhat, area, dist);
    let b2 = barrier_second(area, dist);
    let n = PAIR_NODES * P.dim;
    var g: array<real, 12>;
    for (var l = 0u; l < PAIR_NODES; l++) {
        for (var a = 0u; a < P.dim; a++) { g[l * P.dim + a] = ds.grad[l][a]; }
    }
    var h: array<real, 144>;
    for (var r = 0u; r < n; r++) {
        for (var c = r; c < n; c++) {
            let val = b2 * (g[r] / (2.0 * dist)) * (g[c] / (2.0 * dist))
                + b1 * (ds.hess[r * n + c] / (2.0 * dist) - g[r] * g[c] / (4.0 * dist * dist * dist));
            h[r * n + c] = val;
            h[c * n + r] = val;
        }
    }
    project_psd(&h, n);
    let w = P.potential_weight;
    for (var l = 0u; l < PAIR_NODES; l++) {
        o.grad[l] = w * b1 * ds.grad[l] / (2.0 * dist);
    }
    for (var i = 0u; i < n * n; i++) { o.hess[i] = w * h[i]; }
    return o;
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
