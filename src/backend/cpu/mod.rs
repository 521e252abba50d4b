//! The CPU reference backend (f64): the executable spec the GPU backend mirrors.
//!
//! The Hessian is never assembled as a sparse matrix. Per Newton iteration each
//! spring's PSD-projected `d × d` block and each node's diagonal block (mass plus
//! barrier) are computed once; the CG mat-vec gathers them per node over the
//! node → springs adjacency, exactly as the WGSL kernels do. Large meshes are
//! processed in parallel with a deterministic chunking ([`crate::parallel`]).
//!
//! One file per WGSL kernel file: `src/backend/cpu/X.rs` is the twin of
//! `shaders/kernels/X.wgsl` (assemble, energy, friction, direction_stats, step,
//! newton_matvec, cg); the per-node contact layer is [`crate::contact`], twin of
//! `shaders/contact.wgsl`. `line_search.wgsl` and `reduce_final.wgsl` have no CPU
//! twin: the CPU's line search is the generic one of [`crate::newton`] and its
//! reductions are [`crate::parallel`]'s. State names follow the WGSL ones (`r`,
//! `newton_blocks`, `preconditioner_blocks`, `friction_slots`, `potential_weight`).

use super::{Backend, Diagnostics, PreconditionerStats};
use crate::integrator;
use crate::linear_solver::PreconditionerKind;
use crate::model::Model;
use crate::newton::{CgTolerance, Direction, NewtonSystem};
use crate::pcg::{PcgResult, PcgWork};
use crate::potential::Adjacency;

mod assemble;
pub mod auto_solver;
mod cg;
mod contact_lists;
mod device_name;
mod direct;
pub mod direct_cost;
mod direction_stats;
pub use device_name::cpu_model_name;
mod energy;
mod friction;
mod newton_matvec;
mod probes;
mod self_contact;
pub use self_contact::{CCD_KEEP, CCD_MAX_ITERATIONS};
mod self_friction;
mod step;
pub mod switching;

pub use crate::linear_solver::LinearSolver;

/// The CPU backend: state, scratch and the per-iteration Hessian blocks.
pub struct CpuBackend {
    model: Model,
    /// `c h²` (s²), the factor in front of the potentials.
    potential_weight: f64,
    adj_offsets: Vec<u32>,
    adj_springs: Vec<u32>,
    /// The other end of each adjacency entry's spring.
    adj_nodes: Vec<u32>,
    x: Vec<f64>,
    xn: Vec<f64>,
    x_pred: Vec<f64>,
    v: Vec<f64>,
    acc: Vec<f64>,
    p: Vec<f64>,
    trial: Vec<f64>,
    /// The Newton right-hand side `−∇E` (the CG residual's start), `nodes × dim`.
    r: Vec<f64>,
    spring_grad: Vec<f64>,
    spring_hess: Vec<f64>,
    /// Per node `m I + c h²` (barrier + friction Hessians), `nodes × dim²`.
    newton_blocks: Vec<f64>,
    /// Block-Jacobi preconditioner: inverse diagonal blocks of H, `nodes × dim²`.
    preconditioner_blocks: Vec<f64>,
    work: PcgWork,
    current_energy: f64,
    last_pcg: Option<PcgResult>,
    /// The solver of the current direction: `Pcg` or `Direct`, never `Auto`.
    linear_solver: LinearSolver,
    /// `--linear-solver auto`'s switching between the two, where it switches.
    switching: Option<switching::SwitchingSolver>,
    /// Newton directions solved by the factorisation so far.
    direct_solves: u64,
    /// Symbolic analyses (ordering and pattern) the factorisation made so far: one
    /// at its first solve and one wherever the contact pairs changed since the last.
    direct_analyses: u64,
    direct: Option<direct::DirectSolver>,
    /// The multilevel preconditioner, when `solver.preconditioner` is (or `auto`
    /// resolves to) `mas` or `multigrid`.
    mas: Option<crate::mas::Mas>,
    /// Whether the multilevel levels are applied as a V-cycle (`multigrid`, named or
    /// taken by `auto`) rather than additively.
    vcycle: bool,
    /// Seconds spent building preconditioners so far.
    preconditioner_seconds: f64,
    /// Walls (plane, then implicit) per node in the friction arrays; 0 without friction.
    friction_slots: usize,
    /// How far (m) each plane wall has moved since the step's start, `walls × dim`
    /// (moving walls, [`crate::drive`]): friction's slip is measured against it.
    wall_shift: Vec<f64>,
    /// How each implicit wall's points moved since the step's start (moving implicit
    /// walls; empty where none moved): friction's slip against it is relative to it.
    implicit_carry: Vec<crate::implicit::Carry>,
    /// Lagged normal force λ (N) per node and wall, from the start of the step.
    friction_lambda: Vec<f64>,
    /// Lagged unit normal per node and wall (`dim` components each).
    friction_normal: Vec<f64>,
    /// Friction smoothing length `ε_v h` (m).
    friction_eps: f64,
    /// [`Model::error_per_residual`] (m/N), for [`Direction::error_bound`].
    per_residual: f64,
    /// Contact between and within bodies: pair lists, pair blocks, lagged friction.
    contact: self_contact::SelfContact,
    /// When the multilevel preconditioner factors ([`crate::mas::reuse`]).
    mas_reuse: crate::mas::reuse::Reuse,
}

