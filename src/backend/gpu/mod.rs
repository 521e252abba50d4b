//! The GPU backend (WGSL through wgpu, in f32, f64 or mixed precision): the same algorithm as the CPU reference,
//! with its state on the device and the Newton driver of [`crate::newton`] taking the
//! decisions. PCG runs entirely on the GPU in batches of iterations; the host reads
//! only what a decision needs (the CG flags and, in the same readback, the Newton
//! stopping measure and CCD bound; the energy change of each line-search trial).
//!
//! By role: [`context`] opens the device, [`shaders`] and [`pipelines`] compose and
//! build the kernels named by [`kernels::Kernel`], [`buffers`] names the device
//! buffers, [`layout`] holds the Rust twins of the WGSL structs, [`setup`] uploads a
//! scene, [`engine`] records, submits and reads back, [`readback`] decodes what comes
//! back, [`batching`] chooses CG batch sizes, `system` is the Newton system and
//! [`probes`] the test access shared with the CPU backend.

pub mod auto_choice;
pub mod bandwidth;
pub mod batching;
pub mod buffers;
pub mod calibrate;
pub mod contact;
pub mod context;
pub mod cost_model;
pub mod device_newton;
pub mod engine;
pub mod kernel_lists;
mod kernel_names;
pub mod kernel_spans;
pub mod kernels;
pub mod layout;
pub mod mas;
pub mod mas_cycle;
mod pair_buffers;
mod pair_friction;
pub mod pipelines;
pub mod probes;
pub mod profiler;
pub mod profiles;
pub mod readback;
pub mod setup;
pub mod shaders;
pub mod shared_device;
pub mod struct_layout;
mod system;
pub use system::loose_error_bound;
pub mod trials;

use crate::model::Model;
use batching::CgBatching;
use context::describe;
use engine::Engine;

/// Options of the GPU backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuOptions {
    /// Largest workgroup count along x of one dispatch; beyond it the dispatch uses a
    /// second dimension. wgpu's limit is 65535; tests lower it to exercise the 2D path.
    pub max_groups_x: u32,
    /// Treat the adapter as having no f64 shaders (tests of the refusal and of
    /// `auto`'s fallback; also [`context::HIDE_F64_ENV`]).
    pub hide_f64: bool,
    /// Pairs the contact pair list holds at first (`None`: a size from the mesh);
    /// tests start tiny to exercise the grow-and-rerun path.
    pub pair_capacity: Option<u32>,
    /// CG iterations per batch between two checks of the CG flags (`None`: chosen
    /// from earlier solves, [`CgBatching`]); tests use 1 to put a direction check
    /// after every iteration.
    pub cg_batch: Option<u32>,
    /// The most bytes one contact pair buffer may grow to (`None`: the device's
    /// limit); tests lower it to reach the limit.
    pub max_pair_bytes: Option<u64>,
    /// Time every kernel with timestamp queries ([`profiler::Profiler`]; `bench
    /// --profile-kernels`): an error on an adapter without them.
    pub profile_kernels: bool,
    /// The CG iteration's form: fused (three dispatches for block-Jacobi) or split
    /// (five); `None`: fused while the partials are few
    /// ([`kernel_lists::fused_cg`]). Both give the same bits; tests compare them.
    pub fused_cg: Option<bool>,
    /// Decide the Newton solves on the device where it can
    /// ([`device_newton`]: one submission and one read per solve); false: every
    /// decision on the host, between submissions ([`crate::newton::solve`]).
    pub device_newton: bool,
}

impl Default for GpuOptions {
    fn default() -> Self {
        Self {
            max_groups_x: 65535,
            hide_f64: false,
            pair_capacity: None,
            cg_batch: None,
            max_pair_bytes: None,
            profile_kernels: false,
            fused_cg: None,
            device_newton: std::env::var(NEWTON_ENV).map_or(true, |v| v != "host"),
        }
    }
}

/// The environment variable that, set to `host`, takes every Newton decision on the
/// host ([`GpuOptions::device_newton`] false): for comparisons and measurements.
pub const NEWTON_ENV: &str = "SPRINGSIM_NEWTON";

/// The wgpu backend.
pub struct GpuBackend {
    model: Model,
    engine: Engine,
    /// E at the current iterate as last evaluated (J).
    current_energy: f64,
    /// The line search's trials of the current direction.
    trials: trials::Trials,
    /// E after an accepted step, from the trial's ΔE (J), for the next `energy` call.
    pending_energy: Option<f64>,
    /// The CCD bound of the current direction.
    ccd: f64,
    /// CG batch sizes from earlier solves.
    batching: CgBatching,
    /// When the multilevel preconditioner factors ([`crate::mas::reuse`]).
    mas_reuse: crate::mas::reuse::Reuse,
    /// The kernels of a direction solve with the scene's preconditioner.
    solve: SolveKernels,
    /// Whether solves may be decided on the device ([`GpuOptions::device_newton`]).
    device_newton: bool,
    /// What the device solves plan from earlier steps.
    device_plan: device_newton::DevicePlan,
    /// The diagnostics where the step's last solve, decided on the device, also ran
    /// the step's end and read them ([`device_newton`]).
    ended: Option<crate::backend::Diagnostics>,
    /// Held while the backend lives (a batch's turn to run alone: [`Self::holding`]).
    lease: Option<Box<dyn Send>>,
}

