// The Newton system at the current iterate, in two per-node passes:
// node_terms: every term local to a node: r = −∇ of inertia, gravity, the barrier of
//   every wall and friction, and the node block m I + c h² (barrier + friction
//   Hessians) that the mat-vec reuses for every CG iteration;
// assemble: adds the springs gathered over the node → springs adjacency (no atomics)
//   to r and forms the block-Jacobi preconditioner: each node's diagonal block of H
//   (its Newton block plus its springs' blocks), inverted.
// Fixed nodes get zero rows. Twin of CpuBackend::assemble.
// #import state.wgsl
// #import node_friction.wgsl
// #import energy/spring.wgsl
// #import energy/barrier.wgsl
// #import wall.wgsl
// #import implicit/wall.wgsl

@compute @workgroup_size(256)
fn node_terms(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if (i >= P.n_nodes) { return; }
    let info = nodes[i];
    if (info.fixed != 0u) {
        store_r(i, vec3<real>(0.0));
        store_block(NEWTON_BLOCKS, i, NodeBlock(vec4<real>(0.0, 0.0, 0.0, 1.0), vec4<real>(0.0)));
        return;
    }
    let xi = load_x(i);
    let dx = load_dx(i);
    let fr = node_friction_terms(i, dx);
    var grad = -info.mass * P.gravity.xyz + fr.grad;
    var h = fr.hess;
    for (var w = 0u; w < P.n_walls; w++) {
        let n = wall_normal(w);
        let dist = plane_distance(n, wall_origin(w), xi);
        grad += barrier_gradient(P.barrier_kind, P.kappa, P.dhat, info.area, dist) * n;
        h = sym_add(h, sym_outer(barrier_hessian(P.barrier_kind, P.kappa, P.dhat, info.area, dist), n));
    }
    // implicit walls: gradient b′(d) ∇W, Gauss–Newton block b″(d) ∇W ∇Wᵀ (d = W)
    for (var w = 0u; w < N_IMPLICIT_WALLS; w++) {
        let dist = implicit_wall_value(w, xi);
        if (dist > 0.0 && dist < P.dhat) {
            let gw = implicit_wall_gradient(w, xi);
            grad += barrier_gradient(P.barrier_kind, P.kappa, P.dhat, info.area, dist) * gw;
            h = sym_add(h, sym_outer(barrier_hessian(P.barrier_kind, P.kappa, P.dhat, info.area, dist), gw));
        }
    }
    store_r(i, -(info.mass * (dx - load_pred_offset(i)) + P.h2c * grad));
    store_block(NEWTON_BLOCKS, i, NodeBlock(vec4<real>(info.mass + P.h2c * h.diag, 0.0), vec4<real>(P.h2c * h.off, 0.0)));
}

@compute @workgroup_size(256)
fn assemble(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if (i >= P.n_nodes) { return; }
    let nb = load_block(NEWTON_BLOCKS, i);
    if (nb.diag.w != 0.0) {
        store_block(PRECONDITIONER_BLOCKS, i, NodeBlock(vec4<real>(0.0), vec4<real>(0.0)));
        return;
    }
    let xi = load_x(i);
    var grad = vec3<real>(0.0);
    var springs_block = sym_zero();
    for (var e = adjacency[i]; e < adjacency[i + 1u]; e++) {
        let s = springs[adjacency[e]];
        let dv = xi - load_x(spring_other(s, i));
        grad += spring_gradient(dv, s.rest_length_sq, s.stiffness);
        springs_block = sym_add(springs_block, spring_hessian_block(dv, spring_hessian(dv, s.rest_length_sq, s.stiffness)));
    }
    store_r(i, load_r(i) - P.h2c * grad);
    let diagonal_block = Sym(nb.diag.xyz + P.h2c * springs_block.diag, nb.off.xyz + P.h2c * springs_block.off);
    let inv = sym_inverse(diagonal_block, P.dim);
    store_block(PRECONDITIONER_BLOCKS, i, NodeBlock(vec4<real>(inv.diag, 0.0), vec4<real>(inv.off, 0.0)));
}
