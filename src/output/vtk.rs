//! The legacy ASCII VTK frame (`--frame-format vtk`, the default).

use super::io_error;
use crate::model::Model;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

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
