//! One IPC simulation stepped with the checks and the bookkeeping of a run, without
//! its files: what [`super::barrier::run`] writes out, and what a program that steps
//! a scene itself (the Python package's `Simulation`) drives one step at a time.

use super::summary::{Chosen, FinalState, Summary};
use super::MAX_CONSECUTIVE_STALLS;
use crate::backend::Backend;
use crate::scene::Scene;
use crate::sim::{Simulation, StepRecord};
use std::ops::Deref;
use std::time::Instant;

/// A scene's simulation on one backend with its checks: the intersection checker
/// after every step of a self-contact scene, the stall limit, the hand-over of a
/// batch's variant that has to go on alone. `S` holds the scene: a borrow for a run
/// (`&Scene`: no copy of a large model), an `Arc<Scene>` for a simulation that owns it.
pub struct Stepper<S> {
    /// The scene being stepped (its model gives the collision mesh and d̂).
    pub scene: S,
    /// The simulation.
    pub sim: Simulation,
    /// Seconds spent stepping so far (without outputs).
    pub stepping: f64,
    consecutive_stalls: u64,
    /// The first rebound's measurement, where the velocities come at no cost.
    rebound: Option<super::first_rebound::Watch>,
}

impl<S: Deref<Target = Scene> + Clone> Stepper<S> {
    /// `scene` at its initial state on `backend`, and the [`Summary`] of a run that
    /// has taken no step yet.
    pub fn new(scene: S, backend: Box<dyn Backend>) -> (Self, Summary) {
        let mut sim = Simulation::new(backend, &scene.model);
        let diag0 = sim.backend().diagnostics();
        let (name, device) = (sim.backend().name().into(), sim.backend().device());
        let mut summary = Summary::start(
            &scene,
            name,
            device,
            sim.backend().precision_name(),
            Chosen::of(sim.backend()),
            diag0.min_wall_distance,
        );
        summary.record_pairs(0, diag0.contact_pairs, diag0.min_pair_distance);
        // the intersection checker reads the positions after every step
        sim.backend().keep_end_positions(summary.self_contact);
        // A GPU run would pay a readback per step for it; the law reads them anyway.
        let cheap = sim.backend().name() == "cpu" || scene.model.restitution.is_some();
        let rebound = cheap
            .then(|| super::first_rebound::Watch::new(&scene.model))
            .flatten();
        let stepper = Self {
            scene,
            sim,
            stepping: 0.0,
            consecutive_stalls: 0,
            rebound,
        };
        (stepper, summary)
    }

    /// Takes one step and adds it to `summary`. `Err` (one line, naming the step): the
    /// step failed and was not taken. `Ok((record, Some(why)))`: the step was taken
    /// (and counted) but the run must end there: an intersection the checker found
    /// after it, or [`MAX_CONSECUTIVE_STALLS`] stalled steps in a row.
    pub fn step(&mut self, summary: &mut Summary) -> Result<(StepRecord, Option<String>), String> {
        let t0 = Instant::now();
        let rec = step_or_hand_over(&mut self.sim, &mut summary.device, summary.self_contact)?;
        self.stepping += t0.elapsed().as_secs_f64();
        accumulate(summary, &rec, self.scene.model.barrier.dhat);
        summary.drives = self.sim.drive_summaries();
        if let Some(w) = self.rebound.as_mut().filter(|w| !w.done()) {
            let v = self.sim.velocities();
            let b = self.sim.backend();
            let model = &self.scene.model;
            w.after_step(model, rec.step, || b.positions(), &v, rec.min_wall_distance);
            summary.first_rebound = w.found.clone();
        }
        if summary.self_contact {
            // "completed" means nothing passed through anything: verified, not assumed.
            let checking = Instant::now();
            let x = self.sim.positions();
            let collision = &self.scene.model.collision;
            if let Some((a, b)) = crate::collision::check::intersections(collision, &x)
                .into_iter()
                .next()
            {
                let why = format!(
                    "step {}: the intersection checker found {a} crossing {b}",
                    rec.step
                );
                return Ok((rec, Some(why)));
            }
            summary.intersection_checked_steps += 1;
            summary.intersection_check_seconds += checking.elapsed().as_secs_f64();
        }
        self.consecutive_stalls = match rec.stall {
            Some(_) => self.consecutive_stalls + 1,
            None => 0,
        };
        if self.consecutive_stalls >= MAX_CONSECUTIVE_STALLS {
            let why = format!(
                "{} consecutive steps stalled up to step {}: the simulation is frozen ({})",
                self.consecutive_stalls,
                rec.step,
                summary.first_stall.as_deref().unwrap_or("")
            );
            return Ok((rec, Some(why)));
        }
        self.note_costs(summary);
        Ok((rec, None))
    }

