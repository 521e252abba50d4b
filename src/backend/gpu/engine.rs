//! How the GPU backend talks to wgpu: recording kernels into command encoders,
//! deferring work no decision waits for, submitting, and the blocking reads through
//! fixed staging buffers. It knows buffers and kernels, not the algorithm.

use super::buffers::BufferSet;
use super::context::GpuContext;
use super::kernels::Kernel;
use super::layout::{CgState, Lanes, Layouts};
use super::pipelines::Pipelines;
use super::profiler::Profiler;
use super::readback::map_and_read;
use crate::backend::DeviceCounters;
use crate::precision::RealClass;

pub mod gated;
mod record_times;
mod start_lag;
pub use start_lag::LAG_FOUND;
mod vectors;

pub use record_times::RecordTimes;

/// Bytes of the small staging buffer: two result slots, the CG state and the pair
/// counts (in f64: 2 × 64 + 88 + 12), then the staged energy at [`STAGE_ENERGY`].
pub const STAGING_BYTES: u64 = 512;
/// Offset in staging of result slot 0.
const STAGE_RESULTS: u64 = 0;
/// Offset in staging of the energy a direction's submission also read
/// ([`Engine::stage_energy`]).
const STAGE_ENERGY: u64 = 256;

/// The device, its pipelines and buffers, and the command stream.
pub struct Engine {
    /// The open device.
    pub ctx: GpuContext,
    pub(super) pipes: Pipelines,
    /// Bind group of every kernel the device can bind, by [`Kernel::index`].
    pub(super) groups: Vec<Option<wgpu::BindGroup>>,
    /// The scene's buffers.
    pub buffers: BufferSet<wgpu::Buffer>,
    staging: wgpu::Buffer,
    vec_staging: wgpu::Buffer,
    /// Workgroups of every kind of dispatch.
    pub(super) dispatch: Dispatch,
    /// Contact between and within bodies: the plan of its buffers (None without it).
    pub contact: Option<super::contact::ContactPlan>,
    /// Pairs the broad phase of the last direction check found (0 without contact).
    pub pairs_found: u32,
    /// Pairs with terms that the last assembly read back found (more than the term
    /// slots: it stored none past the last, and the direction must be computed again).
    pub terms_found: u32,
    /// Recorded work not yet submitted (see [`Self::defer`]).
    deferred: Option<wgpu::CommandEncoder>,
    /// The positions (m) the step's last read brought along
    /// ([`Self::submit_and_read`], kept by the device solve where it ended the
    /// step); dropped as soon as anything is recorded or written, which may move x.
    pub end_positions: Option<Vec<f64>>,
    /// Whether the deferred work holds the step start's friction lag, whose pair
    /// list's room no one has checked yet ([`Self::defer_start_lag`]).
    start_lag_owed: bool,
    /// Submissions and blocking reads so far (`memory_bytes` is filled when reported).
    pub traffic: DeviceCounters,
    /// Kernels dispatched so far (copied into `traffic` at each submission).
    dispatches: std::cell::Cell<u64>,
    /// Host time per dispatch of the latest recordings.
    pub record_times: RecordTimes,
    /// Reals in one node vector (`nodes × dim`).
    vector_reals: u64,
    /// The WGSL structs' layouts in the run's precision mode.
    pub layouts: Layouts,
    /// `cg.tol_sq` as last written by [`Self::set_cg_tolerance`] (None: as uploaded).
    cg_tol_sq: Option<f64>,
    /// [`crate::model::Model::error_per_residual`] (m/N), set by the setup, for the
    /// inexact-Newton guard.
    pub error_per_residual: f64,
    /// Why the run cannot go on (room for the contact pairs the device cannot
    /// give), for [`crate::newton::NewtonSystem::failure`].
    pub failure: Option<String>,
    /// Whether staging will hold an energy the next direction check reads too.
    energy_staged: bool,
    /// The energy that check read ([`Self::stage_energy`]), until taken.
    pub staged_energy: Option<Lanes>,
    /// Per-kernel timestamps (`GpuOptions::profile_kernels`), else None.
    pub profiler: Option<Profiler>,
}

