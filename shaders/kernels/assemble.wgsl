// The Newton system at the current iterate, in two per-node passes:
// node_terms: every term local to a node: r = −∇ of inertia, gravity, the barrier of
//   every wall and friction, and the node block m I + c h² (barrier + friction
//   Hessians) that the mat-vec reuses for every CG iteration;
// assemble: adds the springs gathered over the node → springs adjacency (no atomics)
//   to r and forms the block-Jacobi preconditioner: each node's diagonal block of H
//   (its Newton block plus its springs' blocks), inverted.
// Fixed nodes get zero rows. CPU twin: src/backend/cpu/assemble.rs.
// #import state.wgsl
// #import node_friction.wgsl
// #import energy/spring.wgsl
// #import contact.wgsl

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
    let t = contact_add_terms(info.area, xi, ContactTerms(-info.mass * P.gravity.xyz + fr.grad, fr.hess));
    let grad = t.grad;
    let h = t.hess;
    store_r(i, -(info.mass * (dx - load_pred_offset(i)) + P.potential_weight * grad));
    store_block(NEWTON_BLOCKS, i, NodeBlock(vec4<real>(info.mass + P.potential_weight * h.diag, 0.0), vec4<real>(P.potential_weight * h.off, 0.0)));
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
        grad += spring_gradient(dv, real(s.rest_length_sq), real(s.stiffness));
        springs_block = sym_add(springs_block, spring_hessian_block(dv, spring_hessian(dv, real(s.rest_length_sq), real(s.stiffness))));
    }
    store_r(i, load_r(i) - P.potential_weight * grad);
    let diagonal_block = Sym(nb.diag.xyz + P.potential_weight * springs_block.diag, nb.off.xyz + P.potential_weight * springs_block.off);
    let inv = sym_inverse(diagonal_block, P.dim);
    store_block(PRECONDITIONER_BLOCKS, i, NodeBlock(vec4<real>(inv.diag, 0.0), vec4<real>(inv.off, 0.0)));
}
