//! `springsim bench`: a fixed ladder of scenes stepped on the chosen backends for a
//! fixed number of steps after a warm-up, reported as a table, `bench.csv` and
//! `bench.json` (benchmarks/NOTES.md holds the measured tables).

pub mod cli;
/// The GPU's traffic and cost models, kept beside the backend they model.
pub use crate::backend::gpu::{bandwidth, cost_model};
pub mod ladder;
mod row;
pub mod table;

use crate::backend::cpu::{CpuBackend, LinearSolver};
use crate::backend::gpu::GpuBackend;
use crate::backend::Backend;
use crate::linear_solver::PreconditionerKind;
use crate::sim::Simulation;
use ladder::Entry;
use row::note_row;
pub use row::BenchRow;
use serde::Serialize;
use std::time::Instant;

/// A backend column of the benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BenchBackend {
    /// The f64 CPU backend with matrix-free block-Jacobi PCG.
    Cpu,
    /// The f64 CPU backend with PCG and the multilevel additive Schwarz
    /// preconditioner ([`crate::mas`]).
    CpuMas,
    /// The f64 CPU backend with PCG and the MAS levels as a V-cycle
    /// ([`crate::mas::VCycle`]).
    CpuMg,
    /// The f64 CPU backend with the sparse Cholesky direct solver.
    Direct,
    /// The wgpu backend (in `--precision`) with block-Jacobi PCG.
    Gpu,
    /// The wgpu backend (in `--precision`) with the multilevel additive Schwarz preconditioner
    /// ([`crate::backend::gpu::mas`]).
    GpuMas,
    /// The wgpu backend (in `--precision`) with the MAS levels as a V-cycle
    /// ([`crate::backend::gpu::mas_cycle`]).
    GpuMg,
}

impl BenchBackend {
    /// The name on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            BenchBackend::Cpu => "cpu",
            BenchBackend::CpuMas => "cpu-mas",
            BenchBackend::CpuMg => "cpu-mg",
            BenchBackend::Direct => "direct",
            BenchBackend::Gpu => "gpu",
            BenchBackend::GpuMas => "gpu-mas",
            BenchBackend::GpuMg => "gpu-mg",
        }
    }

    /// Parses `cpu`, `cpu-mas`, `cpu-mg`, `direct`, `gpu`, `gpu-mas` or `gpu-mg`.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "cpu" => Ok(BenchBackend::Cpu),
            "cpu-mas" => Ok(BenchBackend::CpuMas),
            "cpu-mg" => Ok(BenchBackend::CpuMg),
            "direct" => Ok(BenchBackend::Direct),
            "gpu" => Ok(BenchBackend::Gpu),
            "gpu-mas" => Ok(BenchBackend::GpuMas),
            "gpu-mg" => Ok(BenchBackend::GpuMg),
            _ => Err(format!(
                "--backends: unknown backend `{s}` (expected cpu, cpu-mas, cpu-mg, direct, gpu, gpu-mas or gpu-mg)"
            )),
        }
    }
}

/// How to run the ladder.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Backends, in column order.
    pub backends: Vec<BenchBackend>,
    /// Timed steps per entry.
    pub steps: u64,
    /// Untimed steps before them.
    pub warmup: u64,
    /// Entries above this many nodes are skipped (with a note).
    pub max_nodes: usize,
    /// Run the GPU rows on a software adapter (lavapipe) too.
    pub allow_software_gpu: bool,
    /// The CG tolerance rule of the PCG rows (`None`: each scene's own, fixed).
    pub forcing: Option<crate::newton::Forcing>,
    /// Precision of the GPU rows (`auto`: the adapter's best, as `springsim run`).
    pub precision: crate::precision::PrecisionChoice,
    /// Time every GPU kernel with timestamp queries (`kernels.csv`).
    pub profile_kernels: bool,
    /// The GPU rows' CG form ([`crate::backend::gpu::GpuOptions::fused_cg`]).
    pub fused_cg: Option<bool>,
}

