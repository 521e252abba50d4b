// Energies, one thread per element (node t and spring t): the incremental potential
// (friction included) and the diagnostics at x, and the line-search change
// E(x + α p) − E(x) summed per element, never as the difference of two large totals
// (DESIGN.md §2).
// Lanes of energy_total: s = (E, kinetic, gravity, elastic), e.x = barrier,
// e.z = min wall distance, e.w = 1 where a node is at or behind a wall.
// Lanes of energy_change: s.x = ΔE, e.w = 1 where the trial point is inadmissible.
// #import state.wgsl
// #import node_friction.wgsl
// #import energy/spring.wgsl
// #import energy/barrier.wgsl
// #import energy/inertia.wgsl
// #import wall.wgsl
// #import implicit/wall.wgsl

@compute @workgroup_size(256)
fn energy_total(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_index(wid, nwg, lid);
    var mine = lanes_zero();
    if (t < P.n_nodes) {
        let info = nodes[t];
        let xi = load_x(t);
        let vi = load_v(t);
        let grav = gravity_value(info.mass, P.gravity.xyz, xi);
        var bar: real = 0.0;
        var dmin = BIG;
        for (var w = 0u; w < P.n_walls; w++) {
            let n = wall_normal(w);
            let dist = plane_distance(n, wall_origin(w), xi);
            dmin = min(dmin, dist);
            bar += barrier_value(P.barrier_kind, P.kappa, P.dhat, info.area, dist);
        }
        for (var w = 0u; w < N_IMPLICIT_WALLS; w++) {
            let dist = implicit_wall_value(w, xi);
            dmin = min(dmin, dist);
            bar += barrier_value(P.barrier_kind, P.kappa, P.dhat, info.area, dist);
        }
        let dx = load_dx(t);
        let fr = node_friction_value(t, dx);
        mine.s.x = inertia_value(info.mass, dx - load_pred_offset(t)) + P.h2c * (grav + bar + fr);
        mine.s.y = 0.5 * info.mass * dot(vi, vi);
        mine.s.z = grav;
        mine.e.x = bar;
        mine.e.z = dmin;
        mine.e.w = select(0.0, 1.0, dmin <= 0.0);
    }
    if (t < P.n_springs) {
        let s = springs[t];
        let el = spring_value(load_x(s.a) - load_x(s.b), s.rest_length_sq, s.stiffness);
        mine.s.x += P.h2c * el;
        mine.s.w = el;
    }
    let total = workgroup_reduce(lid, mine);
    if (lid == 0u) { partials[group_index(wid, nwg)] = total; }
}

@compute @workgroup_size(256)
fn energy_change(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_index(wid, nwg, lid);
    let alpha = cg.ls_alpha;
    var mine = lanes_zero();
    if (t < P.n_nodes) {
        let info = nodes[t];
        let xi = load_x(t);
        let delta = alpha * load_p(t);
        var de = -info.mass * dot(P.gravity.xyz, delta);
        for (var w = 0u; w < P.n_walls; w++) {
            let n = wall_normal(w);
            let dist = plane_distance(n, wall_origin(w), xi);
            let dd = dot(n, delta);
            if (dist + dd <= 0.0) {
                mine.e.w = 1.0;
            } else {
                de += barrier_value_change(P.barrier_kind, P.kappa, P.dhat, info.area, dist, dd);
            }
        }
        for (var w = 0u; w < N_IMPLICIT_WALLS; w++) {
            let dist = implicit_wall_value(w, xi);
            let d1 = implicit_wall_value(w, xi + delta);
            if (d1 <= 0.0) {
                mine.e.w = 1.0;
            } else {
                de += barrier_value_change(P.barrier_kind, P.kappa, P.dhat, info.area, dist, d1 - dist);
            }
        }
        let dx = load_dx(t);
        de += node_friction_change(t, dx, delta);
        mine.s.x = inertia_value_change(info.mass, dx - load_pred_offset(t), delta) + P.h2c * de;
    }
    if (t < P.n_springs) {
        let s = springs[t];
        let delta = alpha * (load_p(s.a) - load_p(s.b));
        mine.s.x += P.h2c * spring_value_change(load_x(s.a) - load_x(s.b), delta, s.rest_length_sq, s.stiffness);
    }
    let total = workgroup_reduce(lid, mine);
    if (lid == 0u) { partials[group_index(wid, nwg)] = total; }
}
