// The batched ensemble's buffers (src/ensemble/device.rs): K variants of small scenes
// in one set of buffers, one workgroup per variant (ensemble/round.wgsl). Every node,
// spring and wall of the batch has a global index; a variant's records hold where its
// own ones start. Layouts, all written by the host:
// uints: a header (H_* below), then per variant VU u32s (V_*), then every spring's
//   end nodes (global indices), then the node → springs CSR over the batch's nodes
//   (total + 1 offsets into `uints`, then the spring indices), then each variant's
//   implicit walls as indices of the batch's generated wall code (implicit/wall.wgsl),
//   then every contact pair's nodes (point, edge ends; global), then the node → pairs
//   CSR (total + 1 offsets into `uints`, then entries pair × 4 + slot), then the
//   watched 3D bodies (ensemble/watch.wgsl, which holds its header and record slots).
// reals: per variant VR reals (R_*), then per node (mass, contact area, fixed 0/1, 0),
//   per spring (rest length², stiffness), per plane wall (origin xyz, normal xyz),
//   then per variant with friction μ of each wall (plane, then implicit).
// ops, args: what each variant asks of this round (OP_* flags; A_* arguments).
// state: NV node vectors of total × 3 reals (S_*), then per node 12 reals: its
//   Newton block (diag xyz, off xyz) and its block-Jacobi inverse, then per variant
//   with friction its nodes' lagged contacts, one per wall (normal xyz, λ), then per
//   contact pair PAIR_REALS reals, then per node its active pairs' count and, in the
//   incidence CSR's shape, their entries (ensemble/pairs.wgsl).
// results: per variant RS reals (Q_*) the host reads back after the round.
// #import common.wgsl
// #import energy/spring.wgsl
// #import energy/barrier.wgsl
// #import energy/inertia.wgsl
// #import wall.wgsl
// #import implicit/wall.wgsl
// #import integrator.wgsl

@group(0) @binding(0) var<storage, read> uints: array<u32>;
@group(0) @binding(1) var<storage, read> reals: array<real>;
@group(0) @binding(2) var<storage, read> ops: array<u32>;
@group(0) @binding(3) var<storage, read> args: array<real>;
@group(0) @binding(4) var<storage, read_write> state: array<real>;
@group(0) @binding(5) var<storage, read_write> results: array<real>;

// Threads per variant (one workgroup): one warp on NVIDIA hardware; on lavapipe
// (2 cores) 32 ran the square drop 1.5x faster per round than 64 (BENCHMARKS.md).
const WGE: u32 = 32u;

// Header of `uints`.
const H_VARIANTS: u32 = 0u;
const H_TOTAL_NODES: u32 = 1u;
const H_VAR_U: u32 = 2u;
const H_SPRINGS: u32 = 3u;
const H_ADJ: u32 = 4u;
const H_VAR_R: u32 = 5u;
const H_NODES_R: u32 = 6u;
const H_SPRINGS_R: u32 = 7u;
const H_WALLS_R: u32 = 8u;
const H_DIM: u32 = 9u;
const H_IMPLICIT_U: u32 = 10u;
const H_MU_R: u32 = 11u;
const H_PAIRS_U: u32 = 12u;
const H_PAIR_ADJ_U: u32 = 13u;
const H_PAIR_TERMS_S: u32 = 14u;
const H_PAIR_ACTIVE_S: u32 = 15u;

// A variant's u32 record.
const VU: u32 = 18u;
const V_NODE_OFF: u32 = 0u;
const V_NODES: u32 = 1u;
const V_SPRING_OFF: u32 = 2u;
const V_SPRINGS: u32 = 3u;
const V_WALL_OFF: u32 = 4u;
const V_WALLS: u32 = 5u;
const V_BARRIER: u32 = 6u;
const V_INTEGRATOR: u32 = 7u;
const V_CG_MAX: u32 = 8u;
const V_IMPLICIT_OFF: u32 = 9u;
const V_IMPLICIT: u32 = 10u;
const V_FRICTION_SLOTS: u32 = 11u;
const V_MU_OFF: u32 = 12u;
const V_LAG_OFF: u32 = 13u;
const V_PAIR_OFF: u32 = 14u;
const V_PAIRS: u32 = 15u;

