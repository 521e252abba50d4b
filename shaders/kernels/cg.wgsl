// Block-Jacobi-preconditioned CG on the GPU, from p = 0, with its scalars in `cg`
// (no host round trip inside an iteration). One iteration has two forms with the
// same arithmetic, so they agree to the bit:
// - fused, three dispatches: newton_matvec → cg_alpha_update → cg_beta_direction.
//   Every workgroup of the last two folds all the partials of the kernel before it
//   (the reductions' second pass, the same sums in the same order in each) and takes
//   α or β itself, where the split form has a one-workgroup kernel in between. The
//   host takes it while the partials are few (`FUSED_CG_MAX_PARTIALS`,
//   src/backend/gpu/kernel_lists.rs): each workgroup reads them all.
// - split, five dispatches: newton_matvec → cg_alpha → cg_update → cg_beta →
//   cg_direction.
// The mat-vec's d·q partials start at 0, those of r·z and r·r at
// residual_partials(), so that a fused kernel reads one set while it writes the
// other. Once `cg.done` is set, α = 0 and every further iteration leaves p
// unchanged, so the host may submit iterations in batches and read `cg` only
// between batches; the kernels return at once when `cg.done` is set, so
// overshooting costs little.
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
    store_partials_at(residual_partials(), wid, nwg, lid, mine);
}

@compute @workgroup_size(256)
fn cg_start_scalars(@builtin(local_invocation_index) lid: u32) {
    let t = reduce_partials_at(lid, residual_partials(), P.node_partials);
    if (lid == 0u) {
        cg.rz = t.sums.x;
        cg.rz_next = t.sums.x;
        cg.live = 0u;
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
                cg.converged = select(0u, 1u, cg.rr <= cg.tol_sq * cg.bb);
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
    store_partials_at(residual_partials(), wid, nwg, lid, mine);
}

// Convergence test |r| ≤ tol |b| and β = rᵀz_new / rᵀz.
@compute @workgroup_size(256)
fn cg_beta(@builtin(local_invocation_index) lid: u32) {
    let t = reduce_partials_at(lid, residual_partials(), P.node_partials);
    if (lid == 0u) {
        if (cg.done == 0u) {
            cg.iterations += 1u;
            cg.rr = t.sums.y;
            if (t.sums.y <= cg.tol_sq * cg.bb) {
                cg.done = 1u;
                cg.converged = 1u;
            } else if (cg.iterations >= P.cg_max_iterations) {
                cg.done = 1u;
                cg.converged = 0u;
            } else {
                cg.beta = t.sums.x / cg.rz;
                cg.rz = t.sums.x;
                cg.rz_next = t.sums.x;
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

// The fused iteration's first half, as every workgroup of cg_alpha_update takes it: dᵀq folded from the mat-vec's partials and
// α = rᵀz / dᵀq (0 without positive curvature). Every thread must call it.
fn fused_alpha(lid: u32) -> vec2<real> {
    let dq = reduce_partials(lid, P.node_partials).sums.x;
    var a: real = 0.0;
    if (dq > 0.0) { a = cg.rz_next / dq; }
    return vec2<real>(dq, a);
}

// What workgroup 0's first thread records of the fused first half. `cg.rz` is
// written here and read by cg_beta_direction, `cg.rz_next` the reverse, and `live`
// tells cg_beta_direction what happened (cg.done is read here and written there):
// no workgroup reads what another writes in the same dispatch.
fn record_fused_alpha(dq_alpha: vec2<real>) {
    cg.iterations += 1u;
    cg.dq = dq_alpha.x;
    cg.alpha = dq_alpha.y;
    cg.rz = cg.rz_next;
    cg.live = select(2u, 1u, dq_alpha.x > 0.0);
}

// Whether this thread is the first of workgroup 0 (the one that records scalars).
fn records_scalars(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> bool {
    return group_index(wid, nwg) == 0u && lid == 0u;
}

// Fused: α, then p += α d, r −= α q and, with block-Jacobi, z = M⁻¹ r with the
// partial sums of r·z and r·r; a multilevel preconditioner (P.mas.x levels, 0
// without one) follows in its own kernels, and mas_finish writes those.
@compute @workgroup_size(256)
fn cg_alpha_update(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let first = records_scalars(wid, nwg, lid);
    if (cg_finished(lid)) {
        if (first) { cg.live = 0u; }
        return;
    }
    let da = fused_alpha(lid);
    let i = thread_index(wid, nwg, lid);
    let jacobi = P.mas.x == 0u;
    var mine = lanes_zero();
    if (da.x > 0.0 && i < P.n_nodes) {
        store_p(i, load_p(i) + da.y * load_d(i));
        let ri = load_r(i) - da.y * load_q(i);
        store_r(i, ri);
        if (jacobi) { mine = residual_lanes(ri, precondition_node(i, ri)); }
    }
    if (jacobi) { store_partials_at(residual_partials(), wid, nwg, lid, mine); }
    if (first) { record_fused_alpha(da); }
}

// Fused: the convergence test |r| ≤ tol |b|, β = rᵀz_new / rᵀz folded from the
// partials of r·z and r·r, and d = z + β d.
@compute @workgroup_size(256)
fn cg_beta_direction(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let live = cg_live_flag(lid);
    if (live == 0u) { return; }
    let t = reduce_partials_at(lid, residual_partials(), P.node_partials);
    var finish = true;
    var converged = false;
    if (live == 2u) {
        converged = cg.rr <= cg.tol_sq * cg.bb;
    } else if (t.sums.y <= cg.tol_sq * cg.bb) {
        converged = true;
    } else if (cg.iterations < P.cg_max_iterations) {
        finish = false;
    }
    let beta = t.sums.x / cg.rz;
    let i = thread_index(wid, nwg, lid);
    if (!finish && i < P.n_nodes) { store_d(i, load_z(i) + beta * load_d(i)); }
    if (records_scalars(wid, nwg, lid)) {
        if (live == 1u) { cg.rr = t.sums.y; }
        if (finish) {
            cg.done = 1u;
            cg.converged = select(0u, 1u, converged);
        } else {
            cg.beta = beta;
            cg.rz_next = t.sums.x;
        }
    }
}
