//! Run outputs: `steps.csv`, `trajectory.csv`, VTK frames and `summary.json`.
//! Every writer flushes as it goes, so a run that fails keeps what it wrote.

use crate::model::Model;
use crate::sim::StepRecord;
use serde::Serialize;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// An I/O error that names the file.
pub fn io_error(path: &Path, e: io::Error) -> String {
    format!("{}: {e}", path.display())
}

fn create(path: &Path) -> Result<BufWriter<File>, String> {
    File::create(path)
        .map(BufWriter::new)
        .map_err(|e| io_error(path, e))
}

/// Column names of `steps.csv`, in the order of [`StepRecord`]'s fields.
pub const STEP_COLUMNS: &[&str] = &[
    "step",
    "time",
    "newton_iterations",
    "cg_iterations",
    "line_search_halvings",
    "alpha_min",
    "ccd_alpha_min",
    "residual",
    "converged",
    "line_search_failed",
    "resolution_limited",
    "newton_capped",
    "stall",
    "incremental_potential",
    "kinetic",
    "gravity",
    "elastic",
    "barrier",
    "total",
    "min_wall_distance",
    "sticking",
    "sliding",
    "friction_dissipation",
    "friction_lambda_change",
    "wall_ms",
];

/// Columns of our CSV files that hold words rather than numbers (`steps.csv`'s
/// `stall`: empty, or the [`crate::newton::Stall`] code).
pub const TEXT_COLUMNS: &[&str] = &["stall"];

/// Writes one row per step to `steps.csv`.
pub struct StepsCsv {
    path: PathBuf,
    out: BufWriter<File>,
}

impl StepsCsv {
    /// Creates the file and writes the header.
    pub fn create(path: PathBuf) -> Result<Self, String> {
        let mut out = create(&path)?;
        writeln!(out, "{}", STEP_COLUMNS.join(","))
            .and_then(|_| out.flush())
            .map_err(|e| io_error(&path, e))?;
        Ok(Self { path, out })
    }

    /// Appends and flushes one row.
    pub fn write(&mut self, r: &StepRecord) -> Result<(), String> {
        writeln!(
            self.out,
            "{},{:?},{},{},{},{:?},{:?},{:?},{},{},{},{},{},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{},{},{:?},{:?},{:.4}",
            r.step,
            r.time,
            r.newton_iterations,
            r.cg_iterations,
            r.line_search_halvings,
            r.alpha_min,
            r.ccd_alpha_min,
            r.residual,
            r.converged as u8,
            r.line_search_failed as u8,
            r.resolution_limited as u8,
            r.newton_capped as u8,
            r.stall.map_or("", |s| s.code()),
            r.incremental_potential,
            r.kinetic,
            r.gravity,
            r.elastic,
            r.barrier,
            r.total,
            r.min_wall_distance,
            r.sticking,
            r.sliding,
            r.friction_dissipation,
            r.friction_lambda_change,
            r.wall_ms
        )
        .and_then(|_| self.out.flush())
        .map_err(|e| io_error(&self.path, e))
    }
}

/// Writes `step,node,x,y[,z]` rows to `trajectory.csv`.
pub struct TrajectoryCsv {
    path: PathBuf,
    out: BufWriter<File>,
    dim: usize,
}

impl TrajectoryCsv {
    /// Creates the file and writes the header for dimension `dim`.
    pub fn create(path: PathBuf, dim: usize) -> Result<Self, String> {
        let mut out = create(&path)?;
        let header = if dim == 2 {
            "step,node,x,y"
        } else {
            "step,node,x,y,z"
        };
        writeln!(out, "{header}")
            .and_then(|_| out.flush())
            .map_err(|e| io_error(&path, e))?;
        Ok(Self { path, out, dim })
    }

    /// Appends the positions `x` (m) of every node at `step` and flushes.
    pub fn write(&mut self, step: u64, x: &[f64]) -> Result<(), String> {
        let r: io::Result<()> = (|| {
            for (i, p) in x.chunks(self.dim).enumerate() {
                write!(self.out, "{step},{i}")?;
                for c in p {
                    write!(self.out, ",{c:?}")?;
                }
                writeln!(self.out)?;
            }
            self.out.flush()
        })();
        r.map_err(|e| io_error(&self.path, e))
    }
}

/// Writes a legacy-VTK polydata frame (points and springs as lines) that ParaView
/// opens directly; 2D positions get z = 0.
pub fn write_vtk_frame(path: &Path, model: &Model, x: &[f64], time: f64) -> Result<(), String> {
    let r: io::Result<()> = (|| {
        let mut out = BufWriter::new(File::create(path)?);
        let dim = model.dim;
        let n = model.num_nodes();
        writeln!(
            out,
            "# vtk DataFile Version 3.0\nspringsim frame t={time}\nASCII\nDATASET POLYDATA"
        )?;
        writeln!(out, "POINTS {n} double")?;
        for p in x.chunks(dim) {
            let z = if dim == 3 { p[2] } else { 0.0 };
            writeln!(out, "{} {} {}", p[0], p[1], z)?;
        }
        let ns = model.springs.len();
        writeln!(out, "LINES {ns} {}", 3 * ns)?;
        for s in &model.springs {
            writeln!(out, "2 {} {}", s.a, s.b)?;
        }
        out.flush()
    })();
    r.map_err(|e| io_error(path, e))
}