// A variant's real record.
const VR: u32 = 12u;
const R_DT: u32 = 0u;
const R_WEIGHT: u32 = 1u;
const R_KAPPA: u32 = 2u;
const R_DHAT: u32 = 3u;
const R_GRAVITY: u32 = 4u;
const R_ERROR_PER_RESIDUAL: u32 = 7u;
const R_CG_FLOOR: u32 = 8u;
const R_FRICTION_EPS: u32 = 9u;
// μ between and within bodies (contact.self_friction; ensemble/pair_friction.wgsl)
const R_SELF_FRICTION: u32 = 10u;

// Node vectors of `state`.
const NV: u32 = 11u;
const S_X: u32 = 0u;
const S_XN: u32 = 1u;
const S_PRED: u32 = 2u;
const S_DISP: u32 = 3u;
const S_V: u32 = 4u;
const S_ACC: u32 = 5u;
const S_P: u32 = 6u;
const S_R: u32 = 7u;
const S_Z: u32 = 8u;
const S_D: u32 = 9u;
const S_Q: u32 = 10u;

// A variant's part of one round: the operations (flags, done in this order) and
// their arguments.
const OP_ADVANCE: u32 = 1u;
const OP_END: u32 = 2u;
const OP_DIAGNOSTICS: u32 = 4u;
const OP_BEGIN: u32 = 8u;
const OP_ENERGY: u32 = 16u;
const OP_DIRECTION: u32 = 32u;
const OP_TRIAL: u32 = 64u;
const OP_LAG: u32 = 128u;
const NA: u32 = 12u;
const A_ADVANCE_ALPHA: u32 = 0u;
const A_TRIAL_ALPHA: u32 = 1u;
// CG's relative tolerance: A_FORCING = 0 takes A_ETA as it is; 1 the Eisenstat–Walker
// rule of src/newton/forcing.rs (CgTolerance::relative) from the arguments after it.
const A_FORCING: u32 = 2u;
const A_ETA: u32 = 3u;
const A_PREV_RHS: u32 = 4u;
const A_PREV_ETA: u32 = 5u;
const A_FLOOR: u32 = 6u;
const A_STOP_DISTANCE: u32 = 7u;
const A_GAMMA: u32 = 8u;
const A_SAFEGUARD: u32 = 9u;
const A_ETA_MAX: u32 = 10u;

// A variant's results.
const RS: u32 = 26u;
const Q_ENERGY: u32 = 0u;
const Q_ENERGY_BAD: u32 = 1u;
const Q_KINETIC: u32 = 2u;
const Q_GRAVITY: u32 = 3u;
const Q_ELASTIC: u32 = 4u;
const Q_BARRIER: u32 = 5u;
const Q_MIN_DISTANCE: u32 = 6u;
const Q_NORM: u32 = 7u;
const Q_CG_ITERATIONS: u32 = 8u;
const Q_CG_CONVERGED: u32 = 9u;
const Q_BELOW: u32 = 10u;
const Q_NEAR: u32 = 11u;
const Q_PAIRS: u32 = 12u;
const Q_RHS: u32 = 13u;
const Q_RR: u32 = 14u;
const Q_CCD: u32 = 15u;
const Q_TRIAL_ALPHA: u32 = 16u;
const Q_TRIAL_CHANGE: u32 = 17u;
const Q_TRIAL_BAD: u32 = 18u;
const Q_LAMBDA_CHANGE: u32 = 19u;
const Q_STICKING: u32 = 20u;
const Q_SLIDING: u32 = 21u;
const Q_DISSIPATION: u32 = 22u;
const Q_MIN_PAIR_DISTANCE: u32 = 23u;
// 1 where the device cut some loop of the round short (report_loop_cut).
const Q_LOOP_CUT: u32 = 24u;

// The header, copied into registers once per invocation (load_header): every node
// and spring access needs some of it.
var<private> total_nodes: u32;
var<private> var_u: u32;
var<private> springs_u: u32;
var<private> adj_u: u32;
var<private> var_r: u32;
var<private> nodes_r: u32;
var<private> springs_r: u32;
var<private> walls_r: u32;
var<private> implicit_u: u32;
var<private> mu_r: u32;
var<private> pairs_u: u32;
var<private> pair_adj_u: u32;
var<private> pair_terms_s: u32;
var<private> pair_active_s: u32;

