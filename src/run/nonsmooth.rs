//! The run of a particle scene with `contact.model = "nonsmooth"`: steps the
//! [`ParticleSystem`] of [`crate::nonsmooth`] and writes, into the output folder,
//! - `nonsmooth.csv`: per step the contacts, the smallest gap and every energy
//!   (`e_kin, e_pot, e_mech, e_dis_inc, e_dis, e_alg, e_total, e_total_alg`);
//! - `particles.csv`: per step and particle the position, velocity, gap, impulse λ
//!   and whether it was in contact;
//! - `steps.csv` and `summary.json` in the same format as barrier runs (Newton and CG
//!   columns zero, barrier energy zero), the trajectory with `--trajectory` and frames with `--frames`;
//! - the plots of [`crate::nonsmooth::plots`].
//!
//! A run whose particle ends a step outside a wall by more than the contact rule
//! allows ([`ParticleSystem::outside`]) stops there with status `failed` and a
//! one-line error naming the step, the ball and the gap; so does a state that is not
//! finite.

use super::summary::{FinalState, Summary, SummaryFile};
use super::{frame_writer, trajectory_writer, RunOptions};
use crate::model::Model;
use crate::nonsmooth::plots::{write_plots, History};
use crate::nonsmooth::scheme::ParticleSystem;
use crate::output::frames::FrameWriter;
use crate::output::trajectory::TrajectoryWriter;
use crate::output::{create_csv, io_error, StepRow, StepsCsv};
use crate::scene::Scene;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::Instant;

/// Column names of `nonsmooth.csv`.
pub const ENERGY_COLUMNS: &[&str] = &[
    "step",
    "time",
    "contacts",
    "min_gap",
    "e_kin",
    "e_pot",
    "e_mech",
    "e_dis_inc",
    "e_dis",
    "e_alg",
    "e_total",
    "e_total_alg",
];

/// The particle system of a nonsmooth scene (restitution from the scene), or an error
/// naming the scene when it does not use the nonsmooth model.
pub fn system(scene: &Scene) -> Result<ParticleSystem, String> {
    let p = scene
        .nonsmooth
        .ok_or_else(|| format!("{}: contact.model is not \"nonsmooth\"", scene.source))?;
    Ok(crate::nonsmooth::system(&scene.model, p))
}

/// The smallest gap of any particle of `s` to any wall (m).
fn min_gap(s: &ParticleSystem) -> f64 {
    (0..s.len()).map(|i| s.gap(i)).fold(f64::INFINITY, f64::min)
}

/// One step of a nonsmooth run, as `steps.csv` records it.
#[derive(Clone, Debug, PartialEq)]
pub struct NonsmoothStep {
    /// Step number (1 = first step).
    pub step: u64,
    /// Simulated time at the end of the step (s).
    pub time: f64,
    /// Kinetic energy (J).
    pub kinetic: f64,
    /// Gravitational potential energy (J).
    pub potential: f64,
    /// Mechanical energy, kinetic + potential (J).
    pub mechanical: f64,
    /// Smallest gap of any particle to any wall (m).
    pub min_gap: f64,
    /// Wall-clock time of the step (ms).
    pub wall_ms: f64,
}

impl StepRow for NonsmoothStep {
    /// The barrier run's columns: no Newton (0 iterations, α = 1, converged, no
    /// stall, incremental potential NaN), no spring or barrier energy, no friction,
    /// no restitution law (its own impulses are in `nonsmooth.csv`), no driven nodes.
    fn csv_row(&self) -> String {
        format!(
            "{},{:?},0,0,0,0,1.0,1.0,0.0,1,0,0,0,,NaN,{:?},{:?},0.0,0.0,{:?},{:?},0,inf,0,0,0.0,0.0,0,0.0,0.0,0.0,{:.4}",
            self.step,
            self.time,
            self.kinetic,
            self.potential,
            self.mechanical,
            self.min_gap,
            self.wall_ms
        )
    }
}

struct Writers {
    energy: BufWriter<File>,
    particles: BufWriter<File>,
    steps: StepsCsv,
    trajectory: Option<TrajectoryWriter>,
    frames: Option<FrameWriter>,
}

