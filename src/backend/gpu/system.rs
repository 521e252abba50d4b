//! The GPU backend as the Newton driver and the run loop see it: what each
//! [`NewtonSystem`] and [`Backend`] call records, submits and reads back.

use super::kernel_lists::{FRICTION_LAG_UPDATE, FRICTION_STATS, PAIR_STATS};
use super::kernels::Kernel;
use super::layout::Lanes;
use super::readback::{
    lag_change, DirectionSummary, EnergyChange, EnergyTotals, FrictionTotals, PairTotals,
};
use super::GpuBackend;
use crate::backend::{Backend, DeviceCounters, Diagnostics};
use crate::newton::{CgTolerance, Direction, NewtonSystem};
use crate::precision::RealClass;

impl NewtonSystem for GpuBackend {
    fn energy(&mut self) -> f64 {
        if let Some(e) = self.pending_energy.take() {
            self.current_energy = e;
            return e;
        }
        self.current_energy =
            EnergyTotals::from(self.engine.reduce(&self.solve.energy_total)).potential();
        self.current_energy
    }

    fn energy_and_direction(&mut self, tolerance: CgTolerance) -> (f64, Option<Direction>) {
        if self.pending_energy.is_some() {
            let e = self.energy();
            return (e, Some(self.compute_direction(tolerance)));
        }
        // E at the step's start in the first direction's submission: one read for both
        self.engine.stage_energy(&self.solve.energy_total);
        let dir = self.compute_direction(tolerance);
        let lanes = self
            .engine
            .staged_energy
            .take()
            .expect("read with the direction");
        self.current_energy = EnergyTotals::from(lanes).potential();
        (self.current_energy, Some(dir))
    }

    fn compute_direction(&mut self, tolerance: CgTolerance) -> Direction {
        let mut enc = self.engine.encoder();
        // The Newton system, its preconditioner and the start of CG.
        self.engine.record(&mut enc, &self.solve.assemble);
        let multilevel = !self.solve.factor.is_empty();
        if multilevel && self.mas_reuse.factor_now() {
            self.engine.record(&mut enc, &self.solve.factor);
        }
        self.engine.record(&mut enc, &self.solve.start);
        let eta = match tolerance {
            CgTolerance::Fixed(eta) => eta,
            _ => {
                // ‖b‖ decides η: read the CG state the start leaves (one more read).
                let (_, _, cg) = self.engine.finish_direction(enc);
                if self.terms_overflowed() && self.engine.grow_term_slots(self.engine.terms_found) {
                    // more active pairs than term slots: assemble again with room
                    return self.compute_direction(tolerance);
                }
                enc = self.engine.encoder();
                tolerance.relative(cg.bb.sqrt(), self.error_per_residual())
            }
        };
        // Written to the queue before the iterations below are submitted.
        self.engine.set_cg_tolerance(eta);
        let cap = self.model.solver.cg_max_iterations;
        let mut submitted = 0u64;
        loop {
            let batch = self.batching.batch_size(submitted, cap);
            for _ in 0..batch {
                self.engine.record(&mut enc, &self.solve.iteration);
            }
            submitted += batch as u64;
            let t = &mut self.engine.traffic;
            t.cg_iterations_recorded += batch as u64;
            t.cg_dispatches += batch as u64 * self.solve.iteration.len() as u64;
            // The direction's stopping measure and CCD bound, and speculatively the
            // first line-search trial at α = min(1, CCD bound).
            self.engine.record(&mut enc, &self.solve.direction_check);
            let (mut stats, mut trial, mut cg) = self.engine.finish_direction(enc);
            // A check after a batch that left the solve running held its broad phase
            // (and its figures do not count): only the final one built a list.
            if cg.done != 0 || submitted > cap as u64 {
                self.engine.note_pairs_found(self.engine.pairs_found);
                while self.pairs_overflowed() {
                    // The broad phase found more pairs than the list holds: grow it
                    // and check the direction again (the CG state is final); where
                    // the device has no room, the solve ends (`failure`).
                    if !self.engine.grow_pairs(self.engine.pairs_found) {
                        break;
                    }
                    enc = self.engine.encoder();
                    self.engine.record(&mut enc, &self.solve.direction_check);
                    (stats, trial, cg) = self.engine.finish_direction(enc);
                    self.engine.note_pairs_found(self.engine.pairs_found);
                }
                if self.terms_overflowed() && self.engine.grow_term_slots(self.engine.terms_found) {
                    // The assembly found more active pairs than the term slots hold
                    // and stored none past the last: this is not the Newton direction.
                    // Compute it again with room, from the list the check just built
                    // (swept from x, it holds every pair within d̂ at x).
                    return self.compute_direction(tolerance);
                }
                self.batching.finish_solve(cg.iterations);
                self.engine.traffic.cg_iterations_done += cg.iterations as u64;
                if multilevel {
                    self.mas_reuse.record(cg.iterations, eta);
                }
                let stats = DirectionSummary::from(stats);
                self.ccd = stats.ccd_bound;
                self.trials
                    .speculate(self.ccd, EnergyChange::from(trial).value());
                let rhs_norm = cg.bb.sqrt();
                return Direction {
                    norm: stats.norm,
                    cg_iterations: cg.iterations,
                    cg_converged: cg.converged != 0,
                    below_resolution: stats.above_resolution == 0.0,
                    near_resolution: stats.above_near_resolution == 0.0,
                    cg_tolerance: eta,
                    rhs_norm,
                    error_bound: self.error_bound(eta, cg.rr),
                };
            }
            enc = self.engine.encoder();
        }
    }

