// Energies, one thread per element (node t and spring t): the incremental potential
// (friction included) and the diagnostics at x, and the line-search change
// E(x + α p) − E(x) summed per element, never as the difference of two large totals
// (ARCHITECTURE.md, "GPU rules"). CPU twin: src/backend/cpu/energy.rs.
// Lanes of energy_total: sums = (E, kinetic, gravity, elastic), mixed.x = barrier,
// mixed.z = min wall distance, mixed.w = 1 where a node is at or behind a wall.
// Lanes of energy_change: sums.x = ΔE, mixed.w = 1 where the trial point is inadmissible.
// #import state.wgsl
// #import node_friction.wgsl
// #import energy/spring.wgsl
// #import energy/inertia.wgsl
// #import contact.wgsl

@compute @workgroup_size(256)
fn energy_total(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_index(wid, nwg, lid);
    var mine = lanes_zero();
    if (t < P.n_nodes) {
        let info = nodes[t];
        let xi = load_x(t);
        let vi = load_v(t);
        let grav = gravity_value(info.mass, P.gravity.xyz, xi);
        let contact = contact_value(info.area, xi);
        let bar = contact.barrier;
        let dmin = contact.min_distance;
        let dx = load_dx(t);
        let fr = node_friction_value(t, dx);
        mine.sums.x = inertia_value(info.mass, dx - load_pred_offset(t)) + P.potential_weight * (grav + bar + fr);
        mine.sums.y = 0.5 * info.mass * dot(vi, vi);
        mine.sums.z = grav;
        mine.mixed.x = bar;
        mine.mixed.z = dmin;
        mine.mixed.w = select(real(0.0), real(1.0), dmin <= 0.0);
    }
    if (t < P.n_springs) {
        let s = springs[t];
        let el = spring_value(load_x(s.a) - load_x(s.b), real(s.rest_length_sq), real(s.stiffness));
        mine.sums.x += P.potential_weight * el;
        mine.sums.w = el;
    }
    store_partials(wid, nwg, lid, mine);
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
        let contact = contact_add_value_change(info.area, xi, delta, -info.mass * dot(P.gravity.xyz, delta));
        if (contact.inadmissible) {
            mine.mixed.w = 1.0;
        }
        var de = contact.change;
        let dx = load_dx(t);
        de += node_friction_change(t, dx, delta);
        mine.sums.x = inertia_value_change(info.mass, dx - load_pred_offset(t), delta) + P.potential_weight * de;
    }
    if (t < P.n_springs) {
        let s = springs[t];
        let delta = alpha * (load_p(s.a) - load_p(s.b));
        mine.sums.x += P.potential_weight * spring_value_change(load_x(s.a) - load_x(s.b), delta, real(s.rest_length_sq), real(s.stiffness));
    }
    store_partials(wid, nwg, lid, mine);
}
