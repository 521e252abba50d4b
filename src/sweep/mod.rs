//! `springsim sweep`: one scene run over a grid (or zipped list) of scene-key values,
//! each variant a `springsim run` into its own folder, in parallel on the cores;
//! tabulated in `sweep.csv` / `sweep.json` with plots; resumable; shardable over any
//! scheduler, with an `sbatch` array script for Slurm and `sweep collect` to merge.
//!
//! [`spec`] makes the variants, [`exec`] runs them ([`batch`]: as GPU batches),
//! [`metrics`] reads their figures,
//! [`table`] tabulates them, [`plots`] draws them, [`slurm`] writes the array script
//! and [`prepare`] checks a sweep's arguments before anything runs.

mod batch;
mod child;
mod exec;
pub mod metrics;
pub mod plots;
pub mod prepare;
pub mod slurm;
pub mod spec;
pub mod table;

use crate::cli::run::BackendChoice;
use exec::Progress;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use table::{Plan, Tally};

/// `springsim sweep`: either a sweep to run, or `collect`.
#[derive(Clone, Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepCommand {
    /// `collect OUT`: tabulate a sweep's folder.
    #[command(subcommand)]
    pub action: Option<SweepAction>,
    /// The sweep to run.
    #[command(flatten)]
    pub args: SweepArgs,
}

/// Subcommands of `springsim sweep`.
#[derive(Clone, Debug, clap::Subcommand)]
pub enum SweepAction {
    /// Tabulate every variant folder of a sweep (after its shards or Slurm array tasks
    /// ended) into OUT/sweep.csv and OUT/sweep.json, with plots; exit status 1 when
    /// some variants have no result yet.
    Collect(CollectArgs),
}

/// Arguments of `springsim sweep collect`.
#[derive(Clone, Debug, clap::Args)]
pub struct CollectArgs {
    /// The sweep's output folder (it holds sweep-plan.json).
    pub out: PathBuf,
    /// Metric columns and plots to add.
    #[command(flatten)]
    pub table: TableArgs,
}

/// The table's extra columns and its plots, for a sweep and for `collect`.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct TableArgs {
    /// Add a metric column: a summary.json field (`final_kinetic_energy`,
    /// `final_centroid.1`), `rebound_height`, or `max:COL` / `min:COL` / `mean:COL` /
    /// `last:COL` of steps.csv; repeatable.
    #[arg(long, value_name = "NAME")]
    pub metric: Vec<String>,
    /// Draw METRIC against the first numeric varied key (one line per value of the
    /// others) into OUT/METRIC_vs_KEY.png; repeatable.
    #[arg(long, value_name = "METRIC")]
    pub plot: Vec<String>,
    /// The varied key the plots put on their x axis (default: the first numeric one).
    #[arg(long, value_name = "KEY", requires = "plot")]
    pub plot_x: Option<String>,
}

impl TableArgs {
    /// Checks the `--metric` and `--plot` names and adds to `metrics` those not there
    /// yet (plotted ones only when they are not default columns).
    pub fn add_to(&self, metrics: &mut Vec<String>) -> Result<(), String> {
        for m in &self.metric {
            metrics::check(m)?;
            if !metrics.contains(m) {
                metrics.push(m.clone());
            }
        }
        for p in &self.plot {
            metrics::check(p).map_err(|e| e.replacen("--metric", "--plot", 1))?;
            if !metrics.contains(p) && !metrics::DEFAULT_METRICS.contains(&p.as_str()) {
                metrics.push(p.clone());
            }
        }
        Ok(())
    }
}

