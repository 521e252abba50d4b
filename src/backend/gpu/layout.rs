//! The GPU structs of `shaders/common.wgsl` as the host writes and reads them. Their
//! byte layout depends on the precision mode (`real` is f32 or f64), so it is not
//! written down twice: [`Layouts`] takes every member's offset and scalar width from
//! naga's layout of the composed WGSL, and the host's plain values ([`Params`],
//! [`NodeInfo`], [`GpuSpring`], [`CgState`], [`Lanes`], reals in f64) are encoded
//! and decoded through it.

use super::struct_layout::struct_layout;
pub use super::struct_layout::{Member, Scalar, StructLayout};
use crate::precision::GpuPrecision;

/// Largest number of plane walls a GPU scene may have (`MAX_WALLS` in WGSL).
pub const MAX_WALLS: usize = 16;
/// Implicit walls the GPU backend can move (`MAX_IMPLICIT_FRAMES` in WGSL): the
/// first this many have a frame in the uniform; later ones stay where the scene put them.
pub const MAX_IMPLICIT_FRAMES: usize = 16;
/// Largest number of walls (plane, then implicit) of a GPU scene with friction
/// (`MAX_FRICTION_WALLS` in WGSL).
pub const MAX_FRICTION_WALLS: usize = 32;
/// Most levels of the GPU's multilevel preconditioner (16⁸ nodes).
pub const MAX_MAS_LEVELS: usize = 8;
/// Threads per workgroup of every kernel (`WG` in WGSL).
pub const WORKGROUP: u32 = 256;

/// Scene and solver parameters (the uniform `P`), reals in f64 until encoded.
#[derive(Clone, Debug, Default)]
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
    pub potential_weight: f64,
    /// Barrier activation distance d̂ (m).
    pub dhat: f64,
    /// Barrier stiffness κ.
    pub kappa: f64,
    /// 0 = book, 1 = ipc.
    pub barrier_kind: u32,
    /// Time step h (s).
    pub dt: f64,
    /// 0 = implicit Euler, 1 = Newmark.
    pub integrator: u32,
    /// CG iteration cap per Newton iteration.
    pub cg_max_iterations: u32,
    /// Workgroups of a per-node dispatch (= partials it writes).
    pub node_partials: u32,
    /// Workgroups of a per-element dispatch over max(nodes, springs).
    pub element_partials: u32,
    /// Friction slots per node: every wall, plane then implicit; 0 without friction.
    pub friction_slots: u32,
    /// `ε_v h` (m): the slip per step below which friction is static.
    pub friction_eps: f64,
    /// μ of friction on contacts between and within bodies (`contact.self_friction`;
    /// 0 without it).
    pub self_friction: f64,
    /// Gravity (m/s²), xyz and 0.
    pub gravity: [f64; 4],
    /// Wall w: unit normal at `2w`, a point on the plane (m) at `2w + 1`.
    pub walls: [[f64; 4]; 2 * MAX_WALLS],
    /// How far (m) wall w moved since the step's start (moving walls), xyz and 0.
    pub wall_shift: [[f64; 4]; MAX_WALLS],
    /// Implicit wall w's frame ([`crate::implicit::Frame`]): row r of its rotation
    /// (xyz) and of its offset (w, m) at `3w + r`.
    pub implicit_frames: [[[f64; 4]; 3]; MAX_IMPLICIT_FRAMES],
    /// How implicit wall w's points moved since the step's start
    /// ([`crate::implicit::Carry`]): row r of D (xyz) and of s (w, m) at `3w + r`.
    pub implicit_carry: [[[f64; 4]; 3]; MAX_IMPLICIT_FRAMES],
    /// Friction coefficient μ of slot s at `[s / 4][s % 4]`.
    pub friction_mu: [[f64; 4]; MAX_FRICTION_WALLS / 4],
    /// The multilevel preconditioner: levels, domains over all levels (0 without it).
    pub mas: [u32; 4],
    /// Its level table, two entries per level ([`super::mas::Level`]).
    pub mas_levels: [[u32; 4]; 2 * MAX_MAS_LEVELS],
    /// Contact between and within bodies ([`super::contact::ContactPlan::params`]):
    /// `contact_counts`, `contact_mesh_at`, `contact_mesh_at2`, `contact_grid_at`,
    /// `contact_grid_at2`, `contact_pairs`, in that order (all 0 without it).
    pub contact: [[u32; 4]; 6],
}

/// The names of [`Params::contact`]'s members, in order.
pub const CONTACT_PARAMS: [&str; 6] = [
    "contact_counts",
    "contact_mesh_at",
    "contact_mesh_at2",
    "contact_grid_at",
    "contact_grid_at2",
    "contact_pairs",
];

