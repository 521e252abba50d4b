// Per-node time-step bookkeeping: start of a step (store xⁿ, predict x̃), end of a
// step (velocity and acceleration update), and the Newton update x ← x + α p.
// #import state.wgsl
// #import integrator.wgsl

@compute @workgroup_size(256)
fn step_begin(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if (i >= P.n_nodes) { return; }
    let xi = load_x(i);
    store_xn(i, xi);
    store_x_pred(i, predict(P.integrator, P.dt, xi, load_v(i), load_acc(i)));
}

@compute @workgroup_size(256)
fn step_end(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if (i >= P.n_nodes) { return; }
    let xi = load_x(i);
    let a_old = load_acc(i);
    let a_new = updated_acceleration(P.integrator, P.dt, xi, load_x_pred(i), a_old);
    store_v(i, updated_velocity(P.integrator, P.dt, load_xn(i), xi, load_v(i), a_old, a_new));
    store_acc(i, a_new);
}

@compute @workgroup_size(256)
fn advance(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if (i >= P.n_nodes) { return; }
    store_x(i, load_x(i) + cg.ls_alpha * load_p(i));
}
