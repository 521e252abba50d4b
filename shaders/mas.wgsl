// The multilevel additive Schwarz (MAS) preconditioner on the GPU: what its kernels
// share (kernels/mas_factor.wgsl builds it per Newton iteration, kernels/mas_apply.wgsl
// applies it per CG iteration). CPU twin: src/mas/ (the same preconditioner, factored
// with Cholesky in f64, compared with these kernels in tests/gpu_mas.rs).
//
// Nodes are ranked along a Morton curve on the host (mas_index: order, then rank
// with bit 31 set for fixed nodes). Level 0's domains are 16 consecutive ranks;
// level l's supernodes are the domains of level l − 1, its domains 16 supernodes.
// A coarse level's unknowns are the rigid motions of its supernodes, q = 3 in 2D and
// 6 in 3D: node i of supernode A moves by t + ω × (x_i − c_A)/ρ_A, with c_A and ρ_A
// the supernode's frame (mas_frames: centroid xyz, radius w, recomputed from x at
// every factorisation, level by level; x_i the position saved then, mas_node_x). The rigid motion of a parent restricted
// to a child is a rigid motion of the child, so restriction and prolongation go
// level by level through 16 children, never over all the nodes of a supernode.
// Kernels that work on one level read it from mas_state, which the one-thread
// kernels mas_level_first / _up / _down (kernels/mas_factor.wgsl) step between
// dispatches.
// #import state.wgsl
// #import state.wgsl
// #import energy/spring.wgsl

// Supernodes per domain, on every level (B).
const MAS_B: u32 = 16u;
// Largest domain matrix order: 16 supernodes × 6 rigid motions.
const MAS_MAX_M: u32 = 96u;
const MAS_FIXED: u32 = 0x80000000u;

struct MasLevel {
    // supernodes (level 0: nodes)
    count: u32,
    // nodes per supernode, 16^l
    span: u32,
    // index of the level's first domain among all levels' domains
    first_domain: u32,
    // unknowns per supernode: dim on level 0, 3 or 6 above
    dofs: u32,
    // offsets (in reals) of the level's domain matrices, restricted residual v and
    // correction y in mas_matrices / mas_vectors; index of its first frame
    matrix_offset: u32,
    v_offset: u32,
    y_offset: u32,
    frame_offset: u32,
}

fn mas_level(l: u32) -> MasLevel {
    let a = P.mas_levels[2u * l];
    let b = P.mas_levels[2u * l + 1u];
    return MasLevel(a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w);
}

// Node i's position at the last factorisation (level 0's frame slot points at them):
// the rigid-motion basis of the coarse levels, the same for the factors and every
// application made with them.
fn mas_node_x(i: u32) -> vec3<real> {
    return vec4<real>(mas_frames[mas_level(0u).frame_offset + i]).xyz;
}

fn mas_order(rank: u32) -> u32 {
    return mas_index[rank];
}

// Rank of node i, and whether it is fixed.
fn mas_rank(i: u32) -> vec2<u32> {
    let e = mas_index[P.n_nodes + i];
    return vec2<u32>(e & ~MAS_FIXED, select(0u, 1u, (e & MAS_FIXED) != 0u));
}

// The radius a frame's rotations are scaled by (1 m for a frame of one point).
fn frame_radius(f: vec4<real>) -> real {
    return select(1.0, f.w, f.w > 0.0);
}

// Column c of the basis of a node at offset `rel` = (x_i − c_A)/ρ_A from its
// supernode's centre: translations, then rotations ω × rel.
fn basis_column(c: u32, rel: vec3<real>) -> vec3<real> {
    if (c < P.dim) {
        var e = vec3<real>(0.0);
        e[c] = 1.0;
        return e;
    }
    if (P.dim == 2u) { return vec3<real>(-rel.y, rel.x, 0.0); }
    var w = vec3<real>(0.0);
    w[c - 3u] = 1.0;
    return cross(w, rel);
}

// Φᵢ − Φⱼ column c for two nodes of one supernode `dr` = (x_i − x_j)/ρ apart:
// translations cancel exactly, rotations give ω × dr.
fn basis_difference(c: u32, dr: vec3<real>) -> vec3<real> {
    if (c < P.dim) { return vec3<real>(0.0); }
    return basis_column(c, dr);
}

fn level_count() -> u32 {
    return P.mas.x;
}

fn nodes_in(l: u32, a: u32) -> u32 {
    let span = mas_level(l).span;
    return min((a + 1u) * span, P.n_nodes) - a * span;
}

fn frame(l: u32, a: u32) -> vec4<real> {
    return vec4<real>(mas_frames[mas_level(l).frame_offset + a]);
}


// The level and the level's domain of workgroup g (uniform over the workgroup).
fn domain_of(g: u32) -> vec2<u32> {
    var l = 0u;
    for (var k = 1u; k < level_count(); k++) {
        if (g >= mas_level(k).first_domain) { l = k; }
    }
    return vec2<u32>(l, g - mas_level(l).first_domain);
}

// The basis columns of node i (rank `rank`) on level l, its supernode's frame taken
// from mas_frames (level 0: the identity).
fn node_rel(l: u32, rank: u32, xi: vec3<real>) -> vec3<real> {
    if (l == 0u) { return vec3<real>(0.0); }
    let f = frame(l, rank / mas_level(l).span);
    return (xi - f.xyz) / frame_radius(f);
}
