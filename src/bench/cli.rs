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
    /// the additive multilevel preconditioner), cpu-mg (PCG with its V-cycle), direct
    /// (sparse Cholesky on the CPU), gpu (block-Jacobi PCG), gpu-mas (PCG with the
    /// additive multilevel preconditioner), gpu-mg (PCG with its V-cycle). Default:
    /// all seven; GPU rows then skip
    /// software adapters (lavapipe), which run only when named here.
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
    /// Run only entries with at least this many nodes (the top rungs, e.g. with
    /// `--steps 2 --warmup 0`).
    #[arg(long, default_value_t = 0, hide_default_value = true)]
    pub min_nodes: usize,
    /// Run only these families, comma-separated: square2d, lattice3d, cloth3d (default: all).
    #[arg(long, value_name = "LIST")]
    pub family: Option<String>,
    /// CG tolerance per Newton direction of the PCG rows: auto (eisenstat_walker from
    /// 1000 nodes on, fixed below: the scenes' default, also without this option),
    /// fixed (every direction to the CG tolerance) or eisenstat_walker (inexact Newton).
    #[arg(long, value_enum)]
    pub forcing: Option<ForcingArg>,
    /// Worker threads of the CPU backend (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Precision of the GPU rows: auto (f64 where the adapter has f64 shaders, else
    /// f32), f32, f64 or mixed; the CPU rows are f64.
    #[arg(long, value_enum, default_value = "auto")]
    pub precision: crate::precision::PrecisionChoice,
    /// Time every GPU kernel with timestamp queries and write kernels.csv (GPU
    /// time per kernel and step); each submission then reads its timestamps back, so
    /// ms/step grows while each kernel's time stays its own.
    #[arg(long)]
    pub profile_kernels: bool,
    /// The GPU rows' CG iteration: fused (α and β taken inside the update and
    /// direction kernels: 3 dispatches with block-Jacobi), split (5), or auto (fused
    /// up to 131,072 nodes). Both give the same bits; this measures what fusing buys.
    #[arg(long, value_enum, default_value = "auto")]
    pub cg_form: CgForm,
    /// Output folder for bench.csv and bench.json.
    #[arg(long, default_value = "out/bench")]
    pub out: PathBuf,
}

/// `--forcing` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ForcingArg {
    /// Eisenstat–Walker from 1000 nodes on, fixed below (the scenes' default).
    Auto,
    /// Every direction to the CG tolerance.
    Fixed,
    /// Eisenstat–Walker forcing terms.
    #[value(name = "eisenstat_walker")]
    EisenstatWalker,
}

/// Runs `springsim bench`: prints the table row by row and writes the files.
pub fn main(args: BenchArgs) -> ExitCode {
    let (backends, explicit) = match &args.backends {
        None => (
            vec![
                BenchBackend::Cpu,
                BenchBackend::CpuMas,
                BenchBackend::CpuMg,
                BenchBackend::Direct,
                BenchBackend::Gpu,
                BenchBackend::GpuMas,
                BenchBackend::GpuMg,
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
                    eprintln!("error: --backends: give at least one of cpu, cpu-mas, cpu-mg, direct, gpu, gpu-mas, gpu-mg");
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
        forcing: args.forcing.map(|f| match f {
            ForcingArg::Auto => crate::newton::Forcing::Auto,
            ForcingArg::Fixed => crate::newton::Forcing::Fixed,
            ForcingArg::EisenstatWalker => crate::newton::Forcing::EisenstatWalker,
        }),
        precision: args.precision,
        profile_kernels: args.profile_kernels,
        fused_cg: match args.cg_form {
            CgForm::Auto => None,
            CgForm::Fused => Some(true),
            CgForm::Split => Some(false),
        },
    };
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let date = table::utc_string(start);
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let families: Vec<String> = match &args.family {
        None => vec![],
        Some(list) => list.split(',').map(|s| s.trim().to_string()).collect(),
    };
    let known = ["square2d", "lattice3d", "cloth3d"];
    if let Some(bad) = families.iter().find(|f| !known.contains(&f.as_str())) {
        eprintln!(
            "error: --family: unknown family `{bad}` (expected square2d, lattice3d or cloth3d)"
        );
        return ExitCode::from(2);
    }
    let entries: Vec<_> = ladder::ladder(args.quick)
        .into_iter()
        .filter(|e| e.nodes() >= args.min_nodes)
        .filter(|e| families.is_empty() || families.iter().any(|f| f == e.family.name()))
        .collect();
    println!(
        "springsim bench: {} entries x {} backends, {} warm-up + {} timed steps each, {date} UTC",
        entries.len(),
        opts.backends.len(),
        opts.warmup,
        opts.steps
    );
    println!("{}", table::header());
    let mut devices = Vec::new();
    let mut done = Vec::new();
    let rows = super::run(&entries, &opts, |r| {
        if !r.device.is_empty() && !devices.contains(&(r.backend.clone(), r.device.clone())) {
            devices.push((r.backend.clone(), r.device.clone()));
        }
        println!("{}", table::line(r));
        let _ = std::io::stdout().flush();
        // The files after every row, so a run stopped early keeps what it measured.
        done.push(r.clone());
        let so_far = BenchReport {
            command: command.clone(),
            date_utc: date.clone(),
            rows: &done,
        };
        if let Err(e) = table::write(&args.out, &so_far) {
            eprintln!("error: {e}");
        }
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

/// `--cg-form`: the GPU's CG iteration, fused, split, or by the node count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CgForm {
    /// Fused up to `FUSED_CG_MAX_PARTIALS` workgroups of nodes, else split.
    Auto,
    /// Always fused.
    Fused,
    /// Always split.
    Split,
}
