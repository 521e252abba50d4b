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
    /// List the GPU adapters wgpu sees (name, backend API, device type, driver) and
    /// what each was measured to do; --calibrate measures them now.
    Devices(springsim::cli::devices::DevicesArgs),
    /// Seed 000's restitution study: a particle bouncing on the IPC barrier, swept
    /// over h, dhat, kappa, tol or v0; tables, CSV files and PNG plots.
    Restitution(springsim::restitution::cli::RestitutionArgs),
    /// Turn a run's steps.csv into PNG plots (energies, Newton/CG iterations, minimum distance).
    Plot(springsim::run::plots::PlotArgs),
    /// Turn a run's trajectory.csv into animation.gif and PNG stills (walls, springs, balls).
    Render(springsim::render::RenderArgs),
    /// Verify that a finished run (with --trajectory) was intersection-free: the exact
    /// intersection checker on every stored state; exit 1 if any two primitives cross.
    Check(springsim::cli::check::CheckArgs),
    /// Time a fixed ladder of scenes (25 nodes to ~1M) on the CPU (PCG and direct)
    /// and GPU backends; prints a table and writes bench.csv and bench.json.
    Bench(springsim::bench::cli::BenchArgs),
    /// Run a scene over a grid (or zipped list) of scene-key values, each variant in
    /// its own folder, in parallel; sweep.csv, sweep.json and plots; resumable,
    /// shardable, with an sbatch array script for Slurm (`sweep collect OUT` merges).
    Sweep(Box<springsim::sweep::SweepCommand>),
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
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return argument_error(e),
    };
    match cli.command {
        Command::Run(args) => springsim::cli::run_command(args),
        Command::Scenes => springsim::cli::scenes(),
        Command::Compare(args) => springsim::cli::compare::main(args),
        Command::Devices(args) => springsim::cli::devices::main(args),
        Command::Restitution(args) => springsim::restitution::cli::main(args),
        Command::Plot(args) => springsim::run::plots::main(args),
        Command::Render(args) => springsim::render::main(args),
        Command::Check(args) => springsim::cli::check::main(args),
        Command::Bench(args) => springsim::bench::cli::main(args),
        Command::Soak(args) => springsim::soak::main(args),
        Command::Sweep(args) => springsim::sweep::main(*args),
    }
}

/// Help and version go out as clap writes them; any other argument error becomes one
/// line on stderr (clap's first line, with what it names next and the accepted values
/// when it lists them) and exit status 2.
fn argument_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return if e.use_stderr() {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    let text = e.render().to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut first = lines.next().unwrap_or("error: bad arguments").to_string();
    if first.ends_with(':') {
        // "the following required arguments were not provided:" names them next.
        let named: Vec<&str> = lines
            .clone()
            .take_while(|l| !l.starts_with("Usage:"))
            .collect();
        first = format!("{first} {}", named.join(", "));
    }
    let values = lines
        .find(|l| l.starts_with("[possible values:"))
        .map(|l| format!(" {l}"))
        .unwrap_or_default();
    eprintln!("{first}{values} (springsim --help for usage)");
    ExitCode::from(2)
}