/// The process's resident set size (MiB) from `/proc/self/status`.
pub fn resident_mib() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Opens `backend` for the entry's scene, or says why it cannot run.
fn open(
    backend: BenchBackend,
    scene: &crate::scene::Scene,
    o: &BenchOptions,
) -> Result<Box<dyn Backend>, String> {
    let m = &scene.model;
    match backend {
        BenchBackend::Cpu | BenchBackend::CpuMas | BenchBackend::CpuMg | BenchBackend::Direct => {
            use crate::scene::memory::{available_bytes, estimate_bytes};
            let (n, sp) = (m.num_nodes() as u64, m.springs.len() as u64);
            let need = estimate_bytes(m.dim as u64, n, sp).unwrap_or(u64::MAX);
            // The factor of a 3D mesh fills in far beyond the matrix; keep a margin.
            let need = if backend == BenchBackend::Direct {
                need.saturating_mul(6)
            } else {
                need
            };
            if let Some(avail) = available_bytes() {
                if need > avail {
                    return Err(format!(
                        "skipped: needs about {:.1} GiB, {:.1} GiB available",
                        need as f64 / 1073741824.0,
                        avail as f64 / 1073741824.0
                    ));
                }
            }
            if backend == BenchBackend::Direct && m.dim == 3 && m.num_nodes() > 150_000 {
                return Err(
                    "skipped: 3D fill-in makes the direct factor too large above 150k nodes".into(),
                );
            }
            let solver = match backend {
                BenchBackend::Direct => LinearSolver::Direct,
                _ => LinearSolver::Pcg,
            };
            let mut m = m.clone();
            // Each PCG row names its preconditioner (`auto` would pick by size).
            m.solver.preconditioner = match backend {
                BenchBackend::CpuMas => PreconditionerKind::Mas,
                BenchBackend::CpuMg => PreconditionerKind::Multigrid,
                _ => PreconditionerKind::BlockJacobi,
            };
            Ok(Box::new(CpuBackend::new(m).with_linear_solver(solver)))
        }
        BenchBackend::Gpu | BenchBackend::GpuMas | BenchBackend::GpuMg => {
            let mut m = m.clone();
            m.solver.precision = o.precision;
            m.solver.preconditioner = match backend {
                BenchBackend::GpuMas => PreconditionerKind::Mas,
                BenchBackend::GpuMg => PreconditionerKind::Multigrid,
                _ => PreconditionerKind::BlockJacobi,
            };
            let opts = crate::backend::gpu::GpuOptions {
                profile_kernels: o.profile_kernels,
                fused_cg: o.fused_cg,
                ..Default::default()
            };
            let g = GpuBackend::with_options(m, opts).map_err(|e| format!("skipped: {e}"))?;
            if g.is_software() && !o.allow_software_gpu {
                return Err(format!(
                    "skipped: only a software adapter ({}); name gpu in --backends to run on it",
                    g.adapter()
                ));
            }
            Ok(Box::new(g))
        }
    }
}

