//! The `springsim` command line: run scenes, list the bundled ones.

use clap::{Parser, Subcommand, ValueEnum};
use springsim::backend::cpu::CpuBackend;
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
    },
    /// List the bundled scenes, one line each.
    Scenes,
    /// Seed 000's restitution study: a particle bouncing on the IPC barrier, swept
    /// over h, dhat, kappa, tol or v0; tables, CSV files and PNG plots.
    Restitution(springsim::restitution::cli::RestitutionArgs),
    /// Turn a run's steps.csv into PNG plots (energies, Newton/CG iterations, minimum distance).
    Plot(springsim::steps_plots::PlotArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Restitution(args) => springsim::restitution::cli::main(args),
        Command::Plot(args) => springsim::steps_plots::main(args),
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
        } => {
            let scene = match scene::load(&scene) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            if let Some(t) = threads {
                if let Err(e) = rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build_global()
                {
                    eprintln!("error: --threads {t}: {e}");
                    return ExitCode::from(2);
                }
            }
            let steps = match (steps, duration) {
                (Some(0), _) => {
                    eprintln!("error: --steps must be at least 1");
                    return ExitCode::from(2);
                }
                (Some(n), _) => n,
                (None, Some(t)) if t.is_finite() && t > 0.0 => {
                    (t / scene.model.solver.dt).ceil() as u64
                }
                (None, Some(t)) => {
                    eprintln!("error: --duration must be a positive number of seconds, got {t}");
                    return ExitCode::from(2);
                }
                (None, None) => scene.default_steps.unwrap_or(100),
            };
            let backend: Box<dyn Backend> = match backend {
                BackendChoice::Cpu => Box::new(CpuBackend::new(scene.model.clone())),
                BackendChoice::Auto => {
                    if !quiet {
                        eprintln!("note: this build has no GPU backend yet; running on the CPU reference backend");
                    }
                    Box::new(CpuBackend::new(scene.model.clone()))
                }
                BackendChoice::Gpu => {
                    eprintln!("error: --backend gpu: this build has no GPU backend yet; use --backend cpu");
                    return ExitCode::from(2);
                }
            };
            let out_dir = out.unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
            let opts = RunOptions {
                steps,
                out_dir: out_dir.clone(),
                trajectory,
                frames,
                progress: !quiet && std::io::stderr().is_terminal(),
            };
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
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e} (outputs so far are in {})", out_dir.display());
                    ExitCode::from(1)
                }
            }
        }
    }
}