/// The kernel sequences of a direction solve: block-Jacobi (formed by the assembly)
/// or the multilevel preconditioner ([`mas::MasPlan`]).
struct SolveKernels {
    /// Run after the assembly: the preconditioner's factorisation.
    factor: Vec<kernels::Kernel>,
    /// The start of CG.
    start: Vec<kernels::Kernel>,
    /// One CG iteration.
    iteration: Vec<kernels::Kernel>,
    /// One application of the multilevel preconditioner (probes).
    apply: Vec<kernels::Kernel>,
    /// Bytes the multilevel preconditioner holds (0 for block-Jacobi).
    memory_bytes: u64,
    /// Which preconditioner these sequences apply.
    kind: crate::linear_solver::PreconditionerKind,
    /// The Newton system at the current iterate.
    assemble: Vec<kernels::Kernel>,
    /// The direction's statistics and the first line-search trial.
    direction_check: Vec<kernels::Kernel>,
    /// The direction's statistics alone (probes).
    direction_stats: Vec<kernels::Kernel>,
    /// E and the diagnostics at x.
    energy_total: Vec<kernels::Kernel>,
    /// E(x + α p) − E(x).
    energy_change: Vec<kernels::Kernel>,
    /// `H d` and `dᵀ H d` (probes).
    matvec: Vec<kernels::Kernel>,
}

impl SolveKernels {
    /// The sequences with the scene's preconditioner, and with the kernels of
    /// contact pairs where `contact` is set ([`kernel_lists::with_contact`]).
    /// `fused` picks the CG iteration's form ([`kernel_lists::fused_cg`]).
    fn new(mas: Option<&mas::MasPlan>, contact: bool, fused: bool, linear_bytes: u64) -> Self {
        let kind = match mas {
            Some(plan) if plan.cycle => crate::linear_solver::PreconditionerKind::Multigrid,
            Some(_) => crate::linear_solver::PreconditionerKind::Mas,
            None => crate::linear_solver::PreconditionerKind::BlockJacobi,
        };
        let (factor, start, iteration, apply, memory_bytes) = match mas {
            Some(plan) => (
                plan.factor(),
                plan.cg_start(),
                plan.cg_iteration(fused),
                plan.apply(),
                plan.memory_bytes(linear_bytes),
            ),
            None => (
                vec![],
                kernel_lists::CG_START.to_vec(),
                kernel_lists::cg_iteration(fused),
                vec![],
                0,
            ),
        };
        let list = |l: &[kernels::Kernel]| match contact {
            true => kernel_lists::with_contact(l),
            false => l.to_vec(),
        };
        Self {
            factor,
            start,
            iteration: list(&iteration),
            apply,
            memory_bytes,
            kind,
            assemble: list(&kernel_lists::ASSEMBLE),
            direction_check: list(&kernel_lists::DIRECTION_CHECK),
            direction_stats: list(&kernel_lists::DIRECTION_STATS),
            energy_total: list(&kernel_lists::ENERGY_TOTAL),
            energy_change: list(&kernel_lists::ENERGY_CHANGE),
            matvec: list(&kernel_lists::MATVEC),
        }
    }
}

impl GpuBackend {
    /// Opens the GPU, builds the pipelines and uploads the scene.
    pub fn new(model: Model) -> Result<Self, String> {
        Self::with_options(model, GpuOptions::default())
    }

    /// As [`Self::new`], with options.
    pub fn with_options(model: Model, opts: GpuOptions) -> Result<Self, String> {
        let (engine, mas) = setup::open(&model, opts)?;
        let contact = engine.contact.is_some();
        let (gx, gy) = engine.dispatch.nodes;
        let fused = opts.fused_cg.unwrap_or(kernel_lists::fused_cg(gx * gy));
        // A V-cycle's smoothers must match H: its factors are not kept (the CPU's
        // multiplicative cycle with stale factors took 30× the CG iterations).
        let mas_reuse = crate::mas::reuse::Reuse::new(
            model.solver.mas_reuse && mas.as_ref().is_some_and(|m| !m.cycle),
        );
        let mut gpu = Self {
            mas_reuse,
            solve: SolveKernels::new(
                mas.as_ref(),
                contact,
                fused,
                engine
                    .ctx
                    .precision
                    .bytes(crate::precision::RealClass::Linear),
            ),
            model,
            engine,
            current_energy: 0.0,
            trials: Default::default(),
            pending_energy: None,
            ccd: 1.0,
            batching: CgBatching::fixed(opts.cg_batch),
            device_newton: opts.device_newton,
            device_plan: Default::default(),
            ended: None,
            lease: None,
        };
        gpu.rebuild_pairs();
        Ok(gpu)
    }

