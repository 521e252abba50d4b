//! A whole run: step a scene on a backend, write the outputs, report progress.

use crate::backend::Backend;
use crate::output::{write_vtk_frame, StepsCsv, Summary, TrajectoryCsv};
use crate::scene::Scene;
use crate::sim::{Simulation, StepRecord};
use std::path::PathBuf;
use std::time::Instant;

/// What to run and what to write.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Time steps to take.
    pub steps: u64,
    /// Output folder (created if missing).
    pub out_dir: PathBuf,
    /// Write `trajectory.csv` with every node at every step.
    pub trajectory: bool,
    /// Write a VTK frame every this many steps (and the initial state).
    pub frames: Option<u64>,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// End the run this many steps after its first contact (a node within d̂ of a
    /// wall), if that comes before `steps`: a horizon that includes the contacts.
    pub stop_after_contact: Option<u64>,
}

/// Consecutive stalled steps after which a run stops: the simulation is frozen.
pub const MAX_CONSECUTIVE_STALLS: u64 = 100;

/// Seconds of wall-clock time between rewrites of `summary.json` during a run, so
/// that a long run's summary shows its progress and a killed run keeps its totals.
pub const SUMMARY_INTERVAL_S: f64 = 5.0;

/// Runs `scene` on `backend` and writes `steps.csv`, `summary.json` and the chosen
/// extras into `opts.out_dir` (a scene with `contact.model = "nonsmooth"` runs
/// [`crate::nonsmooth::run::run`] instead and writes its outputs). `summary.json` is
/// written at the start (status `running`), every [`SUMMARY_INTERVAL_S`] and at the
/// end, when its status is `completed`, `stalled` (some steps made no progress; the
/// run goes on unless [`MAX_CONSECUTIVE_STALLS`] steps in a row stall) or
/// `interrupted` (Ctrl-C, see [`crate::interrupt`]). On a simulation failure the files
/// written so far stay, the summary says `failed`, and the error is returned.
pub fn run(scene: &Scene, backend: Box<dyn Backend>, opts: &RunOptions) -> Result<Summary, String> {
    if scene.nonsmooth.is_some() {
        // Seed 002's nonsmooth model steps particles itself; no Newton backend is involved.
        return crate::nonsmooth::run::run(scene, opts);
    }
    let model = &scene.model;
    let dim = model.dim;
    std::fs::create_dir_all(&opts.out_dir)
        .map_err(|e| crate::output::io_error(&opts.out_dir, e))?;
    let mut steps_csv = StepsCsv::create(opts.out_dir.join("steps.csv"))?;
    let mut traj = match opts.trajectory {
        true => Some(TrajectoryCsv::create(
            opts.out_dir.join("trajectory.csv"),
            dim,
        )?),
        false => None,
    };
    let frames_dir = opts.out_dir.join("frames");
    if opts.frames.is_some() {
        std::fs::create_dir_all(&frames_dir)
            .map_err(|e| crate::output::io_error(&frames_dir, e))?;
    }
    let write_frame = |step: u64, x: &[f64]| -> Result<(), String> {
        match opts.frames {
            Some(k) if step.is_multiple_of(k) => write_vtk_frame(
                &frames_dir.join(format!("frame_{step:06}.vtk")),
                model,
                x,
                step as f64 * model.solver.dt,
            ),
            _ => Ok(()),
        }
    };

    let mut sim = Simulation::new(backend, model.solver.clone());
    let x0 = sim.backend().positions();
    if let Some(t) = traj.as_mut() {
        t.write(0, &x0)?;
    }
    write_frame(0, &x0)?;
    let d0 = sim.backend().diagnostics().min_wall_distance;
    let (backend_name, device) = (sim.backend().name().into(), sim.backend().device());
    let mut summary = Summary::start(scene, backend_name, device, d0);
    let summary_path = opts.out_dir.join("summary.json");
    summary.write(&summary_path)?;
    let mut last_write = Instant::now();
    let bar = opts.progress.then(|| progress_bar(opts.steps));
    let mut stepping = 0.0;
    let mut failure = None;
    let mut consecutive_stalls = 0;
    for _ in 0..opts.steps {
        if crate::interrupt::requested() {
            summary.status = "interrupted".into();
            summary.error = Some(format!("interrupted after step {}", summary.steps));
            break;
        }
        let t0 = Instant::now();
        let rec = match sim.step() {
            Ok(r) => r,
            Err(e) => {
                failure = Some(format!("step {}: {e}", sim.steps_taken() + 1));
                break;
            }
        };
        stepping += t0.elapsed().as_secs_f64();
        accumulate(&mut summary, &rec, model.barrier.dhat);
        steps_csv.write(&rec)?;
        if traj.is_some() || opts.frames.is_some_and(|k| rec.step.is_multiple_of(k)) {
            let x = sim.backend().positions();
            if let Some(t) = traj.as_mut() {
                t.write(rec.step, &x)?;
            }
            write_frame(rec.step, &x)?;
        }
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
        if last_write.elapsed().as_secs_f64() >= SUMMARY_INTERVAL_S {
            summary.wall_clock_seconds = stepping;
            summary.write(&summary_path)?;
            last_write = Instant::now();
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    summary.wall_clock_seconds = stepping;
    summary.ms_per_step = if summary.steps > 0 {
        stepping * 1e3 / summary.steps as f64
    } else {
        0.0
    };
    let x = sim.backend().positions();
    let v = sim.backend().velocities();
    let n = model.num_nodes() as f64;
    summary.final_centroid = (0..dim)
        .map(|k| x.chunks(dim).map(|p| p[k]).sum::<f64>() / n)
        .collect();
    summary.final_min_along_normal = model
        .walls
        .iter()
        .map(|w| {
            x.chunks(dim)
                .map(|p| crate::energy::dot(&w.normal, p))
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    summary.final_max_speed = v
        .chunks(dim)
        .map(|p| crate::energy::dot(p, p).sqrt())
        .fold(0.0, f64::max);
    summary.final_kinetic_energy = sim.backend().diagnostics().kinetic;
    let c = sim.backend().counters();
    summary.device_submissions = c.submissions;
    summary.device_readbacks = c.readbacks;
    summary.device_memory_bytes = c.memory_bytes;
    if let Some(e) = &failure {
        summary.status = "failed".into();
        summary.error = Some(e.clone());
    } else if summary.status == "running" {
        summary.status = match summary.stalled_steps {
            0 => "completed".into(),
            _ => "stalled".into(),
        };
    }
    if summary.status == "stalled" {
        summary.error = Some(format!(
            "{} of {} steps stalled, the first at step {}: {}",
            summary.stalled_steps,
            summary.steps,
            summary.first_stalled_step.unwrap_or(0),
            summary.first_stall.as_deref().unwrap_or("")
        ));
    }
    summary.write(&summary_path)?;
    match failure {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

fn accumulate(s: &mut Summary, r: &StepRecord, dhat: f64) {
    s.steps = r.step;
    s.simulated_time = r.time;
    s.newton_iterations += r.newton_iterations as u64;
    s.cg_iterations += r.cg_iterations;
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
    if r.min_wall_distance < s.min_wall_distance {
        s.min_wall_distance = r.min_wall_distance;
        s.min_wall_distance_step = r.step;
    }
    if s.first_contact_step.is_none() && r.min_wall_distance < dhat {
        s.first_contact_step = Some(r.step);
    }
}

/// A progress bar over `steps` steps on stderr.
pub fn progress_bar(steps: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(steps);
    let style = indicatif::ProgressStyle::with_template(
        "{bar:40} {pos}/{len} steps [{elapsed_precise} < {eta_precise}] {msg}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}
