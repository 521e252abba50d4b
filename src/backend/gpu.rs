//! The GPU backend (f32 WGSL through wgpu): the same algorithm as the CPU reference,
//! with its state on the device and the Newton driver of [`crate::newton`] taking the
//! decisions. PCG runs entirely on the GPU in batches of iterations; the host reads
//! only what a decision needs (the CG flags and, in the same readback, the Newton
//! stopping measure and CCD bound; the energy change of each line-search trial).

use super::{Backend, DeviceCounters, Diagnostics};
use crate::backend::cpu::CpuBackend;
use crate::energy::barrier::BarrierKind;
use crate::gpu::context::{describe, GpuContext, Needs};
use crate::gpu::layout::{
    node_block_bytes, CgState, GpuSpring, Lanes, NodeInfo, Params, DONE_OFFSET, LS_ALPHA_OFFSET,
    MAX_FRICTION_WALLS, MAX_WALLS, WORKGROUP,
};
use crate::gpu::pipelines::Pipelines;
use crate::model::{Integrator, Model};
use crate::newton::{Direction, NewtonSystem};
use std::collections::HashMap;
use wgpu::util::DeviceExt;

/// Binding numbers of `shaders/bindings.wgsl` (all listed, some only used by name).
#[allow(dead_code)]
mod bind {
    pub const PARAMS: usize = 0;
    pub const NODES: usize = 1;
    pub const SPRINGS: usize = 2;
    pub const ADJACENCY: usize = 3;
    pub const X: usize = 4;
    pub const ANCHORS: usize = 5;
    pub const FRICTION: usize = 6;
    pub const V: usize = 7;
    pub const ACC: usize = 8;
    pub const P: usize = 9;
    pub const R: usize = 10;
    pub const Z: usize = 11;
    pub const D: usize = 12;
    pub const Q: usize = 13;
    pub const PARTIALS: usize = 14;
    pub const CG: usize = 15;
    pub const RESULTS: usize = 16;
    pub const BLOCKS: usize = 17;
    pub const COUNT: usize = 18;
    pub const NAMES: [&str; COUNT] = [
        "params",
        "nodes",
        "springs",
        "adjacency",
        "x",
        "anchors",
        "friction",
        "v",
        "acc",
        "p",
        "r",
        "z",
        "d",
        "q",
        "partials",
        "cg",
        "results",
        "blocks",
    ];
}

/// How many workgroups a dispatch covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Span {
    /// One thread per node.
    Nodes,
    /// One thread per element: max(nodes, springs).
    Elements,
    /// A single workgroup.
    Single,
}

/// Options of the GPU backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuOptions {
    /// Largest workgroup count along x of one dispatch; beyond it the dispatch uses a
    /// second dimension. wgpu's limit is 65535; tests lower it to exercise the 2D path.
    pub max_groups_x: u32,
}

impl Default for GpuOptions {
    fn default() -> Self {
        Self {
            max_groups_x: 65535,
        }
    }
}

/// The wgpu backend.
pub struct GpuBackend {
    model: Model,
    ctx: GpuContext,
    pipes: Pipelines,
    buffers: Vec<wgpu::Buffer>,
    groups: HashMap<&'static str, wgpu::BindGroup>,
    staging: wgpu::Buffer,
    vec_staging: wgpu::Buffer,
    node_dispatch: (u32, u32),
    element_dispatch: (u32, u32),
    current_energy: f64,
    last_trial: Option<(f64, f64)>,
    pending_energy: Option<f64>,
    /// Recorded work not yet submitted (see [`Self::defer`]).
    deferred: Option<wgpu::CommandEncoder>,
    ccd: f64,
    /// (α, ΔE) of the first line-search trial, evaluated with the direction.
    speculative_trial: Option<(f64, f64)>,
    /// CG iterations of the k-th direction solve of the previous step(s), the first
    /// batch size of the k-th solve of the next step.
    cg_history: Vec<u32>,
    /// Direction solves so far in this step.
    solve_index: usize,
    /// Submissions and blocking reads so far (`memory_bytes` is filled when reported).
    traffic: DeviceCounters,
}

const STAGING_BYTES: u64 = 256;
const STAGE_RESULTS: u64 = 0;
const STAGE_TRIAL: u64 = 32;
const STAGE_CG: u64 = 64;

fn dims(groups: u32, max_x: u32) -> (u32, u32) {
    let groups = groups.max(1);
    let x = groups.min(max_x.max(1));
    (x, groups.div_ceil(x))
}

impl GpuBackend {
    /// Opens the GPU, builds the pipelines and uploads the scene.
    pub fn new(model: Model) -> Result<Self, String> {
        Self::with_options(model, GpuOptions::default())
    }

