// Every GPU buffer of a scene, with one fixed binding number each (group 0).
// Kernels import this file; the host reflects which bindings each entry point uses
// (src/backend/gpu/pipelines.rs) and builds its layout and bind group from that, so a
// binding is declared exactly once. Vectors are flat arrays of n × dim reals; what a
// CG iteration streams (z, d, q, the node blocks, the preconditioner's data) is
// `lreal`, f32 in the mixed mode (precision/mixed.wgsl), converted on load and store;
// CG's accumulators, the solution p and the residual r, stay `real`.
// #import common.wgsl

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> nodes: array<NodeInfo>;
@group(0) @binding(2) var<storage, read_write> springs: array<Spring>;
// node → springs adjacency: entries [adjacency[i], adjacency[i + 1]) are spring indices
@group(0) @binding(3) var<storage, read_write> adjacency: array<u32>;
@group(0) @binding(4) var<storage, read_write> x: array<real>;
// the step's anchors, three blocks of n × dim: xⁿ, x̃ − xⁿ, x − xⁿ (state.wgsl)
@group(0) @binding(5) var<storage, read_write> anchors: array<real>;
// lagged friction of node i and wall slot s at i × P.friction_slots + s: (unit normal
// xyz, normal force λ in N); λ = 0 where there is no contact
@group(0) @binding(6) var<storage, read_write> friction: array<vec4<real>>;
@group(0) @binding(7) var<storage, read_write> v: array<real>;
@group(0) @binding(8) var<storage, read_write> acc: array<real>;
// Newton direction (the CG solution)
@group(0) @binding(9) var<storage, read_write> p: array<real>;
// CG residual, starts as −∇E
@group(0) @binding(10) var<storage, read_write> r: array<real>;
@group(0) @binding(11) var<storage, read_write> z: array<lreal>;
// CG search direction
@group(0) @binding(12) var<storage, read_write> d: array<lreal>;
@group(0) @binding(13) var<storage, read_write> q: array<lreal>;
@group(0) @binding(14) var<storage, read_write> partials: array<Lanes>;
@group(0) @binding(15) var<storage, read_write> cg: CgState;
@group(0) @binding(16) var<storage, read_write> results: array<Lanes>;
// two sets of per-node symmetric blocks, packed (see NodeBlock; dim − 1 vec4 per
// node): set 0 the Newton matrix's node blocks, set 1 the block-Jacobi
// preconditioner (the inverse of each node's diagonal block of H)
@group(0) @binding(17) var<storage, read_write> blocks: array<vec4<lreal>>;
// The multilevel preconditioner (kernels/mas.wgsl; placeholders without it): node
// order by rank then each node's rank (bit 31: fixed); the frames of levels 1 and up
// (centroid xyz, radius w); every domain's inverted matrix; every level's
// restricted residual and correction; the level the level-by-level kernels work on.
@group(0) @binding(18) var<storage, read_write> mas_index: array<u32>;
@group(0) @binding(19) var<storage, read_write> mas_frames: array<vec4<lreal>>;
@group(0) @binding(20) var<storage, read_write> mas_matrices: array<lreal>;
@group(0) @binding(21) var<storage, read_write> mas_vectors: array<lreal>;
@group(0) @binding(22) var<storage, read_write> mas_state: MasState;
// partial blocks of the coarse levels' matrices (two regions, kernels/mas.wgsl)
@group(0) @binding(23) var<storage, read_write> mas_partials: array<lreal>;
// Contact between and within bodies (contact_pairs.wgsl; placeholders without it):
// the collision mesh and exclusions; the broad phase's counters and grid (atomic);
// the pair list with each node's incidence; per pair its weighted barrier gradient
// and Hessian.
@group(0) @binding(24) var<storage, read_write> contact_mesh: array<u32>;
@group(0) @binding(25) var<storage, read_write> contact_grid: array<atomic<u32>>;
@group(0) @binding(26) var<storage, read_write> pairs: array<u32>;
@group(0) @binding(27) var<storage, read_write> pair_terms: array<real>;
// The Newton solve decided on the device (kernels/device_newton.wgsl): indirect
// dispatch arguments of its gates (u32 x, y, z and a pad per span), and its rules,
// state and logs (reals).
@group(0) @binding(28) var<storage, read_write> gates: array<vec4<u32>>;
@group(0) @binding(29) var<storage, read_write> newton: array<real>;
