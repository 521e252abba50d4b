//! Wavefront OBJ through the `tobj` crate: faces (triangles; quads and larger
//! polygons split into a fan of triangles from their first vertex) and polylines
//! (`l`, each segment a line element). Materials, normals and texture coordinates
//! are ignored. The objects and groups of a file form one mesh: vertices that the
//! reader duplicates per group are merged again where their positions are equal.

use super::{Mesh, MeshError};
use std::collections::HashMap;

/// The OBJ text with every polyline `l v1 v2 … vn` written as n − 1 segments
/// `l vi vi+1` (the reader would take a longer `l` for a polygon), and the vertex
/// positions in the order of the file's `v` statements (the reader renumbers them
/// by first use; springsim keeps the file's order).
fn split_polylines(bytes: &[u8]) -> Result<(String, Vec<[f64; 3]>), MeshError> {
    let text = std::str::from_utf8(bytes).map_err(|_| {
        MeshError::file("not a readable Wavefront OBJ file: it is not text (UTF-8)")
    })?;
    let mut out = String::with_capacity(text.len());
    let mut vertices = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let first = words.next();
        if first == Some("v") {
            let xyz: Vec<f64> = words
                .clone()
                .take(3)
                .filter_map(|w| w.parse().ok())
                .collect();
            if xyz.len() == 3 {
                vertices.push([xyz[0], xyz[1], xyz[2]]);
            }
        }
        if first == Some("l") {
            let v: Vec<&str> = words.collect();
            for pair in v.windows(2) {
                out.push_str(&format!("l {} {}\n", pair[0], pair[1]));
            }
            if v.len() < 2 {
                out.push_str(line);
                out.push('\n');
            }
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok((out, vertices))
}

/// Reads an OBJ file's vertices, faces and lines. Elements are numbered (in errors)
/// by their 1-based position among the file's `f` statements and polyline segments
/// (each segment of an `l` statement counts as one).
pub fn read(bytes: &[u8]) -> Result<Mesh, MeshError> {
    let options = tobj::LoadOptions {
        triangulate: false,
        single_index: false,
        ignore_points: true,
        ignore_lines: false,
    };
    let (text, vertices) = split_polylines(bytes)?;
    let mut reader = std::io::BufReader::new(text.as_bytes());
    let (models, _materials) = tobj::load_obj_buf(&mut reader, &options, |_| {
        Err(tobj::LoadError::OpenFileFailed)
    })
    .map_err(|e| MeshError::file(format!("not a readable Wavefront OBJ file: {e}")))?;
    let mut mesh = Mesh::default();
    let mut merged: HashMap<[u64; 3], u32> = HashMap::new();
    for p in vertices {
        let next = mesh.points.len() as u32;
        if *merged.entry(p.map(|v| (v + 0.0).to_bits())).or_insert(next) == next {
            mesh.points.push(p);
        } else {
            // a `v` at the position of an earlier one: the file's own duplicate
            mesh.merged += 1;
        }
    }
    let mut element = 0usize;
    for model in &models {
        let m = &model.mesh;
        let mut local = Vec::with_capacity(m.positions.len() / 3);
        for p in m.positions.chunks(3) {
            let p = [p[0], p[1], p[2]];
            if p.iter().any(|v| !v.is_finite()) {
                return Err(MeshError::file(
                    "a vertex has a coordinate that is not a finite number",
                ));
            }
            let key = p.map(|v| (v + 0.0).to_bits());
            let next = mesh.points.len() as u32;
            let id = *merged.entry(key).or_insert(next);
            if id == next {
                mesh.points.push(p);
            }
            local.push(id);
        }
        let arities: Vec<u32> = if m.face_arities.is_empty() {
            vec![3; m.indices.len() / 3]
        } else {
            m.face_arities.clone()
        };
        let mut at = 0usize;
        for arity in arities {
            element += 1;
            let face = &m.indices[at..at + arity as usize];
            at += arity as usize;
            let mut ids = Vec::with_capacity(face.len());
            for &i in face {
                let Some(&g) = local.get(i as usize) else {
                    return Err(MeshError::at(
                        "face",
                        element,
                        format!(
                            "vertex index {} is out of range: the file has {} vertices",
                            i + 1,
                            local.len()
                        ),
                    ));
                };
                ids.push(g);
            }
            match ids.len() {
                0 | 1 => {}
                2 => {
                    mesh.lines.push([ids[0], ids[1]]);
                    mesh.ids[0].push(element);
                }
                _ => {
                    for k in 1..ids.len() - 1 {
                        mesh.triangles.push([ids[0], ids[k], ids[k + 1]]);
                        mesh.ids[1].push(element);
                    }
                }
            }
        }
    }
    Ok(mesh)
}
