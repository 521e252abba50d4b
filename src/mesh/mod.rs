//! Imported meshes: Wavefront OBJ (through `tobj`) and Gmsh MSH 4.1 (ASCII and
//! binary, our own reader), read into one [`Mesh`] of points and elements (lines,
//! triangles, tetrahedra), checked (empty, out-of-range indices, zero-length edges,
//! zero-area triangles, zero-volume tetrahedra, mixed dimensions), tetrahedra of
//! mixed orientation turned over ([`Mesh::orient_tetrahedra`]) and
//! measured ([`topology`]: unique edges, boundary, element measures) for the scene
//! builder, which turns a mesh into nodes and springs.

pub mod msh;
pub mod obj;
pub mod repair;
pub mod topology;

use std::fmt;

/// Why a mesh file was refused: the element (numbered as the file numbers it: Gmsh's
/// element tag, or the 1-based index of the OBJ face or line) where one applies, and
/// the reason. The caller adds the file name.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshError {
    /// The element's number and kind, e.g. `element 12 (tetrahedron)`, where one applies.
    pub element: Option<String>,
    /// What is wrong, in words.
    pub reason: String,
}

impl MeshError {
    /// An error about the file as a whole.
    pub fn file(reason: impl Into<String>) -> Self {
        MeshError {
            element: None,
            reason: reason.into(),
        }
    }

    /// An error about element `id` of `kind` (`line`, `triangle`, `tetrahedron`).
    pub fn at(kind: &str, id: usize, reason: impl Into<String>) -> Self {
        MeshError {
            element: Some(format!("element {id} ({kind})")),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.element {
            Some(e) => write!(f, "{e}: {}", self.reason),
            None => write!(f, "{}", self.reason),
        }
    }
}

/// The dimension of a mesh's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Polylines (measure: length, m).
    Lines,
    /// Triangles (measure: area, m²): a 2D body or a 3D surface.
    Triangles,
    /// Tetrahedra (measure: volume, m³).
    Tetrahedra,
}

/// Lower-dimensional elements to check against the kept ones: their name, the
/// file's numbers and their nodes.
type Lower<'a> = (&'a str, &'a [usize], Vec<&'a [u32]>);

/// An imported mesh: points (m, always 3 coordinates; z = 0 for 2D files) and the
/// elements of one dimension, with the numbers the file gives them (for errors).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Node positions (m).
    pub points: Vec<[f64; 3]>,
    /// Line segments (node indices).
    pub lines: Vec<[u32; 2]>,
    /// Triangles (node indices).
    pub triangles: Vec<[u32; 3]>,
    /// Tetrahedra (node indices).
    pub tetrahedra: Vec<[u32; 4]>,
    /// The file's number of each line, triangle and tetrahedron, in that order.
    pub ids: [Vec<usize>; 3],
    /// Nodes the reader already merged into an earlier node at the same position
    /// (OBJ: `v` statements repeating a position), for the note of [`read`].
    pub merged: usize,
}

impl Mesh {
    /// The highest element dimension present (`None` for a mesh without elements).
    pub fn kind(&self) -> Option<Kind> {
        if !self.tetrahedra.is_empty() {
            Some(Kind::Tetrahedra)
        } else if !self.triangles.is_empty() {
            Some(Kind::Triangles)
        } else if !self.lines.is_empty() {
            Some(Kind::Lines)
        } else {
            None
        }
    }

