// Workgroup tree reduction of Lanes (no atomics). Every thread of the workgroup must
// call it (it holds barriers), so kernels never return before it.
// #import common.wgsl

var<workgroup> wg_s: array<vec4<real>, WG>;
var<workgroup> wg_e: array<vec4<real>, WG>;

fn workgroup_reduce(lid: u32, mine: Lanes) -> Lanes {
    wg_s[lid] = mine.s;
    wg_e[lid] = mine.e;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if (lid < stride) {
            let c = lanes_combine(Lanes(wg_s[lid], wg_e[lid]), Lanes(wg_s[lid + stride], wg_e[lid + stride]));
            wg_s[lid] = c.s;
            wg_e[lid] = c.e;
        }
        workgroupBarrier();
    }
    return Lanes(wg_s[0], wg_e[0]);
}
