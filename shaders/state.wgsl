// Loads and stores of one node's vector in the flat n × dim buffers (z = 0 in 2D),
// the wall accessors, and the final pass of two-pass reductions.
// #import bindings.wgsl
// #import reduce.wgsl

fn load_x(i: u32) -> vec3<real> {
    let b = i * P.dim;
    var o = vec3<real>(x[b], x[b + 1u], 0.0);
    if (P.dim == 3u) { o.z = x[b + 2u]; }
    return o;
}

fn store_x(i: u32, val: vec3<real>) {
    let b = i * P.dim;
    x[b] = val.x;
    x[b + 1u] = val.y;
    if (P.dim == 3u) { x[b + 2u] = val.z; }
}

// The step anchors hold three node vectors: block 0 xⁿ, block 1 the prediction's
// offset x̃ − xⁿ, block 2 the displacement x − xⁿ. Inertia and friction use the last
// two, so their f32 precision is that of the step's small displacements rather than
// that of the absolute positions; x itself stays absolute (x = xⁿ + (x − xⁿ)) for the
// barriers, the springs and the mat-vec.
fn load_anchor(block: u32, i: u32) -> vec3<real> {
    let b = block * P.n_nodes * P.dim + i * P.dim;
    var o = vec3<real>(anchors[b], anchors[b + 1u], 0.0);
    if (P.dim == 3u) { o.z = anchors[b + 2u]; }
    return o;
}

fn store_anchor(block: u32, i: u32, val: vec3<real>) {
    let b = block * P.n_nodes * P.dim + i * P.dim;
    anchors[b] = val.x;
    anchors[b + 1u] = val.y;
    if (P.dim == 3u) { anchors[b + 2u] = val.z; }
}

// xⁿ (m).
fn load_xn(i: u32) -> vec3<real> {
    return load_anchor(0u, i);
}

// x̃ − xⁿ (m).
fn load_pred_offset(i: u32) -> vec3<real> {
    return load_anchor(1u, i);
}

// x − xⁿ (m).
fn load_dx(i: u32) -> vec3<real> {
    return load_anchor(2u, i);
}

fn load_v(i: u32) -> vec3<real> {
    let b = i * P.dim;
    var o = vec3<real>(v[b], v[b + 1u], 0.0);
    if (P.dim == 3u) { o.z = v[b + 2u]; }
    return o;
}

fn store_v(i: u32, val: vec3<real>) {
    let b = i * P.dim;
    v[b] = val.x;
    v[b + 1u] = val.y;
    if (P.dim == 3u) { v[b + 2u] = val.z; }
}

fn load_acc(i: u32) -> vec3<real> {
    let b = i * P.dim;
    var o = vec3<real>(acc[b], acc[b + 1u], 0.0);
    if (P.dim == 3u) { o.z = acc[b + 2u]; }
    return o;
}

fn store_acc(i: u32, val: vec3<real>) {
    let b = i * P.dim;
    acc[b] = val.x;
    acc[b + 1u] = val.y;
    if (P.dim == 3u) { acc[b + 2u] = val.z; }
}

fn load_p(i: u32) -> vec3<real> {
    let b = i * P.dim;
    var o = vec3<real>(p[b], p[b + 1u], 0.0);
    if (P.dim == 3u) { o.z = p[b + 2u]; }
    return o;
}

fn store_p(i: u32, val: vec3<real>) {
    let b = i * P.dim;
    p[b] = val.x;
    p[b + 1u] = val.y;
    if (P.dim == 3u) { p[b + 2u] = val.z; }
}

fn load_r(i: u32) -> vec3<real> {
    let b = i * P.dim;
    var o = vec3<real>(r[b], r[b + 1u], 0.0);
    if (P.dim == 3u) { o.z = r[b + 2u]; }
    return o;
}

fn store_r(i: u32, val: vec3<real>) {
    let b = i * P.dim;
    r[b] = val.x;
    r[b + 1u] = val.y;
    if (P.dim == 3u) { r[b + 2u] = val.z; }
}

fn load_z(i: u32) -> vec3<real> {
    let b = i * P.dim;
    var o = vec3<real>(real(z[b]), real(z[b + 1u]), 0.0);
    if (P.dim == 3u) { o.z = real(z[b + 2u]); }
    return o;
}

fn store_z(i: u32, val: vec3<real>) {
    let b = i * P.dim;
    z[b] = lreal(val.x);
    z[b + 1u] = lreal(val.y);
    if (P.dim == 3u) { z[b + 2u] = lreal(val.z); }
}

fn load_d(i: u32) -> vec3<real> {
    let b = i * P.dim;
    var o = vec3<real>(real(d[b]), real(d[b + 1u]), 0.0);
    if (P.dim == 3u) { o.z = real(d[b + 2u]); }
    return o;
}

fn store_d(i: u32, val: vec3<real>) {
    let b = i * P.dim;
    d[b] = lreal(val.x);
    d[b + 1u] = lreal(val.y);
    if (P.dim == 3u) { d[b + 2u] = lreal(val.z); }
}

