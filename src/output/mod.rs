//! Run outputs: `steps.csv`, trajectories (`trajectory.csv` or [`npy`]), frames
//! ([`vtk`], [`vtu`] with a [`pvd`] collection, [`ply`]; chosen in [`frames`]), and
//! the atomic file write that `summary.json` ([`crate::run::summary`]) goes through.
//! Every writer flushes as it goes, so a run that fails keeps what it wrote.

pub mod frames;
pub mod npy;
pub mod ply;
pub mod pvd;
pub mod trajectory;
pub mod vtk;
pub mod vtu;

use crate::sim::StepRecord;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
pub use vtk::write_vtk_frame;

/// An I/O error that names the file.
pub fn io_error(path: &Path, e: io::Error) -> String {
    format!("{}: {e}", path.display())
}

/// Creates the CSV file `path`, writes its `header` line and flushes it.
pub fn create_csv(path: &Path, header: &str) -> Result<BufWriter<File>, String> {
    let mut out = File::create(path)
        .map(BufWriter::new)
        .map_err(|e| io_error(path, e))?;
    writeln!(out, "{header}")
        .and_then(|_| out.flush())
        .map_err(|e| io_error(path, e))?;
    Ok(out)
}

/// Column names of `steps.csv`, in the order of [`StepRecord`]'s fields.
pub const STEP_COLUMNS: &[&str] = &[
    "step",
    "time",
    "newton_iterations",
    "cg_iterations",
    "cg_unconverged",
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
    "contact_pairs",
    "min_pair_distance",
    "sticking",
    "sliding",
    "friction_dissipation",
    "friction_lambda_change",
    "rebounds",
    "rebound_work",
    "drive_lag",
    "drive_work",
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
        let out = create_csv(&path, &STEP_COLUMNS.join(","))?;
        Ok(Self { path, out })
    }

    /// Appends and flushes one row.
    pub fn write(&mut self, r: &impl StepRow) -> Result<(), String> {
        writeln!(self.out, "{}", r.csv_row())
            .and_then(|_| self.out.flush())
            .map_err(|e| io_error(&self.path, e))
    }
}

/// A record that makes one row of `steps.csv`: every column of [`STEP_COLUMNS`], in
/// order, comma-separated (no newline).
pub trait StepRow {
    /// The row's text.
    fn csv_row(&self) -> String;
}

impl StepRow for StepRecord {
    fn csv_row(&self) -> String {
        let r = self;
        format!(
            "{},{:?},{},{},{},{},{:?},{:?},{:?},{},{},{},{},{},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{},{:?},{},{},{:?},{:?},{},{:?},{:?},{:?},{:.4}",
            r.step,
            r.time,
            r.newton_iterations,
            r.cg_iterations,
            r.cg_unconverged,
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
            r.contact_pairs,
            r.min_pair_distance,
            r.sticking,
            r.sliding,
            r.friction_dissipation,
            r.friction_lambda_change,
            r.rebounds,
            r.rebound_work,
            r.drive_lag,
            r.drive_work,
            r.wall_ms
        )
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
        let header = if dim == 2 {
            "step,node,x,y"
        } else {
            "step,node,x,y,z"
        };
        let out = create_csv(&path, header)?;
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

/// Writes `bytes` to `path` through a temporary file beside it and a rename, so that
/// `path` holds either its old content or the new one. The temporary file's name holds
/// the process id: shards of a sweep write the same plan into one folder at once.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(|e| io_error(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| io_error(path, e))
}
