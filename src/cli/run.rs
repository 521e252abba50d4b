//! `springsim run`: simulate a scene and write its outputs.

use super::out_dir_error;
use crate::backend::cpu::CpuBackend;
use crate::backend::gpu::GpuBackend;
use crate::backend::Backend;
use crate::linear_solver::{LinearSolver, PreconditionerKind};
use crate::output::frames::FrameFormat;
use crate::output::npy::Precision;
use crate::output::trajectory::{TrajectoryFormat, TrajectorySpec};
use crate::run::{run, RunOptions, Summary};
use crate::scene::{self, Scene};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Which backend `springsim run` computes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendChoice {
    /// The GPU when one can be used, else the CPU (with a note saying why).
    Auto,
    /// The f64 CPU reference backend.
    Cpu,
    /// The wgpu compute backend.
    Gpu,
}

/// Arguments of `springsim run`.
#[derive(Clone, Debug, clap::Args)]
pub struct RunArgs {
    /// Scene file, or the name of a bundled scene (see `springsim scenes`).
    pub scene: String,
    /// Override a scene key before the scene is validated, in TOML value syntax
    /// (`--set solver.dt=1e-3 --set 'bodies[0].cells=[64, 64]'`); repeatable, later
    /// ones win; a bare word is a string (`--set solver.integrator=newmark`).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Which backend computes.
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: BackendChoice,
    /// Number of time steps (default: the scene's `[run]`, else 100).
    #[arg(long, conflicts_with = "duration")]
    pub steps: Option<u64>,
    /// Simulated time in seconds (rounded up to whole steps).
    #[arg(long)]
    pub duration: Option<f64>,
    /// Output folder (default: out/SCENE_NAME).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write the trajectory: every node's position at every (stride-th) step.
    #[arg(long)]
    pub trajectory: bool,
    /// Trajectory format: `csv` (trajectory.csv) or `npy` (trajectory.npy [frames,
    /// nodes, dim] with times.npy, springs.npy and bodies.json).
    #[arg(long, value_enum, default_value = "csv", requires = "trajectory")]
    pub trajectory_format: TrajectoryFormat,
    /// Store the trajectory every K steps (and the initial state).
    #[arg(long, value_name = "K", default_value_t = 1, requires = "trajectory",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub trajectory_stride: u64,
    /// Float precision of trajectory.npy (npy only; csv always holds f64 values).
    #[arg(long, value_enum, default_value = "f32", requires = "trajectory")]
    pub trajectory_precision: Precision,
    /// Also write a frame every K steps (and the initial state) into OUT/frames.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub frames: Option<u64>,
    /// Frame format: `vtk` (legacy ASCII VTK), `vtu` (binary VTK XML with point data,
    /// plus OUT/frames.pvd for ParaView) or `ply` (binary PLY for Blender).
    #[arg(long, value_enum, default_value = "vtk", requires = "frames")]
    pub frame_format: FrameFormat,
    /// No progress bar and no report.
    #[arg(long, short)]
    pub quiet: bool,
    /// Worker threads of the CPU backend (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Newton direction solver (default: the scene's `[solver] linear_solver`, else
    /// auto); `direct` is sparse Cholesky (CPU backend only), `pcg` preconditioned CG,
    /// and `auto` switches between the two on the CPU step by step (PCG while its CG
    /// counts stay below a factorisation's estimated cost) and is `pcg` on the GPU.
    #[arg(long, value_enum)]
    pub linear_solver: Option<LinearSolver>,
    /// Preconditioner of the PCG solve (default: the scene's `[solver]
    /// preconditioner`, else auto); `mas` is the multilevel additive Schwarz
    /// preconditioner, `multigrid` its levels as a V-cycle (both backends), and
    /// `auto` takes `multigrid` on the CPU backend from 2,000 nodes on in 2D and
    /// 30,000 in 3D, block-Jacobi otherwise; on the GPU it picks by a cost model of
    /// the adapter.
    #[arg(long, value_enum)]
    pub preconditioner: Option<PreconditionerKind>,
    /// Float precision of the GPU backend (default: the scene's `[solver]
    /// precision`, else auto): `f32` on every adapter; `f64` and `mixed` (state in
    /// f64, CG data in f32) where the adapter has f64 shaders; `auto` takes f64 there
    /// and f32 elsewhere. The CPU backend always computes in f64.
    #[arg(long, value_enum)]
    pub precision: Option<crate::precision::PrecisionChoice>,
    /// Exit with status 0 even when some steps stalled (made no progress); the
    /// summary still says `stalled`. Without it such a run exits with status 3.
    #[arg(long)]
    pub allow_stalled: bool,
    /// Run the variants listed in FILE as batches on the GPU (`springsim sweep
    /// --backend gpu` writes it): one line per variant, its output folder and its
    /// `KEY=VALUE` overrides separated by tabs.
    #[arg(long, hide = true, value_name = "FILE", conflicts_with = "out")]
    pub batch_file: Option<PathBuf>,
    /// Most variants in one batch of `--batch-file`.
    #[arg(long, hide = true, default_value_t = crate::ensemble::DEFAULT_BATCH as u64,
          value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub batch: u64,
}