/// Runs one entry on one backend.
pub fn run_entry(e: &Entry, backend: BenchBackend, o: &BenchOptions) -> BenchRow {
    let mut scene = match e.scene() {
        Ok(s) => s,
        Err(err) => return note_row(e, None, backend, format!("failed: {err}"), o),
    };
    // `--forcing`, resolved for this size, for the backend and the Newton driver alike.
    if let Some(f) = o.forcing {
        scene.model.solver.forcing = f.resolve(scene.model.num_nodes());
    }
    if e.nodes() > o.max_nodes {
        let why = format!("skipped: more than --max-nodes {}", o.max_nodes);
        return note_row(e, Some(&scene), backend, why, o);
    }
    let b = match open(backend, &scene, o) {
        Ok(b) => b,
        Err(why) => return note_row(e, Some(&scene), backend, why, o),
    };
    let mut row = note_row(e, Some(&scene), backend, "ok".into(), o);
    row.device = b.device();
    if let Some(mode) = b.gpu_precision() {
        let m = &scene.model;
        row.precision = mode.name().into();
        row.gpu_cg_bytes_per_iter =
            bandwidth::cg_iteration_bytes(m.num_nodes(), m.springs.len(), m.dim, mode);
    }
    let mut sim = Simulation::new(b, &scene.model);
    for _ in 0..o.warmup {
        if let Err(err) = sim.step() {
            row.status = format!("failed: warm-up step {}: {err}", sim.steps_taken() + 1);
            return row;
        }
    }
    let (mut newton, mut cg, mut min_d) = (0u64, 0u64, f64::INFINITY);
    let mut stalled = None;
    let pre0 = sim.backend().preconditioner_stats();
    let (setup0, factorisations0) = (pre0.setup_seconds, pre0.factorisations);
    let counters0 = sim.backend().counters();
    let kernels0 = sim.backend().kernel_times();
    let t0 = Instant::now();
    for _ in 0..o.steps {
        match sim.step() {
            Ok(r) => {
                newton += r.newton_iterations as u64;
                cg += r.cg_iterations;
                min_d = r.min_wall_distance;
                if let (None, Some(why)) = (stalled, r.stall) {
                    stalled = Some((r.step, why));
                }
            }
            Err(err) => {
                row.status = format!("failed: step {}: {err}", sim.steps_taken() + 1);
                return row;
            }
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    if let Some((step, why)) = stalled {
        // A timing of steps that made no progress would flatter the backend.
        row.status = format!("stalled: step {step}: {}", why.code());
    }
    let steps = o.steps.max(1) as f64;
    // Each step solves one more direction than it accepts iterations.
    let solves = newton as f64 + steps;
    row.ms_per_step = Some(secs * 1e3 / steps);
    row.newton_per_step = Some(newton as f64 / steps);
    row.cg_per_newton = Some(cg as f64 / solves);
    row.node_steps_per_s = Some(e.nodes() as f64 * steps / secs.max(1e-12));
    row.min_wall_distance = Some(min_d);
    row.host_rss_mib = resident_mib();
    let pre_stats = sim.backend().preconditioner_stats();
    if pre_stats.memory_bytes > 0 {
        row.preconditioner_ms_per_step = Some((pre_stats.setup_seconds - setup0) * 1e3 / steps);
        row.preconditioner_mib = Some(pre_stats.memory_bytes as f64 / 1048576.0);
    }
    let counters = sim.backend().counters();
    if let Some(mode) = sim.backend().gpu_precision() {
        let m = &scene.model;
        let mesh = cost_model::Mesh {
            nodes: m.num_nodes(),
            springs: m.springs.len(),
            dim: m.dim,
            precision: mode,
        };
        let pre = match backend {
            BenchBackend::GpuMas => cost_model::GpuPre::Mas,
            BenchBackend::GpuMg => cost_model::GpuPre::VCycle,
            _ => cost_model::GpuPre::BlockJacobi,
        };
        let work = cost_model::Work {
            solves: solves / steps,
            cg: cg as f64 / steps,
            factorisations: (pre_stats.factorisations - factorisations0) as f64 / steps,
            fused_cg: o.fused_cg,
        };
        let software = row.device.contains(", Cpu,");
        let dev = crate::backend::gpu::profiles::profile_for(&row.device, software);
        row.model_ms_per_step = Some(cost_model::step_cost(mesh, pre, work, &dev).total_ms());
    }
    if matches!(
        backend,
        BenchBackend::Gpu | BenchBackend::GpuMas | BenchBackend::GpuMg
    ) {
        row.gpu_memory_mib = Some(counters.memory_bytes as f64 / 1048576.0);
        let d = counters.since(&counters0);
        let t = crate::run::device_totals::DeviceTotals::of(&d);
        row.submissions_per_step = Some(d.submissions as f64 / steps);
        row.dispatches_per_step = Some(d.dispatches as f64 / steps);
        row.readbacks_per_step = Some(d.readbacks as f64 / steps);
        row.dispatches_per_cg_iteration =
            (d.cg_iterations_recorded > 0).then_some(t.device_dispatches_per_cg_iteration);
        row.empty_dispatches_per_step = Some(t.device_empty_dispatches as f64 / steps);
        row.record_us_per_dispatch = Some(t.device_record_us_per_dispatch);
        row.kernel_times =
            crate::backend::gpu::profiler::since(sim.backend().kernel_times(), &kernels0);
    }
    row
}

/// Runs the ladder, calling `each` with every finished row.
pub fn run(entries: &[Entry], o: &BenchOptions, mut each: impl FnMut(&BenchRow)) -> Vec<BenchRow> {
    let mut rows = Vec::new();
    for e in entries {
        for &b in &o.backends {
            let row = run_entry(e, b, o);
            each(&row);
            rows.push(row);
        }
    }
    rows
}