fn load_header() {
    total_nodes = uints[H_TOTAL_NODES];
    var_u = uints[H_VAR_U];
    springs_u = uints[H_SPRINGS];
    adj_u = uints[H_ADJ];
    var_r = uints[H_VAR_R];
    nodes_r = uints[H_NODES_R];
    springs_r = uints[H_SPRINGS_R];
    walls_r = uints[H_WALLS_R];
    implicit_u = uints[H_IMPLICIT_U];
    mu_r = uints[H_MU_R];
    pairs_u = uints[H_PAIRS_U];
    pair_adj_u = uints[H_PAIR_ADJ_U];
    pair_terms_s = uints[H_PAIR_TERMS_S];
    pair_active_s = uints[H_PAIR_ACTIVE_S];
}

// What a workgroup knows of its variant.
struct Variant {
    index: u32,
    node_off: u32,
    nodes: u32,
    spring_off: u32,
    springs: u32,
    wall_off: u32,
    walls: u32,
    barrier: u32,
    integrator: u32,
    cg_max: u32,
    implicit_off: u32,
    implicit: u32,
    friction_slots: u32,
    mu_off: u32,
    lag_off: u32,
    pair_off: u32,
    pairs: u32,
    dim: u32,
    dt: real,
    weight: real,
    kappa: real,
    dhat: real,
    gravity: vec3<real>,
}

fn load_variant(v: u32) -> Variant {
    let u = var_u + v * VU;
    let r = var_r + v * VR;
    let g = vec3<real>(reals[r + R_GRAVITY], reals[r + R_GRAVITY + 1u], reals[r + R_GRAVITY + 2u]);
    return Variant(v, uints[u + V_NODE_OFF], uints[u + V_NODES], uints[u + V_SPRING_OFF], uints[u + V_SPRINGS],
        uints[u + V_WALL_OFF], uints[u + V_WALLS], uints[u + V_BARRIER], uints[u + V_INTEGRATOR], uints[u + V_CG_MAX],
        uints[u + V_IMPLICIT_OFF], uints[u + V_IMPLICIT], uints[u + V_FRICTION_SLOTS], uints[u + V_MU_OFF],
        uints[u + V_LAG_OFF], uints[u + V_PAIR_OFF], uints[u + V_PAIRS], uints[H_DIM], reals[r + R_DT], reals[r + R_WEIGHT], reals[r + R_KAPPA], reals[r + R_DHAT], g);
}

fn var_real(v: u32, k: u32) -> real {
    return reals[var_r + v * VR + k];
}

fn arg(v: u32, k: u32) -> real {
    return args[v * NA + k];
}

fn put(v: u32, k: u32, value: real) {
    results[v * RS + k] = value;
}

fn vec_base(k: u32, g: u32) -> u32 {
    return (k * total_nodes + g) * 3u;
}

fn load_vec(k: u32, g: u32) -> vec3<real> {
    let b = vec_base(k, g);
    return vec3<real>(state[b], state[b + 1u], state[b + 2u]);
}

fn store_vec(k: u32, g: u32, val: vec3<real>) {
    let b = vec_base(k, g);
    state[b] = val.x;
    state[b + 1u] = val.y;
    state[b + 2u] = val.z;
}

fn block_base(which: u32, g: u32) -> u32 {
    return NV * total_nodes * 3u + g * 12u + which * 6u;
}

fn load_sym(which: u32, g: u32) -> Sym {
    let b = block_base(which, g);
    return Sym(vec3<real>(state[b], state[b + 1u], state[b + 2u]), vec3<real>(state[b + 3u], state[b + 4u], state[b + 5u]));
}

fn store_sym(which: u32, g: u32, s: Sym) {
    let b = block_base(which, g);
    state[b] = s.diag.x;
    state[b + 1u] = s.diag.y;
    state[b + 2u] = s.diag.z;
    state[b + 3u] = s.off.x;
    state[b + 4u] = s.off.y;
    state[b + 5u] = s.off.z;
}

// S u for a symmetric block.
fn sym_apply(s: Sym, u: vec3<real>) -> vec3<real> {
    return vec3<real>(
        s.diag.x * u.x + s.off.x * u.y + s.off.y * u.z,
        s.off.x * u.x + s.diag.y * u.y + s.off.z * u.z,
        s.off.y * u.x + s.off.z * u.y + s.diag.z * u.z);
}

fn node_mass(g: u32) -> real {
    return reals[nodes_r + g * 4u];
}

