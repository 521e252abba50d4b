//! Mesh bodies given inline (`nodes` with `segments`, `triangles` or
//! `tetrahedra`) instead of by `file`: what a program that builds its meshes as
//! arrays (the Python package) writes into a scene, checked and repaired as a mesh
//! file is ([`crate::mesh::from_arrays`]).

use super::format::BodySection;
use super::{Builder, SceneError};
use crate::mesh::{self, Kind, Mesh};

/// The keys of an inline mesh, which only mesh bodies take.
pub(super) const INLINE_MESH_KEYS: [&str; 4] = ["nodes", "segments", "triangles", "tetrahedra"];

impl Builder<'_> {
    /// The mesh of mesh body `bi`, from its `file` or inline: the mesh, its kind, the
    /// notes of its repairs, the name errors give it and the key they blame.
    pub(super) fn body_mesh(
        &self,
        bi: usize,
        b: &BodySection,
        dim: usize,
    ) -> Result<(Mesh, Kind, Vec<String>, String, String), SceneError> {
        let p = |f: &str| format!("bodies.{bi}.{f}");
        let inline = INLINE_MESH_KEYS.iter().find(|k| match **k {
            "nodes" => b.nodes.is_some(),
            "segments" => b.segments.is_some(),
            "triangles" => b.triangles.is_some(),
            _ => b.tetrahedra.is_some(),
        });
        match (&b.file, inline) {
            (Some(_), Some(key)) => Err(self.err(
                &p(key),
                "give the mesh either as a file or inline (nodes with its elements), not both",
            )),
            (Some(file), None) => {
                let (bytes, name) = self.mesh_bytes(&p("file"), file)?;
                let (m, kind, notes) = mesh::read(&name, &bytes)
                    .map_err(|e| self.err(&p("file"), format!("{name}: {e}")))?;
                Ok((m, kind, notes, name, p("file")))
            }
            (None, Some(_)) => {
                let (m, kind, notes) = self.inline(bi, b, dim)?;
                Ok((m, kind, notes, "inline mesh".into(), p("nodes")))
            }
            (None, None) => Err(self.err(
                &format!("bodies.{bi}"),
                "mesh bodies need `file`, or `nodes` with `segments`, `triangles` or `tetrahedra`",
            )),
        }
    }

    /// The inline mesh of body `bi` in a `dim`-dimensional scene.
    fn inline(
        &self,
        bi: usize,
        b: &BodySection,
        dim: usize,
    ) -> Result<(Mesh, Kind, Vec<String>), SceneError> {
        let p = |f: &str| format!("bodies.{bi}.{f}");
        let nodes = b
            .nodes
            .as_ref()
            .ok_or_else(|| self.err(&p("nodes"), "an inline mesh needs its `nodes`"))?;
        let mut points = Vec::with_capacity(nodes.len());
        for (i, q) in nodes.iter().enumerate() {
            if q.len() != dim {
                return Err(self.err(
                    &format!("{}.{i}", p("nodes")),
                    format!(
                        "a node of a {dim}D scene has {dim} coordinates, got {}",
                        q.len()
                    ),
                ));
            }
            if let Some(c) = q.iter().find(|c| !c.is_finite()) {
                return Err(self.err(
                    &format!("{}.{i}", p("nodes")),
                    format!("must hold finite numbers, got {c}"),
                ));
            }
            points.push([q[0], q[1], if dim == 3 { q[2] } else { 0.0 }]);
        }
        let given = [
            ("segments", &b.segments),
            ("triangles", &b.triangles),
            ("tetrahedra", &b.tetrahedra),
        ];
        let mut present = given.iter().filter(|(_, v)| v.is_some());
        let Some((key, Some(rows))) = present.next() else {
            return Err(self.err(
                &p("nodes"),
                "an inline mesh needs its elements: `segments`, `triangles` or `tetrahedra`",
            ));
        };
        if let Some((other, _)) = present.next() {
            return Err(self.err(
                &p(other),
                format!("an inline mesh has one kind of element: give {key} or {other}, not both"),
            ));
        }
        let width = match *key {
            "segments" => 2,
            "triangles" => 3,
            _ => 4,
        };
        let mut flat = Vec::with_capacity(rows.len() * width);
        for (i, row) in rows.iter().enumerate() {
            let at = format!("{}.{i}", p(key));
            if row.len() != width {
                return Err(self.err(
                    &at,
                    format!("must hold {width} node indices, got {}", row.len()),
                ));
            }
            for &k in row {
                let k = u32::try_from(k).map_err(|_| {
                    self.err(
                        &at,
                        format!("node index {k} is not one: indices count from 0"),
                    )
                })?;
                flat.push(k);
            }
        }
        let rows_of = |w: usize| -> Vec<&[u32]> { flat.chunks(w).collect() };
        let (mut lines, mut tris, mut tets) = (vec![], vec![], vec![]);
        match width {
            2 => lines = rows_of(2).iter().map(|r| [r[0], r[1]]).collect(),
            3 => tris = rows_of(3).iter().map(|r| [r[0], r[1], r[2]]).collect(),
            _ => {
                tets = rows_of(4)
                    .iter()
                    .map(|r| [r[0], r[1], r[2], r[3]])
                    .collect()
            }
        }
        mesh::from_arrays(points, lines, tris, tets)
            .map_err(|e| self.err(&p(key), format!("inline mesh: {e}")))
    }
}
