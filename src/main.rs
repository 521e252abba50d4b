//! The `springsim` command line: run scenes, list the bundled ones.

use clap::{Parser, Subcommand, ValueEnum};
use springsim::backend::cpu::CpuBackend;
use springsim::backend::gpu::GpuBackend;
use springsim::backend::Backend;
use springsim::run::{run, RunOptions};
use springsim::scene;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "springsim",
    version,
    about = "Mass-spring meshes through Incremental Potential Contact (IPC)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BackendChoice {
    /// The GPU when one can be used, else the CPU (with a note saying why).
    Auto,
    /// The f64 CPU reference backend.
    Cpu,
    /// The wgpu compute backend.
    Gpu,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scene (a TOML file, or a bundled scene's name) and write its outputs.
    Run {
        /// Scene file, or the name of a bundled scene (see `springsim scenes`).
        scene: String,
        /// Which backend computes.
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendChoice,
        /// Number of time steps (default: the scene's `[run]`, else 100).
        #[arg(long, conflicts_with = "duration")]
        steps: Option<u64>,
        /// Simulated time in seconds (rounded up to whole steps).
        #[arg(long)]
        duration: Option<f64>,
        /// Output folder (default: out/SCENE_NAME).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Also write trajectory.csv: every node's position at every step.
        #[arg(long)]
        trajectory: bool,
        /// Also write a VTK frame (ParaView) every K steps into OUT/frames.
        #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
        frames: Option<u64>,
        /// No progress bar and no report.
        #[arg(long, short)]
        quiet: bool,
        /// Worker threads of the CPU backend (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Newton direction solver (default: the scene's `[solver] linear_solver`, else
        /// pcg); `direct` is the sparse Cholesky baseline, CPU backend only.
        #[arg(long, value_enum)]
        linear_solver: Option<springsim::linear_solver::LinearSolver>,
        /// Exit with status 0 even when some steps stalled (made no progress); the
        /// summary still says `stalled`. Without it such a run exits with status 3.
        #[arg(long)]
        allow_stalled: bool,
    },
    /// List the bundled scenes, one line each.
    Scenes,
    /// Run a scene on the CPU and GPU backends side by side and report how far apart
    /// their node positions get, their iteration totals and their speed ratio.
    Compare {
        /// Scene file, or the name of a bundled scene.
        scene: String,
        /// Number of time steps (default: the scene's `[run]`, else 100).
        #[arg(long)]
        steps: Option<u64>,
        /// Output folder for compare.json and compare_steps.csv (default: out/SCENE_NAME-compare).
        #[arg(long)]
        out: Option<PathBuf>,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
    },
    /// List the GPU adapters wgpu sees (name, backend API, device type, driver).
    Devices,
    /// Seed 000's restitution study: a particle bouncing on the IPC barrier, swept
    /// over h, dhat, kappa, tol or v0; tables, CSV files and PNG plots.
    Restitution(springsim::restitution::cli::RestitutionArgs),
    /// Turn a run's steps.csv into PNG plots (energies, Newton/CG iterations, minimum distance).
    Plot(springsim::steps_plots::PlotArgs),
    /// Turn a run's trajectory.csv into animation.gif and PNG stills (walls, springs, balls).
    Render(springsim::render::RenderArgs),
    /// Time a fixed ladder of scenes (25 nodes to ~1M) on the CPU (PCG and direct)
    /// and GPU backends; prints a table and writes bench.csv and bench.json.
    Bench(springsim::bench::cli::BenchArgs),
    /// Run every bundled scene (or those named) on each backend through its default
    /// duration, or a horizon past its first contacts, and tabulate stalled,
    /// unconverged and capped steps, the smallest wall distance and the status.
    Soak(springsim::soak::SoakArgs),
}

