// Scalars, constants and the GPU-side layouts shared by every kernel.
// The Rust twins of these structs live in src/backend/gpu/layout.rs; a test checks that the
// sizes and offsets agree.

// `real` (the state, energies, CCD, driver scalars), `lreal` (what CG streams),
// REAL_EPSILON and the transcendental functions real_log, real_exp, real_pow,
// real_sin, real_cos, from the precision mode's file (shaders/precision/).
// #import precision.wgsl

// Threads per workgroup of every kernel.
const WG: u32 = 256u;
// Stand-in for +infinity (WGSL has no infinity literal).
const BIG: real = 3.0e38;
// Largest number of plane walls a scene may have on the GPU.
const MAX_WALLS: u32 = 16u;
// Implicit walls with a frame in the uniform (the ones a scene can move).
const MAX_IMPLICIT_FRAMES: u32 = 16u;
// Largest number of walls (plane, then implicit) of a scene with friction on the GPU.
const MAX_FRICTION_WALLS: u32 = 32u;
// Fraction of the distance to a wall that one line-search step may cover (seed 003).
const CCD_SAFETY: real = 0.9;
const BARRIER_BOOK: u32 = 0u;
const BARRIER_IPC: u32 = 1u;
const INTEGRATOR_EULER: u32 = 0u;
const INTEGRATOR_NEWMARK: u32 = 1u;

// Scene and solver parameters (uniform, written once per scene).
struct Params {
    n_nodes: u32,
    n_springs: u32,
    n_walls: u32,
    dim: u32,
    // c h² (s²): the factor in front of every potential in the incremental potential.
    potential_weight: real,
    dhat: real,
    kappa: real,
    barrier_kind: u32,
    dt: real,
    integrator: u32,
    cg_max_iterations: u32,
    // workgroups of a per-node dispatch and of a per-element (max(nodes, springs)) one
    node_partials: u32,
    element_partials: u32,
    // friction slots per node (every wall, plane then implicit; 0 without friction)
    friction_slots: u32,
    // ε_v h (m): tangential slip per step below which friction is static
    friction_eps: real,
    // μ of friction on contacts between and within bodies (contact.self_friction)
    self_friction: real,
    gravity: vec4<real>,
    // wall w: normal at 2w (unit, xyz), a point on it at 2w + 1
    walls: array<vec4<real>, 32>,
    // how far (m) plane wall w moved since the step's start (moving walls): friction's
    // slip against it is measured relative to it
    wall_shift: array<vec4<real>, 16>,
    // implicit wall w's frame (src/implicit/frame.rs): row r of the rotation taking
    // world vectors into the wall's frame (xyz) and of the offset (w, m) at 3w + r
    implicit_frames: array<vec4<real>, 48>,
    // how implicit wall w's points moved since the step's start: row r of D (xyz)
    // and of s (w, m) at 3w + r; the point at x moved by D x + s
    implicit_carry: array<vec4<real>, 48>,
    // friction coefficient μ of slot s at component s % 4 of entry s / 4
    friction_mu: array<vec4<real>, 8>,
    // the multilevel preconditioner (kernels/mas.wgsl): levels, domains of all levels
    mas: vec4<u32>,
    // its level table, two entries per level (MasLevel)
    mas_levels: array<vec4<u32>, 16>,
    // contact between and within bodies (contact_pairs.wgsl, kernels/broad_phase.wgsl):
    // (collision vertices V, edges E, hash slots H (a power of two), faces F (3D))
    contact_counts: vec4<u32>,
    // offsets in contact_mesh: edges, vertices, node tags, vertex exclusion starts
    contact_mesh_at: vec4<u32>,
    // offsets in contact_mesh: faces, edge rest lengths, edge exclusion starts
    contact_mesh_at2: vec4<u32>,
    // offsets in contact_grid: cell counts, cell cursors, cell entries, vertex counts
    contact_grid_at: vec4<u32>,
    // offsets in contact_grid: node counts, node cursors
    contact_grid_at2: vec4<u32>,
    // (pair capacity of the list, 0, 0, 0)
    contact_pairs: vec4<u32>,
}

// The level (and grain) the level-by-level kernels of the multilevel preconditioner
// work on.
struct MasState {
    level: u32,
    // the level whose supernodes the partial blocks of a coarser level are summed over
    grain: u32,
}

// Per-node constants.
struct NodeInfo {
    mass: real,
    area: real,
    fixed: u32,
    _pad: u32,
}

// The per-node block of the Newton matrix, m I + c h² (barrier + friction Hessians),
// symmetric: diag = (xx, yy, zz, 1 when the node is fixed), off = (xy, xz, yz, 0).
// Written by node_terms once per Newton iteration; the mat-vec reads it instead of
// re-evaluating walls in every CG iteration. Stored packed (state.wgsl): one vec4
// (xx, yy, xy, fixed) per node in 2D, the two vec4 as they are in 3D.
struct NodeBlock {
    diag: vec4<real>,
    off: vec4<real>,
}

// A symmetric 3 × 3 block in registers: diag = (xx, yy, zz), off = (xy, xz, yz).
struct Sym {
    diag: vec3<real>,
    off: vec3<real>,
}

