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

fn load_xn(i: u32) -> vec3<real> {
    let b = i * P.dim;
    var o = vec3<real>(xn[b], xn[b + 1u], 0.0);
    if (P.dim == 3u) { o.z = xn[b + 2u]; }
    return o;
}

fn store_xn(i: u32, val: vec3<real>) {
    let b = i * P.dim;
    xn[b] = val.x;
    xn[b + 1u] = val.y;
    if (P.dim == 3u) { xn[b + 2u] = val.z; }
}

fn load_x_pred(i: u32) -> vec3<real> {
    let b = i * P.dim;
    var o = vec3<real>(x_pred[b], x_pred[b + 1u], 0.0);
    if (P.dim == 3u) { o.z = x_pred[b + 2u]; }
    return o;
}

fn store_x_pred(i: u32, val: vec3<real>) {
    let b = i * P.dim;
    x_pred[b] = val.x;
    x_pred[b + 1u] = val.y;
    if (P.dim == 3u) { x_pred[b + 2u] = val.z; }
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
    var o = vec3<real>(z[b], z[b + 1u], 0.0);
    if (P.dim == 3u) { o.z = z[b + 2u]; }
    return o;
}

fn store_z(i: u32, val: vec3<real>) {
    let b = i * P.dim;
    z[b] = val.x;
    z[b + 1u] = val.y;
    if (P.dim == 3u) { z[b + 2u] = val.z; }
}

fn load_d(i: u32) -> vec3<real> {
    let b = i * P.dim;
    var o = vec3<real>(d[b], d[b + 1u], 0.0);
    if (P.dim == 3u) { o.z = d[b + 2u]; }
    return o;
}

fn store_d(i: u32, val: vec3<real>) {
    let b = i * P.dim;
    d[b] = val.x;
    d[b + 1u] = val.y;
    if (P.dim == 3u) { d[b + 2u] = val.z; }
}

fn load_q(i: u32) -> vec3<real> {
    let b = i * P.dim;
    var o = vec3<real>(q[b], q[b + 1u], 0.0);
    if (P.dim == 3u) { o.z = q[b + 2u]; }
    return o;
}

fn store_q(i: u32, val: vec3<real>) {
    let b = i * P.dim;
    q[b] = val.x;
    q[b + 1u] = val.y;
    if (P.dim == 3u) { q[b + 2u] = val.z; }
}

fn load_inv_diag(i: u32) -> vec3<real> {
    let b = i * P.dim;
    var o = vec3<real>(inv_diag[b], inv_diag[b + 1u], 0.0);
    if (P.dim == 3u) { o.z = inv_diag[b + 2u]; }
    return o;
}

fn store_inv_diag(i: u32, val: vec3<real>) {
    let b = i * P.dim;
    inv_diag[b] = val.x;
    inv_diag[b + 1u] = val.y;
    if (P.dim == 3u) { inv_diag[b + 2u] = val.z; }
}

fn wall_normal(w: u32) -> vec3<real> {
    return P.walls[2u * w].xyz;
}

fn wall_origin(w: u32) -> vec3<real> {
    return P.walls[2u * w + 1u].xyz;
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

// Second pass of a reduction: one workgroup folds `count` partials.
fn reduce_partials(lid: u32, count: u32) -> Lanes {
    var mine = lanes_zero();
    for (var k = lid; k < count; k += WG) {
        mine = lanes_combine(mine, partials[k]);
    }
    return workgroup_reduce(lid, mine);
}
