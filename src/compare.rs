//! `springsim compare`: one scene on the CPU and GPU backends in lockstep, with the
//! position difference of every node at every step, the iteration totals of each
//! backend and their wall-clock ratio.

use crate::backend::Backend;
use crate::model::SolverParams;
use crate::output::io_error;
use crate::precision::GpuPrecision;
use crate::scene::Scene;
use crate::sim::Simulation;
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// Totals of one backend over a comparison.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BackendTotals {
    /// `cpu` or `gpu`.
    pub backend: String,
    /// The device in words.
    pub device: String,
    /// Newton iterations over the run.
    pub newton_iterations: u64,
    /// CG iterations over the run.
    pub cg_iterations: u64,
    /// Seconds spent stepping (outputs and comparison excluded).
    pub seconds: f64,
    /// Milliseconds per step.
    pub ms_per_step: f64,
    /// Steps that could make no progress (see [`crate::newton::Stall`]).
    pub stalled_steps: u64,
    /// Steps stopped at the Newton iteration cap.
    pub capped_steps: u64,
}

/// The result of a comparison (`compare.json`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct CompareReport {
    /// Scene name.
    pub scene: String,
    /// Steps taken by both backends.
    pub steps: u64,
    /// Nodes of the scene.
    pub nodes: usize,
    /// Largest distance between a node's CPU and GPU positions over all steps (m).
    pub max_position_difference: f64,
    /// Step where it occurred.
    pub max_difference_step: u64,
    /// Root mean square of that distance over all nodes and steps (m).
    pub rms_position_difference: f64,
    /// Largest distance at the last step (m).
    pub final_max_position_difference: f64,
    /// The reference backend.
    pub cpu: BackendTotals,
    /// The GPU backend.
    pub gpu: BackendTotals,
    /// CPU seconds / GPU seconds (above 1: the GPU is faster).
    pub wall_clock_ratio: f64,
    /// The GPU's precision mode (`f32`, `mixed`, `f64`).
    pub precision: String,
    /// The agreement the mode promises (m, [`position_tolerance`]).
    pub position_tolerance: f64,
    /// The first step at which some node's positions differ by more than that; in a
    /// chaotic scene, where the trajectories part.
    pub first_step_beyond_tolerance: Option<u64>,
    /// Whether every step stayed within it.
    pub within_tolerance: bool,
}

/// The distance (m) within which the GPU's positions should follow the CPU's, by
/// the GPU's precision mode. In f64 with directions solved to the fixed CG tolerance
/// both backends take the same Newton iterates, so only rounding separates them:
/// 1e-9 m. In f32 and mixed the directions differ by rounding, and with
/// Eisenstat–Walker forcing (loose solves) rounding may move where a solve stops,
/// so each backend may stop Newton at a different iterate within the stopping
/// distance `tolerance · h` of the step's solution: 2 tolerance · h.
pub fn position_tolerance(precision: Option<GpuPrecision>, solver: &SolverParams) -> f64 {
    let loose = solver.forcing.as_run() == crate::model::Forcing::EisenstatWalker;
    match precision {
        Some(GpuPrecision::F32) | Some(GpuPrecision::Mixed) => 2.0 * solver.tolerance * solver.dt,
        _ if loose => 2.0 * solver.tolerance * solver.dt,
        _ => 1e-9,
    }
}

/// Largest and summed-squared distance between corresponding nodes of `a` and `b`.
pub fn node_differences(a: &[f64], b: &[f64], dim: usize) -> (f64, f64) {
    let mut max: f64 = 0.0;
    let mut sq = 0.0;
    for (pa, pb) in a.chunks(dim).zip(b.chunks(dim)) {
        let d2: f64 = pa.iter().zip(pb).map(|(x, y)| (x - y) * (x - y)).sum();
        max = max.max(d2.sqrt());
        sq += d2;
    }
    (max, sq)
}

/// Steps `scene` `steps` times on `cpu` and `gpu` side by side. When `out_dir` is
/// given, writes `compare_steps.csv` (step, max and RMS difference) there as it goes.
pub fn compare(
    scene: &Scene,
    cpu: Box<dyn Backend>,
    gpu: Box<dyn Backend>,
    steps: u64,
    out_dir: Option<&Path>,
    mut progress: impl FnMut(u64),
) -> Result<CompareReport, String> {
    let model = &scene.model;
    let dim = model.dim;
    let n = model.num_nodes();
    let mut sims = [Simulation::new(cpu, model), Simulation::new(gpu, model)];
    let mut totals: Vec<BackendTotals> = sims
        .iter_mut()
        .map(|s| BackendTotals {
            backend: s.backend().name().into(),
            device: s.backend().device(),
            ..Default::default()
        })
        .collect();
    let mut csv = match out_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
            let path = dir.join("compare_steps.csv");
            let mut f = std::io::BufWriter::new(
                std::fs::File::create(&path).map_err(|e| io_error(&path, e))?,
            );
            writeln!(f, "step,max_difference,rms_difference").map_err(|e| io_error(&path, e))?;
            Some((f, path))
        }
        None => None,
    };
    let mode = sims[1].backend().gpu_precision();
    let mut report = CompareReport {
        scene: scene.name.clone(),
        nodes: n,
        precision: sims[1].backend().precision_name().into(),
        position_tolerance: position_tolerance(mode, &model.solver),
        ..Default::default()
    };
    let mut sum_sq = 0.0;
    for step in 1..=steps {
        let mut x = Vec::new();
        for (s, t) in sims.iter_mut().zip(totals.iter_mut()) {
            let t0 = Instant::now();
            let rec = s
                .step()
                .map_err(|e| format!("{} backend, step {step}: {e}", t.backend))?;
            t.seconds += t0.elapsed().as_secs_f64();
            t.newton_iterations += rec.newton_iterations as u64;
            t.cg_iterations += rec.cg_iterations;
            t.stalled_steps += u64::from(rec.stall.is_some());
            t.capped_steps += u64::from(rec.newton_capped);
            x.push(s.backend().positions());
        }
        let (max, sq) = node_differences(&x[0], &x[1], dim);
        if max > report.position_tolerance && report.first_step_beyond_tolerance.is_none() {
            report.first_step_beyond_tolerance = Some(step);
        }
        if max > report.max_position_difference {
            report.max_position_difference = max;
            report.max_difference_step = step;
        }
        report.final_max_position_difference = max;
        sum_sq += sq;
        report.steps = step;
        if let Some((f, path)) = csv.as_mut() {
            writeln!(f, "{step},{max:?},{:?}", (sq / n.max(1) as f64).sqrt())
                .and_then(|_| f.flush())
                .map_err(|e| io_error(path, e))?;
        }
        progress(step);
    }
    report.within_tolerance = report.first_step_beyond_tolerance.is_none();
    report.rms_position_difference = (sum_sq / (n.max(1) as f64 * steps.max(1) as f64)).sqrt();
    for t in totals.iter_mut() {
        t.ms_per_step = t.seconds * 1e3 / steps.max(1) as f64;
    }
    report.wall_clock_ratio = totals[0].seconds / totals[1].seconds.max(1e-12);
    report.gpu = totals.pop().unwrap_or_default();
    report.cpu = totals.pop().unwrap_or_default();
    if let Some(dir) = out_dir {
        let path = dir.join("compare.json");
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(&path, text + "\n").map_err(|e| io_error(&path, e))?;
    }
    Ok(report)
}
