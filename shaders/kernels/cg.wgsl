// Block-Jacobi-preconditioned CG on the GPU, from p = 0, with its scalars in `cg`
// (no host round trip inside an iteration). One iteration is
// newton_matvec → cg_alpha → cg_update → cg_beta → cg_direction. Once `cg.done`
// is set, α = 0 and every further iteration leaves p unchanged, so the host may
// submit iterations in batches and read `cg` only between batches; the mat-vec and
// update kernels return at once when `cg.done` is set, so overshooting costs little.
// Twin of src/pcg.rs; the CPU backend's side: src/backend/cpu/cg.rs.
// #import state.wgsl

// z = M⁻¹ r of node i with its residual ri; returns zi and stores it in z.
fn precondition_node(i: u32, ri: vec3<real>) -> vec3<real> {
    let zi = node_block_apply(load_block(PRECONDITIONER_BLOCKS, i), ri);
    store_z(i, zi);
    return zi;
}

// The lanes of r·z (sums.x) and r·r (sums.y) of one node.
fn residual_lanes(ri: vec3<real>, zi: vec3<real>) -> Lanes {
    var l = lanes_zero();
    l.sums.x = dot(ri, zi);
    l.sums.y = dot(ri, ri);
    return l;
}

// p = 0, z = M⁻¹ r, d = z; partial sums of r·z and r·r.
@compute @workgroup_size(256)
fn cg_start(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    var mine = lanes_zero();
    if (i < P.n_nodes) {
        let ri = load_r(i);
        store_p(i, vec3<real>(0.0));
        let zi = precondition_node(i, ri);
        store_d(i, zi);
        mine = residual_lanes(ri, zi);
    }
    store_partials(wid, nwg, lid, mine);
}

@compute @workgroup_size(256)
fn cg_start_scalars(@builtin(local_invocation_index) lid: u32) {
    let t = reduce_partials(lid, P.node_partials);
    if (lid == 0u) {
        cg.rz = t.sums.x;
        cg.bb = t.sums.y;
        cg.rr = t.sums.y;
        cg.alpha = 0.0;
        cg.beta = 0.0;
        cg.dq = 0.0;
        cg.iterations = 0u;
        cg.done = select(0u, 1u, t.sums.y <= 0.0);
        cg.converged = cg.done;
    }
}

// α = rᵀz / dᵀq; a direction without positive curvature ends the solve.
@compute @workgroup_size(256)
fn cg_alpha(@builtin(local_invocation_index) lid: u32) {
    let t = reduce_partials(lid, P.node_partials);
    if (lid == 0u) {
        cg.alpha = 0.0;
        if (cg.done == 0u) {
            cg.dq = t.sums.x;
            if (t.sums.x > 0.0) {
                cg.alpha = cg.rz / t.sums.x;
            } else {
                cg.done = 1u;
                cg.iterations += 1u;
                cg.converged = select(0u, 1u, cg.rr <= P.cg_tol_sq * cg.bb);
            }
        }
    }
}

// p += α d, r −= α q, z = M⁻¹ r; partial sums of r·z and r·r.
@compute @workgroup_size(256)
fn cg_update(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let i = thread_index(wid, nwg, lid);
    var mine = lanes_zero();
    if (i < P.n_nodes) {
        let a = cg.alpha;
        store_p(i, load_p(i) + a * load_d(i));
        let ri = load_r(i) - a * load_q(i);
        store_r(i, ri);
        mine = residual_lanes(ri, precondition_node(i, ri));
    }
    store_partials(wid, nwg, lid, mine);
}

// Convergence test |r| ≤ tol |b| and β = rᵀz_new / rᵀz.
@compute @workgroup_size(256)
fn cg_beta(@builtin(local_invocation_index) lid: u32) {
    let t = reduce_partials(lid, P.node_partials);
    if (lid == 0u) {
        if (cg.done == 0u) {
            cg.iterations += 1u;
            cg.rr = t.sums.y;
            if (t.sums.y <= P.cg_tol_sq * cg.bb) {
                cg.done = 1u;
                cg.converged = 1u;
            } else if (cg.iterations >= P.cg_max_iterations) {
                cg.done = 1u;
                cg.converged = 0u;
            } else {
                cg.beta = t.sums.x / cg.rz;
                cg.rz = t.sums.x;
            }
        }
    }
}

// d = z + β d.
@compute @workgroup_size(256)
fn cg_direction(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if (i >= P.n_nodes || cg.done != 0u) { return; }
    store_d(i, load_z(i) + cg.beta * load_d(i));
}
