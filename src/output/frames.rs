//! Frames of a run (`--frames K --frame-format vtk|vtu|ply`): one file per K-th step
//! (and the initial state) in `OUT/frames/frame_STEP.EXT`; `vtu` frames are also
//! listed with their times in `OUT/frames.pvd` ([`super::pvd`]).

use super::ply::write_ply_frame;
use super::pvd::PvdCollection;
use super::vtk::write_vtk_frame;
use super::vtu::{write_vtu_frame, PointData};
use crate::model::Model;
use std::path::{Path, PathBuf};

/// The file format of the frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum FrameFormat {
    /// Legacy ASCII VTK polydata (points and springs), one `.vtk` per frame.
    #[default]
    Vtk,
    /// Binary VTK XML UnstructuredGrid with point data, plus `frames.pvd`.
    Vtu,
    /// Binary PLY (vertices, triangle faces, spring edges) for Blender.
    Ply,
}

impl FrameFormat {
    /// The frame files' extension.
    pub fn extension(self) -> &'static str {
        match self {
            FrameFormat::Vtk => "vtk",
            FrameFormat::Vtu => "vtu",
            FrameFormat::Ply => "ply",
        }
    }

    /// Whether a frame carries velocities (which a GPU run must read back).
    pub fn needs_velocities(self) -> bool {
        self == FrameFormat::Vtu
    }
}

/// Each node's smallest distance measure (m) to any wall of `model` at positions `x`
/// (plane walls: signed distance; implicit walls: the value of W); +inf without walls.
pub fn wall_distances(model: &Model, x: &[f64]) -> Vec<f64> {
    let walls: Vec<_> = crate::contact::walls(model).collect();
    x.chunks(model.dim)
        .map(|p| {
            walls
                .iter()
                .map(|w| w.distance(p))
                .fold(f64::INFINITY, f64::min)
        })
        .collect()
}

/// Writes the frames of a run into `OUT/frames` (and `OUT/frames.pvd` for `vtu`).
pub struct FrameWriter {
    dir: PathBuf,
    format: FrameFormat,
    pvd: Option<PvdCollection>,
    /// The model's rest neighbours (pairs never in contact), found at the first frame.
    excluded: Option<Vec<crate::collision::Pair>>,
}

impl FrameWriter {
    /// Each node's smallest distance to a primitive it may touch within d̂ (m; +∞
    /// elsewhere, and everywhere without self-contact).
    fn pair_distances(&mut self, model: &Model, x: &[f64]) -> Vec<f64> {
        use crate::collision::pairs::node_pair_distances;
        let (mesh, dhat) = (&model.collision, model.barrier.dhat);
        if !model.self_contact.enabled || mesh.is_empty() {
            return vec![f64::INFINITY; model.num_nodes()];
        }
        let excluded = self.excluded.get_or_insert_with(|| model.rest_exclusions());
        node_pair_distances(mesh, x, dhat, excluded)
    }

    /// Creates `out_dir/frames` for frames in `format`.
    pub fn create(out_dir: &Path, format: FrameFormat) -> Result<Self, String> {
        let dir = out_dir.join("frames");
        std::fs::create_dir_all(&dir).map_err(|e| super::io_error(&dir, e))?;
        let pvd =
            (format == FrameFormat::Vtu).then(|| PvdCollection::new(out_dir.join("frames.pvd")));
        Ok(Self {
            dir,
            format,
            pvd,
            excluded: None,
        })
    }

    /// The frames' format.
    pub fn format(&self) -> FrameFormat {
        self.format
    }

    /// Writes the frame of `step` at simulated time `time` (s): positions `x` (m) and,
    /// for formats that [`FrameFormat::needs_velocities`], velocities `v` (m/s; zeros
    /// when `None`).
    pub fn write(
        &mut self,
        model: &Model,
        step: u64,
        time: f64,
        x: &[f64],
        v: Option<&[f64]>,
    ) -> Result<(), String> {
        let name = format!("frame_{step:06}.{}", self.format.extension());
        let path = self.dir.join(&name);
        match self.format {
            FrameFormat::Vtk => write_vtk_frame(&path, model, x, time),
            FrameFormat::Ply => write_ply_frame(&path, model, x, time),
            FrameFormat::Vtu => {
                let zeros;
                let velocity = match v {
                    Some(v) => v,
                    None => {
                        zeros = vec![0.0; x.len()];
                        &zeros
                    }
                };
                let wall_distance = wall_distances(model, x);
                let pair_distance = self.pair_distances(model, x);
                let point = PointData {
                    velocity,
                    wall_distance: &wall_distance,
                    pair_distance: &pair_distance,
                };
                write_vtu_frame(&path, model, x, &point)?;
                match &mut self.pvd {
                    Some(pvd) => pvd.add(time, format!("frames/{name}")),
                    None => Ok(()),
                }
            }
        }
    }
}
