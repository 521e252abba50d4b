// The multilevel preconditioner's application, per CG iteration: cg_update_residual
// (or the fused cg_alpha_update in kernels/cg.wgsl),
// mas_restrict for levels 1 … L − 1, mas_solve (every domain of every level:
// y = A⁻¹ v), mas_prolong for levels L − 1 … 2 (adds each parent's correction to its
// children, mas_level_down between), then mas_finish writes z and the partial sums
// of r·z and r·r, as cg_update does. Host side: src/backend/gpu/mas.rs; CPU twin:
// src/mas/mod.rs (restrict, apply).
// #import mas.wgsl

// CG start with MAS: p = 0, d = 0 (cg_direction then sets d = z), and the solve
// reopened so that the preconditioner's kernels run.
@compute @workgroup_size(256)
fn mas_cg_start(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if (i == 0u) { cg.done = 0u; }
    if (i >= P.n_nodes) { return; }
    store_p(i, vec3<real>(0.0));
    store_d(i, vec3<real>(0.0));
}

// p += α d, r −= α q (the preconditioner follows).
@compute @workgroup_size(256)
fn cg_update_residual(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let i = thread_index(wid, nwg, lid);
    if (i >= P.n_nodes) { return; }
    let a = cg.alpha;
    store_p(i, load_p(i) + a * load_d(i));
    store_r(i, load_r(i) - a * load_q(i));
}

// v of level mas_state.level: Σ Pᵀ r over each supernode, from its nodes (level 1)
// or its children's v (above).
@compute @workgroup_size(256)
fn mas_restrict(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let a = thread_index(wid, nwg, lid);
    let l = mas_state.level;
    let lv = mas_level(l);
    if (a >= lv.count) { return; }
    store_rigid(lv.v_offset, a, restrict_supernode(l, a, false, mas_level(l - 1u).v_offset));
}

var<workgroup> wg_vec: array<real, MAS_MAX_M>;

// y = A⁻¹ v on every domain of every level (one workgroup per domain); level 0's v
// is r gathered by rank.
@compute @workgroup_size(256)
fn mas_solve(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let g = group_index(wid, nwg);
    if (g >= P.mas.y) { return; }
    let ld = domain_of(g);
    let lv = mas_level(ld.x);
    let m = MAS_B * lv.dofs;
    if (lid < m) {
        var v: real = 0.0;
        if (ld.x == 0u) {
            let rank = ld.y * MAS_B + lid / P.dim;
            if (rank < P.n_nodes) { v = load_r(mas_order(rank))[lid % P.dim]; }
        } else {
            v = real(mas_vectors[lv.v_offset + ld.y * m + lid]);
        }
        wg_vec[lid] = v;
    }
    workgroupBarrier();
    if (lid < m) {
        let base = lv.matrix_offset + ld.y * m * m;
        var y: real = 0.0;
        for (var j = 0u; j < m; j++) { y += real(mas_matrices[base + j * m + lid]) * wg_vec[j]; }
        mas_vectors[lv.y_offset + ld.y * m + lid] = lreal(y);
    }
}

// Adds the correction of each supernode of level mas_state.level to its children's
// (level − 1): the parent's rigid motion seen from the child's frame.
@compute @workgroup_size(256)
fn mas_prolong(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let k = thread_index(wid, nwg, lid);
    let l = mas_state.level;
    let below = mas_level(l - 1u);
    if (k >= below.count) { return; }
    let lv = mas_level(l);
    let a = k / MAS_B;
    let fa = frame(l, a);
    let fk = vec4<real>(mas_frames[below.frame_offset + k]);
    let rho = frame_radius(fa);
    let y = load_rigid(lv.y_offset, a);
    let mine = load_rigid(below.y_offset, k);
    let tk = y.t + cross(y.w, (fk.xyz - fa.xyz) / rho);
    let wk = y.w * (frame_radius(fk) / rho);
    store_rigid(below.y_offset, k, Rigid(mine.t + tk, mine.w + wk));
}

// z = mas_node_correction (level 0's and level 1's, which holds every coarser one
// by now); the partial sums of r·z and r·r, as cg_update writes them.
@compute @workgroup_size(256)
fn mas_finish(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let i = thread_index(wid, nwg, lid);
    var mine = lanes_zero();
    if (i < P.n_nodes) {
        let rk = mas_rank(i);
        let zi = mas_node_correction(i);
        store_z(i, zi);
        let ri = load_r(i);
        mine.sums.x = dot(ri, zi);
        mine.sums.y = dot(ri, ri);
    }
    store_partials_at(residual_partials(), wid, nwg, lid, mine);
}