    /// Keeps only the elements of the highest dimension and the points they use
    /// (renumbered in their original order). Lower-dimensional elements must lie on
    /// the kept ones (Gmsh saves boundary curves and surfaces with a volume mesh):
    /// one that uses a node no kept element uses makes the mesh mixed, an error.
    pub fn keep_top_dimension(&mut self) -> Result<Kind, MeshError> {
        let kind = self.kind().ok_or_else(|| {
            MeshError::file("the mesh has no elements (lines, triangles or tetrahedra)")
        })?;
        let n = self.points.len();
        let mut used = vec![false; n];
        let mut mark = |el: &[u32]| el.iter().for_each(|&i| used[i as usize] = true);
        match kind {
            Kind::Tetrahedra => self.tetrahedra.iter().for_each(|t| mark(t)),
            Kind::Triangles => self.triangles.iter().for_each(|t| mark(t)),
            Kind::Lines => self.lines.iter().for_each(|t| mark(t)),
        }
        let lower: Vec<Lower> = match kind {
            Kind::Tetrahedra => vec![
                (
                    "triangle",
                    &self.ids[1],
                    self.triangles.iter().map(|t| &t[..]).collect(),
                ),
                (
                    "line",
                    &self.ids[0],
                    self.lines.iter().map(|t| &t[..]).collect(),
                ),
            ],
            Kind::Triangles => vec![(
                "line",
                &self.ids[0],
                self.lines.iter().map(|t| &t[..]).collect(),
            )],
            Kind::Lines => vec![],
        };
        for (name, ids, els) in lower {
            for (e, el) in els.iter().enumerate() {
                if el.iter().any(|&i| !used[i as usize]) {
                    return Err(MeshError::at(
                        name,
                        ids[e],
                        format!(
                            "mixed dimensions: this {name} is not part of the mesh's {}; a body is made of one kind of element",
                            match kind {
                                Kind::Tetrahedra => "tetrahedra",
                                Kind::Triangles => "triangles",
                                Kind::Lines => "lines",
                            }
                        ),
                    ));
                }
            }
        }
        match kind {
            Kind::Tetrahedra => {
                self.triangles.clear();
                self.lines.clear();
                self.ids[0].clear();
                self.ids[1].clear();
            }
            Kind::Triangles => {
                self.lines.clear();
                self.ids[0].clear();
            }
            Kind::Lines => {}
        }
        // the points the kept elements use, renumbered in their order
        let identity: Vec<u32> = (0..n as u32).collect();
        repair::renumber(self, &identity);
        Ok(kind)
    }

    /// Gives every tetrahedron Gmsh's orientation (`(p1 − p0) × (p2 − p0) · (p3 − p0)
    /// > 0`) by swapping nodes 2 and 3 of those with a negative volume, as many tools
    /// write half of them (springs do not care; the outward boundary faces do).
    /// Returns how many were swapped; zero volumes are left to [`Self::check`].
    pub fn orient_tetrahedra(&mut self) -> usize {
        let points = &self.points;
        let mut flipped = 0;
        for t in &mut self.tetrahedra {
            let p = |i: u32| points[i as usize];
            if topology::tet_signed_volume(p(t[0]), p(t[1]), p(t[2]), p(t[3])) < 0.0 {
                t.swap(1, 2);
                flipped += 1;
            }
        }
        flipped
    }

    /// Checks the kept elements (after [`Self::keep_top_dimension`] and
    /// [`Self::orient_tetrahedra`]): no zero-length edge, no zero-area triangle, no
    /// zero-volume tetrahedron. "Zero" is relative to the mesh's
    /// size: below 1e-10 of its bounding-box diagonal to the power of the element's
    /// dimension.
    pub fn check(&self) -> Result<(), MeshError> {
        let diag = topology::bbox_diagonal(&self.points);
        if self.points.is_empty() || diag == 0.0 {
            return Err(MeshError::file(
                "the mesh has no extent: all its nodes coincide",
            ));
        }
        let p = |i: u32| self.points[i as usize];
        let check_edges = |kind: &str, ids: &[usize], els: Vec<&[u32]>| {
            for (e, el) in els.iter().enumerate() {
                for a in 0..el.len() {
                    for b in a + 1..el.len() {
                        if topology::dist(p(el[a]), p(el[b])) <= 1e-10 * diag {
                            return Err(MeshError::at(
                                kind,
                                ids[e],
                                format!(
                                    "degenerate: zero-length edge between its nodes {} and {}",
                                    a + 1,
                                    b + 1
                                ),
                            ));
                        }
                    }
                }
            }
            Ok(())
        };
        check_edges(
            "line",
            &self.ids[0],
            self.lines.iter().map(|t| &t[..]).collect(),
        )?;
        check_edges(
            "triangle",
            &self.ids[1],
            self.triangles.iter().map(|t| &t[..]).collect(),
        )?;
        check_edges(
            "tetrahedron",
            &self.ids[2],
            self.tetrahedra.iter().map(|t| &t[..]).collect(),
        )?;
        for (e, t) in self.triangles.iter().enumerate() {
            if topology::triangle_area(p(t[0]), p(t[1]), p(t[2])) <= 1e-10 * diag * diag {
                return Err(MeshError::at(
                    "triangle",
                    self.ids[1][e],
                    "degenerate: zero area (its nodes are collinear)",
                ));
            }
        }
        for (e, t) in self.tetrahedra.iter().enumerate() {
            let v = topology::tet_signed_volume(p(t[0]), p(t[1]), p(t[2]), p(t[3]));
            if v.abs() <= 1e-10 * diag.powi(3) {
                return Err(MeshError::at(
                    "tetrahedron",
                    self.ids[2][e],
                    "degenerate: zero volume (its nodes are coplanar)",
                ));
            }
        }
        Ok(())
    }
}

