// Second pass of the two-pass reductions: one workgroup folds the partials of a
// per-node or per-element kernel into results[0], which the host copies out.
// No CPU twin: the CPU reduces with src/parallel.rs.
// #import state.wgsl

@compute @workgroup_size(256)
fn reduce_nodes(@builtin(local_invocation_index) lid: u32) {
    let t = reduce_partials(lid, P.node_partials);
    if (lid == 0u) { results[0] = t; }
}

@compute @workgroup_size(256)
fn reduce_elements(@builtin(local_invocation_index) lid: u32) {
    let t = reduce_partials(lid, P.element_partials);
    if (lid == 0u) { results[0] = t; }
}