/// Opens the chosen backend. `auto` takes a hardware GPU when there is one and
/// otherwise the CPU backend, saying why on stderr (software adapters such as
/// lavapipe are slower than the CPU backend, so `auto` skips them).
pub fn make_backend(
    choice: BackendChoice,
    scene: &Scene,
    quiet: bool,
) -> Result<Box<dyn Backend>, String> {
    let cpu = || CpuBackend::new(scene.model.clone()).with_linear_solver(scene.linear_solver);
    // The direct solver exists on the CPU only; auto picks the CPU for it.
    let cpu_only = if scene.linear_solver == LinearSolver::Direct {
        Some("the direct linear solver runs on the CPU backend only; use --linear-solver pcg or --backend cpu")
    } else {
        None
    };
    if let Some(why) = cpu_only {
        return match choice {
            BackendChoice::Gpu => Err(format!("--backend gpu: {why}")),
            _ => Ok(Box::new(cpu())),
        };
    }
    // `auto` precision on an adapter without f64 says so, in one line.
    let opened = |g: GpuBackend| -> Box<dyn Backend> {
        if let (Some(note), false) = (g.precision_note(), quiet) {
            eprintln!("{note}");
        }
        Box::new(g)
    };
    match choice {
        BackendChoice::Cpu => Ok(Box::new(cpu())),
        BackendChoice::Gpu => GpuBackend::new(scene.model.clone())
            .map(opened)
            .map_err(|e| format!("--backend gpu: {e}")),
        BackendChoice::Auto => {
            let why = match crate::backend::gpu::context::preferred_adapter() {
                Ok(info) if info.device_type == wgpu::DeviceType::Cpu => format!(
                    "the only GPU adapter is a software one ({}); use --backend gpu to run on it anyway",
                    crate::backend::gpu::context::describe(&info)
                ),
                Ok(_) => match GpuBackend::new(scene.model.clone()) {
                    Ok(g) => return Ok(opened(g)),
                    Err(e) => e,
                },
                Err(e) => e,
            };
            if !quiet {
                eprintln!("note: running on the CPU backend: {why}");
            }
            Ok(Box::new(cpu()))
        }
    }
}

/// Most worker threads `--threads` may ask for: 4 × the cores, at most 1024.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (4 * cores).min(1024)
}

