// Per pair of the broad phase's list: its weighted barrier gradient and PSD-projected
// Hessian (zero where inactive) into pair_terms, which pair_gather (kernels/pairs.wgsl)
// and newton_matvec_pairs read. CPU twin: src/backend/cpu/self_contact.rs
// (assemble_self_contact).
// #import pair_blocks.wgsl
// #import pair_derivatives.wgsl

@compute @workgroup_size(256)
fn pair_assemble(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_index(wid, nwg, lid);
    if (t >= pair_count()) { return; }
    let n = pair_nodes(t);
    let b = pair_barrier_terms(n, stacked_x(n));
    let base = pair_terms_at(t);
    let k = PAIR_NODES * P.dim;
    for (var l = 0u; l < PAIR_NODES; l++) {
        for (var a = 0u; a < P.dim; a++) {
            pair_terms[base + l * P.dim + a] = select(real(0.0), b.grad[l][a], b.is_active);
        }
    }
    for (var i = 0u; i < k * k; i++) {
        pair_terms[base + 12u + i] = select(real(0.0), b.hess[i], b.is_active);
    }
}