/// Opens the chosen backend. `auto` takes a hardware GPU when there is one and
/// otherwise the CPU backend, saying why on stderr (software adapters such as
/// lavapipe are slower than the CPU backend, so `auto` skips them).
fn make_backend(
    choice: BackendChoice,
    scene: &scene::Scene,
    quiet: bool,
) -> Result<Box<dyn Backend>, String> {
    use springsim::linear_solver::LinearSolver;
    let cpu = || CpuBackend::new(scene.model.clone()).with_linear_solver(scene.linear_solver);
    if scene.linear_solver == LinearSolver::Direct {
        // The direct solver exists on the CPU only; auto picks the CPU for it.
        return match choice {
            BackendChoice::Gpu => Err("--backend gpu: the direct linear solver runs on the CPU backend only; use --linear-solver pcg or --backend cpu".into()),
            _ => Ok(Box::new(cpu())),
        };
    }
    match choice {
        BackendChoice::Cpu => Ok(Box::new(cpu())),
        BackendChoice::Gpu => GpuBackend::new(scene.model.clone())
            .map(|b| Box::new(b) as Box<dyn Backend>)
            .map_err(|e| format!("--backend gpu: {e}")),
        BackendChoice::Auto => {
            let why = match springsim::backend::gpu::context::preferred_adapter() {
                Ok(info) if info.device_type == wgpu::DeviceType::Cpu => format!(
                    "the only GPU adapter is a software one ({}); use --backend gpu to run on it anyway",
                    springsim::backend::gpu::context::describe(&info)
                ),
                Ok(_) => match GpuBackend::new(scene.model.clone()) {
                    Ok(g) => return Ok(Box::new(g)),
                    Err(e) => e,
                },
                Err(e) => e,
            };
            if !quiet {
                eprintln!("note: running on the CPU backend: {why}");
            }
            Ok(Box::new(CpuBackend::new(scene.model.clone())))
        }
    }
}

/// On a headless machine without `XDG_RUNTIME_DIR`, Mesa's Vulkan drivers print
/// "error: XDG_RUNTIME_DIR is invalid" for every instance, which reads like a failure
/// of ours. Point it at a private folder of this user's when it is unset.
fn quiet_vulkan_loader() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        // SAFETY: geteuid has no preconditions.
        let uid = unsafe { libc::geteuid() };
        let dir = std::env::temp_dir().join(format!("springsim-runtime-{uid}"));
        let made = std::fs::DirBuilder::new().mode(0o700).create(&dir);
        let ok = made.is_ok() || dir.is_dir();
        if ok {
            // Single-threaded here: no other thread reads the environment yet.
            std::env::set_var("XDG_RUNTIME_DIR", &dir);
        }
    }
}

/// `--out PATH` must be a folder or creatable as one: the error when `path` (or the
/// first part of it that exists) is a file.
fn out_dir_error(path: &std::path::Path) -> Option<String> {
    let existing = path.ancestors().find(|a| a.exists())?;
    (!existing.is_dir()).then(|| {
        if existing == path {
            format!("--out {}: is a file, not a folder", path.display())
        } else {
            format!(
                "--out {}: {} is a file, not a folder",
                path.display(),
                existing.display()
            )
        }
    })
}

/// Most worker threads `--threads` may ask for: 4 × the cores, at most 1024.
fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (4 * cores).min(1024)
}