/// Runs `springsim run` on one scene (`--batch-file` is [`super::run_command`]'s).
/// Exit status 2 for a bad argument (nothing run), 1 for a failed run, 3 for a
/// stalled one (0 with `--allow-stalled`), 130 when interrupted.
pub fn main(args: RunArgs) -> ExitCode {
    match prepare(&args) {
        Ok(p) => {
            crate::interrupt::install();
            let result = run(&p.scene, p.backend, &p.opts);
            report(&args, &p.scene, &p.opts.out_dir, result)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// A run that its arguments allow, ready to start.
struct Prepared {
    scene: Scene,
    /// `None` for a nonsmooth scene, which steps its particles without a backend.
    backend: Option<Box<dyn Backend>>,
    opts: RunOptions,
}

/// The scene, its backend (opened here, once) and the run options, or the error of a
/// bad argument.
fn prepare(args: &RunArgs) -> Result<Prepared, String> {
    // Before anything parallel runs (loading a mesh scene checks its start in
    // parallel): rayon's global pool can be set up only once, before first use.
    if let Some(t) = args.threads {
        if t == 0 || t > max_threads() {
            return Err(format!(
                "--threads {t}: must be between 1 and {} (4 × the cores, at most 1024)",
                max_threads()
            ));
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
            .map_err(|e| format!("--threads {t}: {e}"))?;
    }
    let (scene, opts) = prepare_scene(args)?;
    let backend = if scene.nonsmooth.is_some() {
        None
    } else {
        Some(make_backend(args.backend, &scene, args.quiet)?)
    };
    Ok(Prepared {
        scene,
        backend,
        opts,
    })
}

/// The scene with `args`' overrides and the run options, or the error of a bad
/// argument (no backend is opened).
pub fn prepare_scene(args: &RunArgs) -> Result<(Scene, RunOptions), String> {
    let overrides = scene::Override::parse_all(&args.set)?;
    let mut scene = scene::load_with(&args.scene, &overrides).map_err(|e| e.to_string())?;
    scene.print_warnings();
    if let Some(pre) = args.preconditioner {
        scene.model.solver.preconditioner = pre;
    }
    if let Some(p) = args.precision {
        scene.model.solver.precision = p;
    }
    if let Some(ls) = args.linear_solver {
        scene.linear_solver = ls;
    }
    let steps = scene.run_steps(args.steps, args.duration)?;
    let out_dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
    if let Some(e) = out_dir_error(&out_dir) {
        return Err(e);
    }
    // Seed 002's nonsmooth scheme steps particles on the host; it has no GPU twin.
    if scene.nonsmooth.is_some() && args.backend == BackendChoice::Gpu {
        return Err(format!("--backend gpu: scene `{}` uses contact.model = \"nonsmooth\", which runs on the CPU only", scene.name));
    }
    let opts = RunOptions {
        steps,
        out_dir,
        trajectory: args.trajectory,
        trajectory_spec: TrajectorySpec {
            format: args.trajectory_format,
            stride: args.trajectory_stride,
            precision: args.trajectory_precision,
        },
        frames: args.frames,
        frame_format: args.frame_format,
        progress: !args.quiet && std::io::stderr().is_terminal(),
        stop_after_contact: None,
    };
    Ok((scene, opts))
}

/// Prints the run's report line and notes, and picks the exit status.
fn report(
    args: &RunArgs,
    scene: &Scene,
    out_dir: &Path,
    result: Result<Summary, String>,
) -> ExitCode {
    let s = match result {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e} (outputs so far are in {})", out_dir.display());
            return ExitCode::from(1);
        }
    };
    if !args.quiet {
        println!(
            "{}: {} steps on {} ({}) in {:.3} s ({:.3} ms/step), {} Newton / {} CG iterations, min wall distance {:.6} m -> {}",
            s.scene,
            s.steps,
            s.backend,
            s.device,
            s.wall_clock_seconds,
            s.ms_per_step,
            s.newton_iterations,
            s.cg_iterations,
            s.min_wall_distance,
            out_dir.display()
        );
    }
    if s.resolution_limited_steps > 0 {
        eprintln!(
            "note: {} of {} steps stopped at the {} backend's floating-point resolution before |p|/h reached solver.tolerance = {} m/s (the direction was within rounding noise of the positions); loosen the tolerance, or run on the f64 CPU backend to resolve it",
            s.resolution_limited_steps, s.steps, s.backend, scene.model.solver.tolerance
        );
    }
    if s.cg_unconverged_directions > 0 {
        eprintln!(
            "note: {} Newton directions stopped short of their CG tolerance (at solver.cg_max_iterations = {}, or at a direction of non-positive curvature); see `cg_unconverged` in steps.csv",
            s.cg_unconverged_directions, scene.model.solver.cg_max_iterations
        );
    }
    if s.capped_steps > 0 {
        eprintln!(
            "note: {} of {} steps stopped at solver.max_newton_iterations = {} before the Newton tolerance; see `newton_capped` in steps.csv",
            s.capped_steps, s.steps, scene.model.solver.max_newton_iterations
        );
    }
    for note in s.drives.iter().filter_map(|d| d.lag_note()) {
        eprintln!("note: {note}");
    }
    match s.status.as_str() {
        "stalled" if args.allow_stalled => {
            eprintln!(
                "warning: {} (allowed by --allow-stalled)",
                s.error.as_deref().unwrap_or("steps stalled")
            );
            ExitCode::SUCCESS
        }
        "stalled" => {
            eprintln!(
                "error: {}; the run is not trustworthy (see `stall` in {}; --allow-stalled exits 0 anyway)",
                s.error.as_deref().unwrap_or("steps stalled"),
                out_dir.join("steps.csv").display()
            );
            ExitCode::from(3)
        }
        "interrupted" => {
            eprintln!(
                "interrupted after step {}; outputs so far are in {}",
                s.steps,
                out_dir.display()
            );
            ExitCode::from(130)
        }
        _ => ExitCode::SUCCESS,
    }
}
