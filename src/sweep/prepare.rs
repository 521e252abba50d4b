//! A sweep's arguments checked whole before anything runs: every `--vary` and `--set`
//! against the scene (each variant is loaded once), the metrics, the run options, the
//! shard and the output folder; then its plan, and for `--emit-slurm` its script.

use super::slurm::{self, shell_quote};
use super::spec::{self, Axis, Shard};
use super::table::Plan;
use super::SweepArgs;
use crate::cli::run::{BackendChoice, RunArgs};
use crate::scene::{self, Override};
use std::path::{Path, PathBuf};

/// A sweep ready to run.
pub struct Prepared {
    /// What runs.
    pub plan: Plan,
    /// The output folder (absolute).
    pub out: PathBuf,
    /// This process's share.
    pub shard: Shard,
    /// Variants (or batches of variants) at a time.
    pub jobs: usize,
    /// Most variants in one GPU batch (1: each variant alone).
    pub batch: usize,
    /// The `springsim` binary the variants run with.
    pub exe: PathBuf,
    /// The scene's name (of its first variant).
    pub scene_name: String,
}

/// `springsim run`'s arguments alone, to check a sweep's extra run arguments.
#[derive(clap::Parser)]
#[command(name = "springsim run")]
struct RunOnly {
    #[command(flatten)]
    run: RunArgs,
}

/// Run options the sweep sets itself, refused after `--`.
const MANAGED: &[&str] = &[
    "--out",
    "--set",
    "--backend",
    "--steps",
    "--duration",
    "--threads",
    "--quiet",
    "-q",
    "--batch-file",
    "--batch",
];

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn backend_name(b: BackendChoice) -> &'static str {
    match b {
        BackendChoice::Auto => "auto",
        BackendChoice::Cpu => "cpu",
        BackendChoice::Gpu => "gpu",
    }
}

/// Checks `args` and makes the plan; the error is one line.
pub fn prepare(args: &SweepArgs) -> Result<Prepared, String> {
    let scene_arg = args.scene.clone().ok_or("give the scene to sweep")?;
    let set = Override::parse_all(&args.set)?;
    let axes: Vec<Axis> = args
        .vary
        .iter()
        .map(|a| Axis::parse(a))
        .collect::<Result<_, _>>()?;
    if let Some(a) = axes.iter().find(|a| set.iter().any(|s| s.key == a.key)) {
        return Err(format!("--vary {}: the key is also given by --set", a.key));
    }
    let variants = spec::variants(&axes, args.zip)?;
    // Metric columns, plotted ones among them.
    let mut metric_list = Vec::new();
    args.table.add_to(&mut metric_list)?;
    let shard = match &args.shard {
        Some(s) => Shard::parse(s)?,
        None => Shard::from_slurm(|k| std::env::var(k).ok())?.unwrap_or(Shard::ALL),
    };
    if let Some(a) = args.run_args.iter().find(|a| {
        MANAGED
            .iter()
            .any(|m| *a == m || a.starts_with(&format!("{m}=")))
    }) {
        return Err(format!(
            "-- {a}: the sweep sets this run option itself; give it to `springsim sweep`"
        ));
    }
    // The scene: a file by its absolute path (shards and Slurm tasks may start
    // elsewhere), else a bundled scene's name.
    let (_, file, _) = scene::read_text(&scene_arg).map_err(|e| e.to_string())?;
    let scene_ref = if file.starts_with("bundled:") {
        scene_arg.clone()
    } else {
        Path::new(&scene_arg)
            .canonicalize()
            .map(|p| p.display().to_string())
            .unwrap_or(scene_arg.clone())
    };
    let mut check = vec!["run".to_string(), scene_ref.clone()];
    check.extend(args.run_args.iter().cloned());
    check.extend(["--out".into(), "/nonexistent/springsim-check".into()]);
    <RunOnly as clap::Parser>::try_parse_from(&check).map_err(|e| {
        let text = e.render().to_string();
        let first = text
            .lines()
            .next()
            .unwrap_or("bad run arguments")
            .trim()
            .to_string();
        format!("-- {}: {first}", args.run_args.join(" "))
    })?;
    let mut name = String::new();
    for v in &variants {
        let mut o = set.clone();
        o.extend(v.overrides());
        let s = scene::load_with(&scene_arg, &o)
            .map_err(|e| format!("variant {} ({}): {e}", v.index, v.dir))?;
        s.run_steps(args.steps, args.duration)
            .map_err(|e| format!("variant {} ({}): {e}", v.index, v.dir))?;
        name = s.name;
    }
    let mut run_args = vec!["--backend".to_string(), backend_name(args.backend).into()];
    if let Some(n) = args.steps {
        run_args.extend(["--steps".into(), n.to_string()]);
    }
    if let Some(d) = args.duration {
        run_args.extend(["--duration".into(), format!("{d:?}")]);
    }
    run_args.extend(args.run_args.iter().cloned());
    let jobs = args.jobs.map_or_else(
        || {
            if args.backend == BackendChoice::Cpu {
                cores()
            } else {
                1
            }
        },
        |j| j as usize,
    );
    let threads = args
        .threads
        .map_or_else(|| (cores() / jobs).max(1), |t| t as usize);
    let batch = match (args.backend, args.batch) {
        (BackendChoice::Gpu, b) => b.map_or(crate::ensemble::DEFAULT_BATCH, |b| b as usize),
        (_, None) => 1,
        (_, Some(_)) => {
            return Err("--batch: batched ensembles run on the GPU; add --backend gpu".into())
        }
    };
    if threads > crate::cli::run::max_threads() {
        return Err(format!(
            "--threads {threads}: must be at most {} (4 × the cores, at most 1024)",
            crate::cli::run::max_threads()
        ));
    }
    let plan = Plan {
        scene: scene_ref,
        set: args.set.clone(),
        axes,
        zip: args.zip,
        run_args,
        threads,
        metrics: metric_list,
        variants,
    };
    super::plots::check(&plan, &args.table)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(format!("sweep-{name}")));
    if let Some(e) = crate::cli::out_dir_error(&out) {
        return Err(e);
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("--out {}: {e}", out.display()))?;
    let out = out
        .canonicalize()
        .map_err(|e| format!("--out {}: {e}", out.display()))?;
    if !check_folder(args, &plan, &out, shard)? {
        plan.write(&out)?;
    }
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the springsim binary: {e}"))?;
    Ok(Prepared {
        plan,
        out,
        shard,
        jobs,
        batch,
        exe,
        scene_name: name,
    })
}

