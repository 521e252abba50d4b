//! PLY frames (`--frame-format ply`): binary little-endian, one file per frame, for
//! Blender (File > Import > Stanford PLY, which reads `vertex`, `face` and `edge`
//! elements) and other mesh tools. Vertices are the nodes as `float` x, y, z (z = 0
//! in 2D); `face` holds the model's triangles (`vertex_indices`, a `uchar` count
//! and `int` indices) and `edge` the springs (`int vertex1, vertex2`). An element
//! with nothing in it is left out of the file.

use super::io_error;
use crate::model::Model;
use std::io::Write;
use std::path::Path;

/// Writes the PLY frame of `model` at positions `x` (m), simulated time `time` (s),
/// to `path`.
pub fn write_ply_frame(path: &Path, model: &Model, x: &[f64], time: f64) -> Result<(), String> {
    let dim = model.dim;
    let n = model.num_nodes();
    let mut head = format!(
        "ply\nformat binary_little_endian 1.0\ncomment springsim frame t={time}\nelement vertex {n}\nproperty float x\nproperty float y\nproperty float z\n"
    );
    if !model.triangles.is_empty() {
        head.push_str(&format!(
            "element face {}\nproperty list uchar int vertex_indices\n",
            model.triangles.len()
        ));
    }
    if !model.springs.is_empty() {
        head.push_str(&format!(
            "element edge {}\nproperty int vertex1\nproperty int vertex2\n",
            model.springs.len()
        ));
    }
    head.push_str("end_header\n");
    let mut data =
        Vec::with_capacity(12 * n + 13 * model.triangles.len() + 8 * model.springs.len());
    for p in x.chunks(dim) {
        for k in 0..3 {
            data.extend_from_slice(&(p.get(k).copied().unwrap_or(0.0) as f32).to_le_bytes());
        }
    }
    for t in &model.triangles {
        data.push(3);
        for i in t {
            data.extend_from_slice(&(*i as i32).to_le_bytes());
        }
    }
    for s in &model.springs {
        data.extend_from_slice(&(s.a as i32).to_le_bytes());
        data.extend_from_slice(&(s.b as i32).to_le_bytes());
    }
    let r: std::io::Result<()> = (|| {
        let mut f = std::fs::File::create(path)?;
        f.write_all(head.as_bytes())?;
        f.write_all(&data)
    })();
    r.map_err(|e| io_error(path, e))
}
