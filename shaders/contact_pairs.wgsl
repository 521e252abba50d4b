// Contact between and within bodies on the GPU (IPC self-contact), per primitive
// pair: the collision mesh, the pair list the broad phase builds
// (kernels/broad_phase.wgsl), and per pair its nodes, squared distance with the case
// that realises it, barrier, mollifier and additive CCD bound. 2D point–edge, 3D
// point–triangle and edge–edge pairs. CPU twins: src/collision/{pairs,barrier,ccd}.rs,
// src/collision/distance/, src/backend/cpu/self_contact.rs.
// #import state.wgsl
// #import energy/barrier.wgsl
// #import pair_distance.wgsl

// `pairs` (u32): [0] pairs in the list (0 while the broad phase's list overflowed its
// capacity), [1] pairs the broad phase found, [2] candidates in the list, [3] lagged
// friction pairs; from PAIR_LIST a record of PAIR_WORDS per pair (kind, primitive a,
// primitive b, the four stacked nodes, the fourth unused in 2D): the candidates,
// sorted by kind then primitives, then a copy of every lagged friction pair (its
// kind word with FRICTION_BIT); then per node the start of its incidence entries
// (n + 1); then the entries (pair × 4 + slot), each node's ascending; then per pair
// its slot in `pair_terms` (NO_TERMS where it has none), which the assembly writes;
// then the lagged friction pairs' own records (LAG region, the capacity's worth),
// which only a friction lag rewrites (pair_friction.wgsl).
const PAIR_LIST: u32 = 4u;
const PAIR_WORDS: u32 = 7u;
// Set in the kind word of a lagged friction pair's record.
const FRICTION_BIT: u32 = 4u;
// Reals per slot of `pair_terms`: an active pair's gradient (up to 12), then its
// row-major Hessian (up to 12 × 12), both weighted by c h². Only pairs with terms
// (within d̂, or lagged friction pairs with a normal force) take a slot.
const PAIR_TERMS: u32 = 156u;
// The slot of a pair without terms.
const NO_TERMS: u32 = 0xffffffffu;
// Words of contact_grid's header after the broad phase's HDR_* (broad_phase_grid.wgsl):
// the slots the running assembly handed out (an atomic counter), and the count the
// last assembly needed, which the host reads back (contact::GRID_TERMS_USED).
const HDR_TERMS: u32 = 3u;
const HDR_TERMS_USED: u32 = 4u;

fn pair_capacity() -> u32 {
    return P.contact_pairs.x;
}

// Slots of `pair_terms`.
fn term_slots() -> u32 {
    return P.contact_pairs.y;
}

// Pairs in the current list.
fn pair_count() -> u32 {
    return pairs[0];
}

// Candidates of the broad phase in the list (the lagged friction pairs follow).
fn pair_candidates() -> u32 {
    return pairs[2];
}

// Lagged friction pairs (the LAG region's records).
fn lagged_count() -> u32 {
    return pairs[3];
}

fn incidence_offsets_at() -> u32 {
    return PAIR_LIST + PAIR_WORDS * pair_capacity();
}

fn incidence_at() -> u32 {
    return incidence_offsets_at() + P.n_nodes + 1u;
}

fn term_slot_at() -> u32 {
    return incidence_at() + 4u * pair_capacity();
}

// The LAG region: the lagged friction pairs' records.
fn lag_at() -> u32 {
    return term_slot_at() + pair_capacity();
}

// Pair t's slot in `pair_terms` (NO_TERMS: none), as the last assembly set it.
fn pair_slot(t: u32) -> u32 {
    return pairs[term_slot_at() + t];
}

// A slot of `pair_terms` for pair t, which has terms, recorded in its slot word;
// NO_TERMS where every slot is taken (the count still rises, and the host grows the
// slots and assembles again).
fn claim_term_slot(t: u32) -> u32 {
    var s = atomicAdd(&contact_grid[HDR_TERMS], 1u);
    if (s >= term_slots()) { s = NO_TERMS; }
    pairs[term_slot_at() + t] = s;
    return s;
}

// A pair without terms: no slot.
fn release_term_slot(t: u32) {
    pairs[term_slot_at() + t] = NO_TERMS;
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
// body collides with itself), per vertex the start of its excluded edges (2D) or
// faces (3D) (V + 1), then those, each vertex's ascending; at P.contact_mesh_at2:
// faces (three nodes each), each edge's squared rest length as two f32 (high and
// low part), per edge the start of its excluded edges b > a (E + 1), then those.
// Excluded pairs are mesh neighbours closer than 2 d̂ at rest.
fn mesh_edge(e: u32) -> vec2<u32> {
    let b = P.contact_mesh_at.x + 2u * e;
    return vec2<u32>(contact_mesh[b], contact_mesh[b + 1u]);
}

fn mesh_vertex(v: u32) -> u32 {
    return contact_mesh[P.contact_mesh_at.y + v];
}

fn mesh_face(f: u32) -> vec3<u32> {
    let b = P.contact_mesh_at2.x + 3u * f;
    return vec3<u32>(contact_mesh[b], contact_mesh[b + 1u], contact_mesh[b + 2u]);
}

// Squared rest length of edge e (m²), to about 2⁻⁴⁸ relative.
fn edge_rest_length_sq(e: u32) -> real {
    let b = P.contact_mesh_at2.y + 2u * e;
    return real(bitcast<f32>(contact_mesh[b])) + real(bitcast<f32>(contact_mesh[b + 1u]));
}

// Whether primitives of the bodies of nodes a and b may collide.
fn bodies_may_collide(a: u32, b: u32) -> bool {
    let ta = contact_mesh[P.contact_mesh_at.z + a];
    let tb = contact_mesh[P.contact_mesh_at.z + b];
    return (ta >> 1u) != (tb >> 1u) || (ta & 1u) == 1u;
}

// Whether target b is in query q's exclusion list, the lists of `count` queries
// starting at `starts`.
fn excluded_in(starts: u32, count: u32, q: u32, b: u32) -> bool {
    var lo = contact_mesh[starts + q];
    var hi = contact_mesh[starts + q + 1u];
    let list = starts + count + 1u;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        let m = contact_mesh[list + mid];
        if (m == b) { return true; }
        if (m < b) { lo = mid + 1u; } else { hi = mid; }
    }
    return false;
}