/// Workgroups (x, y) of a dispatch of each [`super::kernel_spans::Span`] but the single workgroup.
#[derive(Clone, Copy, Debug)]
pub struct Dispatch {
    /// One thread per node.
    pub nodes: (u32, u32),
    /// One thread per element, max(nodes, springs).
    pub elements: (u32, u32),
    /// One thread per supernode of the multilevel preconditioner's level 1.
    pub supernodes: (u32, u32),
    /// One workgroup per domain of the multilevel preconditioner.
    pub domains: (u32, u32),
    /// 16 threads per supernode of the multilevel preconditioner's level 1.
    pub partial_slots: (u32, u32),
    /// One workgroup per domain of the multilevel preconditioner's level 1.
    pub coarse_domains: (u32, u32),
    /// The V-cycle's fill of a coarse Galerkin matrix (`MasPlan::fill_threads`).
    pub coarse_blocks: (u32, u32),
    /// One thread per slot of the broad phase's arrays (contact pairs).
    pub contact_slots: (u32, u32),
    /// Largest workgroup count along x of one dispatch.
    pub max_x: u32,
}

/// Which staging buffer a read uses.
#[derive(Clone, Copy)]
enum Staging {
    Small,
    Vector,
}

impl Engine {
    /// Binds every kernel of `pipes` to `buffers` and creates the staging buffers;
    /// `vector_reals` is the length of one node vector, the dispatch sizes are (x, y)
    /// workgroups, `layouts` those of the run's precision mode.
    pub fn new(
        ctx: GpuContext,
        pipes: Pipelines,
        buffers: BufferSet<wgpu::Buffer>,
        vector_reals: u64,
        dispatch: Dispatch,
        layouts: Layouts,
    ) -> Self {
        let vector_bytes = 8 * vector_reals;
        let dev = &ctx.device;
        let groups = super::pipelines::bind_groups(dev, &pipes, &buffers);
        let staging = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("staging"),
            size: STAGING_BYTES,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let vec_staging = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("vector staging"),
            size: vector_bytes.max(16),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let profiler = ctx.profile.then(|| Profiler::new(&ctx.queue));
        Self {
            ctx,
            pipes,
            groups,
            buffers,
            staging,
            vec_staging,
            dispatch,
            contact: None,
            pairs_found: 0,
            terms_found: 0,
            cg_tol_sq: None,
            error_per_residual: 0.0,
            failure: None,
            energy_staged: false,
            staged_energy: None,
            profiler,
            deferred: None,
            start_lag_owed: false,
            end_positions: None,
            traffic: DeviceCounters::default(),
            dispatches: std::cell::Cell::new(0),
            record_times: RecordTimes::default(),
            vector_reals,
            layouts,
        }
    }

    /// Bytes of one real of `class` in the run's precision mode.
    pub fn width(&self, class: RealClass) -> u64 {
        self.layouts.precision.bytes(class)
    }

    /// Bytes of one `Lanes`.
    fn lanes_bytes(&self) -> u64 {
        self.layouts.lanes.size as u64
    }

    /// Bytes of device memory held by the buffers and the staging buffers.
    pub fn memory_bytes(&self) -> u64 {
        self.buffers.iter().map(|b| b.size()).sum::<u64>()
            + self.staging.size()
            + self.vec_staging.size()
    }

