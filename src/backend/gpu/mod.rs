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

pub mod batching;
pub mod buffers;
pub mod context;
pub mod engine;
pub mod kernels;
pub mod layout;
pub mod mas;
pub mod pipelines;
pub mod probes;
pub mod readback;
pub mod setup;
pub mod shaders;
pub mod struct_layout;
mod system;

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
}

impl Default for GpuOptions {
    fn default() -> Self {
        Self {
            max_groups_x: 65535,
            hide_f64: false,
        }
    }
}

/// The wgpu backend.
pub struct GpuBackend {
    model: Model,
    engine: Engine,
    /// E at the current iterate as last evaluated (J).
    current_energy: f64,
    /// (α, ΔE) of the latest line-search trial.
    last_trial: Option<(f64, f64)>,
    /// E after an accepted step, from the trial's ΔE (J), for the next `energy` call.
    pending_energy: Option<f64>,
    /// The CCD bound of the current direction.
    ccd: f64,
    /// (α, ΔE) of the first line-search trial, evaluated with the direction.
    speculative_trial: Option<(f64, f64)>,
    /// CG batch sizes from earlier solves.
    batching: CgBatching,
    /// The kernels of a direction solve with the scene's preconditioner.
    solve: SolveKernels,
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
}

impl SolveKernels {
    fn new(mas: Option<&mas::MasPlan>) -> Self {
        match mas {
            Some(plan) => Self {
                factor: plan.factor(),
                start: plan.cg_start(),
                iteration: plan.cg_iteration(),
                apply: plan.apply(),
                memory_bytes: plan.memory_bytes(),
            },
            None => Self {
                factor: vec![],
                start: kernels::CG_START.to_vec(),
                iteration: kernels::CG_ITERATION.to_vec(),
                apply: vec![],
                memory_bytes: 0,
            },
        }
    }
}

/// Why the GPU backend cannot run `model` faithfully: contact between and within
/// bodies (self-contact) exists on the CPU backend only so far, and a GPU run would
/// let bodies pass through each other. `None` where the model has no collision
/// primitives or self-contact is off.
pub fn self_contact_refusal(model: &Model) -> Option<&'static str> {
    (model.self_contact.enabled && !model.collision.is_empty()).then_some(
        "contact between and within bodies (contact.self_contact = true, the default for mesh bodies) runs on the CPU backend only so far; use --backend cpu, or --set contact.self_contact=false to let bodies pass through each other on the GPU",
    )
}

impl GpuBackend {
    /// Opens the GPU, builds the pipelines and uploads the scene.
    pub fn new(model: Model) -> Result<Self, String> {
        Self::with_options(model, GpuOptions::default())
    }

    /// As [`Self::new`], with options.
    pub fn with_options(model: Model, opts: GpuOptions) -> Result<Self, String> {
        if let Some(why) = self_contact_refusal(&model) {
            return Err(why.to_string());
        }
        let (engine, mas) = setup::open(&model, opts)?;
        Ok(Self {
            solve: SolveKernels::new(mas.as_ref()),
            model,
            engine,
            current_energy: 0.0,
            last_trial: None,
            pending_energy: None,
            ccd: 1.0,
            speculative_trial: None,
            batching: CgBatching::default(),
        })
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