fn sym_zero() -> Sym {
    return Sym(vec3<real>(0.0), vec3<real>(0.0));
}

// c v vᵀ.
fn sym_outer(c: real, v: vec3<real>) -> Sym {
    return Sym(c * v * v, c * vec3<real>(v.x * v.y, v.x * v.z, v.y * v.z));
}

fn sym_add(a: Sym, b: Sym) -> Sym {
    return Sym(a.diag + b.diag, a.off + b.off);
}

// The inverse of a symmetric positive definite block in `dim` (2 or 3) dimensions;
// where it is (nearly) singular, det ≤ 1e-6 × the product of its diagonal (which
// bounds det by Hadamard's inequality), the inverse of its diagonal (0 for a zero
// entry). Twin of src/pcg.rs invert_block.
fn sym_inverse(a: Sym, dim: u32) -> Sym {
    let d = a.diag;
    let o = a.off;
    if (dim == 2u) {
        let det = d.x * d.y - o.x * o.x;
        if (det > 1e-6 * d.x * d.y) {
            return Sym(vec3<real>(d.y, d.x, 0.0) / det, vec3<real>(-o.x / det, 0.0, 0.0));
        }
    } else {
        // cofactors (the block is symmetric, so the adjugate is too)
        let cxx = d.y * d.z - o.z * o.z;
        let cyy = d.x * d.z - o.y * o.y;
        let czz = d.x * d.y - o.x * o.x;
        let cxy = o.y * o.z - o.x * d.z;
        let cxz = o.x * o.z - o.y * d.y;
        let cyz = o.x * o.y - d.x * o.z;
        let det = d.x * cxx + o.x * cxy + o.y * cxz;
        if (det > 1e-6 * d.x * d.y * d.z) {
            return Sym(vec3<real>(cxx, cyy, czz) / det, vec3<real>(cxy, cxz, cyz) / det);
        }
    }
    return Sym(select(vec3<real>(0.0), vec3<real>(1.0) / d, d > vec3<real>(0.0)), vec3<real>(0.0));
}

// One spring: end nodes, squared rest length (m²), stiffness (N/m). Its constants
// are `lreal`: every CG iteration's mat-vec reads each spring twice, so in the mixed
// mode they are f32 (the model's rest lengths and stiffnesses rounded to f32 once,
// relative 6e-8; every kernel, energies included, uses the same rounded values).
struct Spring {
    a: u32,
    b: u32,
    rest_length_sq: lreal,
    stiffness: lreal,
}

// The CG scalars and flags, living on the GPU between kernels.
struct CgState {
    rz: real,
    bb: real,
    rr: real,
    alpha: real,
    beta: real,
    dq: real,
    // step fraction of the line search / advance, written by the host
    ls_alpha: real,
    // rᵀz of the next iteration, written by cg_beta_direction while the
    // workgroups of that kernel still read `rz` (the fused iteration, cg.wgsl)
    rz_next: real,
    // (relative CG tolerance η)², written by the host or by the device's Newton
    // solve (kernels/device_newton.wgsl) before a solve's iterations
    tol_sq: real,
    iterations: u32,
    done: u32,
    converged: u32,
    // what the fused cg_alpha_update left for cg_beta_direction: 0 the solve had
    // ended before it, 1 it updated, 2 the direction had no positive curvature
    live: u32,
    _pad1: u32,
}

// Reduction lanes: four summed lanes, then two summed lanes, a min lane and a max
// lane; what each lane holds is the writing kernel's (decoded on the host in
// src/backend/gpu/readback.rs).
struct Lanes {
    sums: vec4<real>,
    mixed: vec4<real>,
}

fn lanes_zero() -> Lanes {
    return Lanes(vec4<real>(0.0), vec4<real>(0.0, 0.0, BIG, -BIG));
}

fn lanes_combine(a: Lanes, b: Lanes) -> Lanes {
    return Lanes(a.sums + b.sums, vec4<real>(a.mixed.xy + b.mixed.xy, min(a.mixed.z, b.mixed.z), max(a.mixed.w, b.mixed.w)));
}

// Linear workgroup index of a (possibly two-dimensional) dispatch.
fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

// Linear thread index of a (possibly two-dimensional) dispatch.
fn thread_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return group_index(wid, nwg) * WG + lid;
}

// t = tan φ of the Jacobi rotation that zeroes a_pq ≠ 0 of a symmetric matrix with
// diagonal a_pp, a_qq (the smaller root of t² + 2θt − 1 = 0, θ = (a_qq − a_pp)/(2a_pq);
// 1/(2θ) where θ² would overflow): c = 1/√(t² + 1), s = t c. Shared by the GPU
// backend's 12 × 12 projection (pair_derivatives.wgsl) and the batch's 3 × 3
// (ensemble/pairs.wgsl).
fn jacobi_tangent(app: real, aqq: real, apq: real) -> real {
    let theta = (aqq - app) / (2.0 * apq);
    if (abs(theta) > 1e15) { return 0.5 / theta; }
    return select(real(-1.0), 1.0, theta >= 0.0) / (abs(theta) + sqrt(theta * theta + 1.0));
}