    /// Puts the state at the start of a step: positions x (m), velocities v (m/s)
    /// and accelerations a (m/s², Newmark's), `nodes × dim` each; the contact pairs
    /// are found again there. (A variant leaving its batch goes on from its state.)
    pub fn set_state(&mut self, x: &[f64], v: &[f64], a: &[f64]) {
        use crate::precision::RealClass::State;
        self.engine.write_vector(|b| &b.x, State, 0, x);
        self.engine.write_vector(|b| &b.anchors, State, 0, x);
        self.engine.write_vector(|b| &b.v, State, 0, v);
        self.engine.write_vector(|b| &b.acc, State, 0, a);
        self.rebuild_pairs();
    }

    /// Moves the iterate to `x` (m) within a begun step whose start the device holds
    /// as `xn` (the positions read at the step's start: StepBegin copies x there):
    /// x, and x − xⁿ; the contact pairs are found again there.
    pub fn move_iterate(&mut self, xn: &[f64], x: &[f64]) {
        use crate::precision::RealClass::State;
        let dx: Vec<f64> = x.iter().zip(xn).map(|(a, b)| a - b).collect();
        self.engine.write_vector(|b| &b.x, State, 0, x);
        self.engine.write_vector(|b| &b.anchors, State, 2, &dx);
        self.rebuild_pairs();
    }

    /// Puts the walls where the drive stage moved them within a begun step: the
    /// uniform's `walls`, `wall_shift`, `implicit_frames` and `implicit_carry`, one
    /// queue write.
    pub fn move_walls(&mut self, state: &crate::backend::WallState<'_>) {
        use layout::MAX_WALLS;
        let dim = self.model.dim;
        let mut planes = [[0.0; 4]; 2 * MAX_WALLS];
        let mut shifts = [[0.0; 4]; MAX_WALLS];
        for (w, wall) in state.planes.iter().enumerate() {
            for k in 0..dim {
                planes[2 * w][k] = wall.normal[k];
                planes[2 * w + 1][k] = wall.origin[k];
                shifts[w][k] = state.shift[w * dim + k];
            }
        }
        self.model.walls.clone_from_slice(state.planes);
        for (w, f) in self.model.implicit_walls.iter_mut().zip(state.frames) {
            w.frame = (*f != crate::implicit::Frame::IDENTITY).then_some(*f);
        }
        let l = &self.engine.layouts.params;
        // walls, wall_shift, implicit_frames, implicit_carry, then friction_mu in the
        // uniform block
        let (from, end) = (l.offset("walls"), l.offset("friction_mu"));
        let mut bytes = vec![0u8; l.size as usize];
        l.put(&mut bytes, 0, "walls", &planes.concat());
        l.put(&mut bytes, 0, "wall_shift", &shifts.concat());
        let frames = layout::frame_rows(state.frames);
        l.put(&mut bytes, 0, "implicit_frames", &frames.concat().concat());
        let carry = layout::carry_rows(state.carry);
        l.put(&mut bytes, 0, "implicit_carry", &carry.concat().concat());
        self.engine
            .write_params(from, &bytes[from as usize..end as usize]);
    }

    /// This backend, holding `lease` until it is dropped.
    pub fn holding(mut self, lease: Box<dyn Send>) -> Self {
        self.lease = Some(lease);
        self
    }

    /// The model this backend simulates.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The adapter in one line (name, backend API, device type, driver).
    pub fn adapter(&self) -> String {
        describe(&self.engine.ctx.info)
    }

    /// Whether the adapter is a software device on the CPU (lavapipe and the like).
    pub fn is_software(&self) -> bool {
        self.engine.ctx.is_software()
    }

    /// Whether the device runs with wgpu's default limits (true up to about 4M nodes
    /// in 2D; larger scenes ask for the adapter's limits).
    pub fn uses_default_limits(&self) -> bool {
        self.engine.ctx.uses_default_limits()
    }

    /// Bytes of device memory held by the scene's buffers.
    pub fn memory_bytes(&self) -> u64 {
        self.engine.memory_bytes()
    }

    /// Whether some wall has friction (the friction kernels have work).
    fn has_friction(&self) -> bool {
        self.model.friction.any()
    }

    /// The precision mode the kernels run in.
    pub fn precision(&self) -> crate::precision::GpuPrecision {
        self.engine.ctx.precision
    }

    /// Whether the adapter has f64 shaders (as the run saw it).
    pub fn has_f64(&self) -> bool {
        self.engine.ctx.has_f64
    }

    /// A one-line note where `solver.precision = "auto"` fell back to f32 because the
    /// adapter has no f64 shaders; `None` otherwise.
    pub fn precision_note(&self) -> Option<String> {
        (self.model.solver.precision == crate::precision::PrecisionChoice::Auto
            && !self.has_f64())
        .then(|| {
            format!(
                "note: the GPU runs in f32: adapter {} has no f64 shaders (solver.precision = \"auto\")",
                self.adapter()
            )
        })
    }

    /// Writes the line-search / advance step fraction α for the kernels.
    fn set_step_alpha(&mut self, alpha: f64) {
        let offset = self.engine.layouts.cg_state.offset("ls_alpha");
        let bytes = self.engine.layouts.real_bytes(alpha);
        self.engine.write_cg_field(offset, &bytes);
    }
}
