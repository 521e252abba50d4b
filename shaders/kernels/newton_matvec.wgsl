// q = H d with the PSD-projected Newton matrix, matrix-free: per node the mass and
// barrier block, plus every incident spring's projected block applied to
// (d_i − d_j), recomputed from x (which does not change during CG). Also the
// workgroup partial sums of d·q for CG. Twin of the CPU's NewtonMatrix::apply.
// #import state.wgsl
// #import energy/spring.wgsl
// #import energy/barrier.wgsl
// #import wall.wgsl
// #import implicit/wall.wgsl

fn apply_newton_matrix(i: u32) -> vec3<real> {
    let info = nodes[i];
    if (info.fixed != 0u) { return vec3<real>(0.0); }
    let xi = load_x(i);
    let ui = load_d(i);
    var y = vec3<real>(0.0);
    for (var w = 0u; w < P.n_walls; w++) {
        let n = wall_normal(w);
        let b = barrier_hessian(P.barrier_kind, P.kappa, P.dhat, info.area, plane_distance(n, wall_origin(w), xi));
        y += b * dot(n, ui) * n;
    }
    for (var w = 0u; w < N_IMPLICIT_WALLS; w++) {
        let dist = implicit_wall_value(w, xi);
        if (dist > 0.0 && dist < P.dhat) {
            let gw = implicit_wall_gradient(w, xi);
            y += barrier_hessian(P.barrier_kind, P.kappa, P.dhat, info.area, dist) * dot(gw, ui) * gw;
        }
    }
    for (var e = adjacency[i]; e < adjacency[i + 1u]; e++) {
        let s = springs[adjacency[e]];
        let j = spring_other(s, i);
        let dv = xi - load_x(j);
        let h = spring_hessian(dv, s.rest_length_sq, s.stiffness);
        y += spring_hessian_apply(dv, h, ui - load_d(j));
    }
    return info.mass * ui + P.h2c * y;
}

@compute @workgroup_size(256)
fn newton_matvec(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let i = thread_index(wid, nwg, lid);
    var mine = lanes_zero();
    if (i < P.n_nodes) {
        let qi = apply_newton_matrix(i);
        store_q(i, qi);
        mine.s.x = dot(load_d(i), qi);
    }
    let total = workgroup_reduce(lid, mine);
    if (lid == 0u) { partials[group_index(wid, nwg)] = total; }
}
