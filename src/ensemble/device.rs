//! The device side of a batched ensemble: K variants' nodes, springs and walls in one
//! set of buffers (layouts in `shaders/ensemble/state.wgsl`) and one kernel,
//! `ensemble_round`, in which each variant's workgroup does what the variant asked.
//! A round is one dispatch, one submission and one readback for the whole batch.

use super::layout::{layout, real_bytes, reals_bytes, variant_bytes, BLOCK_REALS, LAG_REALS, NV};
use super::pairs::{pair_count, MAX_PAIRS, PAIR_REALS};
use crate::backend::gpu::context::{GpuContext, Needs};
use crate::backend::gpu::readback::{decode_reals, map_and_read};
use crate::backend::gpu::{shaders, GpuOptions};
use crate::model::{Integrator, Model};
use crate::precision::{GpuPrecision, PrecisionChoice};
use wgpu::util::DeviceExt;

pub use super::slots::{NodeState, NA, RS};
/// Most workgroups along x of one dispatch (wgpu's limit); beyond, a second dimension.
const MAX_GROUPS_X: u32 = 65535;

/// Node vectors a host may read: positions, velocities and accelerations (`S_X`,
/// `S_V`, `S_ACC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeVector {
    /// Positions x (m).
    Positions = 0,
    /// Velocities v (m/s).
    Velocities = 4,
    /// Accelerations a (m/s², Newmark's).
    Accelerations = 5,
}

/// The ensemble's device, buffers and kernel, and its traffic so far.
pub struct EnsembleDevice {
    ctx: GpuContext,
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    ops: wgpu::Buffer,
    args: wgpu::Buffer,
    reals: wgpu::Buffer,
    state: wgpu::Buffer,
    results: wgpu::Buffer,
    staging: wgpu::Buffer,
    /// Variants in the batch.
    pub variants: usize,
    /// First global node and node count of each variant.
    pub node_ranges: Vec<(usize, usize)>,
    total_nodes: usize,
    /// Spatial dimension shared by the batch.
    pub dim: usize,
    /// Submissions so far (one per round, plus node-vector reads).
    pub submissions: u64,
    /// Blocking readbacks so far.
    pub readbacks: u64,
    /// Bytes of device memory each variant's share of the buffers holds.
    pub bytes_per_variant: Vec<u64>,
    /// Where each variant's watch data lie in `reals` (3D contact, watched).
    pub watch_places: Vec<super::watch::WatchPlace>,
}

/// Why a model cannot run in a batch (then it runs alone), or `None`.
pub fn unsupported(model: &Model) -> Option<String> {
    use crate::linear_solver::PreconditionerKind as P;
    // (particles alone have no primitives: nothing between them to contact; 3D
    // contact is watched: super::watch)
    const MEET: &str = " (contact.self_contact=false batches a scene whose bodies cannot meet)";
    let (why, hint) = if matches!(model.solver.preconditioner, P::Mas | P::Multigrid) {
        ("the multilevel preconditioners".to_string(), "")
    } else if model.restitution.is_some() {
        // Its correction reads and writes a variant's velocities between steps.
        ("the restitution law (contact.restitution)".to_string(), "")
    } else if !model.drives.is_empty() || !model.moving_walls.is_empty() {
        // The drive stage moves a variant's driven nodes and walls between its steps'
        // starts and its solves, on the host.
        (
            "driven nodes and moving walls (bodies.N.drive, walls.N.drive)".to_string(),
            "",
        )
    } else if let Some(why) = super::watch::cannot_watch(model) {
        (why, MEET)
    } else if pair_count(model) > MAX_PAIRS {
        let n = pair_count(model);
        (
            format!("more than {MAX_PAIRS} point–edge pairs (this scene has up to {n})"),
            MEET,
        )
    } else {
        return None;
    };
    Some(format!("batched GPU runs do not support {why} yet{hint}"))
}