impl Writers {
    fn row(
        &mut self,
        s: &ParticleSystem,
        step: u64,
        model: &Model,
        opts: &RunOptions,
    ) -> Result<(), String> {
        let e = &s.energies;
        let contacts = s.contact.iter().filter(|c| **c).count();
        let min_gap = min_gap(s);
        let d = s.dim;
        let r: std::io::Result<()> = (|| {
            writeln!(
                self.energy,
                "{step},{:?},{contacts},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?}",
                s.time,
                min_gap,
                e.kinetic,
                e.potential,
                e.mechanical,
                e.dissipated_step,
                e.dissipated,
                e.algorithmic,
                e.total,
                e.total_algorithmic
            )?;
            for i in 0..s.len() {
                write!(self.particles, "{step},{:?},{i}", s.time)?;
                for c in s.u[i * d..(i + 1) * d]
                    .iter()
                    .chain(&s.v[i * d..(i + 1) * d])
                {
                    write!(self.particles, ",{c:?}")?;
                }
                writeln!(
                    self.particles,
                    ",{:?},{:?},{}",
                    s.gap(i),
                    s.lambda[i],
                    s.contact[i] as u8
                )?;
            }
            self.energy.flush()?;
            self.particles.flush()
        })();
        r.map_err(|e| format!("{}: {e}", opts.out_dir.display()))?;
        if let Some(t) = self.trajectory.as_mut() {
            t.write(step, s.time, &s.u)?;
        }
        if let (Some(f), Some(k)) = (self.frames.as_mut(), opts.frames) {
            if step.is_multiple_of(k) {
                f.write(model, step, s.time, &s.u, Some(&s.v))?;
            }
        }
        Ok(())
    }
}

/// Runs `scene` (which must use the nonsmooth model) for `opts.steps` steps and writes
/// every output into `opts.out_dir`.
pub fn run(scene: &Scene, opts: &RunOptions) -> Result<Summary, String> {
    let mut s = system(scene)?;
    let model = &scene.model;
    let d = model.dim;
    std::fs::create_dir_all(&opts.out_dir).map_err(|e| io_error(&opts.out_dir, e))?;
    let axes = ["x", "y", "z"];
    let pos: Vec<String> = axes[..d].iter().map(|a| a.to_string()).collect();
    let vel: Vec<String> = axes[..d].iter().map(|a| format!("v{a}")).collect();
    let mut out = Writers {
        energy: create_csv(
            &opts.out_dir.join("nonsmooth.csv"),
            &ENERGY_COLUMNS.join(","),
        )?,
        particles: create_csv(
            &opts.out_dir.join("particles.csv"),
            &format!(
                "step,time,particle,{},{},gap,lambda,contact",
                pos.join(","),
                vel.join(",")
            ),
        )?,
        steps: StepsCsv::create(opts.out_dir.join("steps.csv"))?,
        trajectory: trajectory_writer(opts, model)?,
        frames: frame_writer(opts)?,
    };
    let mut history = History::new(s.len());
    history.record(&s);
    out.row(&s, 0, model, opts)?;
    let mut file = SummaryFile::start(
        &opts.out_dir,
        Summary::start(
            scene,
            "nonsmooth".into(),
            format!("{} (1 thread, f64)", crate::backend::cpu::cpu_model_name()),
            "f64",
            Default::default(),
            min_gap(&s),
        ),
    )?;
    let mut stepping = 0.0;
    let mut failure = None;
    for step in 1..=opts.steps {
        if crate::interrupt::requested() {
            file.interrupt();
            break;
        }
        let t0 = Instant::now();
        s.step();
        let wall_ms = t0.elapsed().as_secs_f64() * 1e3;
        stepping += wall_ms / 1e3;
        let min_gap = min_gap(&s);
        if !s.energies.total.is_finite() {
            failure = Some(format!("the state is not finite after step {step}"));
            break;
        }
        let e = &s.energies;
        out.steps.write(&NonsmoothStep {
            step,
            time: s.time,
            kinetic: e.kinetic,
            potential: e.potential,
            mechanical: e.mechanical,
            min_gap,
            wall_ms,
        })?;
        out.row(&s, step, model, opts)?;
        history.record(&s);
        let outside = (0..s.len()).find_map(|i| s.outside(i).map(|o| (i, o)));
        let summary = &mut file.summary;
        summary.steps = step;
        summary.simulated_time = s.time;
        summary.record_distance(step, min_gap, s.contact.iter().any(|c| *c));
        if let Some((i, o)) = outside {
            failure = Some(format!(
                "{}: step {step} (t = {} s): ball {i} ended the step {:e} m outside {} (the contact rule allows {:e} m)",
                scene.source, s.time, -o.gap, o.wall, o.allowed
            ));
            break;
        }
        file.tick(stepping)?;
    }
    let end = FinalState {
        dim: d,
        x: &s.u,
        v: &s.v,
        walls: &model.walls,
        kinetic: s.energies.kinetic,
    };
    let summary = file.finish(&end, stepping, failure)?;
    write_plots(&opts.out_dir, &scene.name, &history)?;
    summary.into_result()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nonsmooth_row_has_every_column_of_steps_csv() {
        let row = NonsmoothStep {
            step: 1,
            time: 0.01,
            kinetic: 1.0,
            potential: 2.0,
            mechanical: 3.0,
            min_gap: 0.5,
            wall_ms: 0.1,
        }
        .csv_row();
        assert_eq!(
            row.split(',').count(),
            crate::output::STEP_COLUMNS.len(),
            "{row}"
        );
    }
}
