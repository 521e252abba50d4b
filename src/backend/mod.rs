//! Backends: who evaluates the energies and solves the Newton systems. Both take
//! their decisions from the shared driver in [`crate::newton`].

pub mod cpu;
pub mod gpu;
pub mod probe;

pub use probe::Probe;

use crate::newton::NewtonSystem;
use serde::Serialize;

/// Energies and distances of the current state, for per-step statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Diagnostics {
    /// `½ Σ m |v|²` (J).
    pub kinetic: f64,
    /// `−Σ m g·x` (J).
    pub gravity: f64,
    /// Spring energy (J).
    pub elastic: f64,
    /// Barrier energy (walls and contact pairs), without the h² factor (J).
    pub barrier: f64,
    /// Smallest signed distance of any node to any wall (m); `+∞` without walls.
    pub min_wall_distance: f64,
    /// Contact pairs between collision primitives within d̂ (active barriers).
    pub contact_pairs: u64,
    /// Smallest distance between two collision primitives that may collide, among
    /// the pairs within d̂ (m); `+∞` where none is.
    pub min_pair_distance: f64,
    /// Friction contacts (node–wall pairs with lagged λ > 0) whose tangential
    /// displacement over the last step was below ε_v h.
    pub sticking: u64,
    /// Friction contacts whose tangential displacement over the last step was ≥ ε_v h.
    pub sliding: u64,
    /// Friction dissipation of the last step, `Σ μ λ |u|` (J).
    pub dissipation: f64,
}

impl Diagnostics {
    /// The total energy `kinetic + gravity + elastic + barrier` (J).
    pub fn total(&self) -> f64 {
        self.kinetic + self.gravity + self.elastic + self.barrier
    }
}

/// Host–device traffic and device memory of a backend (zero on the CPU).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DeviceCounters {
    /// Command submissions to the device queue.
    pub submissions: u64,
    /// Blocking reads from the device (each a full synchronisation).
    pub readbacks: u64,
    /// Kernels dispatched (each a dependent phase: a barrier follows it).
    pub dispatches: u64,
    /// CG iterations recorded, those a batch ran past its solve's end included
    /// (their kernels return at once: empty dispatches).
    pub cg_iterations_recorded: u64,
    /// CG iterations the solves took (the device's count, recomputed directions
    /// included).
    pub cg_iterations_done: u64,
    /// Dispatches inside the recorded CG iterations.
    pub cg_dispatches: u64,
    /// Median host time to record one dispatch (ns) over the latest recordings; 0
    /// where none was timed.
    pub record_ns_per_dispatch: u64,
    /// Bytes of device memory the scene's buffers hold.
    pub memory_bytes: u64,
}

impl DeviceCounters {
    /// What was counted since `earlier` (the same backend's counters then); the
    /// recording median and the memory are the latest.
    pub fn since(&self, earlier: &DeviceCounters) -> DeviceCounters {
        DeviceCounters {
            submissions: self.submissions - earlier.submissions,
            readbacks: self.readbacks - earlier.readbacks,
            dispatches: self.dispatches - earlier.dispatches,
            cg_iterations_recorded: self.cg_iterations_recorded - earlier.cg_iterations_recorded,
            cg_iterations_done: self.cg_iterations_done - earlier.cg_iterations_done,
            cg_dispatches: self.cg_dispatches - earlier.cg_dispatches,
            ..*self
        }
    }
}

/// What building the preconditioner has cost so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PreconditionerStats {
    /// Seconds spent building it (factorisations), all steps together.
    pub setup_seconds: f64,
    /// Bytes it holds beyond the Newton node blocks.
    pub memory_bytes: u64,
    /// Times the multilevel preconditioner was factored (0 for block-Jacobi, whose
    /// inverses come with every assembly).
    pub factorisations: u64,
}