fn load_q(i: u32) -> vec3<real> {
    let b = i * P.dim;
    var o = vec3<real>(real(q[b]), real(q[b + 1u]), 0.0);
    if (P.dim == 3u) { o.z = real(q[b + 2u]); }
    return o;
}

fn store_q(i: u32, val: vec3<real>) {
    let b = i * P.dim;
    q[b] = lreal(val.x);
    q[b + 1u] = lreal(val.y);
    if (P.dim == 3u) { q[b + 2u] = lreal(val.z); }
}

fn wall_normal(w: u32) -> vec3<real> {
    return P.walls[2u * w].xyz;
}

fn wall_origin(w: u32) -> vec3<real> {
    return P.walls[2u * w + 1u].xyz;
}

// μ of friction slot s (plane walls first, then implicit walls).
fn friction_mu(s: u32) -> real {
    return P.friction_mu[s / 4u][s % 4u];
}

// Block set 0: the Newton node blocks; set 1: the preconditioner's inverse blocks.
const NEWTON_BLOCKS: u32 = 0u;
const PRECONDITIONER_BLOCKS: u32 = 1u;

fn load_block(which: u32, i: u32) -> NodeBlock {
    let k = (which * P.n_nodes + i) * (P.dim - 1u);
    if (P.dim == 3u) {
        return NodeBlock(vec4<real>(blocks[k]), vec4<real>(blocks[k + 1u]));
    }
    let b = vec4<real>(blocks[k]);
    return NodeBlock(vec4<real>(b.x, b.y, 0.0, b.w), vec4<real>(b.z, 0.0, 0.0, 0.0));
}

fn store_block(which: u32, i: u32, b: NodeBlock) {
    let k = (which * P.n_nodes + i) * (P.dim - 1u);
    if (P.dim == 3u) {
        blocks[k] = vec4<lreal>(b.diag);
        blocks[k + 1u] = vec4<lreal>(b.off);
    } else {
        blocks[k] = vec4<lreal>(vec4<real>(b.diag.x, b.diag.y, b.off.x, b.diag.w));
    }
}

// B u for a node block B.
fn node_block_apply(b: NodeBlock, u: vec3<real>) -> vec3<real> {
    return vec3<real>(
        b.diag.x * u.x + b.off.x * u.y + b.off.y * u.z,
        b.off.x * u.x + b.diag.y * u.y + b.off.z * u.z,
        b.off.y * u.x + b.off.z * u.y + b.diag.z * u.z,
    );
}

// The other end of spring s as seen from node i.
fn spring_other(s: Spring, i: u32) -> u32 {
    return select(s.a, s.b, s.a == i);
}

var<workgroup> wg_cg_done: u32;

// Whether the CG solve has ended, as a workgroup-uniform value: kernels of a CG
// iteration call it first and return at once, so the iterations a batch runs past
// convergence cost almost nothing. Every thread of the workgroup must call it.
fn cg_finished(lid: u32) -> bool {
    if (lid == 0u) { wg_cg_done = cg.done; }
    return workgroupUniformLoad(&wg_cg_done) != 0u;
}

var<workgroup> wg_cg_live: u32;

// `cg.live` as a workgroup-uniform value (the fused CG iteration, kernels/cg.wgsl).
// Every thread of the workgroup must call it.
fn cg_live_flag(lid: u32) -> u32 {
    if (lid == 0u) { wg_cg_live = cg.live; }
    return workgroupUniformLoad(&wg_cg_live);
}

// Where the partials of r·z and r·r start: after the mat-vec's d·q partials (at 0),
// so that a fused CG kernel reads one set while its workgroups write the other.
fn residual_partials() -> u32 {
    return P.node_partials;
}

// First pass of a reduction: folds every thread's lanes over the workgroup and
// stores the workgroup's partial at `base` + its index. Every thread of the
// workgroup must call it.
fn store_partials_at(base: u32, wid: vec3<u32>, nwg: vec3<u32>, lid: u32, mine: Lanes) {
    let total = workgroup_reduce(lid, mine);
    if (lid == 0u) { partials[base + group_index(wid, nwg)] = total; }
}

// store_partials_at from the start of the partials.
fn store_partials(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, mine: Lanes) {
    store_partials_at(0u, wid, nwg, lid, mine);
}

// Second pass of a reduction: one workgroup folds the `count` partials from `base`
// (every workgroup of a fused CG kernel folds them alike, in the same order, so
// they agree to the bit).
fn reduce_partials_at(lid: u32, base: u32, count: u32) -> Lanes {
    var mine = lanes_zero();
    for (var k = lid; k < count; k += WG) {
        mine = lanes_combine(mine, partials[base + k]);
    }
    return workgroup_reduce(lid, mine);
}

// reduce_partials_at from the start of the partials.
fn reduce_partials(lid: u32, count: u32) -> Lanes {
    return reduce_partials_at(lid, 0u, count);
}