impl CpuBackend {
    /// Sets up the backend at the model's initial state.
    pub fn new(model: Model) -> Self {
        let dim = model.dim;
        assert!(dim == 2 || dim == 3, "dimension must be 2 or 3");
        let n = model.num_nodes();
        let ns = model.springs.len();
        let (adj_offsets, adj_springs) = model.node_springs();
        let preconditioner = model.solver.preconditioner.resolve(n, dim, false);
        let adj_nodes = crate::mas::other_ends(&model.springs, &adj_offsets, &adj_springs);
        let h = model.solver.dt;
        let mut v = model.v0.clone();
        for (i, f) in model.fixed.iter().enumerate() {
            if *f {
                v[i * dim..(i + 1) * dim].iter_mut().for_each(|c| *c = 0.0);
            }
        }
        let friction_slots = if model.friction.any() {
            model.walls.len() + model.implicit_walls.len()
        } else {
            0
        };
        let per_residual = model.error_per_residual();
        let mut contact = self_contact::SelfContact::default();
        if model.self_contact.enabled && !model.collision.is_empty() {
            contact.excluded = model.rest_exclusions();
        }
        Self {
            mas_reuse: crate::mas::reuse::Reuse::new(
                model.solver.mas_reuse && preconditioner == PreconditionerKind::Mas,
            ),
            contact,
            per_residual,
            friction_slots,
            wall_shift: vec![0.0; model.walls.len() * model.dim],
            implicit_carry: vec![],
            friction_lambda: vec![0.0; n * friction_slots],
            friction_normal: vec![0.0; n * friction_slots * dim],
            friction_eps: model.friction.eps_v * h,
            potential_weight: model.solver.potential_weight(),
            adj_offsets,
            adj_springs,
            adj_nodes,
            x: model.x0.clone(),
            xn: model.x0.clone(),
            x_pred: model.x0.clone(),
            v,
            // Newmark needs a consistent initial acceleration a⁰ = −M⁻¹∇Ψ(x⁰).
            acc: integrator::initial_acceleration(&model),
            p: vec![0.0; n * dim],
            trial: vec![0.0; n * dim],
            r: vec![0.0; n * dim],
            spring_grad: vec![0.0; ns * dim],
            spring_hess: vec![0.0; ns * dim * dim],
            newton_blocks: vec![0.0; n * dim * dim],
            preconditioner_blocks: vec![0.0; n * dim * dim],
            work: PcgWork::default(),
            current_energy: 0.0,
            last_pcg: None,
            linear_solver: LinearSolver::Pcg,
            switching: None,
            direct_solves: 0,
            direct_analyses: 0,
            direct: None,
            vcycle: preconditioner == PreconditionerKind::Multigrid,
            mas: match preconditioner {
                PreconditionerKind::Mas | PreconditionerKind::Multigrid => Some(
                    crate::mas::Mas::new(&model.x0, dim, crate::mas::DEFAULT_DOMAIN),
                ),
                _ => None,
            },
            preconditioner_seconds: 0.0,
            model,
        }
    }

    /// Chooses how Newton directions are solved (PCG, or `Direct`: the sparse
    /// Cholesky of [`crate::linear_solver`]); `Auto` is resolved here, by the model
    /// ([`auto_solver::resolve`]), and may switch between the two step by step
    /// ([`switching::SwitchingSolver`]).
    pub fn with_linear_solver(mut self, solver: LinearSolver) -> Self {
        use auto_solver::AutoChoice;
        self.switching = None;
        self.linear_solver = LinearSolver::Pcg;
        match auto_solver::resolve(solver, &self.model, false) {
            AutoChoice::Pcg => {}
            AutoChoice::Direct => {
                self.linear_solver = LinearSolver::Direct;
                // `auto` may have picked MAS for a large scene: the direct solve needs
                // no preconditioner (its block-Jacobi fallback needs no MAS either).
                self.mas = None;
            }
            AutoChoice::Switching { factor } => {
                self.switching = Some(switching::SwitchingSolver::new(
                    &self.model,
                    factor,
                    self.mas.is_some() && self.vcycle,
                ));
            }
        }
        self
    }

    /// The Newton direction solver in use (`Pcg` or `Direct`, never `Auto`).
    pub fn linear_solver(&self) -> LinearSolver {
        self.linear_solver
    }

    /// The model this backend simulates.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Accelerations (m/s²), `nodes × dim`: `a⁰ = −M⁻¹∇Ψ(x⁰)` at the start, then
    /// Newmark's `aⁿ` (unused by implicit Euler).
    pub fn accelerations(&self) -> &[f64] {
        &self.acc
    }

    /// The result of the last CG solve.
    pub fn last_pcg(&self) -> Option<PcgResult> {
        self.last_pcg
    }

