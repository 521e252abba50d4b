//! VTK XML UnstructuredGrid frames (`.vtu`, `--frame-format vtu`), binary: every
//! array sits raw in one appended block (`encoding="raw"`, each preceded by its byte
//! count as a UInt64), so a frame is written without text or base64 conversion.
//!
//! Points are the nodes (z = 0 in 2D, Float64). Point data: `velocity` (3
//! components, m/s, Float64), `body` (Int32, the index of the node's body in the
//! scene's order, −1 for none), `fixed` (UInt8, 1 for a pinned node) and
//! `wall_distance` (Float64, m: the smallest distance measure to any wall, plane or
//! implicit; +inf when the scene has no walls) and `pair_distance` (Float64, m: the
//! node's smallest distance to a collision primitive it may touch, among those within
//! d̂; +inf elsewhere or without self-contact). Cells: every spring as a VTK_LINE
//! (3), then the model's triangles as VTK_TRIANGLE (5) and tetrahedra as VTK_TETRA
//! (10); connectivity and offsets are Int32 (Int64 when an index would not fit).

use super::io_error;
use crate::model::Model;
use std::io::Write;
use std::path::Path;

/// VTK's cell type numbers of a line, a triangle and a tetrahedron.
pub const VTK_LINE: u8 = 3;
/// VTK_TRIANGLE.
pub const VTK_TRIANGLE: u8 = 5;
/// VTK_TETRA.
pub const VTK_TETRA: u8 = 10;

/// Per-node values of a frame beside the positions.
pub struct PointData<'a> {
    /// Velocities (m/s), `dim` per node.
    pub velocity: &'a [f64],
    /// The smallest distance measure of each node to any wall (m).
    pub wall_distance: &'a [f64],
    /// Each node's smallest distance to a primitive it may touch within d̂ (m).
    pub pair_distance: &'a [f64],
}

/// Each node's body index (−1 for a node of no body).
pub fn body_of_nodes(model: &Model) -> Vec<i32> {
    let mut body = vec![-1; model.num_nodes()];
    for (k, b) in model.bodies.iter().enumerate() {
        let end = (b.first_node + b.nodes).min(body.len());
        for slot in &mut body[b.first_node.min(end)..end] {
            *slot = k as i32;
        }
    }
    body
}

/// Every node's coordinates padded to 3 components (z = 0 in 2D).
pub fn xyz(values: &[f64], dim: usize) -> Vec<f64> {
    if dim == 3 {
        return values.to_vec();
    }
    let mut out = Vec::with_capacity(values.len() / dim.max(1) * 3);
    for p in values.chunks(dim) {
        out.extend_from_slice(p);
        out.extend(std::iter::repeat_n(0.0, 3 - p.len()));
    }
    out
}

/// The arrays of the appended block, in order, and the XML that refers to them.
struct Appended {
    xml: String,
    data: Vec<u8>,
}

impl Appended {
    /// Adds an array of `kind` (VTK type name), `comps` components, `name` (empty for
    /// the points), whose little-endian bytes `bytes` produces.
    fn array(&mut self, kind: &str, name: &str, comps: usize, bytes: &[u8]) {
        let name = match name {
            "" => String::new(),
            n => format!(" Name=\"{n}\""),
        };
        self.xml.push_str(&format!(
            "        <DataArray type=\"{kind}\"{name} NumberOfComponents=\"{comps}\" format=\"appended\" offset=\"{}\"/>\n",
            self.data.len()
        ));
        self.data
            .extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        self.data.extend_from_slice(bytes);
    }
}

fn f64_bytes(v: &[f64]) -> &[u8] {
    bytemuck::cast_slice(v)
}

/// An integer type of the cell arrays: Int32 when every index fits, else Int64.
trait CellIndex: bytemuck::Pod {
    fn of(i: usize) -> Self;
}

impl CellIndex for i32 {
    fn of(i: usize) -> Self {
        i as i32
    }
}

impl CellIndex for i64 {
    fn of(i: usize) -> Self {
        i as i64
    }
}