fn main() -> ExitCode {
    // Die quietly when stdout is a closed pipe (`springsim scenes | head`), as Unix
    // tools do, instead of panicking on the failed write.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of one signal before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    quiet_vulkan_loader();
    let cli = Cli::parse();
    match cli.command {
        Command::Restitution(args) => springsim::restitution::cli::main(args),
        Command::Plot(args) => springsim::steps_plots::main(args),
        Command::Render(args) => springsim::render::main(args),
        Command::Bench(args) => springsim::bench::cli::main(args),
        Command::Soak(args) => springsim::soak::main(args),
        Command::Scenes => {
            for (name, text) in scene::BUNDLED {
                match scene::parse(text, &format!("bundled:{name}"), name) {
                    Ok(s) => println!(
                        "{:<22} {}D {:>7} nodes  {}",
                        name,
                        s.model.dim,
                        s.model.num_nodes(),
                        s.description
                    ),
                    Err(e) => println!("{name:<22} (invalid: {e})"),
                }
            }
            ExitCode::SUCCESS
        }
        Command::Compare {
            scene,
            steps,
            out,
            quiet,
        } => {
            let scene = match scene::load(&scene) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let steps = match scene.run_steps(steps, None) {
                Ok(n) => n,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let out_dir =
                out.unwrap_or_else(|| PathBuf::from("out").join(format!("{}-compare", scene.name)));
            if let Some(e) = out_dir_error(&out_dir) {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            if scene.nonsmooth.is_some() {
                eprintln!("error: compare runs the IPC model on both backends; scene `{}` uses contact.model = \"nonsmooth\" (CPU only)", scene.name);
                return ExitCode::from(2);
            }
            let gpu = match GpuBackend::new(scene.model.clone()) {
                Ok(g) => g,
                Err(e) => {
                    eprintln!("error: compare needs the GPU backend: {e}");
                    return ExitCode::from(2);
                }
            };
            let cpu = CpuBackend::new(scene.model.clone());
            let bar = (!quiet && std::io::stderr().is_terminal())
                .then(|| springsim::run::progress_bar(steps));
            let result = springsim::compare::compare(
                &scene,
                Box::new(cpu),
                Box::new(gpu),
                steps,
                Some(&out_dir),
                |_| {
                    if let Some(b) = &bar {
                        b.inc(1)
                    }
                },
            );
            if let Some(b) = bar {
                b.finish_and_clear();
            }
            match result {
                Ok(r) => {
                    println!("{}: {} steps, {} nodes", r.scene, r.steps, r.nodes);
                    println!(
                        "  position difference GPU vs CPU: max {:.3e} m (step {}), RMS {:.3e} m, at the end {:.3e} m",
                        r.max_position_difference,
                        r.max_difference_step,
                        r.rms_position_difference,
                        r.final_max_position_difference
                    );
                    for t in [&r.cpu, &r.gpu] {
                        println!(
                            "  {}: {} Newton / {} CG iterations, {} stalled and {} capped steps, {:.3} ms/step on {}",
                            t.backend,
                            t.newton_iterations,
                            t.cg_iterations,
                            t.stalled_steps,
                            t.capped_steps,
                            t.ms_per_step,
                            t.device
                        );
                    }
                    println!(
                        "  wall-clock ratio CPU/GPU: {:.3} -> {}",
                        r.wall_clock_ratio,
                        out_dir.join("compare.json").display()
                    );
                    if r.cpu.stalled_steps + r.gpu.stalled_steps > 0 {
                        eprintln!(
                            "error: steps stalled ({} on the CPU, {} on the GPU): the comparison is of runs that made no progress",
                            r.cpu.stalled_steps, r.gpu.stalled_steps
                        );
                        return ExitCode::from(3);
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Command::Devices => {
            let adapters = springsim::backend::gpu::context::list_adapters();
            if adapters.is_empty() {
                println!(
                    "no GPU adapters found (install a Vulkan driver, e.g. mesa-vulkan-drivers)"
                );
            }
            for a in adapters {
                println!("{a}");
            }
            ExitCode::SUCCESS
        }
        Command::Run {
            scene,
            backend,
            steps,
            duration,
            out,
            trajectory,
            frames,
            quiet,
            threads,
            linear_solver,
            allow_stalled,
        } => {
            let scene = match scene::load(&scene) {
                Ok(mut s) => {
                    if let Some(ls) = linear_solver {
                        s.linear_solver = ls;
                    }
                    s
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            if let Some(t) = threads {
                if t == 0 || t > max_threads() {
                    eprintln!(
                        "error: --threads {t}: must be between 1 and {} (4 × the cores, at most 1024)",
                        max_threads()
                    );
                    return ExitCode::from(2);
                }
                if let Err(e) = rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build_global()
                {
                    eprintln!("error: --threads {t}: {e}");
                    return ExitCode::from(2);
                }
            }
            let steps = match scene.run_steps(steps, duration) {
                Ok(n) => n,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let out_dir = out.unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
            if let Some(e) = out_dir_error(&out_dir) {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            let backend = if scene.nonsmooth.is_some() {
                // Seed 002's nonsmooth scheme steps particles on the host; it has no GPU twin.
                if backend == BackendChoice::Gpu {
                    eprintln!("error: --backend gpu: scene `{}` uses contact.model = \"nonsmooth\", which runs on the CPU only", scene.name);
                    return ExitCode::from(2);
                }
                Ok(Box::new(CpuBackend::new(scene.model.clone())) as Box<dyn Backend>)
            } else {
                make_backend(backend, &scene, quiet)
            };
            let backend = match backend {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let opts = RunOptions {
                steps,
                out_dir: out_dir.clone(),
                trajectory,
                frames,
                progress: !quiet && std::io::stderr().is_terminal(),
                stop_after_contact: None,
            };
            springsim::interrupt::install();
            match run(&scene, backend, &opts) {
                Ok(s) => {
                    if !quiet {
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
                    if s.capped_steps > 0 {
                        eprintln!(
                            "note: {} of {} steps stopped at solver.max_newton_iterations = {} before the Newton tolerance; see `newton_capped` in steps.csv",
                            s.capped_steps, s.steps, scene.model.solver.max_newton_iterations
                        );
                    }
                    match s.status.as_str() {
                        "stalled" if allow_stalled => {
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
                Err(e) => {
                    eprintln!("error: {e} (outputs so far are in {})", out_dir.display());
                    ExitCode::from(1)
                }
            }
        }
    }
}
