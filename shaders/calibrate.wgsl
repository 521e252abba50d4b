// Microbenchmarks that measure an adapter for the cost model
// (src/backend/gpu/calibrate.rs, `springsim devices --calibrate`): the streaming
// bandwidth, the cost of one dispatch with the barrier after it, and the rate of
// multiply-adds in `real` (composed once with precision/f32.wgsl, once with f64).
// No CPU twin: what they compute is thrown away.
// #import common.wgsl
// #import precision.wgsl

@group(0) @binding(0) var<storage, read_write> source: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> sink: array<vec4<f32>>;

// sink = 1.0001 source: 32 bytes moved per thread.
@compute @workgroup_size(256)
fn stream(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < arrayLength(&sink)) { sink[g.x] = source[g.x] * 1.0001; }
}

var<workgroup> wg_sum: array<f32, 256>;

// One workgroup's tree sum of 256 values (eight barriers) and one write: what a
// dispatch costs when it does nothing else that the kernels of a run do not also do
// (their reductions fold a workgroup the same way, and the read_write binding makes
// wgpu put a barrier after each dispatch, as after every kernel of a run).
@compute @workgroup_size(256)
fn touch(@builtin(local_invocation_index) lid: u32) {
    wg_sum[lid] = f32(lid);
    workgroupBarrier();
    for (var stride = 128u; stride > 0u; stride = stride / 2u) {
        if (lid < stride) { wg_sum[lid] += wg_sum[lid + stride]; }
        workgroupBarrier();
    }
    if (lid == 0u) { sink[0] = sink[0] + vec4<f32>(wg_sum[0]); }
}

// Per thread 1,024 dependent multiply-adds on four lanes of `real` (8,192 flops),
// written out so that the compiler keeps them.
@compute @workgroup_size(256)
fn arithmetic(@builtin(global_invocation_id) g: vec3<u32>) {
    var a = vec4<real>(real(g.x % 7u) * 0.001, 1.0, 2.0, 3.0);
    let m = vec4<real>(0.999999, 0.999998, 0.999997, 0.999996);
    let c = vec4<real>(0.0000001, 0.0000002, 0.0000003, 0.0000004);
    for (var k = 0u; k < 1024u; k++) {
        a = a * m + c;
    }
    if (g.x < arrayLength(&sink)) { sink[g.x] = vec4<f32>(a); }
}
