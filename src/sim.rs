//! Time stepping: one Newton solve per step through the shared driver, plus the
//! per-step statistics every backend reports the same way.

use crate::backend::Backend;
use crate::drive::{DriveStep, Driver};
use crate::model::{Model, SolverParams};
use crate::newton::{NewtonError, NewtonStats, Stall};
use crate::rebound::{Correction, Rebound};
use serde::Serialize;
use std::time::Instant;

/// Statistics of one time step (one row of `steps.csv`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepRecord {
    /// Step number (1 = first step).
    pub step: u64,
    /// Simulated time at the end of the step (s).
    pub time: f64,
    /// Accepted Newton iterations.
    pub newton_iterations: u32,
    /// CG iterations over the step.
    pub cg_iterations: u64,
    /// Newton directions of the step whose linear solve stopped short of its
    /// tolerance: PCG at `solver.cg_max_iterations`, or at a direction of non-positive
    /// curvature (which a PSD-projected Hessian never has). 0 on a healthy step.
    pub cg_unconverged: u32,
    /// Line-search halvings over the step.
    pub line_search_halvings: u32,
    /// Smallest accepted step fraction α.
    pub alpha_min: f64,
    /// Smallest CCD bound α_C.
    pub ccd_alpha_min: f64,
    /// Final Newton stopping measure |p|/h (m/s).
    pub residual: f64,
    /// Whether Newton met its tolerance.
    pub converged: bool,
    /// Whether a line search ran out of halvings.
    pub line_search_failed: bool,
    /// Whether Newton stopped short of its tolerance at the backend's floating-point
    /// resolution (the direction within rounding noise of the positions).
    pub resolution_limited: bool,
    /// Whether Newton stopped at `solver.max_newton_iterations` short of its tolerance.
    pub newton_capped: bool,
    /// Why the step could make no progress, when it could not (a stalled step).
    pub stall: Option<Stall>,
    /// Incremental potential E at the accepted state (J).
    pub incremental_potential: f64,
    /// Kinetic energy (J).
    pub kinetic: f64,
    /// Gravitational potential energy `−Σ m g·x` (J).
    pub gravity: f64,
    /// Spring energy (J).
    pub elastic: f64,
    /// Barrier energy (J, without h²).
    pub barrier: f64,
    /// kinetic + gravity + elastic + barrier (J).
    pub total: f64,
    /// Smallest distance of any node to any wall (m).
    pub min_wall_distance: f64,
    /// Contact pairs between collision primitives within d̂ at the end of the step.
    pub contact_pairs: u64,
    /// Smallest distance between two collision primitives near each other (m; `+∞`
    /// where none is within d̂).
    pub min_pair_distance: f64,
    /// Friction contacts sticking at the end of the step (tangential slip < ε_v h).
    pub sticking: u64,
    /// Friction contacts sliding at the end of the step (tangential slip ≥ ε_v h).
    pub sliding: u64,
    /// Friction dissipation over the step, `Σ μ λ |u|` (J).
    pub friction_dissipation: f64,
    /// Largest change of a lagged friction λ (N) at the step's last lagging update
    /// (`solver.friction_updates`); 0 without updates.
    pub friction_lambda_change: f64,
    /// Contacts whose normal velocity the restitution law set at the end of the step
    /// ([`crate::rebound`]; 0 without `contact.restitution`).
    pub rebounds: u32,
    /// Kinetic energy the restitution law's correction changed (J; negative where it
    /// took energy out). `kinetic` and `total` are after the correction.
    pub rebound_work: f64,
    /// The largest distance (m) of a driven node from its script's target at the
    /// step's end ([`crate::drive`]; 0 without driven nodes, and wherever nothing
    /// was in the way).
    pub drive_lag: f64,
    /// The work (J) the scripts of driven nodes did over the step (0 without them).
    pub drive_work: f64,
    /// Wall-clock time of the step (ms).
    pub wall_ms: f64,
}