    /// As [`Self::new`], with options.
    pub fn with_options(model: Model, opts: GpuOptions) -> Result<Self, String> {
        let dim = model.dim;
        if !(dim == 2 || dim == 3) {
            return Err(format!("the GPU backend needs dimension 2 or 3, got {dim}"));
        }
        if model.walls.len() > MAX_WALLS {
            return Err(format!(
                "the GPU backend takes at most {MAX_WALLS} walls; the scene has {}",
                model.walls.len()
            ));
        }
        let all_walls = model.walls.len() + model.implicit_walls.len();
        let friction_slots = if model.friction.any() { all_walls } else { 0 };
        if friction_slots > MAX_FRICTION_WALLS {
            return Err(format!(
                "the GPU backend takes at most {MAX_FRICTION_WALLS} walls in a scene with friction; the scene has {all_walls}"
            ));
        }
        let n = model.num_nodes();
        let ns = model.springs.len();
        let (offsets, entries) = model.node_springs();
        let too_big = |what: &str, count: usize| {
            format!(
                "the scene has {count} {what}; the GPU backend indexes with 32 bits and takes at most {}",
                u32::MAX / 4
            )
        };
        if n * dim > (u32::MAX / 4) as usize {
            return Err(too_big("node coordinates", n * dim));
        }
        if ns + n + 1 > (u32::MAX / 4) as usize {
            return Err(too_big("springs", ns));
        }
        let max_x = opts.max_groups_x.clamp(1, 65535);
        let node_dispatch = dims((n as u32).div_ceil(WORKGROUP), max_x);
        let element_dispatch = dims((n.max(ns) as u32).div_ceil(WORKGROUP), max_x);
        let partial_count =
            (node_dispatch.0 * node_dispatch.1).max(element_dispatch.0 * element_dispatch.1) as u64;

        let vec_bytes = (n * dim * 4) as u64;
        let friction_bytes = (n * friction_slots * 16) as u64;
        let sizes: [(u64, &'static str); 7] = [
            (vec_bytes, "node vectors"),
            (3 * vec_bytes, "step anchors"),
            (friction_bytes, "friction contacts"),
            ((2 * n * node_block_bytes(dim)) as u64, "node blocks"),
            ((ns * 16) as u64, "springs"),
            (((n + 1 + 2 * ns) * 4) as u64, "adjacency"),
            (partial_count * 32, "partials"),
        ];
        let (largest_buffer, largest_buffer_name) =
            sizes.iter().copied().max_by_key(|s| s.0).unwrap_or((0, ""));
        let ctx = GpuContext::new(Needs {
            largest_buffer,
            largest_buffer_name,
        })
        .map_err(|e| format!("{e} ({n} nodes, {ns} springs)"))?;
        // Turn device errors during setup (a kernel the driver rejects, a buffer it
        // cannot allocate) into an error message instead of wgpu's panic.
        let oom_scope = ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation_scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let pipes = Pipelines::with_generated(
            &ctx.device,
            &crate::implicit::wgsl::generate(&model.implicit_walls),
        )?;
        let dev = &ctx.device;

        let mut walls = [[0f32; 4]; 2 * MAX_WALLS];
        for (w, wall) in model.walls.iter().enumerate() {
            for (k, (n, o)) in wall.normal.iter().zip(&wall.origin).enumerate() {
                walls[2 * w][k] = *n as f32;
                walls[2 * w + 1][k] = *o as f32;
            }
        }
        let mut gravity = [0f32; 4];
        for (g, mg) in gravity.iter_mut().zip(&model.gravity) {
            *g = *mg as f32;
        }
        let mut friction_mu = [[0f32; 4]; MAX_FRICTION_WALLS / 4];
        for w in 0..friction_slots {
            friction_mu[w / 4][w % 4] = model.friction.mu(w, model.walls.len()) as f32;
        }
        let s = &model.solver;
        let params = Params {
            n_nodes: n as u32,
            n_springs: ns as u32,
            n_walls: model.walls.len() as u32,
            dim: dim as u32,
            h2c: (s.integrator.potential_scale() * s.dt * s.dt) as f32,
            dhat: model.barrier.dhat as f32,
            kappa: model.barrier.kappa as f32,
            barrier_kind: match model.barrier.kind {
                BarrierKind::Book => 0,
                BarrierKind::Ipc => 1,
            },
            dt: s.dt as f32,
            integrator: match s.integrator {
                Integrator::ImplicitEuler => 0,
                Integrator::Newmark => 1,
            },
            cg_tol_sq: (s.cg_tolerance * s.cg_tolerance) as f32,
            cg_max_iterations: s.cg_max_iterations,
            node_partials: node_dispatch.0 * node_dispatch.1,
            element_partials: element_dispatch.0 * element_dispatch.1,
            friction_slots: friction_slots as u32,
            friction_eps: (model.friction.eps_v * s.dt) as f32,
            gravity,
            walls,
            friction_mu,
        };
        let nodes: Vec<NodeInfo> = (0..n)
            .map(|i| NodeInfo {
                mass: model.mass[i] as f32,
                area: model.contact_area[i] as f32,
                fixed: u32::from(model.fixed[i]),
                _pad: 0,
            })
            .collect();
        let springs: Vec<GpuSpring> = model
            .springs
            .iter()
            .map(|sp| GpuSpring {
                a: sp.a,
                b: sp.b,
                rest_length_sq: sp.rest_length_sq as f32,
                stiffness: sp.stiffness as f32,
            })
            .collect();
        let base = (n + 1) as u32;
        let mut adjacency: Vec<u32> = offsets.iter().map(|o| o + base).collect();
        adjacency.extend_from_slice(&entries);

        let mut v0 = model.v0.clone();
        for (i, f) in model.fixed.iter().enumerate() {
            if *f {
                v0[i * dim..(i + 1) * dim].fill(0.0);
            }
        }
        let a0 = match s.integrator {
            Integrator::Newmark => CpuBackend::new(model.clone()).accelerations().to_vec(),
            Integrator::ImplicitEuler => vec![0.0; n * dim],
        };
        let f32s = |v: &[f64]| v.iter().map(|c| *c as f32).collect::<Vec<f32>>();
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let init = |name: &str, bytes: &[u8], usage: wgpu::BufferUsages| {
            // wgpu rejects zero-sized bindings: pad empty arrays.
            let mut data = bytes.to_vec();
            if data.len() < 16 {
                data.resize(16, 0);
            }
            dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(name),
                contents: &data,
                usage,
            })
        };
        // A zero-initialised storage buffer (wgpu zeroes new buffers) of at least 16 bytes.
        let zeroed = |name: &str, size: u64| {
            dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some(name),
                size: size.max(16),
                usage: storage,
                mapped_at_creation: false,
            })
        };
        let mut buffers = Vec::with_capacity(bind::COUNT);
        for b in 0..bind::COUNT {
            let name = bind::NAMES[b];
            let buf = match b {
                bind::PARAMS => init(
                    name,
                    bytemuck::bytes_of(&params),
                    wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                ),
                bind::NODES => init(name, bytemuck::cast_slice(&nodes), storage),
                bind::SPRINGS => init(name, bytemuck::cast_slice(&springs), storage),
                bind::ADJACENCY => init(name, bytemuck::cast_slice(&adjacency), storage),
                bind::X => init(name, bytemuck::cast_slice(&f32s(&model.x0)), storage),
                // xⁿ = x0, x̃ − xⁿ = 0 and x − xⁿ = 0 until the first step starts
                bind::ANCHORS => init(
                    name,
                    bytemuck::cast_slice(&f32s(
                        &[model.x0.clone(), vec![0.0; 2 * n * dim]].concat(),
                    )),
                    storage,
                ),
                bind::FRICTION => zeroed(name, friction_bytes),
                // the Newton node blocks, then the preconditioner's inverse blocks
                bind::BLOCKS => zeroed(name, (2 * n * node_block_bytes(dim)) as u64),
                bind::V => init(name, bytemuck::cast_slice(&f32s(&v0)), storage),
                bind::ACC => init(name, bytemuck::cast_slice(&f32s(&a0)), storage),
                bind::PARTIALS => zeroed(name, partial_count * 32),
                bind::CG => init(name, bytemuck::bytes_of(&CgState::default()), storage),
                bind::RESULTS => init(name, &[0u8; 64], storage),
                _ => zeroed(name, vec_bytes),
            };
            buffers.push(buf);
        }
        let mut groups = HashMap::new();
        for (name, k) in pipes.iter() {
            let entries: Vec<wgpu::BindGroupEntry> = k
                .bindings
                .iter()
                .map(|&b| wgpu::BindGroupEntry {
                    binding: b,
                    resource: buffers[b as usize].as_entire_binding(),
                })
                .collect();
            let bg = dev.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(name),
                layout: &k.layout,
                entries: &entries,
            });
            groups.insert(*name, bg);
        }
        let staging = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("staging"),
            size: STAGING_BYTES,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let vec_staging = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("vector staging"),
            size: vec_bytes.max(16),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        if let Some(e) = pollster::block_on(validation_scope.pop()) {
            return Err(format!(
                "{} rejected the scene's kernels or buffers: {e}",
                describe(&ctx.info)
            ));
        }
        if let Some(e) = pollster::block_on(oom_scope.pop()) {
            return Err(format!(
                "{} ran out of memory for the scene ({n} nodes, {ns} springs): {e}",
                describe(&ctx.info)
            ));
        }
        Ok(Self {
            model,
            ctx,
            pipes,
            buffers,
            groups,
            staging,
            vec_staging,
            node_dispatch,
            element_dispatch,
            current_energy: 0.0,
            last_trial: None,
            pending_energy: None,
            deferred: None,
            ccd: 1.0,
            speculative_trial: None,
            cg_history: Vec::new(),
            solve_index: 0,
            traffic: DeviceCounters::default(),
        })
    }

    /// The model this backend simulates.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The adapter in one line (name, backend API, device type, driver).
    pub fn adapter(&self) -> String {
        describe(&self.ctx.info)
    }

    /// Whether the adapter is a software device on the CPU (lavapipe and the like).
    pub fn is_software(&self) -> bool {
        self.ctx.is_software()
    }

    /// Whether the device runs with wgpu's default limits (true up to about 4M nodes
    /// in 2D; larger scenes ask for the adapter's limits).
    pub fn uses_default_limits(&self) -> bool {
        self.ctx.uses_default_limits()
    }

    /// Bytes of device memory held by the scene's buffers.
    pub fn memory_bytes(&self) -> u64 {
        self.buffers.iter().map(|b| b.size()).sum::<u64>()
            + self.staging.size()
            + self.vec_staging.size()
    }

    fn record(&self, enc: &mut wgpu::CommandEncoder, kernels: &[(&str, Span)]) {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: None,
        });
        for (name, span) in kernels {
            pass.set_pipeline(&self.pipes.get(name).pipeline);
            pass.set_bind_group(0, &self.groups[name], &[]);
            let (x, y) = match span {
                Span::Nodes => self.node_dispatch,
                Span::Elements => self.element_dispatch,
                Span::Single => (1, 1),
            };
            pass.dispatch_workgroups(x, y, 1);
        }
    }

    /// The encoder to record into: the deferred one when work is waiting, else a new one.
    fn encoder(&mut self) -> wgpu::CommandEncoder {
        self.deferred.take().unwrap_or_else(|| {
            self.ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
        })
    }

    /// Records `kernels` for later: they go out with the next submission (work whose
    /// result no decision waits for: step start and end, the Newton update).
    fn defer(&mut self, kernels: &[(&str, Span)]) {
        let mut enc = self.encoder();
        self.record(&mut enc, kernels);
        self.deferred = Some(enc);
    }

    /// Submits deferred work now; needed before a host write that it must not see.
    fn flush_deferred(&mut self) {
        if let Some(enc) = self.deferred.take() {
            self.submit(enc);
        }
    }

    fn submit(&mut self, enc: wgpu::CommandEncoder) {
        self.ctx.queue.submit([enc.finish()]);
        self.traffic.submissions += 1;
    }

    fn set_step_alpha(&mut self, alpha: f64) {
        // queue.write_buffer lands before the next submission: deferred kernels that
        // read the old α must go first.
        self.flush_deferred();
        self.ctx.queue.write_buffer(
            &self.buffers[bind::CG],
            LS_ALPHA_OFFSET,
            bytemuck::bytes_of(&(alpha as f32)),
        );
    }

    /// Reads `len` bytes of a staging buffer (a blocking read).
    fn read_bytes(&mut self, which: Staging, len: u64) -> Vec<u8> {
        let buf = match which {
            Staging::Small => &self.staging,
            Staging::Vector => &self.vec_staging,
        };
        let out = map_and_read(&self.ctx.device, buf, len);
        self.traffic.readbacks += 1;
        out
    }

    /// Submits `enc` after copying results[0] to staging, then reads it back.
    fn finish_reduction(&mut self, mut enc: wgpu::CommandEncoder) -> Lanes {
        enc.copy_buffer_to_buffer(
            &self.buffers[bind::RESULTS],
            0,
            &self.staging,
            STAGE_RESULTS,
            32,
        );
        self.submit(enc);
        let bytes = self.read_bytes(Staging::Small, 32);
        bytemuck::pod_read_unaligned(&bytes[0..32])
    }

    /// Submits `enc` after copying both result slots and the CG state to staging, then
    /// reads them back: (direction stats, first line-search trial, CG state).
    fn finish_direction(&mut self, mut enc: wgpu::CommandEncoder) -> (Lanes, Lanes, CgState) {
        enc.copy_buffer_to_buffer(
            &self.buffers[bind::RESULTS],
            0,
            &self.staging,
            STAGE_RESULTS,
            64,
        );
        enc.copy_buffer_to_buffer(&self.buffers[bind::CG], 0, &self.staging, STAGE_CG, 48);
        self.submit(enc);
        let bytes = self.read_bytes(Staging::Small, STAGE_CG + 48);
        let at = |o: u64, len: usize| &bytes[o as usize..o as usize + len];
        (
            bytemuck::pod_read_unaligned(at(STAGE_RESULTS, 32)),
            bytemuck::pod_read_unaligned(at(STAGE_TRIAL, 32)),
            bytemuck::pod_read_unaligned(at(STAGE_CG, 48)),
        )
    }

    /// Reads node vector `slot` of buffer `b` (see [`Self::write_vector`]).
    fn read_vector(&mut self, b: usize, slot: u64) -> Vec<f64> {
        let len = (self.model.num_nodes() * self.model.dim * 4) as u64;
        if len == 0 {
            return vec![];
        }
        let mut enc = self.encoder();
        enc.copy_buffer_to_buffer(&self.buffers[b], slot * len, &self.vec_staging, 0, len);
        self.submit(enc);
        let bytes = self.read_bytes(Staging::Vector, len);
        bytemuck::cast_slice::<u8, f32>(&bytes)
            .iter()
            .map(|v| *v as f64)
            .collect()
    }

    /// Writes the node vector `data` into buffer `b`, starting at node vector `slot`
    /// (the blocks of the step anchors: 0 xⁿ, 1 x̃ − xⁿ, 2 x − xⁿ).
    fn write_vector(&mut self, b: usize, slot: u64, data: &[f64]) {
        self.flush_deferred();
        assert_eq!(data.len(), self.model.num_nodes() * self.model.dim);
        let v: Vec<f32> = data.iter().map(|c| *c as f32).collect();
        let offset = slot * (data.len() * 4) as u64;
        self.ctx
            .queue
            .write_buffer(&self.buffers[b], offset, bytemuck::cast_slice(&v));
    }

    /// Whether some wall has friction (the friction kernels have work).
    fn has_friction(&self) -> bool {
        self.model.friction.any()
    }

    /// The energy_total lanes and, with friction, the friction_stats lanes (else
    /// zero), in one submission and one read.
    fn diagnostic_lanes(&mut self) -> (Lanes, Lanes) {
        if !self.has_friction() {
            return (self.energy_lanes(), Lanes::default());
        }
        let mut enc = self.encoder();
        self.record(&mut enc, &ENERGY_TOTAL);
        enc.copy_buffer_to_buffer(&self.buffers[bind::RESULTS], 0, &self.staging, 0, 32);
        self.record(
            &mut enc,
            &[
                ("friction_stats", Span::Nodes),
                ("reduce_nodes", Span::Single),
            ],
        );
        enc.copy_buffer_to_buffer(&self.buffers[bind::RESULTS], 0, &self.staging, 32, 32);
        self.submit(enc);
        let bytes = self.read_bytes(Staging::Small, 64);
        (
            bytemuck::pod_read_unaligned(&bytes[0..32]),
            bytemuck::pod_read_unaligned(&bytes[32..64]),
        )
    }

    fn energy_lanes(&mut self) -> Lanes {
        let mut enc = self.encoder();
        self.record(&mut enc, &ENERGY_TOTAL);
        self.finish_reduction(enc)
    }

    /// The stored iterate, prediction and step start as absolute positions (m):
    /// (x, x̃, xⁿ).
    fn state_vectors(&mut self) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let x = self.read_vector(bind::X, 0);
        let xn = self.read_vector(bind::ANCHORS, 0);
        let offset = self.read_vector(bind::ANCHORS, 1);
        let xp = xn.iter().zip(&offset).map(|(a, b)| a + b).collect();
        (x, xp, xn)
    }

    /// Stores the absolute x, x̃ and xⁿ (m), rounded to f32, as the device keeps them:
    /// x, and xⁿ with the offsets x̃ − xⁿ and x − xⁿ.
    fn write_state(&mut self, x: &[f64], xp: &[f64], xn: &[f64]) {
        let f32s = |v: &[f64]| v.iter().map(|c| (*c as f32) as f64).collect::<Vec<f64>>();
        let (x, xp, xn) = (f32s(x), f32s(xp), f32s(xn));
        let minus = |a: &[f64]| a.iter().zip(&xn).map(|(p, q)| p - q).collect::<Vec<f64>>();
        self.write_vector(bind::X, 0, &x);
        self.write_vector(bind::ANCHORS, 0, &xn);
        self.write_vector(bind::ANCHORS, 1, &minus(&xp));
        self.write_vector(bind::ANCHORS, 2, &minus(&x));
    }

    /// Overwrites the current iterate (m); for tests that probe the kernels.
    pub fn set_positions(&mut self, x: &[f64]) {
        let (_, xp, xn) = self.state_vectors();
        self.write_state(x, &xp, &xn);
    }

    /// Overwrites the predicted positions x̃ (m); for tests.
    pub fn set_prediction(&mut self, x_pred: &[f64]) {
        let (x, _, xn) = self.state_vectors();
        self.write_state(&x, x_pred, &xn);
    }

    /// Overwrites the step's start positions xⁿ (m), keeping x and x̃, and recomputes
    /// the lagged friction contacts there (what [`Backend::begin_step`] does); for tests.
    pub fn set_step_start(&mut self, xn: &[f64]) {
        let (x, xp, _) = self.state_vectors();
        self.write_state(&x, &xp, xn);
        if self.has_friction() {
            self.defer(&[("friction_lag_start", Span::Nodes)]);
        }
    }

    /// The lagged friction normal forces λ (N), `nodes × walls` (plane walls, then
    /// implicit); empty when no wall has friction. Twin of `CpuBackend::friction_lambda`.
    pub fn friction_lambda(&mut self) -> Vec<f64> {
        if !self.has_friction() {
            return vec![];
        }
        let size = self.buffers[bind::FRICTION].size();
        let bytes = self.read_raw(bind::FRICTION, 0, size);
        bytemuck::cast_slice::<u8, [f32; 4]>(&bytes)
            .iter()
            .map(|f| f[3] as f64)
            .collect()
    }

    /// Overwrites the Newton direction p (m); for tests of the CCD bound and ΔE.
    pub fn set_direction(&mut self, p: &[f64]) {
        self.speculative_trial = None;
        self.write_vector(bind::P, 0, p);
    }

    /// The current Newton direction p (m).
    pub fn direction(&mut self) -> Vec<f64> {
        self.read_vector(bind::P, 0)
    }

    /// Incremental potential E (J) at the current iterate (`+∞` if inadmissible).
    pub fn incremental_potential(&mut self) -> f64 {
        let l = self.energy_lanes();
        if l.e[3] > 0.0 {
            f64::INFINITY
        } else {
            l.s[0] as f64
        }
    }

    /// `∇E` at the current iterate, fixed rows zeroed (the `node_terms` and `assemble`
    /// kernels).
    pub fn gradient(&mut self) -> Vec<f64> {
        let mut enc = self.encoder();
        self.record(&mut enc, &ASSEMBLE);
        self.submit(enc);
        self.read_vector(bind::R, 0).iter().map(|r| -r).collect()
    }

    /// `size` bytes of buffer `b` from `offset`, through a staging buffer of their own
    /// (for the test accessors; the stepping path reads through fixed staging buffers).
    fn read_raw(&mut self, b: usize, offset: u64, size: u64) -> Vec<u8> {
        let stage = self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("test staging"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self.encoder();
        enc.copy_buffer_to_buffer(&self.buffers[b], offset, &stage, 0, size);
        self.submit(enc);
        let bytes = map_and_read(&self.ctx.device, &stage, size);
        self.traffic.readbacks += 1;
        bytes
    }

    /// The block-Jacobi preconditioner at the current iterate: per node the inverse of
    /// H's `dim × dim` diagonal block, row-major, `nodes × dim²` (1/kg; 0 for fixed
    /// nodes). Twin of `CpuBackend::preconditioner_blocks`.
    pub fn preconditioner_blocks(&mut self) -> Vec<f64> {
        let mut enc = self.encoder();
        self.record(&mut enc, &ASSEMBLE);
        self.submit(enc);
        let (n, dim) = (self.model.num_nodes(), self.model.dim);
        let set = (n * node_block_bytes(dim)) as u64;
        if set == 0 {
            return vec![];
        }
        let bytes = self.read_raw(bind::BLOCKS, set, set);
        let v: Vec<f64> = bytemuck::cast_slice::<u8, f32>(&bytes)
            .iter()
            .map(|c| *c as f64)
            .collect();
        let mut out = Vec::with_capacity(n * dim * dim);
        for b in v.chunks(4 * (dim - 1)) {
            if dim == 2 {
                // (xx, yy, xy, 0)
                out.extend_from_slice(&[b[0], b[2], b[2], b[1]]);
            } else {
                // (xx, yy, zz, 0), (xy, xz, yz, 0)
                out.extend_from_slice(&[b[0], b[4], b[5], b[4], b[1], b[6], b[5], b[6], b[2]]);
            }
        }
        out
    }

    /// `H u` with the projected Newton matrix at the current iterate, and `uᵀ H u`
    /// from the kernel's own two-pass reduction.
    pub fn hessian_times(&mut self, u: &[f64]) -> (Vec<f64>, f64) {
        self.write_vector(bind::D, 0, u);
        // The mat-vec kernel idles once a CG solve is done: open it again.
        self.flush_deferred();
        self.ctx.queue.write_buffer(
            &self.buffers[bind::CG],
            DONE_OFFSET,
            bytemuck::bytes_of(&0u32),
        );
        let mut enc = self.encoder();
        self.record(
            &mut enc,
            &[
                ("node_terms", Span::Nodes),
                ("newton_matvec", Span::Nodes),
                ("reduce_nodes", Span::Single),
            ],
        );
        let l = self.finish_reduction(enc);
        (self.read_vector(bind::Q, 0), l.s[0] as f64)
    }

    /// `(max_i Σ_k |p_ik|, CCD bound)` for the current p (the `direction_stats` kernel).
    pub fn direction_stats(&mut self) -> (f64, f64) {
        let mut enc = self.encoder();
        self.record(
            &mut enc,
            &[
                ("direction_stats", Span::Nodes),
                ("reduce_nodes", Span::Single),
            ],
        );
        let l = self.finish_reduction(enc);
        (l.e[3] as f64, (l.e[2] as f64).min(1.0))
    }

    /// CG iterations to submit before the next check: first about the count of the
    /// same solve (by its index within the step) in the previous step, or of the latest
    /// solve where this index is new; then half of what was submitted so far (geometric
    /// growth keeps the number of checks logarithmic when the estimate is poor, the
    /// overshoot under 50 %).
    fn batch_size(&self, submitted: u64) -> u32 {
        let cap = self.model.solver.cg_max_iterations.max(1);
        let b = if submitted == 0 {
            // Where this index is new, the latest solve is the history's last entry.
            let last = self
                .cg_history
                .get(self.solve_index)
                .or(self.cg_history.last())
                .copied()
                .unwrap_or(0);
            last + last / 8 + 4
        } else {
            ((submitted / 2) as u32).max(8)
        };
        b.clamp(4, 1024).min(cap)
    }
}

