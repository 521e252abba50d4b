// The first line-search trial, computed speculatively in the same submission as the
// direction: α = min(1, CCD bound) from the direction_stats reduction in results[0],
// then energy_change at that α is reduced into results[1]. The host reads both with
// the CG flags, so an iteration whose first trial is accepted costs one host read.
// No CPU twin: the CPU's line search is the generic one of src/newton.rs.
// #import state.wgsl

@compute @workgroup_size(1)
fn line_search_start() {
    cg.ls_alpha = min(1.0, results[0].mixed.z);
}

@compute @workgroup_size(256)
fn reduce_trial(@builtin(local_invocation_index) lid: u32) {
    let t = reduce_partials(lid, P.element_partials);
    if (lid == 0u) { results[1] = t; }
}