/// Arguments of a sweep.
#[derive(Clone, Debug, clap::Args)]
pub struct SweepArgs {
    /// Scene file, or the name of a bundled scene.
    #[arg(required = true)]
    pub scene: Option<String>,
    /// A scene key and its values, comma-separated, in TOML value syntax
    /// (`contact.kappa=1e4,1e5,1e6`, `'bodies[0].cells=[8,8],[16,16]'`); repeatable:
    /// the variants are every combination, the first key varying slowest.
    #[arg(long, value_name = "KEY=V1,V2,...", required = true)]
    pub vary: Vec<String>,
    /// Zip the --vary lists (the i-th values together) instead of crossing them.
    #[arg(long)]
    pub zip: bool,
    /// Override a scene key in every variant (as `springsim run --set`).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Output folder (default: out/sweep-SCENE_NAME); variant N runs in OUT/NNN-KEY=VALUE….
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Variants run at a time (default: the cores on the CPU backend, 1 on a GPU).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
    /// Worker threads of each variant's CPU backend (default: the cores / --jobs).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,
    /// Time steps of every variant (default: the scene's `[run]`).
    #[arg(long, conflicts_with = "duration")]
    pub steps: Option<u64>,
    /// Simulated time of every variant in seconds.
    #[arg(long)]
    pub duration: Option<f64>,
    /// Backend of every variant; sweeps default to the CPU, whose variants share the
    /// cores; `gpu` runs the variants as batched ensembles (one device submission
    /// per round for a whole batch, see --batch); those a batch cannot hold yet run
    /// one at a time.
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: BackendChoice,
    /// Most variants in one GPU batch (default 1024; 1 runs each variant alone as
    /// its own `springsim run`); larger batches are also split to fit 128 MiB of
    /// device memory each. `--backend gpu` only.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub batch: Option<u64>,
    /// Metric columns and plots.
    #[command(flatten)]
    pub table: TableArgs,
    /// Complete a sweep already in OUT: keep its completed and stalled variants, run
    /// the others (failed, interrupted, never run).
    #[arg(long)]
    pub resume: bool,
    /// Run only shard I of N (I from 0): the variants whose number is I modulo N.
    /// Without it, a Slurm array task's SLURM_ARRAY_TASK_ID / _COUNT pick the shard.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// No progress and no report.
    #[arg(long, short)]
    pub quiet: bool,
    /// Write an sbatch array script for this sweep to FILE (and OUT's plan), run nothing.
    #[arg(long, value_name = "FILE")]
    pub emit_slurm: Option<PathBuf>,
    /// The emitted script's #SBATCH choices.
    #[command(flatten)]
    pub slurm: slurm::SlurmOptions,
    /// Further `springsim run` options for every variant, after `--`
    /// (`-- --trajectory --frames 10`).
    #[arg(last = true, value_name = "RUN_ARGS")]
    pub run_args: Vec<String>,
}

/// Runs `springsim sweep`. Exit status 0 when every variant completed, 3 when some
/// stalled and none failed, 1 when some failed, 2 for bad arguments (nothing run),
/// 130 when interrupted.
pub fn main(cmd: SweepCommand) -> ExitCode {
    let result = match cmd.action {
        Some(SweepAction::Collect(c)) => collect(&c),
        None => sweep(&cmd.args),
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })
}

/// `springsim sweep collect`.
fn collect(c: &CollectArgs) -> Result<ExitCode, String> {
    let mut plan = Plan::read(&c.out)?.ok_or_else(|| {
        format!(
            "{}: no {} here; is it a sweep's output folder?",
            c.out.display(),
            table::PLAN_FILE
        )
    })?;
    c.table.add_to(&mut plan.metrics)?;
    plots::check(&plan, &c.table)?;
    let tally = tabulate(&c.out, &plan, &c.table, false)?;
    Ok(finish(tally, false))
}