/// What contact between and within bodies has cost so far (zero where it is off).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct ContactStats {
    /// Seconds in the broad phase (static and swept).
    pub broad_phase_seconds: f64,
    /// Seconds evaluating pairs: distances, barrier and friction terms, energies.
    pub pair_seconds: f64,
    /// Seconds in the pairs' continuous collision detection.
    pub ccd_seconds: f64,
    /// Broad phases run.
    pub broad_phases: u64,
    /// Candidate pairs found, summed over the broad phases.
    pub candidate_pairs: u64,
    /// Active pairs (d < d̂) assembled, summed over the Newton iterations.
    pub active_pairs: u64,
    /// Newton assemblies (Newton iterations, plus recomputed directions).
    pub assemblies: u64,
    /// Pairs excluded for good as mesh neighbours below the contact scale.
    pub excluded_pairs: u64,
    /// GPU: times the pair list grew to hold what a broad phase found (0 on the CPU).
    #[serde(default)]
    pub list_growths: u64,
    /// GPU: times the term slots grew to hold the active pairs an assembly found
    /// (each computes that direction again; 0 on the CPU).
    #[serde(default)]
    pub term_growths: u64,
    /// GPU: pairs the list holds and active pairs the term slots hold, at the end
    /// (0 on the CPU).
    #[serde(default)]
    pub list_capacity: u64,
    #[serde(default)]
    pub term_slots: u64,
}

/// Where the drive stage put the walls within a step that has begun (what
/// [`crate::backend::Backend::set_walls`] takes), in the model's order.
#[derive(Clone, Copy, Debug)]
pub struct WallState<'a> {
    /// The plane walls.
    pub planes: &'a [crate::wall::PlaneWall],
    /// How far (m, `planes × dim`) each plane wall moved since the step's start:
    /// friction's slip against it is measured relative to it.
    pub shift: &'a [f64],
    /// Where each implicit wall stands ([`crate::implicit::Frame`]).
    pub frames: &'a [crate::implicit::Frame],
    /// How each implicit wall's points moved since the step's start (the same for
    /// friction's slip).
    pub carry: &'a [crate::implicit::Carry],
}