/// The run's `summary.json`.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Summary {
    /// Scene name.
    pub scene: String,
    /// Scene file or `bundled:NAME`.
    pub source: String,
    /// `running` (the run is under way, or was killed), `completed`, `stalled` (some
    /// steps could make no progress: see `stalled_steps`), `interrupted` (stopped by
    /// Ctrl-C or SIGTERM) or `failed` (with `error` set).
    pub status: String,
    /// Why the run stopped early, or why it is not a success.
    pub error: Option<String>,
    /// Backend name (`cpu`, `gpu`).
    pub backend: String,
    /// Device in words.
    pub device: String,
    /// Spatial dimension.
    pub dimension: usize,
    /// Node count.
    pub nodes: usize,
    /// Spring count.
    pub springs: usize,
    /// Wall count: plane walls plus implicit walls (after splitting top-level `min`s).
    pub walls: usize,
    /// Steps completed.
    pub steps: u64,
    /// Time step (s).
    pub dt: f64,
    /// Simulated time (s).
    pub simulated_time: f64,
    /// Newton iterations over the run.
    pub newton_iterations: u64,
    /// CG iterations over the run.
    pub cg_iterations: u64,
    /// Line-search halvings over the run.
    pub line_search_halvings: u64,
    /// Steps whose Newton solve stopped before its tolerance.
    pub unconverged_steps: u64,
    /// Of those, steps stopped at the backend's floating-point resolution.
    pub resolution_limited_steps: u64,
    /// Of those, steps stopped at `solver.max_newton_iterations`.
    pub capped_steps: u64,
    /// Steps that could make no progress (CCD bound 0, no decrease, a direction that
    /// is not finite); the run's status is then `stalled`.
    pub stalled_steps: u64,
    /// The first stalled step.
    pub first_stalled_step: Option<u64>,
    /// Why the first stalled step stalled (`code: description`).
    pub first_stall: Option<String>,
    /// Wall-clock time of the stepping (s), without output.
    pub wall_clock_seconds: f64,
    /// Wall-clock per step (ms).
    pub ms_per_step: f64,
    /// Smallest node–wall distance over the run, initial state included (m).
    pub min_wall_distance: f64,
    /// Step at which that smallest distance occurred (0 = initial state).
    pub min_wall_distance_step: u64,
    /// First step at which some node was within d̂ of a wall.
    pub first_contact_step: Option<u64>,
    /// Centroid of all nodes at the end (m).
    pub final_centroid: Vec<f64>,
    /// Per wall, the smallest `n·x` over all nodes at the end (m): the lowest point along its normal.
    pub final_min_along_normal: Vec<f64>,
    /// Largest node speed at the end (m/s).
    pub final_max_speed: f64,
    /// Kinetic energy at the end (J).
    pub final_kinetic_energy: f64,
    /// Queue submissions to the device over the run (0 on the CPU).
    pub device_submissions: u64,
    /// Blocking reads from the device over the run (0 on the CPU).
    pub device_readbacks: u64,
    /// Device memory held by the scene's buffers (bytes; 0 on the CPU).
    pub device_memory_bytes: u64,
}

impl Summary {
    /// The summary of a run that has not taken a step yet: status `running`, every
    /// total zero, `min_wall_distance` (m) that of the initial state.
    pub fn start(
        scene: &crate::scene::Scene,
        backend: String,
        device: String,
        min_wall_distance: f64,
    ) -> Self {
        let model = &scene.model;
        Self {
            scene: scene.name.clone(),
            source: scene.source.clone(),
            status: "running".into(),
            error: None,
            backend,
            device,
            dimension: model.dim,
            nodes: model.num_nodes(),
            springs: model.springs.len(),
            walls: model.walls.len() + model.implicit_walls.len(),
            steps: 0,
            dt: model.solver.dt,
            simulated_time: 0.0,
            newton_iterations: 0,
            cg_iterations: 0,
            line_search_halvings: 0,
            unconverged_steps: 0,
            resolution_limited_steps: 0,
            capped_steps: 0,
            stalled_steps: 0,
            first_stalled_step: None,
            first_stall: None,
            wall_clock_seconds: 0.0,
            ms_per_step: 0.0,
            min_wall_distance,
            min_wall_distance_step: 0,
            first_contact_step: None,
            final_centroid: vec![],
            final_min_along_normal: vec![],
            final_max_speed: 0.0,
            final_kinetic_energy: 0.0,
            device_submissions: 0,
            device_readbacks: 0,
            device_memory_bytes: 0,
        }
    }

    /// Writes the summary as pretty JSON to `path`, atomically: a reader (or a killed
    /// run) sees the previous summary or this one, never a partial file.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        write_atomically(path, (text + "\n").as_bytes())
    }
}

/// Writes `bytes` to `path` through a temporary file beside it and a rename, so that
/// `path` holds either its old content or the new one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(|e| io_error(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| io_error(path, e))
}