/// Maps the staging buffer `buf`, waits for the device, copies `len` bytes out, unmaps.
fn map_and_read(device: &wgpu::Device, buf: &wgpu::Buffer, len: u64) -> Vec<u8> {
    let slice = buf.slice(0..len);
    slice.map_async(wgpu::MapMode::Read, |r| {
        r.expect("mapping a staging buffer failed")
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("waiting for the GPU failed");
    let out = slice
        .get_mapped_range()
        .expect("reading a mapped staging buffer failed")
        .to_vec();
    buf.unmap();
    out
}

/// ΔE of an energy_change reduction; `+∞` where the trial point is inadmissible.
fn trial_change(l: &Lanes) -> f64 {
    if l.e[3] > 0.0 {
        f64::INFINITY
    } else {
        l.s[0] as f64
    }
}

/// Which staging buffer a read uses.
#[derive(Clone, Copy)]
enum Staging {
    Small,
    Vector,
}

/// E and the diagnostics at the current iterate, reduced into results[0].
const ENERGY_TOTAL: [(&str, Span); 2] = [
    ("energy_total", Span::Elements),
    ("reduce_elements", Span::Single),
];

/// The Newton system at the current iterate: r = −∇E, the node blocks and the
/// block-Jacobi preconditioner.
const ASSEMBLE: [(&str, Span); 2] = [("node_terms", Span::Nodes), ("assemble", Span::Nodes)];

const CG_ITERATION: [(&str, Span); 5] = [
    ("newton_matvec", Span::Nodes),
    ("cg_alpha", Span::Single),
    ("cg_update", Span::Nodes),
    ("cg_beta", Span::Single),
    ("cg_direction", Span::Nodes),
];

impl NewtonSystem for GpuBackend {
    fn energy(&mut self) -> f64 {
        if let Some(e) = self.pending_energy.take() {
            self.current_energy = e;
            return e;
        }
        self.current_energy = self.incremental_potential();
        self.current_energy
    }

    fn compute_direction(&mut self) -> Direction {
        let mut enc = self.encoder();
        self.record(&mut enc, &ASSEMBLE);
        self.record(
            &mut enc,
            &[
                ("cg_start", Span::Nodes),
                ("cg_start_scalars", Span::Single),
            ],
        );
        let cap = self.model.solver.cg_max_iterations as u64;
        let mut submitted = 0u64;
        loop {
            let batch = self.batch_size(submitted);
            for _ in 0..batch {
                self.record(&mut enc, &CG_ITERATION);
            }
            submitted += batch as u64;
            // The direction's stopping measure and CCD bound, and speculatively the
            // first line-search trial at α = min(1, CCD bound).
            self.record(
                &mut enc,
                &[
                    ("direction_stats", Span::Nodes),
                    ("reduce_nodes", Span::Single),
                    ("line_search_start", Span::Single),
                    ("energy_change", Span::Elements),
                    ("reduce_trial", Span::Single),
                ],
            );
            let (lanes, trial, cg) = self.finish_direction(enc);
            if cg.done != 0 || submitted > cap {
                if self.cg_history.len() <= self.solve_index {
                    self.cg_history.resize(self.solve_index + 1, cg.iterations);
                }
                self.cg_history[self.solve_index] = cg.iterations;
                self.solve_index += 1;
                self.ccd = (lanes.e[2] as f64).min(1.0);
                self.speculative_trial = Some((self.ccd, trial_change(&trial)));
                return Direction {
                    norm: lanes.e[3] as f64,
                    cg_iterations: cg.iterations,
                    cg_converged: cg.converged != 0,
                    below_resolution: lanes.s[0] == 0.0,
                    near_resolution: lanes.s[1] == 0.0,
                };
            }
            enc = self.encoder();
        }
    }

    fn ccd_bound(&mut self) -> f64 {
        self.ccd
    }

    fn energy_change(&mut self, alpha: f64) -> f64 {
        if let Some((a, de)) = self.speculative_trial.take() {
            if a == alpha {
                self.last_trial = Some((alpha, de));
                return de;
            }
        }
        self.set_step_alpha(alpha);
        let mut enc = self.encoder();
        self.record(
            &mut enc,
            &[
                ("energy_change", Span::Elements),
                ("reduce_elements", Span::Single),
            ],
        );
        let de = trial_change(&self.finish_reduction(enc));
        self.last_trial = Some((alpha, de));
        de
    }

    fn advance(&mut self, alpha: f64) {
        self.speculative_trial = None;
        self.set_step_alpha(alpha);
        self.defer(&[("advance", Span::Nodes)]);
        // The driver has just evaluated E(x + αp) − E(x) for this α: keep E
        // consistent with the accepted differences instead of re-summing it.
        self.pending_energy = match self.last_trial.take() {
            Some((a, de)) if a == alpha && de.is_finite() => Some(self.current_energy + de),
            _ => None,
        };
    }
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn device(&self) -> String {
        format!("{} f32", self.adapter())
    }

    fn begin_step(&mut self) {
        self.solve_index = 0;
        self.speculative_trial = None;
        self.pending_energy = None;
        self.last_trial = None;
        self.defer(&[("step_begin", Span::Nodes)]);
        if self.has_friction() {
            self.defer(&[("friction_lag_start", Span::Nodes)]);
        }
    }

    fn update_friction_lag(&mut self) -> f64 {
        if !self.has_friction() {
            return 0.0;
        }
        let mut enc = self.encoder();
        self.record(
            &mut enc,
            &[
                ("friction_lag_update", Span::Nodes),
                ("reduce_nodes", Span::Single),
            ],
        );
        self.finish_reduction(enc).e[3] as f64
    }

    fn end_step(&mut self) {
        self.defer(&[("step_end", Span::Nodes)]);
    }

    fn counters(&self) -> DeviceCounters {
        DeviceCounters {
            memory_bytes: self.memory_bytes(),
            ..self.traffic
        }
    }

    fn positions(&mut self) -> Vec<f64> {
        self.read_vector(bind::X, 0)
    }

    fn velocities(&mut self) -> Vec<f64> {
        self.read_vector(bind::V, 0)
    }

    fn diagnostics(&mut self) -> Diagnostics {
        let (l, f) = self.diagnostic_lanes();
        let min = l.e[2] as f64;
        Diagnostics {
            sticking: f.s[0] as u64,
            sliding: f.s[1] as u64,
            dissipation: f.s[2] as f64,
            kinetic: l.s[1] as f64,
            gravity: l.s[2] as f64,
            elastic: l.s[3] as f64,
            barrier: l.e[0] as f64,
            min_wall_distance: if min >= 1e38 { f64::INFINITY } else { min },
        }
    }
}
