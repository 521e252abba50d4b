//! `springsim compare`: a scene on the CPU and GPU backends side by side.

use super::out_dir_error;
use crate::backend::cpu::CpuBackend;
use crate::backend::gpu::GpuBackend;
use crate::scene;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `springsim compare`.
#[derive(Clone, Debug, clap::Args)]
pub struct CompareArgs {
    /// Scene file, or the name of a bundled scene.
    pub scene: String,
    /// Override a scene key (as `springsim run --set`); repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Number of time steps (default: the scene's `[run]`, else 100).
    #[arg(long)]
    pub steps: Option<u64>,
    /// Output folder for compare.json and compare_steps.csv (default: out/SCENE_NAME-compare).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs `springsim compare`: prints the comparison and writes `compare.json` and
/// `compare_steps.csv`. Exit status 2 for a bad argument or no GPU, 1 for a failed
/// run, 3 when steps stalled.
pub fn main(args: CompareArgs) -> ExitCode {
    let CompareArgs {
        scene,
        set,
        steps,
        out,
        quiet,
    } = args;
    let overrides = match scene::Override::parse_all(&set) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let scene = match scene::load_with(&scene, &overrides) {
        Ok(s) => {
            s.print_warnings();
            s
        }
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
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| crate::run::progress_bar(steps));
    let result = crate::compare::compare(
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
    let r = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
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
    match r.first_step_beyond_tolerance {
        None => println!(
            "  GPU in {}: within its tolerance of {:.1e} m at every step",
            r.precision, r.position_tolerance
        ),
        Some(step) => println!(
            "  GPU in {}: beyond its tolerance of {:.1e} m from step {step} on",
            r.precision, r.position_tolerance
        ),
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