/// Reads the mesh in `bytes`, its format from `name`'s extension (`.obj`, `.msh`),
/// keeps its top-dimensional elements, repairs what springs do not care about
/// ([`repair`]: unused nodes left out, nodes at one position merged, repeated
/// elements dropped, tetrahedra oriented) and checks the rest. Returns the mesh, its
/// kind and one note per repair or oddity (unused nodes, merged nodes, repeated
/// elements, turned tetrahedra, non-manifold edges, disconnected pieces), each one
/// line for the caller to print as a warning.
pub fn read(name: &str, bytes: &[u8]) -> Result<(Mesh, Kind, Vec<String>), MeshError> {
    let ext = name.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    let mesh = match ext.as_str() {
        "obj" => obj::read(bytes)?,
        "msh" => msh::read(bytes)?,
        _ => {
            return Err(MeshError::file(
                "unknown mesh format: the file name must end in .obj (Wavefront OBJ) or .msh (Gmsh MSH 4.1)",
            ))
        }
    };
    finish(mesh)
}

/// A mesh given as arrays: node positions (m) and elements of 0-based node indices
/// (a scene's inline `nodes` with `segments`, `triangles` or `tetrahedra`), checked
/// and repaired as [`read`] does a file's; an element's number in errors is its row.
pub fn from_arrays(
    points: Vec<[f64; 3]>,
    lines: Vec<[u32; 2]>,
    triangles: Vec<[u32; 3]>,
    tetrahedra: Vec<[u32; 4]>,
) -> Result<(Mesh, Kind, Vec<String>), MeshError> {
    let n = points.len();
    let rows: [(&str, Vec<&[u32]>); 3] = [
        ("line", lines.iter().map(|e| &e[..]).collect()),
        ("triangle", triangles.iter().map(|e| &e[..]).collect()),
        ("tetrahedron", tetrahedra.iter().map(|e| &e[..]).collect()),
    ];
    for (kind, els) in &rows {
        for (i, el) in els.iter().enumerate() {
            if let Some(bad) = el.iter().find(|&&k| k as usize >= n) {
                return Err(MeshError::at(
                    kind,
                    i,
                    format!("node {bad} does not exist: there are {n} nodes, numbered from 0"),
                ));
            }
        }
    }
    let ids = [
        (0..lines.len()).collect(),
        (0..triangles.len()).collect(),
        (0..tetrahedra.len()).collect(),
    ];
    finish(Mesh {
        points,
        lines,
        triangles,
        tetrahedra,
        ids,
        merged: 0,
    })
}

/// The mesh as a reader left it, repaired and checked ([`read`]).
fn finish(mut mesh: Mesh) -> Result<(Mesh, Kind, Vec<String>), MeshError> {
    if mesh.points.is_empty() {
        return Err(MeshError::file("the mesh is empty: it has no nodes"));
    }
    let before = mesh.points.len();
    let kind = mesh.keep_top_dimension()?;
    let mut notes = Vec::new();
    let unused = before - mesh.points.len();
    if unused > 0 {
        notes.push(format!(
            "{unused} of {before} nodes belong to no element and were left out"
        ));
    }
    let merged = mesh.merged + repair::weld(&mut mesh);
    if merged > 0 {
        notes.push(format!(
            "{merged} nodes at the same position as another node were merged into it (the elements now share them)"
        ));
    }
    let repeated = repair::drop_repeated(&mut mesh);
    if repeated > 0 {
        notes.push(format!(
            "{repeated} elements repeated another element's nodes and were dropped"
        ));
    }
    let flipped = mesh.orient_tetrahedra();
    if flipped > 0 {
        notes.push(format!(
            "{flipped} of {} tetrahedra had a negative volume (mixed orientation); their nodes 2 and 3 were swapped",
            mesh.tetrahedra.len()
        ));
    }
    mesh.check()?;
    let shared = repair::check_sharing(&mesh)?;
    if shared > 0 {
        notes.push(format!(
            "{shared} edges are shared by more than two triangles (a non-manifold surface); springs join there as anywhere"
        ));
    }
    let pieces = repair::pieces(&mesh);
    if pieces.len() > 1 {
        notes.push(format!(
            "the mesh has {} disconnected pieces (of {} nodes), which move apart freely as parts of one body; give each its own [[bodies]] entry for settings of its own",
            pieces.len(),
            repair::and_list(&pieces)
        ));
    }
    Ok((mesh, kind, notes))
}
