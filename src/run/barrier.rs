//! The run of an IPC scene: [`crate::sim::Simulation`] steps it on a [`Backend`]
//! through Newton; `steps.csv`, `summary.json` and the chosen extras are written as
//! it goes.

use super::summary::{FinalState, Summary, SummaryFile};
use super::{frame_writer, progress_bar, trajectory_writer, RunOptions, MAX_CONSECUTIVE_STALLS};
use crate::backend::Backend;
use crate::output::StepsCsv;
use crate::scene::Scene;
use crate::sim::{Simulation, StepRecord};
use std::time::Instant;

/// Runs the IPC `scene` on `backend` and writes `steps.csv`, `summary.json` and the
/// chosen extras into `opts.out_dir` (see [`super::run`] for the statuses).
pub fn run(scene: &Scene, backend: Box<dyn Backend>, opts: &RunOptions) -> Result<Summary, String> {
    let model = &scene.model;
    let dim = model.dim;
    std::fs::create_dir_all(&opts.out_dir)
        .map_err(|e| crate::output::io_error(&opts.out_dir, e))?;
    let mut steps_csv = StepsCsv::create(opts.out_dir.join("steps.csv"))?;
    let mut traj = trajectory_writer(opts, model)?;
    let mut frames = frame_writer(opts)?;
    let dt = model.solver.dt;
    let frame_due = |step: u64| opts.frames.is_some_and(|k| step.is_multiple_of(k));
    let mut sim = Simulation::new(backend, model.solver.clone());
    // Writes the outputs due at `step`, reading back only what they need.
    let mut outputs = |sim: &mut Simulation, step: u64| -> Result<(), String> {
        let traj_due = traj.as_ref().is_some_and(|t| t.due(step));
        if !traj_due && !frame_due(step) {
            return Ok(());
        }
        let x = sim.backend().positions();
        if let Some(t) = traj.as_mut() {
            t.write(step, step as f64 * dt, &x)?;
        }
        if let (Some(f), true) = (frames.as_mut(), frame_due(step)) {
            let v = f
                .format()
                .needs_velocities()
                .then(|| sim.backend().velocities());
            f.write(model, step, step as f64 * dt, &x, v.as_deref())?;
        }
        Ok(())
    };
    outputs(&mut sim, 0)?;
    let diag0 = sim.backend().diagnostics();
    let (backend_name, device) = (sim.backend().name().into(), sim.backend().device());
    let mut file = SummaryFile::start(
        &opts.out_dir,
        Summary::start(
            scene,
            backend_name,
            device,
            sim.backend().precision_name(),
            super::summary::Chosen::of(sim.backend()),
            diag0.min_wall_distance,
        ),
    )?;
    file.summary
        .record_pairs(0, diag0.contact_pairs, diag0.min_pair_distance);
    let check_crossings = file.summary.self_contact;
    let bar = opts.progress.then(|| progress_bar(opts.steps));
    let mut stepping = 0.0;
    let mut failure = None;
    let mut consecutive_stalls = 0;
    for _ in 0..opts.steps {
        if crate::interrupt::requested() {
            file.interrupt();
            break;
        }
        let t0 = Instant::now();
        let rec = match step_or_hand_over(&mut sim, &mut file.summary.device) {
            Ok(r) => r,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        stepping += t0.elapsed().as_secs_f64();
        let summary = &mut file.summary;
        accumulate(summary, &rec, model.barrier.dhat);
        steps_csv.write(&rec)?;
        outputs(&mut sim, rec.step)?;
        if check_crossings {
            // "completed" means nothing passed through anything: verified, not assumed.
            let checking = Instant::now();
            let x = sim.backend().positions();
            if let Some(c) = crate::collision::check::intersections(&model.collision, &x)
                .into_iter()
                .next()
            {
                failure = Some(format!(
                    "step {}: the intersection checker found {} (nodes {:?}) crossing {} (nodes {:?})",
                    rec.step, c.0.kind, c.0.nodes, c.1.kind, c.1.nodes
                ));
                break;
            }
            file.summary.intersection_checked_steps += 1;
            file.summary.intersection_check_seconds += checking.elapsed().as_secs_f64();
        }
        let summary = &mut file.summary;
        if let Some(b) = &bar {
            b.set_message(format!(
                "{:.2} ms/step, {} Newton its{}",
                rec.wall_ms,
                rec.newton_iterations,
                match summary.stalled_steps {
                    0 => String::new(),
                    n => format!(", {n} stalled"),
                }
            ));
            b.inc(1);
        }
        consecutive_stalls = if rec.stall.is_some() {
            consecutive_stalls + 1
        } else {
            0
        };
        if consecutive_stalls >= MAX_CONSECUTIVE_STALLS {
            failure = Some(format!(
                "{consecutive_stalls} consecutive steps stalled up to step {}: the simulation is frozen ({})",
                rec.step,
                summary.first_stall.as_deref().unwrap_or("")
            ));
            break;
        }
        if let (Some(k), Some(c)) = (opts.stop_after_contact, summary.first_contact_step) {
            if rec.step >= c + k {
                break;
            }
        }
        file.summary.direct_solves = sim.backend().direct_solves();
        file.summary.preconditioner_factorisations =
            sim.backend().preconditioner_stats().factorisations;
        file.tick(stepping)?;
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let x = sim.backend().positions();
    let v = sim.backend().velocities();
    let kinetic = sim.backend().diagnostics().kinetic;
    let c = sim.backend().counters();
    file.summary.device_totals = super::device_totals::DeviceTotals::of(&c);
    file.summary.contact_costs = sim.backend().contact_stats();
    file.summary.direct_solves = sim.backend().direct_solves();
    file.summary.preconditioner_factorisations =
        sim.backend().preconditioner_stats().factorisations;
    let end = FinalState {
        dim,
        x: &x,
        v: &v,
        walls: &model.walls,
        kinetic,
    };
    file.finish(&end, stepping, failure)?.into_result()
}

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
fn step_or_hand_over(sim: &mut Simulation, device: &mut String) -> Result<StepRecord, String> {
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
            *device = format!(
                "{device}{}{k} ({why}): {}",
                super::HANDED_OVER,
                sim.backend().device()
            );
            sim.step().map_err(|e| format!("step {k}: {e}"))
        }
    }
}
