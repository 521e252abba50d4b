// Workgroup tree reduction of Lanes (no atomics). Every thread of the workgroup must
// call it (it holds barriers), so kernels never return before it.
// #import common.wgsl

var<workgroup> wg_sums: array<vec4<real>, WG>;
var<workgroup> wg_mixed: array<vec4<real>, WG>;

fn workgroup_reduce(lid: u32, mine: Lanes) -> Lanes {
    wg_sums[lid] = mine.sums;
    wg_mixed[lid] = mine.mixed;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if (lid < stride) {
            let c = lanes_combine(Lanes(wg_sums[lid], wg_mixed[lid]), Lanes(wg_sums[lid + stride], wg_mixed[lid + stride]));
            wg_sums[lid] = c.sums;
            wg_mixed[lid] = c.mixed;
        }
        workgroupBarrier();
    }
    return Lanes(wg_sums[0], wg_mixed[0]);
}