    fn ccd_bound(&mut self) -> f64 {
        self.ccd
    }

    fn energy_change(&mut self, alpha: f64) -> f64 {
        if let Some(de) = self.trials.take(alpha) {
            return de;
        }
        self.set_step_alpha(alpha);
        let de = EnergyChange::from(self.engine.reduce(&self.solve.energy_change)).value();
        self.trials.record(alpha, de);
        de
    }

    fn failure(&mut self) -> Option<String> {
        self.engine.failure.take()
    }

    fn advance(&mut self, alpha: f64) {
        self.set_step_alpha(alpha);
        self.engine.defer(&[Kernel::Advance]);
        // The driver has just evaluated E(x + αp) − E(x) for this α: keep E
        // consistent with the accepted differences instead of re-summing it.
        self.pending_energy = self.trials.accepted(alpha, self.current_energy);
    }
}

impl GpuBackend {
    /// The reductions of a step's diagnostics, each into result slot 0: E, with
    /// friction the friction statistics, with contact pairs theirs.
    pub(super) fn diagnostic_lists(&self) -> Vec<Vec<Kernel>> {
        let mut lists = vec![self.solve.energy_total.clone()];
        if self.has_friction() {
            lists.push(FRICTION_STATS.to_vec());
        }
        if self.engine.contact.is_some() {
            lists.push(PAIR_STATS.to_vec());
        }
        lists
    }

    /// The diagnostics from the reductions of [`Self::diagnostic_lists`].
    pub(super) fn diagnostics_of(&self, read: &[Lanes]) -> Diagnostics {
        let totals = EnergyTotals::from(read[0]);
        let friction = match self.has_friction() {
            true => FrictionTotals::from(read[1]),
            false => FrictionTotals::default(),
        };
        let pairs = match self.engine.contact {
            Some(_) => PairTotals::from(read[read.len() - 1]),
            None => PairTotals::default(),
        };
        Diagnostics {
            sticking: friction.sticking + pairs.sticking,
            sliding: friction.sliding + pairs.sliding,
            dissipation: friction.dissipation + pairs.dissipation,
            kinetic: totals.kinetic,
            gravity: totals.gravity,
            elastic: totals.elastic,
            barrier: totals.barrier,
            min_wall_distance: totals.min_wall_distance,
            contact_pairs: pairs.active,
            min_pair_distance: pairs.min_distance,
        }
    }

    /// [`Direction::error_bound`] (m) of a solve to `eta` that ended at `rr = ‖r‖²`;
    /// only computed for a solve looser than `solver.cg_tolerance` (the only one the
    /// driver asks about), widened by 1 % for the recurrence residual's rounding.
    fn error_bound(&self, eta: f64, rr: f64) -> f64 {
        loose_error_bound(
            eta,
            self.model.solver.cg_tolerance,
            self.error_per_residual(),
            rr,
        )
    }

    /// [`crate::model::Model::error_per_residual`] (m/N).
    fn error_per_residual(&self) -> f64 {
        self.engine.error_per_residual
    }
}