/// Builds and writes the table (and the plots) of `plan` in `out`; prints one line.
fn tabulate(out: &Path, plan: &Plan, wanted: &TableArgs, quiet: bool) -> Result<Tally, String> {
    let t = table::build(out, plan);
    table::write(out, &t)?;
    for p in &wanted.plot {
        plots::draw(out, plan, &t, p, wanted.plot_x.as_deref())?;
    }
    if !quiet {
        let Tally {
            completed,
            stalled,
            failed,
            interrupted,
            missing,
        } = t.tally;
        println!(
            "{} variants: {completed} completed, {stalled} stalled, {failed} failed, {interrupted} interrupted, {missing} not run -> {}",
            plan.variants.len(),
            out.join("sweep.csv").display()
        );
    }
    Ok(t.tally)
}

/// The exit status of a sweep's end.
fn finish(t: Tally, interrupted: bool) -> ExitCode {
    if interrupted {
        ExitCode::from(130)
    } else if t.failed + t.interrupted + t.missing > 0 {
        ExitCode::from(1)
    } else if t.stalled > 0 {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

/// A sweep: checked whole, then its shard's unfinished variants run.
fn sweep(args: &SweepArgs) -> Result<ExitCode, String> {
    let p = prepare::prepare(args)?;
    if let Some(file) = &args.emit_slurm {
        return prepare::emit_slurm(args, &p, file).map(|()| ExitCode::SUCCESS);
    }
    crate::interrupt::install();
    let todo: Vec<_> = p
        .plan
        .variants
        .iter()
        .filter(|v| p.shard.includes(v.index))
        .filter(|v| !(args.resume && table::Record::read(&p.out, v).is_some_and(|r| r.is_final())))
        .cloned()
        .collect();
    let mine = p
        .plan
        .variants
        .iter()
        .filter(|v| p.shard.includes(v.index))
        .count();
    let progress = if args.quiet {
        Progress::Quiet
    } else if std::io::stderr().is_terminal() {
        Progress::Bar
    } else {
        Progress::Lines
    };
    if !args.quiet {
        eprintln!(
            "sweep: {} of {mine} variant(s){} to run, {}, into {}",
            todo.len(),
            if p.shard.count > 1 {
                format!(" of shard {}/{}", p.shard.index, p.shard.count)
            } else {
                String::new()
            },
            if p.batch > 1 {
                format!("in GPU batches of up to {}", p.batch)
            } else {
                format!("{} at a time", p.jobs)
            },
            p.out.display()
        );
    }
    let sharded = p.shard.count > 1;
    let (out, plan) = (&p.out, &p.plan);
    // Keep the table current (every few seconds: building it reads every variant's
    // files), so an interrupted sweep's is too.
    let mut written = std::time::Instant::now();
    let outcome = exec::run_variants(
        p.exe.clone(),
        plan,
        out,
        todo,
        (p.jobs, p.batch),
        progress,
        |_| {
            if !sharded && written.elapsed().as_secs_f64() >= crate::run::SUMMARY_INTERVAL_S {
                let _ = table::write(out, &table::build(out, plan));
                written = std::time::Instant::now();
            }
        },
    );
    if sharded {
        // Tabulate this shard's variants; `collect` tabulates all of them.
        let t = table::build_where(out, plan, |i| p.shard.includes(i));
        let tally = t.tally;
        let dir = out.join("shards");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let name = format!("shard-{}-of-{}.csv", p.shard.index, p.shard.count);
        table::write_csv(&dir.join(name), &t)?;
        if !args.quiet {
            println!(
                "shard {}/{}: {} completed, {} stalled, {} failed, {} interrupted; when every shard has ended: springsim sweep collect {}",
                p.shard.index, p.shard.count, tally.completed, tally.stalled, tally.failed, tally.interrupted + tally.missing,
                out.display()
            );
        }
        return Ok(finish(tally, outcome.interrupted));
    }
    let tally = tabulate(out, plan, &args.table, args.quiet)?;
    if outcome.interrupted && !args.quiet {
        eprintln!(
            "interrupted; `springsim sweep {} … --out {} --resume` completes it",
            plan.scene,
            out.display()
        );
    }
    Ok(finish(tally, outcome.interrupted))
}
