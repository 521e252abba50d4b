// Per pair of the broad phase's list: its weighted barrier gradient and PSD-projected
// Hessian (zero where inactive), or a lagged friction pair's (pair_friction.wgsl),
// into pair_terms, which pair_gather (kernels/pairs.wgsl)
// and newton_matvec_pairs read. CPU twin: src/backend/cpu/self_contact.rs
// (assemble_self_contact).
// #import pair_derivatives.wgsl
// #import pair_friction.wgsl

@compute @workgroup_size(256)
fn pair_assemble(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_index(wid, nwg, lid);
    if (t >= pair_count()) { return; }
    if (t >= pair_candidates()) {
        store_friction_terms(t);
    } else {
        store_pair_terms(t, stacked_x(pair_nodes(t)));
    }
}
