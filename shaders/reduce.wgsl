// Workgroup tree reduction of Lanes (no atomics). Every thread of the workgroup must
// call it (it holds barriers), so kernels never return before it.
// #import common.wgsl

// Half a workgroup of slots: the upper half of the threads store their lanes, the
// lower half fold them into their own (the tree's first level), so that the f64
// lanes fit the 16 KiB of workgroup memory every adapter has.
const WG_HALF: u32 = 128u;
var<workgroup> wg_sums: array<vec4<real>, WG_HALF>;
var<workgroup> wg_mixed: array<vec4<real>, WG_HALF>;

fn workgroup_reduce(lid: u32, mine: Lanes) -> Lanes {
    if (lid >= WG_HALF) {
        wg_sums[lid - WG_HALF] = mine.sums;
        wg_mixed[lid - WG_HALF] = mine.mixed;
    }
    workgroupBarrier();
    if (lid < WG_HALF) {
        let c = lanes_combine(mine, Lanes(wg_sums[lid], wg_mixed[lid]));
        wg_sums[lid] = c.sums;
        wg_mixed[lid] = c.mixed;
    }
    workgroupBarrier();
    for (var stride = WG_HALF / 2u; stride > 0u; stride = stride / 2u) {
        if (lid < stride) {
            let c = lanes_combine(Lanes(wg_sums[lid], wg_mixed[lid]), Lanes(wg_sums[lid + stride], wg_mixed[lid + stride]));
            wg_sums[lid] = c.sums;
            wg_mixed[lid] = c.mixed;
        }
        workgroupBarrier();
    }
    let total = Lanes(wg_sums[0], wg_mixed[0]);
    // Every thread holds the total before a later reduction in the same kernel (the
    // fused CG's fold, then its partials) writes the workgroup's arrays again.
    workgroupBarrier();
    return total;
}