/// Per-node constants (`NodeInfo`).
#[derive(Clone, Copy, Debug, Default)]
pub struct NodeInfo {
    /// Lumped mass (kg).
    pub mass: f64,
    /// Contact area weight of the barrier (m in 2D, m² in 3D).
    pub area: f64,
    /// Whether the node is fixed.
    pub fixed: bool,
}

/// One spring (`Spring`).
#[derive(Clone, Copy, Debug, Default)]
pub struct GpuSpring {
    /// First node.
    pub a: u32,
    /// Second node.
    pub b: u32,
    /// Squared rest length (m²).
    pub rest_length_sq: f64,
    /// Stiffness (N/m).
    pub stiffness: f64,
}

/// The CG scalars and flags (`CgState`) as read back.
#[derive(Clone, Copy, Debug, Default)]
pub struct CgState {
    /// rᵀz.
    pub rz: f64,
    /// bᵀb, the squared norm of the right-hand side.
    pub bb: f64,
    /// rᵀr at the last check.
    pub rr: f64,
    /// CG iterations done.
    pub iterations: u32,
    /// 1 once the solve has ended.
    pub done: u32,
    /// 1 when it ended by meeting the tolerance.
    pub converged: u32,
}

/// One reduction result as the kernels write it (`Lanes`): four summed lanes, then
/// two summed lanes, a min lane and a max lane. What each lane holds depends on the
/// kernel; [`super::readback`] decodes them into named fields.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Lanes {
    /// Four summed lanes (`s` in WGSL).
    pub sums: [f64; 4],
    /// Two summed lanes, a min lane and a max lane (`e` in WGSL).
    pub mixed: [f64; 4],
}

/// Bytes per node of the packed Newton node blocks (`NodeBlock` in WGSL, written on
/// the device): one `vec4` in 2D, two in 3D, of `lreal`s of `width` bytes.
pub fn node_block_bytes(dim: usize, width: u64) -> usize {
    4 * width as usize * (dim - 1)
}

/// Every host-visible struct's layout in one precision mode, from naga.
#[derive(Clone, Debug)]
pub struct Layouts {
    /// The mode.
    pub precision: GpuPrecision,
    /// `Params`.
    pub params: StructLayout,
    /// `NodeInfo`.
    pub node_info: StructLayout,
    /// `Spring`.
    pub spring: StructLayout,
    /// `CgState`.
    pub cg_state: StructLayout,
    /// `Lanes`.
    pub lanes: StructLayout,
}

impl Layouts {
    /// The layouts of `precision`, from naga's layout of the composed bindings.
    pub fn new(precision: GpuPrecision) -> Result<Self, String> {
        let src = super::shaders::compose_for(
            "bindings.wgsl",
            &crate::implicit::wgsl::generate(&[]),
            precision,
        )?;
        let module = naga::front::wgsl::parse_str(&src)
            .map_err(|e| format!("bindings.wgsl: {}", e.emit_to_string(&src)))?;
        let mut layouter = naga::proc::Layouter::default();
        layouter
            .update(module.to_ctx())
            .map_err(|e| format!("bindings.wgsl: layout: {e:?}"))?;
        let get = |name: &str| struct_layout(&module, &layouter, name);
        Ok(Self {
            precision,
            params: get("Params")?,
            node_info: get("NodeInfo")?,
            spring: get("Spring")?,
            cg_state: get("CgState")?,
            lanes: get("Lanes")?,
        })
    }

    /// The uniform block of `p`.
    pub fn encode_params(&self, p: &Params) -> Vec<u8> {
        let l = &self.params;
        let mut out = vec![0u8; l.size as usize];
        let u = |v: u32| [v as f64];
        for (name, v) in [
            ("n_nodes", p.n_nodes),
            ("n_springs", p.n_springs),
            ("n_walls", p.n_walls),
            ("dim", p.dim),
            ("barrier_kind", p.barrier_kind),
            ("integrator", p.integrator),
            ("cg_max_iterations", p.cg_max_iterations),
            ("node_partials", p.node_partials),
            ("element_partials", p.element_partials),
            ("friction_slots", p.friction_slots),
        ] {
            l.put(&mut out, 0, name, &u(v));
        }
        for (name, v) in [
            ("potential_weight", p.potential_weight),
            ("dhat", p.dhat),
            ("kappa", p.kappa),
            ("dt", p.dt),
            ("friction_eps", p.friction_eps),
            ("self_friction", p.self_friction),
        ] {
            l.put(&mut out, 0, name, &[v]);
        }
        l.put(&mut out, 0, "gravity", &p.gravity);
        l.put(&mut out, 0, "walls", &p.walls.concat());
        l.put(&mut out, 0, "wall_shift", &p.wall_shift.concat());
        l.put(
            &mut out,
            0,
            "implicit_frames",
            &p.implicit_frames.concat().concat(),
        );
        l.put(
            &mut out,
            0,
            "implicit_carry",
            &p.implicit_carry.concat().concat(),
        );
        l.put(&mut out, 0, "friction_mu", &p.friction_mu.concat());
        let ints = |v: &[u32]| v.iter().map(|c| *c as f64).collect::<Vec<f64>>();
        l.put(&mut out, 0, "mas", &ints(&p.mas));
        l.put(&mut out, 0, "mas_levels", &ints(&p.mas_levels.concat()));
        for (name, v) in CONTACT_PARAMS.iter().zip(&p.contact) {
            l.put(&mut out, 0, name, &ints(v));
        }
        out
    }