/// [`Direction::error_bound`] (m) of a device solve to `eta` that ended at
/// `rr = ‖r‖²`, with `per_residual` from [`crate::model::Model::error_per_residual`]:
/// +∞ unless the solve was looser than `cg_floor` (`solver.cg_tolerance`, the only
/// case the driver asks about), widened by 1 % for the recurrence residual's
/// rounding. The GPU backend's rule, also a batched variant's.
pub fn loose_error_bound(eta: f64, cg_floor: f64, per_residual: f64, rr: f64) -> f64 {
    if eta <= cg_floor {
        return f64::INFINITY;
    }
    1.01 * per_residual * rr.max(0.0).sqrt()
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn device(&self) -> String {
        format!("{} {}", self.adapter(), self.precision().name())
    }

    fn gpu_precision(&self) -> Option<crate::precision::GpuPrecision> {
        Some(self.precision())
    }

    fn solve(
        &mut self,
        params: &crate::model::SolverParams,
    ) -> Result<crate::newton::NewtonStats, crate::newton::NewtonError> {
        match self.solves_on_device() {
            true => self.device_solve(params),
            false => crate::newton::solve(self, params),
        }
    }

    fn begin_step(&mut self) {
        self.batching.begin_step();
        self.device_plan.begin_step();
        self.mas_reuse.begin_step();
        self.trials.clear();
        self.pending_energy = None;
        self.ended = None;
        self.engine.defer(&[Kernel::StepBegin]);
        if self.has_friction() {
            self.engine.defer(&[Kernel::FrictionLagStart]);
        }
        if self.has_pair_friction() {
            match self.solves_on_device() {
                true => self.engine.defer_start_lag(),
                false => self.engine.lag_start_on_host(),
            }
        }
    }

    fn update_friction_lag(&mut self) -> f64 {
        let mut change = 0.0f64;
        if self.has_friction() {
            change = lag_change(self.engine.reduce(&FRICTION_LAG_UPDATE));
        }
        if self.has_pair_friction() {
            change = change.max(self.lag_pair_friction());
        }
        change
    }

    fn end_step(&mut self) {
        // the device solve ran the step's end already where it was the last solve
        if self.ended.is_none() {
            self.engine.defer(&[Kernel::StepEnd]);
        }
    }

    fn preconditioner_stats(&self) -> crate::backend::PreconditionerStats {
        crate::backend::PreconditionerStats {
            // Factored on the device inside the direction solve: not timed apart.
            setup_seconds: 0.0,
            memory_bytes: self.solve.memory_bytes,
            factorisations: self.mas_reuse.factorisations,
        }
    }

    fn contact_stats(&self) -> crate::backend::ContactStats {
        let Some(c) = &self.engine.contact else {
            return crate::backend::ContactStats::default();
        };
        crate::backend::ContactStats {
            broad_phases: c.broad_phases,
            candidate_pairs: c.candidates,
            excluded_pairs: c.excluded,
            list_growths: c.growths.into(),
            term_growths: c.term_growths.into(),
            list_capacity: c.capacity.into(),
            term_slots: c.term_slots.into(),
            ..Default::default()
        }
    }

    fn preconditioner(&self) -> Option<crate::linear_solver::PreconditionerKind> {
        Some(self.solve.kind)
    }

    fn kernel_times(&self) -> Vec<super::profiler::KernelTime> {
        self.engine
            .profiler
            .as_ref()
            .map_or(Vec::new(), |p| p.times())
    }

    fn counters(&self) -> DeviceCounters {
        DeviceCounters {
            memory_bytes: self.memory_bytes(),
            record_ns_per_dispatch: self.engine.record_times.median_ns(),
            ..self.engine.traffic
        }
    }

    fn positions(&mut self) -> Vec<f64> {
        match &self.engine.end_positions {
            Some(x) => x.clone(),
            None => self.engine.read_vector(|b| &b.x, RealClass::State, 0),
        }
    }

    fn keep_end_positions(&mut self, keep: bool) {
        self.device_plan.keep_positions = keep;
    }

    fn velocities(&mut self) -> Vec<f64> {
        self.engine.read_vector(|b| &b.v, RealClass::State, 0)
    }

    fn set_velocities(&mut self, v: &[f64]) -> Result<(), String> {
        self.engine.write_vector(|b| &b.v, RealClass::State, 0, v);
        Ok(())
    }

    fn set_walls(&mut self, walls: &crate::backend::WallState<'_>) -> Result<(), String> {
        self.move_walls(walls);
        Ok(())
    }

    fn set_iterate(&mut self, start: &[f64], x: &[f64]) -> Result<(), String> {
        self.move_iterate(start, x);
        Ok(())
    }

    fn diagnostics(&mut self) -> Diagnostics {
        if let Some(d) = self.ended.take() {
            return d;
        }
        // E and, with friction, the friction statistics, and with contact pairs
        // theirs, in one submission and one read.
        let lists = self.diagnostic_lists();
        let lists: Vec<&[Kernel]> = lists.iter().map(|l| &l[..]).collect();
        let read = self.engine.reduce_all(&lists);
        self.diagnostics_of(&read)
    }
}
