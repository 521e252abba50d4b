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
// #import spring_adjacency.wgsl

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

// A supernode's rigid motion (or the force and torque it is restricted to): the
// translation t and the rotation w (only w.z in 2D), 3 or 6 reals in mas_vectors.
struct Rigid {
    t: vec3<real>,
    w: vec3<real>,
}

fn rigid_dofs() -> u32 {
    return select(6u, 3u, P.dim == 2u);
}

// The rigid motion of supernode a of the level whose vector starts at `offset`.
fn load_rigid(offset: u32, a: u32) -> Rigid {
    let o = offset + a * rigid_dofs();
    if (P.dim == 2u) {
        return Rigid(vec3<real>(real(mas_vectors[o]), real(mas_vectors[o + 1u]), 0.0), vec3<real>(0.0, 0.0, real(mas_vectors[o + 2u])));
    }
    return Rigid(
        vec3<real>(real(mas_vectors[o]), real(mas_vectors[o + 1u]), real(mas_vectors[o + 2u])),
        vec3<real>(real(mas_vectors[o + 3u]), real(mas_vectors[o + 4u]), real(mas_vectors[o + 5u])),
    );
}

fn store_rigid(offset: u32, a: u32, m: Rigid) {
    let o = offset + a * rigid_dofs();
    mas_vectors[o] = lreal(m.t.x);
    mas_vectors[o + 1u] = lreal(m.t.y);
    if (P.dim == 2u) {
        mas_vectors[o + 2u] = lreal(m.w.z);
    } else {
        mas_vectors[o + 2u] = lreal(m.t.z);
        mas_vectors[o + 3u] = lreal(m.w.x);
        mas_vectors[o + 4u] = lreal(m.w.y);
        mas_vectors[o + 5u] = lreal(m.w.z);
    }
}

// Node i's correction: level 0's plus level 1's rigid motion (which holds every
// coarser level's by the time it is read); 0 for a fixed node.
fn mas_node_correction(i: u32) -> vec3<real> {
    let rk = mas_rank(i);
    var zi = vec3<real>(0.0);
    if (rk.y == 0u) {
        zi = load_node_vector(mas_level(0u).y_offset, rk.x);
        if (level_count() > 1u) {
            let a = rk.x / MAS_B;
            let f = frame(1u, a);
            let y = load_rigid(mas_level(1u).y_offset, a);
            zi += y.t + cross(y.w, (mas_node_x(i) - f.xyz) / frame_radius(f));
        }
    }
    return zi;
}

// Entry `rank` of a level-0 vector (dim reals per rank) at `offset` in mas_vectors.
fn load_node_vector(offset: u32, rank: u32) -> vec3<real> {
    let o = offset + rank * P.dim;
    var v = vec3<real>(real(mas_vectors[o]), real(mas_vectors[o + 1u]), 0.0);
    if (P.dim == 3u) { v.z = real(mas_vectors[o + 2u]); }
    return v;
}

// acc += scale · Lᵀ S R for the spring block S of (dv, h) and q columns L and R.
fn add_spring_block(acc: ptr<function, array<array<real, 6>, 6>>, lc: ptr<function, array<vec3<real>, 6>>, rc: ptr<function, array<vec3<real>, 6>>, q: u32, dv: vec3<real>, h: vec2<real>, scale: real) {
    for (var c = 0u; c < q; c++) {
        let hc = scale * spring_hessian_apply(dv, h, (*rc)[c]);
        for (var r = 0u; r < q; r++) { (*acc)[r][c] += dot((*lc)[r], hc); }
    }
}

// Σ over the free nodes of ranks [first, last) (all in level-l supernode sa) of their
// part of the block (sa, sc) of Pₗᵀ H Pₗ: on the diagonal block the node blocks, the
// springs inside sa as (Φᵢ − Φⱼ)ᵀ S (Φᵢ − Φⱼ) (once per spring, from the difference,
// so that sa's rigid motions cost no cancellation in f32) and the other springs'
// Φᵢᵀ S Φᵢ; off it, −Φᵢᵀ S Φⱼ for the springs into sc.
fn node_contributions(l: u32, first: u32, last: u32, sa: u32, sc: u32) -> array<array<real, 6>, 6> {
    let lv = mas_level(l);
    let q = lv.dofs;
    let w = P.potential_weight;
    var acc: array<array<real, 6>, 6>;
    var ci: array<vec3<real>, 6>;
    var cj: array<vec3<real>, 6>;
    for (var rank = first; rank < last; rank++) {
        let i = mas_order(rank);
        if (mas_rank(i).y != 0u) { continue; }
        let xi = load_x(i);
        let reli = node_rel(l, rank, xi);
        for (var c = 0u; c < q; c++) { ci[c] = basis_column(c, reli); }
        if (sa == sc) {
            let nb = load_block(NEWTON_BLOCKS, i);
            for (var c = 0u; c < q; c++) {
                let hc = node_block_apply(nb, ci[c]);
                for (var r = 0u; r < q; r++) { acc[r][c] += dot(ci[r], hc); }
            }
        }
        for (var e = adjacency[i]; e < adjacency[i + 1u]; e++) {
            let sp = spring_at(i, xi, e);
            let j = sp.j;
            let dv = sp.dv;
            let h = sp.h;
            let rj = mas_rank(j);
            let j_in = rj.y == 0u && rj.x / lv.span == sc;
            if (sa == sc && j_in) {
                if (rank < rj.x) {
                    let dr = select(dv / frame_radius(frame(l, sa)), vec3<real>(0.0), l == 0u);
                    for (var c = 0u; c < q; c++) { cj[c] = basis_difference(c, dr); }
                    add_spring_block(&acc, &cj, &cj, q, dv, h, w);
                }
            } else {
                if (sa == sc) { add_spring_block(&acc, &ci, &ci, q, dv, h, w); }
                if (j_in) {
                    let relj = node_rel(l, rj.x, load_x(j));
                    for (var c = 0u; c < q; c++) { cj[c] = basis_column(c, relj); }
                    add_spring_block(&acc, &ci, &cj, q, dv, h, -w);
                }
            }
        }
    }
    return acc;
}

// Supernode a of level l ≥ 1 restricted from the level below: Σ Pᵀ f over its
// nodes (level 1; f is CG's q with `from_q`, else r) or Σ Tᵀ of its children's rigid
// motions stored at `below_vector` in mas_vectors (above).
fn restrict_supernode(l: u32, a: u32, from_q: bool, below_vector: u32) -> Rigid {
    let fa = frame(l, a);
    let rho = frame_radius(fa);
    var t = vec3<real>(0.0);
    var w = vec3<real>(0.0);
    if (l == 1u) {
        let last = min(a * MAS_B + MAS_B, P.n_nodes);
        for (var rank = a * MAS_B; rank < last; rank++) {
            let i = mas_order(rank);
            var f: vec3<real>;
            if (from_q) { f = load_q(i); } else { f = load_r(i); }
            t += f;
            w += cross((mas_node_x(i) - fa.xyz) / rho, f);
        }
    } else {
        let below = mas_level(l - 1u);
        let last = min(a * MAS_B + MAS_B, below.count);
        for (var k = a * MAS_B; k < last; k++) {
            let v = load_rigid(below_vector, k);
            let fk = vec4<real>(mas_frames[below.frame_offset + k]);
            t += v.t;
            w += cross((fk.xyz - fa.xyz) / rho, v.t) + v.w * (frame_radius(fk) / rho);
        }
    }
    return Rigid(t, w);
}