fn node_area(g: u32) -> real {
    return reals[nodes_r + g * 4u + 1u];
}

fn node_fixed(g: u32) -> bool {
    return reals[nodes_r + g * 4u + 2u] != 0.0;
}

// A spring's end nodes (global), squared rest length and stiffness.
struct EnsembleSpring {
    a: u32,
    b: u32,
    l2: real,
    k: real,
}

fn load_spring(s: u32) -> EnsembleSpring {
    let u = springs_u + 2u * s;
    let r = springs_r + 2u * s;
    return EnsembleSpring(uints[u], uints[u + 1u], reals[r], reals[r + 1u]);
}

// The generated code's index (implicit_wall_*(w, …)) of the variant's k-th implicit wall.
fn implicit_at(vt: Variant, k: u32) -> u32 {
    return uints[implicit_u + vt.implicit_off + k];
}

// μ of the variant's friction slot s (its walls: plane, then implicit).
fn variant_mu(vt: Variant, s: u32) -> real {
    return reals[mu_r + vt.mu_off + s];
}

// Where the lagged contact of the variant's node g (global) with slot s starts in
// `state`.
fn lag_base(vt: Variant, g: u32, s: u32) -> u32 {
    return NV * total_nodes * 3u + total_nodes * 12u + 4u * (vt.lag_off + (g - vt.node_off) * vt.friction_slots + s);
}

fn load_lag(vt: Variant, g: u32, s: u32) -> vec4<real> {
    let b = lag_base(vt, g, s);
    return vec4<real>(state[b], state[b + 1u], state[b + 2u], state[b + 3u]);
}

fn store_lag(vt: Variant, g: u32, s: u32, f: vec4<real>) {
    let b = lag_base(vt, g, s);
    state[b] = f.x;
    state[b + 1u] = f.y;
    state[b + 2u] = f.z;
    state[b + 3u] = f.w;
}

fn wall_at(w: u32) -> array<vec3<real>, 2> {
    let b = walls_r + 6u * w;
    return array<vec3<real>, 2>(vec3<real>(reals[b], reals[b + 1u], reals[b + 2u]), vec3<real>(reals[b + 3u], reals[b + 4u], reals[b + 5u]));
}

// Lanes of the workgroup whose loops the device cut short this round.
var<workgroup> cut_lanes: atomic<u32>;

// Whether the device has cut this invocation's loops short: llvmpipe gives one shader
// invocation a budget of loop iterations (about 65,535 over all its loops) and, once
// it is spent, leaves every loop after its first pass without a word, so a loop of
// two passes (a bound the compiler cannot know) that makes one tells. Every loop of
// the round before it (CG's, the pairs', the trials') is covered by this one test.
fn loops_were_cut() -> bool {
    let bound = 2u + (uints[H_VARIANTS] >> 31u);
    var passes = 0u;
    for (var i = 0u; i < bound; i++) { passes++; }
    return passes < bound;
}

// Writes Q_LOOP_CUT for variant v: 1 where some lane's loops were cut this round.
// Called by every lane at the end of the round.
fn report_loop_cut(v: u32, lid: u32) {
    if (loops_were_cut()) { atomicAdd(&cut_lanes, 1u); }
    workgroupBarrier();
    if (lid == 0u) { put(v, Q_LOOP_CUT, select(real(0.0), real(1.0), atomicLoad(&cut_lanes) > 0u)); }
}

// Per-thread reductions over the workgroup, in a fixed tree order (deterministic).
var<workgroup> red: array<vec4<real>, WGE>;
var<workgroup> red_total: vec4<real>;

fn reduce_sum(lid: u32, val: vec4<real>) -> vec4<real> {
    red[lid] = val;
    workgroupBarrier();
    for (var s = WGE / 2u; s > 0u; s = s / 2u) {
        if (lid < s) { red[lid] = red[lid] + red[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) { red_total = red[0]; }
    return workgroupUniformLoad(&red_total);
}

fn reduce_max(lid: u32, val: vec4<real>) -> vec4<real> {
    red[lid] = val;
    workgroupBarrier();
    for (var s = WGE / 2u; s > 0u; s = s / 2u) {
        if (lid < s) { red[lid] = max(red[lid], red[lid + s]); }
        workgroupBarrier();
    }
    if (lid == 0u) { red_total = red[0]; }
    return workgroupUniformLoad(&red_total);
}
