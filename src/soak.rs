//! `springsim soak`: every bundled scene through its default duration (or a horizon
//! that includes its first contacts) on each backend, with the figures that tell a
//! trustworthy run from a frozen or wrong one: stalled, unconverged,
//! resolution-limited and capped steps, the smallest wall distance, the status.

use crate::backend::cpu::CpuBackend;
use crate::backend::gpu::GpuBackend;
use crate::backend::Backend;
use crate::run::{run, RunOptions, Summary};
use crate::scene::{self, Scene};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `springsim soak`.
#[derive(Clone, Debug, clap::Args)]
pub struct SoakArgs {
    /// Backends, comma-separated: cpu, gpu (gpu takes any adapter, software ones such
    /// as lavapipe included). Default: both.
    #[arg(long, value_name = "LIST", default_value = "cpu,gpu")]
    pub backends: String,
    /// Bundled scenes to run, comma-separated (default: all).
    #[arg(long, value_name = "LIST")]
    pub scenes: Option<String>,
    /// End each run this many steps after its first contact (CI's shortened horizon,
    /// which still includes the contacts); default: the scene's full duration.
    #[arg(long, value_name = "STEPS")]
    pub after_contact: Option<u64>,
    /// At most this many steps per run.
    #[arg(long, value_name = "STEPS")]
    pub max_steps: Option<u64>,
    /// Skip runs of scenes with more nodes than this on the given backend, as
    /// `gpu=5000` (lavapipe takes tens of seconds per step of the 66k-node square).
    #[arg(long, value_name = "BACKEND=NODES")]
    pub max_nodes: Vec<String>,
    /// Output folder: soak.csv, soak.md and each run's outputs under runs/.
    #[arg(long, default_value = "out/soak")]
    pub out: PathBuf,
    /// Precision of the GPU runs (default: each scene's `solver.precision`, else
    /// auto: f64 where the adapter has it).
    #[arg(long, value_enum)]
    pub precision: Option<crate::precision::PrecisionChoice>,
}

/// One row of the soak table.
struct Row {
    scene: String,
    backend: &'static str,
    summary: Option<Summary>,
    note: String,
    wall_s: f64,
}

const HEADER: &str = "scene,backend,status,steps,newton,cg,stalled,unconverged,resolution_limited,capped,first_contact_step,min_wall_distance,wall_s,note";

impl Row {
    fn csv(&self) -> String {
        match &self.summary {
            Some(s) => format!(
                "{},{},{},{},{},{},{},{},{},{},{},{:e},{:.2},{}",
                self.scene,
                self.backend,
                s.status,
                s.steps,
                s.newton_iterations,
                s.cg_iterations,
                s.stalled_steps,
                s.unconverged_steps,
                s.resolution_limited_steps,
                s.capped_steps,
                s.first_any_contact_step()
                    .map_or(String::new(), |c| c.to_string()),
                s.min_wall_distance,
                self.wall_s,
                self.note.replace(',', ";")
            ),
            None => format!(
                "{},{},skipped,,,,,,,,,,,{}",
                self.scene,
                self.backend,
                self.note.replace(',', ";")
            ),
        }
    }

    fn markdown(&self) -> String {
        self.csv().replace(',', " | ")
    }

    fn ok(&self) -> bool {
        self.summary
            .as_ref()
            .is_none_or(|s| s.status == "completed")
    }
}

fn backend_for(
    name: &str,
    scene: &Scene,
    precision: Option<crate::precision::PrecisionChoice>,
) -> Result<Box<dyn Backend>, String> {
    match name {
        "cpu" => Ok(Box::new(
            CpuBackend::new(scene.model.clone()).with_linear_solver(scene.linear_solver),
        )),
        // A scene whose contact between bodies the GPU does not have yet reaches here
        // only when its CPU run formed no contact pair: the GPU runs it without, and
        // the run's intersection checker (which the scene keeps on) verifies that
        // nothing crossed.
        _ => {
            let mut m = scene.model.clone();
            if gpu_lacks_contact(scene) {
                m.self_contact.enabled = false;
            }
            if let Some(p) = precision {
                m.solver.precision = p;
            }
            GpuBackend::new(m).map(|g| Box::new(g) as Box<dyn Backend>)
        }
    }
}