// Whether the pair (vertex slot v, edge or face b) is excluded for good.
fn vertex_pair_excluded(v: u32, b: u32) -> bool {
    return excluded_in(P.contact_mesh_at.w, P.contact_counts.x, v, b);
}

// Whether the edge–edge pair (a, b), a < b, is excluded for good.
fn edge_pair_excluded(a: u32, b: u32) -> bool {
    return excluded_in(P.contact_mesh_at2.z, P.contact_counts.y, a, b);
}

// Record word w of pair t.
fn pair_word(t: u32, w: u32) -> u32 {
    return pairs[PAIR_LIST + PAIR_WORDS * t + w];
}

// The kind of pair t's primitives (a friction record's too).
fn pair_kind(t: u32) -> u32 {
    return pair_word(t, 0u) & 3u;
}

// Whether list entry t is a lagged friction pair (t ≥ pair_candidates()).
fn pair_is_friction(t: u32) -> bool {
    return (pair_word(t, 0u) & FRICTION_BIT) != 0u;
}

// The two primitives of pair t.
fn pair_prims(t: u32) -> vec2<u32> {
    return vec2<u32>(pair_word(t, 1u), pair_word(t, 2u));
}

// The nodes of pair t in stacked order: point–edge (point, edge ends, unused),
// point–triangle (point, face corners), edge–edge (edge a's ends, edge b's ends).
fn pair_nodes(t: u32) -> vec4<u32> {
    let b = PAIR_LIST + PAIR_WORDS * t;
    return vec4<u32>(pairs[b + 3u], pairs[b + 4u], pairs[b + 5u], pairs[b + 6u]);
}

// Nodes of a pair: 3 (point–edge) in 2D, 4 (point–triangle, edge–edge) in 3D.
fn pair_node_count() -> u32 {
    return select(3u, 4u, P.dim == 3u);
}

fn stacked_at(nodes: vec4<u32>, alpha: real) -> Stacked {
    var o: Stacked;
    for (var l = 0u; l < pair_node_count(); l++) {
        o.s[l] = load_x(nodes[l]) + alpha * load_p(nodes[l]);
    }
    return o;
}

fn stacked_x(nodes: vec4<u32>) -> Stacked {
    var o: Stacked;
    for (var l = 0u; l < pair_node_count(); l++) {
        o.s[l] = load_x(nodes[l]);
    }
    return o;
}

// The edge–edge mollifier's threshold ε× (m⁴) of pair t: 1e-3 times the product of
// its edges' squared rest lengths (twin of CollisionMesh::mollifier_threshold).
fn mollifier_threshold(t: u32) -> real {
    let ab = pair_prims(t);
    return 1e-3 * edge_rest_length_sq(ab.x) * edge_rest_length_sq(ab.y);
}

// c = |(ea1 − ea0) × (eb1 − eb0)|² (m⁴) of an edge–edge pair.
fn edge_cross_sq(st: Stacked) -> real {
    return cross_sq(st.s[1] - st.s[0], st.s[3] - st.s[2]);
}

// The mollifier (−c/ε + 2) c/ε below ε, else 1 (twin of distance::mollifier_of).
fn mollifier_of(c: real, eps: real) -> real {
    if (c < eps) {
        let q = c / eps;
        return (-q + 2.0) * q;
    }
    return 1.0;
}

// The mollifier of pair t at st: 1 but for edge–edge pairs.
fn pair_mollifier(t: u32, kind: u32, st: Stacked) -> real {
    if (kind != KIND_EDGE_EDGE) { return 1.0; }
    return mollifier_of(edge_cross_sq(st), mollifier_threshold(t));
}

// The contact weight of a pair (m in 2D, m² in 3D): the point's, or for edge–edge
// pairs the mean of the four nodes' (twin of collision::barrier::pair_weight).
fn pair_weight(kind: u32, n: vec4<u32>) -> real {
    if (kind == KIND_EDGE_EDGE) {
        return 0.25 * (nodes[n.x].area + nodes[n.y].area + nodes[n.z].area + nodes[n.w].area);
    }
    return nodes[n.x].area;
}

// The barrier energy (J, without c h²) of a pair at squared distance dsq, before the
// mollifier; BIG at d ≤ 0.
fn pair_barrier_value(area: real, dsq: real) -> real {
    if (dsq >= P.dhat * P.dhat) { return 0.0; }
    return barrier_value(P.barrier_kind, P.kappa, P.dhat, area, sqrt(max(dsq, 0.0)));
}

// l_p (m) of pair moving by q (stacked_displacement_bound, pair_distance.wgsl).
fn displacement_bound(kind: u32, q: Stacked) -> real {
    return stacked_displacement_bound(kind, pair_node_count(), q);
}

// Additive CCD of pair t along p (additive_ccd, pair_distance.wgsl).
fn pair_ccd(pair: u32) -> real {
    let nodes = pair_nodes(pair);
    var q: Stacked;
    for (var l = 0u; l < pair_node_count(); l++) { q.s[l] = load_p(nodes[l]); }
    return additive_ccd(pair_kind(pair), pair_node_count(), stacked_x(nodes), q);
}