/// A running simulation on one backend.
pub struct Simulation {
    backend: Box<dyn Backend>,
    solver: SolverParams,
    step: u64,
    /// The Newton statistics of the last step (energies of every accepted iterate).
    pub last_newton: NewtonStats,
    /// Whether steps run on a worker of the thread pool (a CPU model large enough
    /// for its loops to run in parallel).
    on_pool: bool,
    /// The restitution law, where the model has one.
    rebound: Option<Rebound>,
    /// The velocities (m/s) the law left at the last step's end (it reads them from
    /// the backend anyway: a reader after the step need not read them again).
    law_velocities: Option<Vec<f64>>,
    /// The drive stage of driven nodes, where the model has them or targets were set.
    driver: Option<Driver>,
    /// The model, where the drive stage needs it (driven nodes, targets set).
    model: Option<std::sync::Arc<Model>>,
}

/// Coordinates (nodes × dim) from which a CPU model's steps run on the thread pool:
/// about where its spring loops start to run in parallel. Below it handing a step
/// over (some 20 µs) would cost more than it saves.
const POOL_MIN_COORDS: usize = 2000;

impl Simulation {
    /// Starts `model` at its initial state on `backend` (which holds that model).
    pub fn new(mut backend: Box<dyn Backend>, model: &Model) -> Self {
        let on_pool = backend.name() == "cpu" && backend.positions().len() >= POOL_MIN_COORDS;
        let rebound = model.restitution.as_ref().and_then(|_| {
            let d = backend.diagnostics();
            Rebound::new(model, d.total())
        });
        Self {
            backend,
            solver: model.solver.clone(),
            step: 0,
            last_newton: NewtonStats::default(),
            on_pool,
            rebound,
            law_velocities: None,
            driver: Driver::new(model),
            model: (!model.drives.is_empty() || !model.moving_walls.is_empty())
                .then(|| std::sync::Arc::new(model.clone())),
        }
    }

    /// Sets the targets (m, `nodes.len() × dim`) that the fixed or driven `nodes`
    /// follow from the next step on ([`Driver::set_targets`]): the drive stage moves
    /// them there as far as nothing is in the way.
    /// `model` is the one the simulation started from.
    pub fn set_targets(
        &mut self,
        model: &Model,
        nodes: &[u32],
        targets: &[f64],
    ) -> Result<(), String> {
        let model = self
            .model
            .get_or_insert_with(|| std::sync::Arc::new(model.clone()));
        let driver = self.driver.get_or_insert_with(|| Driver::with_sets(model));
        driver.set_targets(model, nodes, targets)
    }

    /// What each driven set did so far (empty without driven nodes).
    pub fn drive_summaries(&self) -> Vec<crate::drive::DriveSummary> {
        self.driver.as_ref().map_or(vec![], |d| d.summaries.clone())
    }

    /// Node positions (m) at the last step's end: the drive stage's copy where it
    /// read them (no second readback on a GPU), else the backend's.
    pub fn positions(&mut self) -> Vec<f64> {
        match self.driver.as_ref().and_then(|d| d.positions()) {
            Some(x) => x.to_vec(),
            None => self.backend.positions(),
        }
    }

    /// The node velocities (m/s) at the last step's end: the restitution law's copy
    /// where it ran (no second readback on a GPU), else the backend's.
    pub fn velocities(&mut self) -> Vec<f64> {
        match &self.law_velocities {
            Some(v) => v.clone(),
            None => self.backend.velocities(),
        }
    }

    /// The backend (for positions, device name, …).
    pub fn backend(&mut self) -> &mut dyn Backend {
        self.backend.as_mut()
    }

    /// Replaces the backend, which holds the state at the next step's start
    /// ([`Backend::handover`]).
    /// The restitution law starts again from that state (events under way end).
    pub fn replace_backend(&mut self, backend: Box<dyn Backend>) {
        self.backend = backend;
        self.law_velocities = None;
        if let Some(d) = &mut self.driver {
            d.invalidate();
        }
        if let Some(law) = &mut self.rebound {
            let d = self.backend.diagnostics();
            let (x, v) = (self.backend.positions(), self.backend.velocities());
            law.restart(&x, &v, d.total());
        }
    }

    /// Steps taken so far.
    pub fn steps_taken(&self) -> u64 {
        self.step
    }

    /// Advances one time step (a large CPU model's on a worker of the thread pool,
    /// [`crate::parallel::in_pool`]).
    pub fn step(&mut self) -> Result<StepRecord, NewtonError> {
        if self.on_pool {
            crate::parallel::in_pool(|| self.step_here())
        } else {
            self.step_here()
        }
    }