    /// The `nodes` buffer.
    pub fn encode_nodes(&self, nodes: &[NodeInfo]) -> Vec<u8> {
        let l = &self.node_info;
        let stride = l.size as usize;
        let mut out = vec![0u8; stride * nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            l.put(&mut out, i * stride, "mass", &[n.mass]);
            l.put(&mut out, i * stride, "area", &[n.area]);
            l.put(
                &mut out,
                i * stride,
                "fixed",
                &[f64::from(u8::from(n.fixed))],
            );
        }
        out
    }

    /// The `springs` buffer.
    pub fn encode_springs(&self, springs: &[GpuSpring]) -> Vec<u8> {
        let l = &self.spring;
        let stride = l.size as usize;
        let mut out = vec![0u8; stride * springs.len()];
        for (i, s) in springs.iter().enumerate() {
            let b = i * stride;
            l.put(&mut out, b, "a", &[s.a as f64]);
            l.put(&mut out, b, "b", &[s.b as f64]);
            l.put(&mut out, b, "rest_length_sq", &[s.rest_length_sq]);
            l.put(&mut out, b, "stiffness", &[s.stiffness]);
        }
        out
    }

    /// The CG state at `base` of `bytes`.
    pub fn decode_cg(&self, bytes: &[u8], base: usize) -> CgState {
        let l = &self.cg_state;
        let g = |name| l.get1(bytes, base, name);
        CgState {
            rz: g("rz"),
            bb: g("bb"),
            rr: g("rr"),
            iterations: g("iterations") as u32,
            done: g("done") as u32,
            converged: g("converged") as u32,
        }
    }

    /// The lanes at `base` of `bytes`.
    pub fn decode_lanes(&self, bytes: &[u8], base: usize) -> Lanes {
        let l = &self.lanes;
        let four = |name| {
            let v = l.get(bytes, base, name);
            [v[0], v[1], v[2], v[3]]
        };
        Lanes {
            sums: four("sums"),
            mixed: four("mixed"),
        }
    }

    /// The bytes of one real of the CG state (`ls_alpha`, `tol_sq`: `real`).
    pub fn real_bytes(&self, value: f64) -> Vec<u8> {
        let width = self.precision.bytes(crate::precision::RealClass::State);
        state_bytes(&[value], width)
    }
}

/// A node vector of the state in the mode's `real`, as bytes.
pub fn state_bytes(v: &[f64], width: u64) -> Vec<u8> {
    if width == 4 {
        v.iter().flat_map(|c| (*c as f32).to_le_bytes()).collect()
    } else {
        v.iter().flat_map(|c| c.to_le_bytes()).collect()
    }
}

/// The uniform's rows of implicit walls' frames (identity past `frames`).
pub fn frame_rows(frames: &[crate::implicit::Frame]) -> [[[f64; 4]; 3]; MAX_IMPLICIT_FRAMES] {
    let mut out = [[[0.0; 4]; 3]; MAX_IMPLICIT_FRAMES];
    for (w, rows) in out.iter_mut().enumerate() {
        let f = frames.get(w).unwrap_or(&crate::implicit::Frame::IDENTITY);
        for (row, (rot, o)) in rows.iter_mut().zip(f.rot.iter().zip(f.offset)) {
            *row = [rot[0], rot[1], rot[2], o];
        }
    }
    out
}

/// The uniform's rows of implicit walls' carries (none past `carry`).
pub fn carry_rows(carry: &[crate::implicit::Carry]) -> [[[f64; 4]; 3]; MAX_IMPLICIT_FRAMES] {
    let mut out = [[[0.0; 4]; 3]; MAX_IMPLICIT_FRAMES];
    for (rows, c) in out.iter_mut().zip(carry) {
        for (row, (d, s)) in rows.iter_mut().zip(c.d.iter().zip(c.s)) {
            *row = [d[0], d[1], d[2], s];
        }
    }
    out
}
