//! The run of an IPC scene: [`crate::sim::Simulation`] steps it on a [`Backend`]
//! through Newton; `steps.csv`, `summary.json` and the chosen extras are written as
//! it goes.

use super::stepper::Stepper;
use super::summary::{Summary, SummaryFile};
use super::{frame_writer, progress_bar, trajectory_writer, RunOptions};
use crate::backend::Backend;
use crate::output::StepsCsv;
use crate::scene::Scene;
use crate::sim::Simulation;

/// Runs the IPC `scene` on `backend` and writes `steps.csv`, `summary.json` and the
/// chosen extras into `opts.out_dir` (see [`super::run`] for the statuses).
pub fn run(scene: &Scene, backend: Box<dyn Backend>, opts: &RunOptions) -> Result<Summary, String> {
    let (mut stepper, summary) = Stepper::new(scene, backend);
    run_on(
        &mut stepper,
        summary,
        opts,
        &mut crate::interrupt::requested,
    )?
    .into_result()
}

/// Steps `stepper` from where it stands for `opts.steps` steps, taking them into
/// `summary` (a [`Stepper::new`]'s, or one that has counted earlier steps of the same
/// simulation) and writing `steps.csv` (this call's steps), `summary.json` and the
/// chosen extras into `opts.out_dir`. `stop` is asked before each step whether to
/// stop (Ctrl-C: the summary says `interrupted`). Returns the summary as written,
/// whatever its status.
pub fn run_on<S: std::ops::Deref<Target = Scene> + Clone>(
    stepper: &mut Stepper<S>,
    summary: Summary,
    opts: &RunOptions,
    stop: &mut dyn FnMut() -> bool,
) -> Result<Summary, String> {
    let scene = stepper.scene.clone();
    let model = &scene.model;
    std::fs::create_dir_all(&opts.out_dir)
        .map_err(|e| crate::output::io_error(&opts.out_dir, e))?;
    let mut steps_csv = StepsCsv::create(opts.out_dir.join("steps.csv"))?;
    let mut traj = trajectory_writer(opts, model)?;
    let mut frames = frame_writer(opts)?;
    let dt = model.solver.dt;
    let frame_due = |step: u64| opts.frames.is_some_and(|k| step.is_multiple_of(k));
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
    let first = stepper.sim.steps_taken();
    outputs(&mut stepper.sim, first)?;
    let mut file = SummaryFile::start(&opts.out_dir, summary)?;
    let bar = opts.progress.then(|| progress_bar(opts.steps));
    let mut failure = None;
    for _ in 0..opts.steps {
        if stop() {
            file.interrupt();
            break;
        }
        let (rec, ends) = match stepper.step(&mut file.summary) {
            Ok(r) => r,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        steps_csv.write(&rec)?;
        outputs(&mut stepper.sim, rec.step)?;
        if ends.is_some() {
            failure = ends;
            break;
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
        if let (Some(k), Some(c)) = (opts.stop_after_contact, summary.first_any_contact_step()) {
            if rec.step >= c + k {
                break;
            }
        }
        file.tick(stepper.stepping)?;
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    file.summary = stepper.settled(&file.summary, failure);
    file.close()
}