    fn step_here(&mut self) -> Result<StepRecord, NewtonError> {
        let t0 = Instant::now();
        self.backend.begin_step();
        if let (Some(d), Some(m)) = (&mut self.driver, &self.model) {
            let t_next = (self.step + 1) as f64 * self.solver.dt;
            d.before_solve(m, self.backend.as_mut(), t_next)
                .map_err(NewtonError)?;
        }
        let mut stats = self.backend.solve(&self.solver)?;
        let mut lambda_change = 0.0;
        for _ in 0..self.solver.friction_updates {
            if stats.stall.is_some() {
                break;
            }
            lambda_change = self.backend.update_friction_lag();
            if lambda_change == 0.0 {
                break;
            }
            let more = self.backend.solve(&self.solver)?;
            stats.iterations += more.iterations;
            stats.cg_iterations += more.cg_iterations;
            stats.halvings += more.halvings;
            stats.alpha_min = stats.alpha_min.min(more.alpha_min);
            stats.ccd_alpha_min = stats.ccd_alpha_min.min(more.ccd_alpha_min);
            stats.residual = more.residual;
            stats.converged = more.converged;
            stats.line_search_failed |= more.line_search_failed;
            stats.resolution_limited = more.resolution_limited;
            stats.cg_unconverged += more.cg_unconverged;
            stats.capped |= more.capped;
            stats.stall = stats.stall.or(more.stall);
            stats.solve_starts.push(stats.energies.len());
            stats.energies.extend(more.energies);
        }
        self.backend.end_step();
        let mut diag = self.backend.diagnostics();
        // What the backend met after the step's last solve (its end and diagnostics:
        // a batch's round cut short by the device, a pair list that cannot grow) ends
        // the run here, not at the next step's first direction, which the last step
        // never reaches.
        if let Some(why) = self.backend.failure() {
            return Err(NewtonError(why));
        }
        self.step += 1;
        let drive = match (&mut self.driver, &self.model) {
            (Some(d), Some(m)) => d.after_solve(m, self.backend.as_mut(), self.step),
            _ => DriveStep::default(),
        };
        let wall_ms = t0.elapsed().as_secs_f64() * 1e3;
        let mut total = diag.total();
        if !total.is_finite() {
            return Err(NewtonError(format!(
                "the state is not finite after step {} (energy {total})",
                self.step
            )));
        }
        let mut rebound = Correction::default();
        if let Some(law) = &mut self.rebound {
            let x = self.backend.positions();
            let mut v = self.backend.velocities();
            rebound = law.after_step(&x, &mut v, total);
            if rebound.contacts > 0 {
                self.backend.set_velocities(&v).map_err(NewtonError)?;
                diag.kinetic += rebound.work;
                total += rebound.work;
            }
            self.law_velocities = Some(v);
        }
        let rec = StepRecord {
            step: self.step,
            time: self.step as f64 * self.solver.dt,
            newton_iterations: stats.iterations,
            cg_iterations: stats.cg_iterations,
            cg_unconverged: stats.cg_unconverged,
            line_search_halvings: stats.halvings,
            alpha_min: stats.alpha_min,
            ccd_alpha_min: stats.ccd_alpha_min,
            residual: stats.residual,
            converged: stats.converged,
            line_search_failed: stats.line_search_failed,
            resolution_limited: stats.resolution_limited,
            newton_capped: stats.capped,
            stall: stats.stall,
            incremental_potential: *stats.energies.last().unwrap_or(&f64::NAN),
            kinetic: diag.kinetic,
            gravity: diag.gravity,
            elastic: diag.elastic,
            barrier: diag.barrier,
            total,
            min_wall_distance: diag.min_wall_distance,
            contact_pairs: diag.contact_pairs,
            min_pair_distance: diag.min_pair_distance,
            sticking: diag.sticking,
            sliding: diag.sliding,
            friction_dissipation: diag.dissipation,
            friction_lambda_change: lambda_change,
            rebounds: rebound.contacts,
            rebound_work: rebound.work,
            drive_lag: drive.lag,
            drive_work: drive.work,
            wall_ms,
        };
        self.last_newton = stats;
        Ok(rec)
    }
}

#[cfg(test)]
#[path = "sim_tests.rs"]
mod tests;
