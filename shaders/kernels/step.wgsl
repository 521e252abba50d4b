// Per-node time-step bookkeeping: start of a step (store xⁿ, predict x̃), end of a
// step (velocity and acceleration update), and the Newton update x ← x + α p.
// CPU twin: src/backend/cpu/step.rs.
// #import state.wgsl
// #import integrator.wgsl

@compute @workgroup_size(256)
fn step_begin(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if (i >= P.n_nodes) { return; }
    // x = xⁿ + (x − xⁿ) as stored: the new xⁿ is exactly the current x.
    store_anchor(0u, i, load_x(i));
    store_anchor(1u, i, predict(P.integrator, P.dt, vec3<real>(0.0), load_v(i), load_acc(i)));
    store_anchor(2u, i, vec3<real>(0.0));
}

@compute @workgroup_size(256)
fn step_end(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if (i >= P.n_nodes) { return; }
    // Both updates depend on differences only: evaluate them relative to xⁿ.
    let dx = load_dx(i);
    let a_old = load_acc(i);
    let a_new = updated_acceleration(P.integrator, P.dt, dx, load_pred_offset(i), a_old);
    store_v(i, updated_velocity(P.integrator, P.dt, vec3<real>(0.0), dx, load_v(i), a_old, a_new));
    store_acc(i, a_new);
}

@compute @workgroup_size(256)
fn advance(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if (i >= P.n_nodes) { return; }
    let dx = load_dx(i) + cg.ls_alpha * load_p(i);
    store_anchor(2u, i, dx);
    store_x(i, load_xn(i) + dx);
}
