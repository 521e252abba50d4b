//! Rust twins of the GPU structs in `shaders/common.wgsl` (`bytemuck` plain data,
//! `#[repr(C)]` with the WGSL alignment). A test compares their sizes with the sizes
//! naga computes for the WGSL declarations.

use bytemuck::{Pod, Zeroable};

/// Largest number of plane walls a GPU scene may have (`MAX_WALLS` in WGSL).
pub const MAX_WALLS: usize = 16;
/// Largest number of walls (plane, then implicit) of a GPU scene with friction
/// (`MAX_FRICTION_WALLS` in WGSL).
pub const MAX_FRICTION_WALLS: usize = 32;
/// Most levels of the GPU's multilevel preconditioner (16⁸ nodes).
pub const MAX_MAS_LEVELS: usize = 8;
/// Threads per workgroup of every kernel (`WG` in WGSL).
pub const WORKGROUP: u32 = 256;

/// Scene and solver parameters (the uniform `P`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct Params {
    /// Number of nodes.
    pub n_nodes: u32,
    /// Number of springs.
    pub n_springs: u32,
    /// Number of plane walls.
    pub n_walls: u32,
    /// Spatial dimension (2 or 3).
    pub dim: u32,
    /// `c h²` (s²): the factor of every potential in the incremental potential
    /// ([`crate::model::SolverParams::potential_weight`]).
    pub potential_weight: f32,
    /// Barrier activation distance d̂ (m).
    pub dhat: f32,
    /// Barrier stiffness κ.
    pub kappa: f32,
    /// 0 = book, 1 = ipc.
    pub barrier_kind: u32,
    /// Time step h (s).
    pub dt: f32,
    /// 0 = implicit Euler, 1 = Newmark.
    pub integrator: u32,
    /// (relative CG tolerance)².
    pub cg_tol_sq: f32,
    /// CG iteration cap per Newton iteration.
    pub cg_max_iterations: u32,
    /// Workgroups of a per-node dispatch (= partials it writes).
    pub node_partials: u32,
    /// Workgroups of a per-element dispatch over max(nodes, springs).
    pub element_partials: u32,
    /// Friction slots per node: every wall, plane then implicit; 0 without friction.
    pub friction_slots: u32,
    /// `ε_v h` (m): the slip per step below which friction is static.
    pub friction_eps: f32,
    /// Gravity (m/s²), xyz.
    pub gravity: [f32; 4],
    /// Wall w: unit normal at `2w`, a point on the plane (m) at `2w + 1`.
    pub walls: [[f32; 4]; 2 * MAX_WALLS],
    /// Friction coefficient μ of slot s at `[s / 4][s % 4]`.
    pub friction_mu: [[f32; 4]; MAX_FRICTION_WALLS / 4],
    /// The multilevel preconditioner: levels, domains over all levels (0 without it).
    pub mas: [u32; 4],
    /// Its level table, two entries per level ([`super::mas::Level`]).
    pub mas_levels: [[u32; 4]; 2 * MAX_MAS_LEVELS],
}

/// Per-node constants (`NodeInfo`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct NodeInfo {
    /// Lumped mass (kg).
    pub mass: f32,
    /// Contact area weight of the barrier (m in 2D, m² in 3D).
    pub area: f32,
    /// 1 when the node is fixed.
    pub fixed: u32,
    /// Padding.
    pub _pad: u32,
}

/// Bytes per node of the packed Newton node blocks (`NodeBlock` in WGSL, written on
/// the device): one `vec4` in 2D, two in 3D.
pub fn node_block_bytes(dim: usize) -> usize {
    16 * (dim - 1)
}

/// One spring (`Spring`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct GpuSpring {
    /// First node.
    pub a: u32,
    /// Second node.
    pub b: u32,
    /// Squared rest length (m²).
    pub rest_length_sq: f32,
    /// Stiffness (N/m).
    pub stiffness: f32,
}

/// The CG scalars and flags (`CgState`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct CgState {
    /// rᵀz.
    pub rz: f32,
    /// bᵀb, the squared norm of the right-hand side.
    pub bb: f32,
    /// rᵀr at the last check.
    pub rr: f32,
    /// CG step α.
    pub alpha: f32,
    /// CG β.
    pub beta: f32,
    /// dᵀq of the last iteration.
    pub dq: f32,
    /// Line-search / advance step fraction, written by the host.
    pub ls_alpha: f32,
    /// CG iterations done.
    pub iterations: u32,
    /// 1 once the solve has ended.
    pub done: u32,
    /// 1 when it ended by meeting the tolerance.
    pub converged: u32,
    /// Padding.
    pub _pad: [u32; 2],
}

/// Byte offset of `ls_alpha` in [`CgState`].
pub const LS_ALPHA_OFFSET: u64 = 24;

/// Byte offset of `done` in [`CgState`].
pub const DONE_OFFSET: u64 = 32;

/// One reduction result as the kernels write it (`Lanes`): four summed lanes, then
/// two summed lanes, a min lane and a max lane. What each lane holds depends on the
/// kernel; [`super::readback`] decodes them into named fields.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Lanes {
    /// Four summed lanes (`s` in WGSL).
    pub sums: [f32; 4],
    /// Two summed lanes, a min lane and a max lane (`e` in WGSL).
    pub mixed: [f32; 4],
}
