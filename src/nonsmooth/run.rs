//! A whole run of a particle scene with `contact.model = "nonsmooth"`: steps the
//! [`ParticleSystem`] and writes, into the output folder,
//! - `nonsmooth.csv`: per step the contacts, the smallest gap and every energy
//!   (`e_kin, e_pot, e_mech, e_dis_inc, e_dis, e_alg, e_total, e_total_alg`);
//! - `particles.csv`: per step and particle the position, velocity, gap, impulse λ
//!   and whether it was in contact;
//! - `steps.csv` and `summary.json` in the same format as barrier runs (Newton and CG
//!   columns zero, barrier energy zero), `trajectory.csv` with `--trajectory`;
//! - the plots of [`super::plots`].
//!
//! A run whose particle ends a step outside a wall by more than the contact rule
//! allows ([`ParticleSystem::outside`]) stops there with status `failed` and a
//! one-line error naming the step, the ball and the gap; so does a state that is not
//! finite.

use super::plots::{write_plots, History};
use super::scheme::ParticleSystem;
use crate::output::{io_error, StepsCsv, Summary, TrajectoryCsv};
use crate::run::RunOptions;
use crate::scene::Scene;
use crate::sim::StepRecord;
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

/// The particle system of a nonsmooth scene (restitution from the scene).
pub fn system(scene: &Scene) -> Result<ParticleSystem, String> {
    let p = scene
        .nonsmooth
        .ok_or_else(|| format!("{}: contact.model is not \"nonsmooth\"", scene.source))?;
    let m = &scene.model;
    let mut system = ParticleSystem::new(
        m.dim,
        m.solver.dt,
        p.restitution,
        m.gravity.clone(),
        m.walls.clone(),
        m.mass.clone(),
        m.fixed.clone(),
        m.x0.clone(),
        m.v0.clone(),
    );
    system.implicit_walls = m.implicit_walls.clone();
    Ok(system)
}

struct Writers {
    energy: BufWriter<File>,
    particles: BufWriter<File>,
    steps: StepsCsv,
    trajectory: Option<TrajectoryCsv>,
}

impl Writers {
    fn row(&mut self, s: &ParticleSystem, step: u64, opts: &RunOptions) -> Result<(), String> {
        let e = &s.energies;
        let contacts = s.contact.iter().filter(|c| **c).count();
        let min_gap = (0..s.len()).map(|i| s.gap(i)).fold(f64::INFINITY, f64::min);
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
            t.write(step, &s.u)?;
        }
        Ok(())
    }
}

fn create(path: &std::path::Path, header: &str) -> Result<BufWriter<File>, String> {
    let mut f = File::create(path)
        .map(BufWriter::new)
        .map_err(|e| io_error(path, e))?;
    writeln!(f, "{header}").map_err(|e| io_error(path, e))?;
    Ok(f)
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
        energy: create(
            &opts.out_dir.join("nonsmooth.csv"),
            &ENERGY_COLUMNS.join(","),
        )?,
        particles: create(
            &opts.out_dir.join("particles.csv"),
            &format!(
                "step,time,particle,{},{},gap,lambda,contact",
                pos.join(","),
                vel.join(",")
            ),
        )?,
        steps: StepsCsv::create(opts.out_dir.join("steps.csv"))?,
        trajectory: match opts.trajectory {
            true => Some(TrajectoryCsv::create(
                opts.out_dir.join("trajectory.csv"),
                d,
            )?),
            false => None,
        },
    };
    let mut history = History::new(s.len());
    history.record(&s);
    out.row(&s, 0, opts)?;
    let mut summary = Summary::start(
        scene,
        "nonsmooth".into(),
        format!("{} (1 thread, f64)", crate::backend::cpu::cpu_model_name()),
        (0..s.len()).map(|i| s.gap(i)).fold(f64::INFINITY, f64::min),
    );
    // As the barrier runs: a `running` summary from the start, so a killed run has one.
    summary.write(&opts.out_dir.join("summary.json"))?;
    let mut stepping = 0.0;
    for step in 1..=opts.steps {
        if crate::interrupt::requested() {
            summary.status = "interrupted".into();
            summary.error = Some(format!("interrupted after step {}", step - 1));
            break;
        }
        let t0 = Instant::now();
        s.step();
        let wall_ms = t0.elapsed().as_secs_f64() * 1e3;
        stepping += wall_ms / 1e3;
        let min_gap = (0..s.len()).map(|i| s.gap(i)).fold(f64::INFINITY, f64::min);
        if !s.energies.total.is_finite() {
            summary.status = "failed".into();
            summary.error = Some(format!("the state is not finite after step {step}"));
            break;
        }
        let e = &s.energies;
        out.steps.write(&StepRecord {
            step,
            time: s.time,
            newton_iterations: 0,
            cg_iterations: 0,
            line_search_halvings: 0,
            alpha_min: 1.0,
            ccd_alpha_min: 1.0,
            residual: 0.0,
            converged: true,
            line_search_failed: false,
            resolution_limited: false,
            newton_capped: false,
            stall: None,
            incremental_potential: f64::NAN,
            kinetic: e.kinetic,
            gravity: e.potential,
            elastic: 0.0,
            barrier: 0.0,
            total: e.mechanical,
            min_wall_distance: min_gap,
            sticking: 0,
            sliding: 0,
            friction_dissipation: 0.0,
            friction_lambda_change: 0.0,
            wall_ms,
        })?;
        out.row(&s, step, opts)?;
        history.record(&s);
        if let Some((i, o)) = (0..s.len()).find_map(|i| s.outside(i).map(|o| (i, o))) {
            summary.status = "failed".into();
            summary.error = Some(format!(
                "{}: step {step} (t = {} s): ball {i} ended the step {:e} m outside {} (the contact rule allows {:e} m)",
                scene.source, s.time, -o.gap, o.wall, o.allowed
            ));
        }
        summary.steps = step;
        summary.simulated_time = s.time;
        if min_gap < summary.min_wall_distance {
            summary.min_wall_distance = min_gap;
            summary.min_wall_distance_step = step;
        }
        if summary.first_contact_step.is_none() && s.contact.iter().any(|c| *c) {
            summary.first_contact_step = Some(step);
        }
        if summary.error.is_some() {
            break;
        }
    }
    summary.wall_clock_seconds = stepping;
    summary.ms_per_step = if summary.steps > 0 {
        stepping * 1e3 / summary.steps as f64
    } else {
        0.0
    };
    let n = s.len().max(1) as f64;
    summary.final_centroid = (0..d)
        .map(|k| s.u.chunks(d).map(|p| p[k]).sum::<f64>() / n)
        .collect();
    summary.final_min_along_normal = model
        .walls
        .iter()
        .map(|w| {
            s.u.chunks(d)
                .map(|p| crate::energy::dot(&w.normal, p))
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    summary.final_max_speed =
        s.v.chunks(d)
            .map(|p| crate::energy::dot(p, p).sqrt())
            .fold(0.0, f64::max);
    summary.final_kinetic_energy = s.energies.kinetic;
    if summary.status == "running" {
        summary.status = "completed".into();
    }
    summary.write(&opts.out_dir.join("summary.json"))?;
    write_plots(&opts.out_dir, &scene.name, &history)?;
    match summary.status.as_str() {
        "failed" => Err(summary.error.clone().unwrap_or_default()),
        _ => Ok(summary),
    }
}