/// The output folder must be new, empty, or hold this same sweep (with `--resume`,
/// a shard, or `--emit-slurm`); `Ok(true)` when it holds it (with its plan).
fn check_folder(args: &SweepArgs, plan: &Plan, out: &Path, shard: Shard) -> Result<bool, String> {
    match Plan::read(out)? {
        Some(old) => {
            if let Some(d) = plan.differs_from(&old) {
                return Err(format!("--out {}: {d}; use another --out", out.display()));
            }
            let shared = args.resume || shard.count > 1 || args.emit_slurm.is_some();
            if !shared {
                return Err(format!(
                    "--out {} already holds this sweep; add --resume to complete it, or use another --out",
                    out.display()
                ));
            }
            Ok(old.metrics == plan.metrics)
        }
        None => {
            let busy = std::fs::read_dir(out)
                .map_err(|e| format!("--out {}: {e}", out.display()))?
                .filter_map(Result::ok)
                .any(|e| e.file_name() != "slurm");
            if busy {
                return Err(format!(
                    "--out {} is not empty and holds no sweep; use a new or empty folder",
                    out.display()
                ));
            }
            Ok(false)
        }
    }
}

/// Writes the sbatch array script of a prepared sweep to `file`.
pub fn emit_slurm(args: &SweepArgs, p: &Prepared, file: &Path) -> Result<(), String> {
    let n = p.plan.variants.len() as u64;
    let tasks = args.slurm.slurm_tasks.unwrap_or(n).min(n);
    let cpus = args.slurm.slurm_cpus.unwrap_or(1);
    let per_task = n.div_ceil(tasks);
    let jobs = per_task.min(cpus).max(1);
    let threads = args.threads.unwrap_or((cpus / jobs).max(1));
    let mut cmd: Vec<String> = vec![
        p.exe.display().to_string(),
        "sweep".into(),
        p.plan.scene.clone(),
    ];
    for a in &args.vary {
        cmd.extend(["--vary".into(), a.clone()]);
    }
    if args.zip {
        cmd.push("--zip".into());
    }
    for s in &args.set {
        cmd.extend(["--set".into(), s.clone()]);
    }
    cmd.extend(["--backend".into(), backend_name(args.backend).into()]);
    if let Some(b) = args.batch {
        cmd.extend(["--batch".into(), b.to_string()]);
    }
    if let Some(s) = args.steps {
        cmd.extend(["--steps".into(), s.to_string()]);
    }
    if let Some(d) = args.duration {
        cmd.extend(["--duration".into(), format!("{d:?}")]);
    }
    for m in &args.table.metric {
        cmd.extend(["--metric".into(), m.clone()]);
    }
    cmd.extend([
        "--jobs".into(),
        jobs.to_string(),
        "--threads".into(),
        threads.to_string(),
        "--out".into(),
        p.out.display().to_string(),
        "--resume".into(),
    ]);
    if !args.run_args.is_empty() {
        cmd.push("--".into());
        cmd.extend(args.run_args.iter().cloned());
    }
    let quoted: Vec<String> = cmd.iter().map(|a| shell_quote(a)).collect();
    let workdir = std::env::current_dir().map_err(|e| e.to_string())?;
    let name = p.plan.variants.first().map_or("sweep", |_| {
        p.out
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("sweep")
    });
    let text = slurm::script(
        &args.slurm,
        name,
        tasks,
        &p.out,
        &workdir,
        &quoted.join(" "),
    )?;
    let logs = p.out.join("slurm");
    std::fs::create_dir_all(&logs).map_err(|e| format!("{}: {e}", logs.display()))?;
    crate::output::write_atomically(file, text.as_bytes())
        .map_err(|e| format!("--emit-slurm {}: {e}", file.display()))?;
    if !args.quiet {
        println!(
            "{}: {n} variants in {tasks} array task(s); submit with `sbatch {}`, then `springsim sweep collect {}`",
            file.display(),
            file.display(),
            p.out.display()
        );
    }
    Ok(())
}