    /// Records `kernels` in order into one compute pass of `enc` (under the profiler,
    /// each in a timed pass of its own).
    pub fn record(&self, enc: &mut wgpu::CommandEncoder, kernels: &[Kernel]) {
        if let Some(p) = &self.profiler {
            p.reserve(&self.ctx.device, kernels.len());
            for &k in kernels {
                p.record(enc, k, |pass| self.dispatch_one(pass, k));
            }
            return;
        }
        let started = std::time::Instant::now();
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes: None,
            });
            for &k in kernels {
                self.dispatch_one(&mut pass, k);
            }
        }
        self.record_times.push(started.elapsed(), kernels.len());
    }

    /// Binds `k` and dispatches it over its span.
    fn dispatch_one(&self, pass: &mut wgpu::ComputePass<'_>, k: Kernel) {
        pass.set_pipeline(&self.pipes.get(k).pipeline);
        pass.set_bind_group(0, self.groups[k.index()].as_ref(), &[]);
        let (x, y) = self.span_size(k.span());
        pass.dispatch_workgroups(x, y, 1);
        self.dispatches.set(self.dispatches.get() + 1);
    }

    /// The encoder to record into: the deferred one when work is waiting, else a new one.
    pub fn encoder(&mut self) -> wgpu::CommandEncoder {
        self.settle_start_lag();
        self.deferred_encoder()
    }

    /// Records `kernels` for later: they go out with the next submission (work whose
    /// result no decision waits for: step start and end, the Newton update).
    pub fn defer(&mut self, kernels: &[Kernel]) {
        let mut enc = self.deferred_encoder();
        self.record(&mut enc, kernels);
        self.deferred = Some(enc);
    }

    /// Submits deferred work now; needed before a host write that it must not see.
    pub fn flush_deferred(&mut self) {
        self.settle_start_lag();
        if let Some(enc) = self.deferred.take() {
            self.submit(enc);
        }
    }

    /// Submits `enc` to the queue.
    pub fn submit(&mut self, mut enc: wgpu::CommandEncoder) {
        let timed = self.profiler.as_ref().is_some_and(|p| p.resolve(&mut enc));
        self.ctx.queue.submit([enc.finish()]);
        self.traffic.submissions += 1;
        self.traffic.dispatches = self.dispatches.get();
        if let (true, Some(p)) = (timed, &self.profiler) {
            p.collect(|buf, len| map_and_read(&self.ctx.device, buf, len));
        }
    }

    /// Records `kernels` and submits them with whatever was deferred.
    pub fn run(&mut self, kernels: &[Kernel]) {
        let mut enc = self.encoder();
        self.record(&mut enc, kernels);
        self.submit(enc);
    }

    /// Writes `value` at byte `offset` of the CG state (after deferred work that may
    /// read the old value: a queue write lands before the next submission).
    pub fn write_cg_field(&mut self, offset: u64, value: &[u8]) {
        self.flush_deferred();
        self.ctx.queue.write_buffer(&self.buffers.cg, offset, value);
    }

    /// Forgets the tolerance last written: the device wrote its own since.
    pub fn forget_cg_tolerance(&mut self) {
        self.cg_tol_sq = None;
    }

    /// Sets the relative CG tolerance η of the next solves (`cg.tol_sq = η²`); a
    /// queue write before the next submission, only when the value changes.
    pub fn set_cg_tolerance(&mut self, eta: f64) {
        let sq = eta * eta;
        if self.cg_tol_sq == Some(sq) {
            return;
        }
        self.cg_tol_sq = Some(sq);
        let offset = self.layouts.cg_state.offset("tol_sq");
        let bytes = self.layouts.real_bytes(sq);
        self.write_cg_field(offset, &bytes);
    }

    /// Writes `bytes` into the uniform block at byte `offset` before the next
    /// submission (deferred work first: it must not see them).
    pub fn write_params(&mut self, offset: u64, bytes: &[u8]) {
        self.flush_deferred();
        self.ctx
            .queue
            .write_buffer(&self.buffers.params, offset, bytes);
    }

    /// Reads `len` bytes of a staging buffer (a blocking read).
    fn read_staging(&mut self, which: Staging, len: u64) -> Vec<u8> {
        let buf = match which {
            Staging::Small => &self.staging,
            Staging::Vector => &self.vec_staging,
        };
        let out = map_and_read(&self.ctx.device, buf, len);
        self.traffic.readbacks += 1;
        out
    }

    /// Records `kernels` (which end in a reduction into result slot 0), submits, and
    /// reads slot 0 back.
    pub fn reduce(&mut self, kernels: &[Kernel]) -> Lanes {
        self.reduce_all(&[kernels])[0]
    }

    /// Records each list of `lists` (each ending in a reduction into slot 0) in one
    /// submission and reads every result in one read (at most four: they share the
    /// staging buffer's first 256 bytes in f64).
    pub fn reduce_all(&mut self, lists: &[&[Kernel]]) -> Vec<Lanes> {
        let s = self.lanes_bytes();
        assert!(
            lists.len() as u64 * s <= STAGE_ENERGY,
            "staging holds four results"
        );
        let mut enc = self.encoder();
        for (k, list) in lists.iter().enumerate() {
            self.record(&mut enc, list);
            let at = STAGE_RESULTS + k as u64 * s;
            enc.copy_buffer_to_buffer(&self.buffers.results, 0, &self.staging, at, s);
        }
        self.submit(enc);
        let bytes = self.read_staging(Staging::Small, STAGE_RESULTS + lists.len() as u64 * s);
        (0..lists.len())
            .map(|k| {
                self.layouts
                    .decode_lanes(&bytes, (STAGE_RESULTS + k as u64 * s) as usize)
            })
            .collect()
    }

    /// Records `kernels` (E at x, reduced into result slot 0) and its copy to staging
    /// for later: the next direction check's submission runs them first and its read
    /// takes the energy too ([`Self::staged_energy`]); one read for both.
    pub fn stage_energy(&mut self, kernels: &[Kernel]) {
        let mut enc = self.encoder();
        self.record(&mut enc, kernels);
        let lanes = self.lanes_bytes();
        enc.copy_buffer_to_buffer(&self.buffers.results, 0, &self.staging, STAGE_ENERGY, lanes);
        self.deferred = Some(enc);
        self.energy_staged = true;
    }

    /// Submits `enc` after copying both result slots and the CG state to staging, then
    /// reads them back: (result slot 0, result slot 1, CG state).
    pub fn finish_direction(&mut self, mut enc: wgpu::CommandEncoder) -> (Lanes, Lanes, CgState) {
        // result slot 0, result slot 1 (the first line-search trial), the CG state
        let lanes = self.lanes_bytes();
        let (trial, cg) = (STAGE_RESULTS + lanes, STAGE_RESULTS + 2 * lanes);
        let cg_bytes = self.layouts.cg_state.size as u64;
        let results = &self.buffers.results;
        enc.copy_buffer_to_buffer(results, 0, &self.staging, STAGE_RESULTS, 2 * lanes);
        enc.copy_buffer_to_buffer(&self.buffers.cg, 0, &self.staging, cg, cg_bytes);
        // the pairs the broad phase found (pairs[1]) and the pairs with terms the
        // last assembly found (contact_grid[HDR_TERMS_USED]), after the CG state
        let found = (cg + cg_bytes).next_multiple_of(4);
        let end = if self.contact.is_some() {
            enc.copy_buffer_to_buffer(&self.buffers.pairs, 0, &self.staging, found, 8);
            let used = 4 * super::contact::GRID_TERMS_USED;
            enc.copy_buffer_to_buffer(
                &self.buffers.contact_grid,
                used,
                &self.staging,
                found + 8,
                4,
            );
            found + 12
        } else {
            cg + cg_bytes
        };
        self.submit(enc);
        let staged = std::mem::take(&mut self.energy_staged);
        let end = if staged { STAGE_ENERGY + lanes } else { end };
        let bytes = self.read_staging(Staging::Small, end);
        if staged {
            self.staged_energy = Some(self.layouts.decode_lanes(&bytes, STAGE_ENERGY as usize));
        }
        if self.contact.is_some() {
            let word =
                |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
            self.pairs_found = word(found as usize + 4);
            self.terms_found = word(found as usize + 8);
        }
        (
            self.layouts.decode_lanes(&bytes, STAGE_RESULTS as usize),
            self.layouts.decode_lanes(&bytes, trial as usize),
            self.layouts.decode_cg(&bytes, cg as usize),
        )
    }
}
