// Lagged friction contacts and friction statistics. CPU twin:
// src/backend/cpu/friction.rs. A contact's normal force is the barrier's force on
// the node (contact.wgsl's contact_friction_lag): λ = −b′(d) for a plane wall
// (normal n), λ = −b′(W) |∇W| for an implicit wall (normal ∇W/|∇W|). Fixed nodes
// get none.
// #import node_friction.wgsl
// #import contact.wgsl

// Stores the contacts of node i at position xi; returns the largest change of λ (N).
fn store_lag(i: u32, xi: vec3<real>) -> real {
    let info = nodes[i];
    var change: real = 0.0;
    for (var s = 0u; s < P.friction_slots; s++) {
        var f = vec4<real>(0.0);
        if (info.fixed == 0u) {
            f = contact_friction_lag(s, info.area, xi);
        }
        let k = i * P.friction_slots + s;
        change = max(change, abs(f.w - friction[k].w));
        friction[k] = f;
    }
    return change;
}

// At the start of a step: contacts at xⁿ.
@compute @workgroup_size(256)
fn friction_lag_start(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if (i >= P.n_nodes) { return; }
    store_lag(i, load_xn(i));
}

// A lagging update: contacts at the current iterate (the slip stays measured from
// xⁿ); partials of the largest change of λ in the max lane.
@compute @workgroup_size(256)
fn friction_lag_update(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    var mine = lanes_zero();
    if (i < P.n_nodes) {
        mine.mixed.w = store_lag(i, load_x(i));
    }
    store_partials(wid, nwg, lid, mine);
}

// Per step: contacts sticking (slip below ε_v h) in sums.x, sliding in sums.y, and the
// dissipation Σ μ λ |u| (J) in sums.z, as workgroup partials.
@compute @workgroup_size(256)
fn friction_stats(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    var mine = lanes_zero();
    if (i < P.n_nodes) {
        let dx = load_dx(i);
        for (var s = 0u; s < P.friction_slots; s++) {
            let f = load_friction(i, s);
            let ml = friction_weight(s, f);
            if (ml > 0.0) {
                mine.sums += vec4<real>(friction_contact_stats(ml, P.friction_eps, f.xyz, slot_slip(i, s, dx)), 0.0);
            }
        }
    }
    store_partials(wid, nwg, lid, mine);
}
