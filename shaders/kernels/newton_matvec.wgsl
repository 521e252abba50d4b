// q = H d with the PSD-projected Newton matrix, matrix-free: per node the block
// m I + c h² (barrier + friction) that node_terms stored, plus every incident
// spring's projected block applied to (d_i − d_j), recomputed from x (which does not
// change during CG). Also the workgroup partial sums of d·q for CG. CPU twin:
// src/backend/cpu/newton_matvec.rs (NewtonMatrix::apply).
// #import state.wgsl
// #import spring_adjacency.wgsl
// #import pair_blocks.wgsl

fn apply_newton_matrix(i: u32) -> vec3<real> {
    let nb = load_block(NEWTON_BLOCKS, i);
    if (nb.diag.w != 0.0) { return vec3<real>(0.0); }
    let xi = load_x(i);
    let ui = load_d(i);
    var y = vec3<real>(0.0);
    for (var e = adjacency[i]; e < adjacency[i + 1u]; e++) {
        let sp = spring_at(i, xi, e);
        y += spring_hessian_apply(sp.dv, sp.h, ui - load_d(sp.j));
    }
    return node_block_apply(nb, ui) + P.potential_weight * y;
}

// Stores q_i and returns the lanes of node i (d_i·q_i; nothing past the last node).
fn store_matvec(i: u32, qi: vec3<real>) -> Lanes {
    var mine = lanes_zero();
    if (i < P.n_nodes) {
        store_q(i, qi);
        mine.sums.x = dot(load_d(i), qi);
    }
    return mine;
}

@compute @workgroup_size(256)
fn newton_matvec(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let i = thread_index(wid, nwg, lid);
    var qi = vec3<real>(0.0);
    if (i < P.n_nodes) { qi = apply_newton_matrix(i); }
    store_partials(wid, nwg, lid, store_matvec(i, qi));
}

// newton_matvec with the couplings of contact pairs (contact between and within
// bodies, pair_blocks.wgsl): one pass per CG iteration, as without pairs. It binds
// ten storage buffers, above wgpu's default of eight: scenes with contact pairs ask
// the device for them.
@compute @workgroup_size(256)
fn newton_matvec_pairs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let i = thread_index(wid, nwg, lid);
    var qi = vec3<real>(0.0);
    if (i < P.n_nodes) {
        qi = apply_newton_matrix(i);
        if (load_block(NEWTON_BLOCKS, i).diag.w == 0.0) { qi += pair_couplings(i); }
    }
    store_partials(wid, nwg, lid, store_matvec(i, qi));
}