    /// Copies the backend's running cost counters into `summary`.
    fn note_costs(&mut self, summary: &mut Summary) {
        let b = self.sim.backend();
        summary.direct_solves = b.direct_solves();
        summary.preconditioner_factorisations = b.preconditioner_stats().factorisations;
    }

    /// Fills in `summary`'s totals that are read at the end (device counters,
    /// contact costs) and returns the final state's positions, velocities and
    /// kinetic energy (J), for [`FinalState`].
    fn end(&mut self, summary: &mut Summary) -> (Vec<f64>, Vec<f64>, f64) {
        self.note_costs(summary);
        let b = self.sim.backend();
        let (x, v) = (b.positions(), b.velocities());
        let kinetic = b.diagnostics().kinetic;
        summary.device_totals = super::device_totals::DeviceTotals::of(&b.counters());
        summary.contact_costs = b.contact_stats();
        (x, v, kinetic)
    }

    /// `summary` settled as a run ending now would settle it ([`Summary::settle`]),
    /// with `failure` if there is one; nothing is written.
    pub fn settled(&mut self, summary: &Summary, failure: Option<String>) -> Summary {
        let mut s = summary.clone();
        let (x, v, kinetic) = self.end(&mut s);
        let model = &self.scene.model;
        let end = FinalState {
            dim: model.dim,
            x: &x,
            v: &v,
            walls: &model.walls,
            kinetic,
        };
        s.settle(&end, self.stepping, failure);
        s
    }
}

/// Adds step `r` to the totals of `s` (`dhat` (m) decides what counts as contact).
fn accumulate(s: &mut Summary, r: &StepRecord, dhat: f64) {
    s.steps = r.step;
    s.simulated_time = r.time;
    s.newton_iterations += r.newton_iterations as u64;
    s.cg_iterations += r.cg_iterations;
    s.cg_unconverged_directions += u64::from(r.cg_unconverged);
    s.line_search_halvings += r.line_search_halvings as u64;
    s.unconverged_steps += u64::from(!r.converged);
    s.resolution_limited_steps += u64::from(r.resolution_limited);
    s.capped_steps += u64::from(r.newton_capped);
    if let Some(stall) = r.stall {
        s.stalled_steps += 1;
        if s.first_stalled_step.is_none() {
            s.first_stalled_step = Some(r.step);
            s.first_stall = Some(stall.to_string());
        }
    }
    s.record_distance(r.step, r.min_wall_distance, r.min_wall_distance < dhat);
    s.record_pairs(r.step, r.contact_pairs, r.min_pair_distance);
}

/// Steps `sim`. Where the step fails on a backend that hands over
/// ([`Backend::handover`]), the step is taken again on the backend it hands over to,
/// from the step's start, and `device` says so.
fn step_or_hand_over(
    sim: &mut Simulation,
    device: &mut String,
    keep_positions: bool,
) -> Result<StepRecord, String> {
    let err = match sim.step() {
        Ok(r) => return Ok(r),
        Err(e) => e,
    };
    let k = sim.steps_taken() + 1;
    match sim.backend().handover() {
        None => Err(format!("step {k}: {err}")),
        Some(Err(why)) => Err(format!("step {k}: {err}; it cannot go on alone: {why}")),
        Some(Ok((next, why))) => {
            sim.replace_backend(next);
            sim.backend().keep_end_positions(keep_positions);
            *device = format!(
                "{device}{}{k} ({why}): {}",
                super::HANDED_OVER,
                sim.backend().device()
            );
            sim.step().map_err(|e| format!("step {k}: {e}"))
        }
    }
}