/// A simulator backend: the Newton system of the current step plus the step bookkeeping
/// (`Send`: a large CPU model's step runs on a worker of the thread pool,
/// [`crate::parallel::in_pool`]).
pub trait Backend: NewtonSystem + Send {
    /// Short name: `cpu` or `gpu`.
    fn name(&self) -> &'static str;
    /// The device it runs on, in words (adapter name, or CPU model and thread count).
    fn device(&self) -> String;
    /// The GPU's precision mode; `None` on the CPU backend (f64 throughout).
    fn gpu_precision(&self) -> Option<crate::precision::GpuPrecision> {
        None
    }
    /// The precision of the run's arithmetic by name: `f64` on the CPU, the GPU's mode.
    fn precision_name(&self) -> &'static str {
        self.gpu_precision().map_or("f64", |p| p.name())
    }
    /// One Newton solve of the current step ([`crate::newton::solve`], whose
    /// decisions a backend may take where its answers are: the GPU's on the device).
    fn solve(
        &mut self,
        params: &crate::model::SolverParams,
    ) -> Result<crate::newton::NewtonStats, crate::newton::NewtonError> {
        crate::newton::solve(self, params)
    }
    /// Starts a time step: stores `xⁿ` and the integrator's prediction.
    fn begin_step(&mut self);
    /// Ends a time step: velocity (and acceleration) update from the accepted `xⁿ⁺¹`.
    fn end_step(&mut self);
    /// Node positions (m), `nodes × dim`.
    fn positions(&mut self) -> Vec<f64>;
    /// Tells the backend that its caller reads [`Self::positions`] after every step
    /// (the intersection checker): one that can brings them with the step's own
    /// read (the GPU's device solve), instead of a read of their own.
    fn keep_end_positions(&mut self, keep: bool) {
        let _ = keep;
    }
    /// Node velocities (m/s), `nodes × dim`.
    fn velocities(&mut self) -> Vec<f64>;
    /// Energies and wall distance of the current state.
    fn diagnostics(&mut self) -> Diagnostics;
    /// Replaces the node velocities (m/s, `nodes × dim`) at a step's end, positions
    /// unchanged: the restitution law's correction ([`crate::rebound`]) before the
    /// next step predicts from them. Implicit Euler only (Newmark's acceleration
    /// would no longer match). `Err` where the backend cannot.
    fn set_velocities(&mut self, v: &[f64]) -> Result<(), String> {
        let _ = v;
        Err(format!(
            "the {} backend cannot set velocities between steps",
            self.name()
        ))
    }
    /// Moves the current iterate to `x` (m, `nodes × dim`) within a step that has
    /// begun, the step's start xⁿ unchanged (`start`: xⁿ as [`Self::positions`] read
    /// it, so that a device need not read it again): the drive stage's move of the
    /// driven nodes ([`crate::drive`]) before the solve. `Err` where the backend cannot.
    fn set_iterate(&mut self, start: &[f64], x: &[f64]) -> Result<(), String> {
        let _ = (start, x);
        Err(format!(
            "the {} backend cannot move nodes within a step (driven nodes run on the cpu and gpu backends)",
            self.name()
        ))
    }
    /// Puts the walls where the drive stage moved them within a step that has begun
    /// (plane walls and how far each moved since the step's start, implicit walls'
    /// frames and how their points moved: what friction's slip is measured against).
    /// `Err` where the backend cannot.
    fn set_walls(&mut self, walls: &WallState<'_>) -> Result<(), String> {
        let _ = walls;
        Err(format!(
            "the {} backend cannot move walls (moving walls run on the cpu and gpu backends)",
            self.name()
        ))
    }
    /// Recomputes the lagged friction normal forces λ and tangent bases at the
    /// current iterate (the slip stays measured from `xⁿ`) and returns the largest
    /// change of any λ (N); 0 where there is no friction.
    fn update_friction_lag(&mut self) -> f64 {
        0.0
    }
    /// What the preconditioner has cost so far (zero where it is built within the
    /// assembly, as block-Jacobi is).
    fn preconditioner_stats(&self) -> PreconditionerStats {
        PreconditionerStats::default()
    }
    /// What contact between and within bodies has cost so far.
    fn contact_stats(&self) -> ContactStats {
        ContactStats::default()
    }
    /// The preconditioner the backend chose itself, where it resolves `auto` by its
    /// device (the GPU, [`gpu::auto_choice::gpu_preconditioner`]); `None` where the
    /// scene's rule names it ([`crate::linear_solver::PreconditionerKind::resolve`]).
    fn preconditioner(&self) -> Option<crate::linear_solver::PreconditionerKind> {
        None
    }
    /// Whether the Newton directions are solved by a sparse factorisation (the CPU's
    /// `direct`, named or picked by `--linear-solver auto`) rather than by PCG.
    fn solves_directly(&self) -> bool {
        false
    }
    /// Whether `--linear-solver auto` switches between PCG and the factorisation
    /// step by step (the CPU's [`cpu::auto_solver`]).
    fn switches_solver(&self) -> bool {
        false
    }
    /// Newton directions solved by a factorisation so far.
    fn direct_solves(&self) -> u64 {
        0
    }
    /// Host–device traffic so far (zero for backends without a device).
    fn counters(&self) -> DeviceCounters {
        DeviceCounters::default()
    }
    /// GPU time per kernel so far, where the device profiles its kernels (empty
    /// elsewhere; `GpuOptions::profile_kernels`).
    fn kernel_times(&self) -> Vec<gpu::profiler::KernelTime> {
        Vec::new()
    }
    /// Where the step that just failed can go on on another backend (a batch's
    /// variant whose surfaces may come near: `crate::ensemble::watch`), that backend
    /// at the failed step's start, and why it took over; `None` elsewhere.
    fn handover(&mut self) -> Option<Result<Handover, String>> {
        None
    }
}

/// A backend that takes over a run at the start of a failed step, and why it does
/// ([`Backend::handover`]).
pub type Handover = (Box<dyn Backend>, String);