    /// The current search direction p (m), `nodes × dim`.
    pub fn direction(&self) -> &[f64] {
        &self.p
    }

    /// Overwrites the current iterate (m); for tests that probe the energy.
    pub fn set_positions(&mut self, x: &[f64]) {
        self.x.copy_from_slice(x);
        self.contact.valid = false;
        self.contact.swept = false;
    }

    /// Overwrites the predicted positions x̃ (m); for tests that probe the energy.
    pub fn set_prediction(&mut self, x_pred: &[f64]) {
        self.x_pred.copy_from_slice(x_pred);
    }

    /// The node → springs adjacency.
    fn adjacency(&self) -> Adjacency<'_> {
        Adjacency {
            offsets: &self.adj_offsets,
            springs: &self.adj_springs,
        }
    }
}

impl NewtonSystem for CpuBackend {
    fn energy(&mut self) -> f64 {
        self.ensure_near_pairs();
        self.current_energy = self.incremental_potential(&self.x);
        self.current_energy
    }

    fn compute_direction(&mut self, tolerance: CgTolerance) -> Direction {
        self.assemble();
        self.contact.swept = false;
        let rhs_norm = crate::parallel::dot(&self.r, &self.r).sqrt();
        let per_residual = self.per_residual;
        let eta = tolerance.relative(rhs_norm, per_residual);
        let analyses = self.direct_analyses;
        let res = self.solve(eta);
        if let Some(sw) = &mut self.switching {
            match self.linear_solver {
                LinearSolver::Direct => sw.record_direct(self.direct_analyses > analyses, eta),
                _ => sw.record(res.iterations, eta),
            }
        }
        let mut dir = self.direction_stats(res);
        dir.cg_tolerance = eta;
        dir.rhs_norm = rhs_norm;
        dir.error_bound = per_residual * res.relative_residual * rhs_norm;
        dir
    }

    fn ccd_bound(&mut self) -> f64 {
        self.ccd_bound_all()
    }

    fn energy_change(&mut self, alpha: f64) -> f64 {
        self.energy_change_at(alpha)
    }

    fn advance(&mut self, alpha: f64) {
        self.advance_by(alpha);
    }
}

impl Backend for CpuBackend {
    fn preconditioner_stats(&self) -> PreconditionerStats {
        // The MAS factorisations; the block-Jacobi inverses are part of the assembly
        // (no setup time of their own) and hold `dim²` f64 per node.
        let jacobi = match self.linear_solver {
            LinearSolver::Pcg | LinearSolver::Auto => (self.preconditioner_blocks.len() * 8) as u64,
            LinearSolver::Direct => 0,
        };
        PreconditionerStats {
            setup_seconds: self.preconditioner_seconds,
            memory_bytes: self.mas.as_ref().map_or(jacobi, |m| m.memory_bytes()),
            factorisations: self.mas_reuse.factorisations,
        }
    }

    fn name(&self) -> &'static str {
        "cpu"
    }

    fn solves_directly(&self) -> bool {
        self.linear_solver == LinearSolver::Direct && self.switching.is_none()
    }

    fn switches_solver(&self) -> bool {
        self.switching.is_some()
    }

    fn direct_solves(&self) -> u64 {
        self.direct_solves
    }

    fn contact_stats(&self) -> crate::backend::ContactStats {
        self.self_contact_costs()
    }

    fn device(&self) -> String {
        format!(
            "{} ({} threads, f64)",
            cpu_model_name(),
            rayon::current_num_threads()
        )
    }

    fn begin_step(&mut self) {
        if let Some(sw) = &mut self.switching {
            sw.begin_step();
            self.linear_solver = match sw.direct() {
                true => LinearSolver::Direct,
                false => LinearSolver::Pcg,
            };
        }
        self.step_begin();
    }

    fn end_step(&mut self) {
        self.step_end();
    }

    fn positions(&mut self) -> Vec<f64> {
        self.x.clone()
    }

    fn update_friction_lag(&mut self) -> f64 {
        self.friction_lag_update()
    }

    fn velocities(&mut self) -> Vec<f64> {
        self.v.clone()
    }

    fn set_velocities(&mut self, v: &[f64]) -> Result<(), String> {
        self.v.copy_from_slice(v);
        Ok(())
    }

    fn set_walls(&mut self, walls: &crate::backend::WallState<'_>) -> Result<(), String> {
        self.model.walls.clone_from_slice(walls.planes);
        self.wall_shift.copy_from_slice(walls.shift);
        for (w, f) in self.model.implicit_walls.iter_mut().zip(walls.frames) {
            w.frame = (*f != crate::implicit::Frame::IDENTITY).then_some(*f);
        }
        self.implicit_carry.clear();
        self.implicit_carry.extend_from_slice(walls.carry);
        Ok(())
    }

    fn set_iterate(&mut self, _start: &[f64], x: &[f64]) -> Result<(), String> {
        self.x.copy_from_slice(x);
        // The candidate lists were built around the old iterate.
        self.contact.valid = false;
        Ok(())
    }

    fn diagnostics(&mut self) -> Diagnostics {
        self.energy_diagnostics()
    }
}