impl EnsembleDevice {
    /// Opens the device in the precision `choice` resolves to and uploads `models`
    /// (one dimension; each at its initial state).
    pub fn new(models: &[&Model], choice: PrecisionChoice) -> Result<Self, String> {
        if models.is_empty() {
            return Err("an ensemble needs at least one variant".into());
        }
        let dim = models[0].dim;
        if let Some(m) = models.iter().find(|m| m.dim != dim) {
            return Err(format!(
                "one batch holds one dimension; a {}D variant came after {dim}D ones",
                m.dim
            ));
        }
        let lay = layout(models);
        let state_len = lay.total_nodes * (3 * NV + BLOCK_REALS)
            + LAG_REALS * lay.total_lags
            + PAIR_REALS * lay.total_pairs
            + lay.total_nodes
            + lay.pair_entries;
        let needs = |p: GpuPrecision| -> Result<Needs, String> {
            let rb = real_bytes(p);
            let largest = (state_len as u64 * rb)
                .max(lay.reals.len() as u64 * rb)
                .max(lay.uints.len() as u64 * 4);
            Ok(Needs {
                largest_buffer: largest,
                largest_buffer_name: "ensemble state",
                storage_buffers: 6,
                grows: false,
            })
        };
        let ctx = GpuContext::new(&needs, choice, GpuOptions::default())?;
        let precision = ctx.precision;
        let rb = real_bytes(precision);
        let device = &ctx.device;
        let source = shaders::compose_for(
            "ensemble/round.wgsl",
            &crate::implicit::wgsl::generate(&lay.implicit),
            precision,
        )?;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("ensemble/round.wgsl"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("ensemble_round"),
            layout: None,
            module: &module,
            entry_point: Some("ensemble_round"),
            compilation_options: Default::default(),
            cache: None,
        });
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let init = |label: &str, contents: &[u8], usage: wgpu::BufferUsages| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let uints = init("ensemble uints", bytemuck::cast_slice(&lay.uints), storage);
        let reals = init(
            "ensemble reals",
            &reals_bytes(&lay.reals, precision),
            storage,
        );
        let k = models.len();
        let ops = init("ensemble ops", &vec![0u8; 4 * k], storage);
        let args = init("ensemble args", &vec![0u8; NA * k * rb as usize], storage);
        // The state: x, v (0 on fixed nodes) and Newmark's consistent a⁰ from the
        // models, everything else zero.
        let mut state = vec![0.0f64; state_len];
        let tn = lay.total_nodes;
        for (m, &(off, n)) in models.iter().zip(&lay.node_ranges) {
            let a0 = match m.solver.integrator {
                Integrator::Newmark => crate::integrator::initial_acceleration(m),
                Integrator::ImplicitEuler => vec![0.0; n * dim],
            };
            for i in 0..n {
                let v = if m.fixed[i] { 0.0 } else { 1.0 };
                for c in 0..dim {
                    state[(off + i) * 3 + c] = m.x0[i * dim + c];
                    state[(4 * tn + off + i) * 3 + c] = v * m.v0[i * dim + c];
                    state[(5 * tn + off + i) * 3 + c] = a0[i * dim + c];
                }
            }
        }
        let copy = wgpu::BufferUsages::COPY_SRC;
        let state = init(
            "ensemble state",
            &reals_bytes(&state, precision),
            storage | copy,
        );
        let results = init(
            "ensemble results",
            &vec![0u8; RS * k * rb as usize],
            storage | copy,
        );
        let staging_len = (RS * k).max(3 * 3 * lay.total_nodes) as u64 * rb;
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ensemble staging"),
            size: staging_len,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bgl = pipeline.get_bind_group_layout(0);
        let entries: Vec<wgpu::BindGroupEntry> = [&uints, &reals, &ops, &args, &state, &results]
            .iter()
            .enumerate()
            .map(|(b, buf)| wgpu::BindGroupEntry {
                binding: b as u32,
                resource: buf.as_entire_binding(),
            })
            .collect();
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("ensemble"),
            layout: &bgl,
            entries: &entries,
        });
        let bytes_per_variant = models.iter().map(|m| variant_bytes(m, rb)).collect();
        Ok(Self {
            ctx,
            pipeline,
            bind_group,
            ops,
            args,
            reals,
            state,
            results,
            staging,
            variants: k,
            node_ranges: lay.node_ranges,
            total_nodes: lay.total_nodes,
            dim,
            submissions: 0,
            readbacks: 0,
            bytes_per_variant,
            watch_places: lay.watch_places,
        })
    }

    /// The adapter and precision, in words.
    pub fn describe(&self) -> String {
        format!(
            "{} {}",
            crate::backend::gpu::context::describe(&self.ctx.info),
            self.ctx.precision.name()
        )
    }

    /// The precision mode the kernel runs in.
    pub fn precision(&self) -> GpuPrecision {
        self.ctx.precision
    }

    /// Overwrites `reals` from index `at` with `values` (before the next round).
    pub fn write_reals(&mut self, at: usize, values: &[f64]) {
        let p = self.ctx.precision;
        let bytes = reals_bytes(values, p);
        self.ctx
            .queue
            .write_buffer(&self.reals, at as u64 * real_bytes(p), &bytes);
    }

    /// Runs one round: variant v does `ops[v]` (flags of `shaders/ensemble/state.wgsl`;
    /// 0 idles) with `args[v * NA..]`; returns every variant's [`RS`] results.
    pub fn round(&mut self, ops: &[u32], args: &[f64]) -> Vec<f64> {
        let p = self.ctx.precision;
        let rb = real_bytes(p);
        let q = &self.ctx.queue;
        q.write_buffer(&self.ops, 0, bytemuck::cast_slice(ops));
        q.write_buffer(&self.args, 0, &reals_bytes(args, p));
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("ensemble round"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            let k = self.variants as u32;
            let x = k.min(MAX_GROUPS_X);
            pass.dispatch_workgroups(x, k.div_ceil(x), 1);
        }
        let len = (RS * self.variants) as u64 * rb;
        enc.copy_buffer_to_buffer(&self.results, 0, &self.staging, 0, len);
        q.submit([enc.finish()]);
        self.submissions += 1;
        self.readbacks += 1;
        decode_reals(&map_and_read(&self.ctx.device, &self.staging, len), rb)
    }

    /// The whole `state` buffer (layout in `shaders/ensemble/state.wgsl`), for tests
    /// that compare what a round stored with its CPU twin (one submission and one
    /// readback).
    pub fn read_state(&mut self) -> Vec<f64> {
        let rb = real_bytes(self.ctx.precision);
        let len = self.state.size();
        let staging = self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ensemble state readback"),
            size: len,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&self.state, 0, &staging, 0, len);
        self.ctx.queue.submit([enc.finish()]);
        self.submissions += 1;
        self.readbacks += 1;
        decode_reals(&map_and_read(&self.ctx.device, &staging, len), rb)
    }

    /// Every node's first `count` node vectors of positions, velocities and
    /// accelerations, `total × 3` each, the rest empty (one submission and one
    /// readback).
    pub fn read_nodes(&mut self, count: usize) -> NodeState {
        let rb = real_bytes(self.ctx.precision);
        let len = (3 * self.total_nodes) as u64 * rb;
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        let vectors = [
            NodeVector::Positions,
            NodeVector::Velocities,
            NodeVector::Accelerations,
        ];
        let count = count.min(vectors.len());
        for (slot, k) in vectors.iter().take(count).enumerate() {
            let src = *k as u64 * len;
            enc.copy_buffer_to_buffer(&self.state, src, &self.staging, slot as u64 * len, len);
        }
        self.ctx.queue.submit([enc.finish()]);
        self.submissions += 1;
        self.readbacks += 1;
        let all = decode_reals(
            &map_and_read(&self.ctx.device, &self.staging, count as u64 * len),
            rb,
        );
        let mut parts = all.chunks(3 * self.total_nodes).map(<[f64]>::to_vec);
        let mut next = || parts.next().unwrap_or_default();
        (next(), next(), next())
    }
}

#[cfg(test)]
mod tests {
    use super::unsupported;

    /// What a batch holds of contact between bodies, and why the rest runs alone.
    #[test]
    fn two_dimensional_pairs_batch_and_the_rest_says_why_not() {
        let model = |name: &str| crate::scene::load(name).unwrap().model;
        let m = model("two_squares");
        assert!(
            m.self_contact.friction > 0.0,
            "friction between the squares"
        );
        assert_eq!(unsupported(&m), None);
        // (3D pairs are watched: crate::ensemble::watch)
        assert_eq!(unsupported(&model("tet_stack")), None);
        let mut big = crate::scene::load_with(
            "square_drop",
            &crate::scene::overrides::Override::parse_all(
                &["bodies[0].cells=[80, 80]".to_string()],
            )
            .unwrap(),
        )
        .unwrap()
        .model;
        let why = unsupported(&big).expect("320 × 320 boundary pairs");
        assert!(why.contains("65536"), "{why}");
        big.self_contact.enabled = false;
        assert_eq!(unsupported(&big), None);
    }
}
