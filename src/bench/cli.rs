//! The `springsim bench` command: its arguments and what it does with them.

use super::table::{self, BenchReport};
use super::{ladder, BenchBackend, BenchOptions};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `springsim bench`.
#[derive(Clone, Debug, clap::Args)]
pub struct BenchArgs {
    /// The short ladder (squares to 4225 nodes, lattices to 1331, cloth to 4225) that
    /// CI runs; without it the full ladder to about a million nodes per family.
    #[arg(long)]
    pub quick: bool,
    /// Backends to time, comma-separated: cpu (block-Jacobi PCG), cpu-mas (PCG with
    /// the multilevel preconditioner), direct (sparse Cholesky on the CPU), gpu.
    /// Default: all four; gpu rows then skip software adapters (lavapipe), which run
    /// only when gpu is named here.
    #[arg(long, value_name = "LIST")]
    pub backends: Option<String>,
    /// Timed steps per entry (default 20, or 5 with --quick).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub steps: Option<u64>,
    /// Untimed warm-up steps per entry before the timed ones (default 5, or 2 with --quick).
    #[arg(long)]
    pub warmup: Option<u64>,
    /// Skip entries with more nodes than this.
    #[arg(long, default_value_t = usize::MAX, hide_default_value = true)]
    pub max_nodes: usize,
    /// Worker threads of the CPU backend (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output folder for bench.csv and bench.json.
    #[arg(long, default_value = "out/bench")]
    pub out: PathBuf,
}

/// Runs `springsim bench`: prints the table row by row and writes the files.
pub fn main(args: BenchArgs) -> ExitCode {
    let (backends, explicit) = match &args.backends {
        None => (
            vec![
                BenchBackend::Cpu,
                BenchBackend::CpuMas,
                BenchBackend::Direct,
                BenchBackend::Gpu,
            ],
            false,
        ),
        Some(list) => {
            let parsed: Result<Vec<_>, _> = list
                .split(',')
                .map(|s| BenchBackend::parse(s.trim()))
                .collect();
            match parsed {
                Ok(v) if !v.is_empty() => (v, true),
                Ok(_) => {
                    eprintln!("error: --backends: give at least one of cpu, cpu-mas, direct, gpu");
                    return ExitCode::from(2);
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    };
    if let Some(t) = args.threads {
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
        {
            eprintln!("error: --threads {t}: {e}");
            return ExitCode::from(2);
        }
    }
    let opts = BenchOptions {
        backends,
        steps: args.steps.unwrap_or(if args.quick { 5 } else { 20 }),
        warmup: args.warmup.unwrap_or(if args.quick { 2 } else { 5 }),
        max_nodes: args.max_nodes,
        allow_software_gpu: explicit,
    };
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let date = table::utc_string(start);
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let entries = ladder::ladder(args.quick);
    println!(
        "springsim bench: {} entries x {} backends, {} warm-up + {} timed steps each, {date} UTC",
        entries.len(),
        opts.backends.len(),
        opts.warmup,
        opts.steps
    );
    println!("{}", table::header());
    let mut devices = Vec::new();
    let rows = super::run(&entries, &opts, |r| {
        if !r.device.is_empty() && !devices.contains(&(r.backend.clone(), r.device.clone())) {
            devices.push((r.backend.clone(), r.device.clone()));
        }
        println!("{}", table::line(r));
        let _ = std::io::stdout().flush();
    });
    for (b, d) in &devices {
        println!("device of {b}: {d}");
    }
    let report = BenchReport {
        command,
        date_utc: date,
        rows: &rows,
    };
    if let Err(e) = table::write(&args.out, &report) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    println!(
        "-> {}, {}",
        args.out.join("bench.csv").display(),
        args.out.join("bench.json").display()
    );
    if rows
        .iter()
        .any(|r| r.status.starts_with("failed") || r.status.starts_with("stalled"))
    {
        eprintln!("error: some entries failed or stalled (see the status column)");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