/// Adds the `connectivity` and `offsets` arrays of the springs, triangles and
/// tetrahedra of `model` as `kind` (the VTK name of `T`).
fn cell_arrays<T: CellIndex>(a: &mut Appended, model: &Model, kind: &str) {
    let cells = model.springs.len() + model.triangles.len() + model.tetrahedra.len();
    let mut conn: Vec<T> = Vec::with_capacity(
        2 * model.springs.len() + 3 * model.triangles.len() + 4 * model.tetrahedra.len(),
    );
    let mut offsets: Vec<T> = Vec::with_capacity(cells);
    for s in &model.springs {
        conn.extend([T::of(s.a as usize), T::of(s.b as usize)]);
        offsets.push(T::of(conn.len()));
    }
    for t in &model.triangles {
        conn.extend(t.iter().map(|i| T::of(*i as usize)));
        offsets.push(T::of(conn.len()));
    }
    for t in &model.tetrahedra {
        conn.extend(t.iter().map(|i| T::of(*i as usize)));
        offsets.push(T::of(conn.len()));
    }
    a.array(kind, "connectivity", 1, bytemuck::cast_slice(&conn));
    a.array(kind, "offsets", 1, bytemuck::cast_slice(&offsets));
}

/// Writes the `.vtu` frame of `model` at positions `x` (m) with `point` data to
/// `path`.
pub fn write_vtu_frame(
    path: &Path,
    model: &Model,
    x: &[f64],
    point: &PointData,
) -> Result<(), String> {
    let dim = model.dim;
    let n = model.num_nodes();
    let mut a = Appended {
        xml: String::new(),
        data: Vec::with_capacity(n * 64 + model.springs.len() * 24),
    };
    a.xml.push_str("      <PointData Vectors=\"velocity\">\n");
    a.array(
        "Float64",
        "velocity",
        3,
        f64_bytes(&xyz(point.velocity, dim)),
    );
    let body = body_of_nodes(model);
    a.array("Int32", "body", 1, bytemuck::cast_slice(&body));
    let fixed: Vec<u8> = model.fixed.iter().map(|f| *f as u8).collect();
    a.array("UInt8", "fixed", 1, &fixed);
    a.array(
        "Float64",
        "wall_distance",
        1,
        f64_bytes(point.wall_distance),
    );
    a.array(
        "Float64",
        "pair_distance",
        1,
        f64_bytes(point.pair_distance),
    );
    a.xml.push_str("      </PointData>\n      <Points>\n");
    a.array("Float64", "", 3, f64_bytes(&xyz(x, dim)));
    a.xml.push_str("      </Points>\n      <Cells>\n");
    let cells = model.springs.len() + model.triangles.len() + model.tetrahedra.len();
    let conn_len = 2 * model.springs.len() + 3 * model.triangles.len() + 4 * model.tetrahedra.len();
    if conn_len <= i32::MAX as usize && n <= i32::MAX as usize {
        cell_arrays::<i32>(&mut a, model, "Int32");
    } else {
        cell_arrays::<i64>(&mut a, model, "Int64");
    }
    let types: Vec<u8> = std::iter::repeat_n(VTK_LINE, model.springs.len())
        .chain(std::iter::repeat_n(VTK_TRIANGLE, model.triangles.len()))
        .chain(std::iter::repeat_n(VTK_TETRA, model.tetrahedra.len()))
        .collect();
    a.array("UInt8", "types", 1, &types);
    a.xml.push_str("      </Cells>\n");
    let head = format!(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"{n}\" NumberOfCells=\"{cells}\">\n{}    </Piece>\n  </UnstructuredGrid>\n  <AppendedData encoding=\"raw\">\n_",
        a.xml
    );
    let r: std::io::Result<()> = (|| {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
        out.write_all(head.as_bytes())?;
        out.write_all(&a.data)?;
        out.write_all(b"\n  </AppendedData>\n</VTKFile>\n")?;
        out.flush()
    })();
    r.map_err(|e| io_error(path, e))
}
