//! The `springsim` command line: parses the arguments and hands each command to its
//! `main` in the library.

use clap::{Parser, Subcommand};
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

#[derive(Subcommand)]
enum Command {
    /// Simulate a scene (a TOML file, or a bundled scene's name) and write its outputs.
    Run(springsim::cli::run::RunArgs),
    /// List the bundled scenes, one line each.
    Scenes,
    /// Run a scene on the CPU and GPU backends side by side and report how far apart
    /// their node positions get, their iteration totals and their speed ratio.
    Compare(springsim::cli::compare::CompareArgs),
    /// List the GPU adapters wgpu sees (name, backend API, device type, driver).
    Devices,
    /// Seed 000's restitution study: a particle bouncing on the IPC barrier, swept
    /// over h, dhat, kappa, tol or v0; tables, CSV files and PNG plots.
    Restitution(springsim::restitution::cli::RestitutionArgs),
    /// Turn a run's steps.csv into PNG plots (energies, Newton/CG iterations, minimum distance).
    Plot(springsim::run::plots::PlotArgs),
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

fn main() -> ExitCode {
    // Die quietly when stdout is a closed pipe (`springsim scenes | head`), as Unix
    // tools do, instead of panicking on the failed write.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of one signal before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    quiet_vulkan_loader();
    match Cli::parse().command {
        Command::Run(args) => springsim::cli::run::main(args),
        Command::Scenes => springsim::cli::scenes(),
        Command::Compare(args) => springsim::cli::compare::main(args),
        Command::Devices => springsim::cli::devices(),
        Command::Restitution(args) => springsim::restitution::cli::main(args),
        Command::Plot(args) => springsim::run::plots::main(args),
        Command::Render(args) => springsim::render::main(args),
        Command::Bench(args) => springsim::bench::cli::main(args),
        Command::Soak(args) => springsim::soak::main(args),
    }
}
