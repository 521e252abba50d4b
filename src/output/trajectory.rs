//! The trajectory of a run (`--trajectory`), every `stride`-th step and the initial
//! state, as `trajectory.csv` ([`TrajectoryCsv`]) or as NumPy arrays
//! (`--trajectory-format npy`), which are, in the output folder:
//! - `trajectory.npy`: float `[frames, nodes, dim]` positions (m), f32 or f64;
//! - `times.npy`: f64 `[frames]` simulated time of each frame (s);
//! - `springs.npy`: int32 `[springs, 2]` the node pairs of the springs;
//! - `triangles.npy` (int32 `[triangles, 3]`) and `tetrahedra.npy` (int32
//!   `[tetrahedra, 4]`) when the model has any;
//! - `bodies.json`: `dim`, `nodes`, `dt`, `stride`, `precision` and per body its
//!   `name`, `first_node` and `nodes` (its nodes are `first_node..first_node+nodes`).

use super::npy::{write_npy, NpyWriter, Precision};
use super::{write_atomically, TrajectoryCsv};
use crate::model::Model;
use std::path::Path;

/// The file format of a trajectory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum TrajectoryFormat {
    /// `trajectory.csv`: one `step,node,x,y[,z]` row per node and stored step.
    #[default]
    Csv,
    /// `trajectory.npy` with `times.npy`, `springs.npy` and `bodies.json`.
    Npy,
}

/// What a run's trajectory is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrajectorySpec {
    /// The file format.
    pub format: TrajectoryFormat,
    /// Store every this many steps (≥ 1; the initial state is always stored).
    pub stride: u64,
    /// Float precision of `trajectory.npy` (the CSV always holds f64 values).
    pub precision: Precision,
}

impl Default for TrajectorySpec {
    fn default() -> Self {
        Self {
            format: TrajectoryFormat::Csv,
            stride: 1,
            precision: Precision::F32,
        }
    }
}

/// Writes a run's trajectory in the chosen format.
pub enum TrajectoryWriter {
    /// `trajectory.csv`.
    Csv(TrajectoryCsv, u64),
    /// `trajectory.npy` and `times.npy` (the fixed arrays are written at creation).
    Npy {
        /// Positions, `[frames, nodes, dim]`.
        positions: NpyWriter,
        /// Times, `[frames]`.
        times: NpyWriter,
        /// Steps between frames.
        stride: u64,
    },
}

/// Writes an int32 `[rows, width]` array of `rows` to `path`.
fn write_indices<const W: usize>(path: &Path, rows: &[[u32; W]]) -> Result<(), String> {
    let data: Vec<u8> = rows
        .iter()
        .flat_map(|r| r.iter().flat_map(|i| (*i as i32).to_le_bytes()))
        .collect();
    write_npy(path, "<i4", &[rows.len(), W], &data)
}

impl TrajectoryWriter {
    /// Creates the trajectory files of `model` in `out_dir` as `spec` asks.
    pub fn create(out_dir: &Path, model: &Model, spec: TrajectorySpec) -> Result<Self, String> {
        let dim = model.dim;
        let stride = spec.stride.max(1);
        if spec.format == TrajectoryFormat::Csv {
            let csv = TrajectoryCsv::create(out_dir.join("trajectory.csv"), dim)?;
            return Ok(TrajectoryWriter::Csv(csv, stride));
        }
        let springs: Vec<[u32; 2]> = model.springs.iter().map(|s| [s.a, s.b]).collect();
        write_indices(&out_dir.join("springs.npy"), &springs)?;
        if !model.triangles.is_empty() {
            write_indices(&out_dir.join("triangles.npy"), &model.triangles)?;
        }
        if !model.tetrahedra.is_empty() {
            write_indices(&out_dir.join("tetrahedra.npy"), &model.tetrahedra)?;
        }
        let bodies: Vec<serde_json::Value> = model
            .bodies
            .iter()
            .map(|b| serde_json::json!({"name": b.name, "first_node": b.first_node, "nodes": b.nodes}))
            .collect();
        let meta = serde_json::json!({
            "dim": dim,
            "nodes": model.num_nodes(),
            "dt": model.solver.dt,
            "stride": stride,
            "precision": match spec.precision { Precision::F32 => "f32", Precision::F64 => "f64" },
            "bodies": bodies,
        });
        let text = serde_json::to_string_pretty(&meta).map_err(|e| e.to_string())? + "\n";
        write_atomically(&out_dir.join("bodies.json"), text.as_bytes())?;
        Ok(TrajectoryWriter::Npy {
            positions: NpyWriter::create(
                out_dir.join("trajectory.npy"),
                &[model.num_nodes(), dim],
                spec.precision,
            )?,
            times: NpyWriter::create(out_dir.join("times.npy"), &[], Precision::F64)?,
            stride,
        })
    }

    /// Whether `step` is stored (the initial state and every stride-th step).
    pub fn due(&self, step: u64) -> bool {
        let stride = match self {
            TrajectoryWriter::Csv(_, s) => *s,
            TrajectoryWriter::Npy { stride, .. } => *stride,
        };
        step.is_multiple_of(stride)
    }

    /// Stores the positions `x` (m) of `step` at simulated time `time` (s) when the
    /// step is [`Self::due`]; otherwise does nothing.
    pub fn write(&mut self, step: u64, time: f64, x: &[f64]) -> Result<(), String> {
        if !self.due(step) {
            return Ok(());
        }
        match self {
            TrajectoryWriter::Csv(csv, _) => csv.write(step, x),
            TrajectoryWriter::Npy {
                positions, times, ..
            } => {
                positions.append(x)?;
                times.append(&[time])
            }
        }
    }
}