fn parse_list(list: &str, what: &str) -> Result<Vec<String>, String> {
    let v: Vec<String> = list
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if v.is_empty() {
        return Err(format!("{what}: give at least one name"));
    }
    Ok(v)
}

/// Runs `springsim soak`: a row per scene and backend on stdout as it goes, then
/// `soak.csv` and `soak.md`; exits 3 when any run did not complete cleanly.
pub fn main(args: SoakArgs) -> ExitCode {
    match soak(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("error: some runs stalled or failed (see the status column)");
            ExitCode::from(3)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn soak(args: &SoakArgs) -> Result<bool, String> {
    let backends = parse_list(&args.backends, "--backends")?;
    let backends: Vec<&'static str> = backends
        .iter()
        .map(|b| match b.as_str() {
            "cpu" => Ok("cpu"),
            "gpu" => Ok("gpu"),
            other => Err(format!("--backends: unknown backend `{other}` (cpu, gpu)")),
        })
        .collect::<Result<_, _>>()?;
    let mut max_nodes = [("cpu", usize::MAX), ("gpu", usize::MAX)];
    for m in &args.max_nodes {
        let (b, n) = m
            .split_once('=')
            .ok_or_else(|| format!("--max-nodes {m}: expected BACKEND=NODES"))?;
        let n: usize = n
            .parse()
            .map_err(|_| format!("--max-nodes {m}: `{n}` is not a whole number"))?;
        let slot = max_nodes
            .iter_mut()
            .find(|(name, _)| *name == b)
            .ok_or_else(|| format!("--max-nodes {m}: unknown backend `{b}` (cpu, gpu)"))?;
        slot.1 = n;
    }
    let names: Vec<String> = match &args.scenes {
        Some(list) => parse_list(list, "--scenes")?,
        None => scene::BUNDLED.iter().map(|(n, _)| n.to_string()).collect(),
    };
    let scenes: Vec<Scene> = names
        .iter()
        .map(|n| scene::load(n).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    std::fs::create_dir_all(&args.out).map_err(|e| crate::output::io_error(&args.out, e))?;
    crate::interrupt::install();
    println!("{}", HEADER.replace(',', " | "));
    let mut rows = Vec::new();
    let mut devices: Vec<(&'static str, String)> = Vec::new();
    for sc in &scenes {
        // Contact pairs the CPU run of this scene found: where the soak does not run
        // the GPU's contact between bodies (a software adapter), it runs only scenes
        // where none ever formed.
        let mut cpu_pairs = None;
        for &b in &backends {
            if crate::interrupt::requested() {
                break;
            }
            let limit = max_nodes
                .iter()
                .find(|(n, _)| *n == b)
                .map_or(usize::MAX, |m| m.1);
            let nodes = sc.model.num_nodes();
            let skip = if sc.nonsmooth.is_some() && b == "gpu" {
                Some("nonsmooth contact runs on the CPU only".to_string())
            } else if nodes > limit {
                Some(format!("{nodes} nodes > --max-nodes {b}={limit}"))
            } else if b == "gpu" && cpu_pairs.is_some_and(|p: u64| p > 0) && gpu_lacks_contact(sc) {
                Some(format!(
                    "this contact between bodies ({} pairs on the CPU) {}",
                    cpu_pairs.unwrap_or(0),
                    gpu_contact_note()
                ))
            } else if b == "gpu" && cpu_pairs.is_none() && gpu_lacks_contact(sc) {
                Some(format!(
                    "this contact between bodies {} (no CPU row to show it never formed)",
                    gpu_contact_note()
                ))
            } else {
                None
            };
            let row = match skip {
                Some(note) => Row {
                    scene: sc.name.clone(),
                    backend: b,
                    summary: None,
                    note,
                    wall_s: 0.0,
                },
                None => run_one(sc, b, args)?,
            };
            if let (Some(s), "cpu") = (&row.summary, b) {
                cpu_pairs = Some(s.max_contact_pairs);
            }
            if let Some(s) = &row.summary {
                if !devices.iter().any(|(n, _)| *n == b) {
                    devices.push((b, s.device.clone()));
                }
            }
            println!("{}", row.markdown());
            rows.push(row);
        }
    }
    let mut csv = String::from(HEADER);
    csv.push('\n');
    for r in &rows {
        csv.push_str(&r.csv());
        csv.push('\n');
    }
    crate::output::write_atomically(&args.out.join("soak.csv"), csv.as_bytes())?;
    let mut md = String::new();
    let command: Vec<String> = std::env::args().collect();
    let _ = writeln!(md, "Command: `{}`  ", command.join(" "));
    for (b, d) in &devices {
        let _ = writeln!(md, "Device of the {b} rows: {d}  ");
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let _ = writeln!(md, "Date: {} UTC\n", crate::bench::table::utc_string(now));
    let _ = writeln!(md, "| {} |", HEADER.replace(',', " | "));
    let _ = writeln!(md, "|{}", "---|".repeat(HEADER.split(',').count()));
    for r in &rows {
        let _ = writeln!(md, "| {} |", r.markdown());
    }
    crate::output::write_atomically(&args.out.join("soak.md"), md.as_bytes())?;
    Ok(rows.iter().all(Row::ok))
}

/// Whether `sc` has contact between and within bodies that the soak does not run on
/// the GPU: on a software adapter (lavapipe) none of it, because its pair kernels
/// leak about 0.1–0.5 MB of host memory per dispatch there (benchmarks/NOTES.md, "GPU
/// self-contact"), which a whole soak in one process does not survive.
fn gpu_lacks_contact(sc: &Scene) -> bool {
    software_adapter() && crate::backend::gpu::contact::enabled(&sc.model)
}

/// Why [`gpu_lacks_contact`] holds, in words.
fn gpu_contact_note() -> &'static str {
    "is not soaked on a software GPU (its pair kernels leak memory on lavapipe)"
}

/// Whether the adapter the GPU backend would open is a software device.
fn software_adapter() -> bool {
    static SOFTWARE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SOFTWARE.get_or_init(|| {
        crate::backend::gpu::context::preferred_adapter()
            .is_ok_and(|a| a.device_type == wgpu::DeviceType::Cpu)
    })
}

fn run_one(sc: &Scene, b: &'static str, args: &SoakArgs) -> Result<Row, String> {
    let steps = sc.default_steps.unwrap_or(100);
    let steps = args.max_steps.map_or(steps, |m| steps.min(m));
    let out_dir = args.out.join("runs").join(format!("{}-{b}", sc.name));
    // A nonsmooth scene steps its particles itself: no backend is opened for it.
    let backend = match sc.nonsmooth.map_or_else(
        || backend_for(b, sc, args.precision).map(Some),
        |_| Ok(None),
    ) {
        Ok(be) => be,
        Err(e) => {
            return Ok(Row {
                scene: sc.name.clone(),
                backend: b,
                summary: None,
                note: format!("no backend: {}", e.lines().next().unwrap_or("")),
                wall_s: 0.0,
            })
        }
    };
    let opts = RunOptions {
        steps,
        out_dir,
        trajectory: false,
        frames: None,
        progress: false,
        stop_after_contact: args.after_contact,
        ..Default::default()
    };
    let t0 = Instant::now();
    let result = run(sc, backend, &opts);
    let wall_s = t0.elapsed().as_secs_f64();
    let summary_path = opts.out_dir.join("summary.json");
    let text = std::fs::read_to_string(&summary_path)
        .map_err(|e| crate::output::io_error(&summary_path, e))?;
    let summary: Summary =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", summary_path.display()))?;
    let note = match (&result, &summary.error) {
        (Err(e), _) | (Ok(_), Some(e)) => e.clone(),
        _ => String::new(),
    };
    Ok(Row {
        scene: sc.name.clone(),
        backend: b,
        summary: Some(summary),
        note,
        wall_s,
    })
}
