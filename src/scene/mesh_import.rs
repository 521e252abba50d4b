//! Mesh bodies read from files (`generator = "mesh"`): the file found (beside the
//! scene, or among the bundled meshes for bundled scenes), read and checked by
//! [`crate::mesh`], scaled, rotated and placed, then its nodes (lumped masses),
//! springs (unique element edges, optional bending springs), contact areas and
//! output cells added to the [`Model`].

use super::builder::{body_info, Body, PARTICLE_KEYS};
use super::format::fmt_num;
use super::{Builder, SceneError, BUNDLED_MESHES};
use crate::mesh::{self, topology, Kind};
use crate::model::{Model, Spring};
use glam::{DMat3, DVec3};
use std::path::Path;

/// The rotation of `deg` degrees about x, then y, then z (fixed axes):
/// `R = R_z R_y R_x`.
fn rotation(deg: [f64; 3]) -> DMat3 {
    let [a, b, c] = deg.map(f64::to_radians);
    DMat3::from_rotation_z(c) * DMat3::from_rotation_y(b) * DMat3::from_rotation_x(a)
}

impl Builder<'_> {
    /// The numbers of `v` at `path`: one number (repeated `len` times when
    /// `broadcast`) or an array of `len` numbers; `None` when absent.
    fn numbers(
        &self,
        path: &str,
        v: Option<&toml::Value>,
        len: usize,
        broadcast: bool,
    ) -> Result<Option<Vec<f64>>, SceneError> {
        let num = |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
        let Some(v) = v else { return Ok(None) };
        let out = match (num(v), v.as_array()) {
            (Some(x), _) if broadcast || len == 1 => vec![x; len],
            (_, Some(a)) => {
                let xs: Option<Vec<f64>> = a.iter().map(num).collect();
                match xs {
                    Some(xs) => self.vector(path, &xs, len)?,
                    None => return Err(self.err(path, format!("must hold numbers, got {v}"))),
                }
            }
            _ if len == 1 => return Err(self.err(path, format!("must be a number, got {v}"))),
            _ => return Err(self.err(path, format!("must be an array of {len} numbers, got {v}"))),
        };
        if let Some(c) = out.iter().find(|c| !c.is_finite()) {
            return Err(self.err(
                path,
                format!("must hold finite numbers, got {}", fmt_num(*c)),
            ));
        }
        Ok(Some(out))
    }

    /// The bytes of mesh file `file` and the name errors give it: the file relative
    /// to the scene file's folder; for a bundled scene, or where no such file exists
    /// and `file` names a bundled mesh (`meshes/box3d.msh`), the bundled copy.
    pub(super) fn mesh_bytes(
        &self,
        path: &str,
        file: &str,
    ) -> Result<(Vec<u8>, String), SceneError> {
        let bundled = BUNDLED_MESHES
            .iter()
            .find(|(n, _)| *n == file.trim_start_matches("./"));
        let base = Path::new(self.file).parent().unwrap_or(Path::new(""));
        let full = base.join(file);
        match bundled {
            Some((n, bytes)) if self.file.starts_with("bundled:") || !full.exists() => {
                return Ok((bytes.to_vec(), format!("bundled:{n}")));
            }
            _ => {}
        }
        let name = full.display().to_string();
        std::fs::read(&full)
            .map(|b| (b, name.clone()))
            .map_err(|e| self.err(path, format!("{name}: cannot read the mesh file: {e}")))
    }

    /// Adds a mesh body read from a file (`generator = "mesh"`).
    pub(super) fn add_mesh(&self, model: &mut Model, body: Body) -> Result<(), SceneError> {
        let Body { bi, b } = body;
        let dim = model.dim;
        let p = |f: &str| body.key(f);
        let keys = [&["size", "cells"][..], &PARTICLE_KEYS].concat();
        self.reject_body_keys(bi, b, &keys, |key| {
            format!("mesh bodies take their shape from `file` or inline `nodes` and take no {key}")
        })?;
        let body = format!("bodies.{bi}");
        let (m, kind, notes, name, at) = self.body_mesh(bi, b, dim)?;
        for note in notes {
            // worded and placed as an error would be
            let at = self.err(&at, format!("{name}: {note}")).to_string();
            self.warnings.borrow_mut().push(at);
        }
        let diag = topology::bbox_diagonal(&m.points);
        match (kind, dim) {
            (Kind::Tetrahedra, 2) => {
                return Err(self.err(
                    &at,
                    format!("{name}: mixed dimensions: tetrahedra make 3D bodies but the scene has dimension 2"),
                ))
            }
            (_, 2) => {
                if let Some(q) = m.points.iter().find(|q| q[2].abs() > 1e-9 * diag) {
                    return Err(self.err(
                        &at,
                        format!(
                            "{name}: mixed dimensions: the node at ({}, {}, {}) has z = {}, but a 2D scene takes meshes in the plane z = 0",
                            fmt_num(q[0]),
                            fmt_num(q[1]),
                            fmt_num(q[2]),
                            fmt_num(q[2])
                        ),
                    ));
                }
            }
            _ => {}
        }
        if b.bending && kind != Kind::Triangles {
            return Err(self.err(
                &p("bending"),
                "only triangle (surface) meshes have bending springs",
            ));
        }
        let springs = topology::springs(&m, kind, b.bending);
        let n = m.points.len();
        self.check_memory(model, &at, Some((n as u64, springs.len() as u64)))?;
        // Place the mesh: scale, rotate about the origin, then centre or translate.
        let scale = self
            .numbers(&p("scale"), b.scale.as_ref(), dim, true)?
            .unwrap_or(vec![1.0; dim]);
        for (k, s) in scale.iter().enumerate() {
            self.positive(&format!("{}.{k}", p("scale")), *s)?;
        }
        let angles = self.numbers(
            &p("rotate"),
            b.rotate.as_ref(),
            if dim == 2 { 1 } else { 3 },
            false,
        )?;
        let r = rotation(match (&angles, dim) {
            (None, _) => [0.0; 3],
            (Some(a), 2) => [0.0, 0.0, a[0]],
            (Some(a), _) => [a[0], a[1], a[2]],
        });
        let mut pts: Vec<[f64; 3]> = m
            .points
            .iter()
            .map(|q| {
                let s = [
                    q[0] * scale[0],
                    q[1] * scale[1],
                    if dim == 3 { q[2] * scale[2] } else { 0.0 },
                ];
                (r * DVec3::from(s)).to_array()
            })
            .collect();
        let shift = match (&b.center, &b.translate) {
            (Some(_), Some(_)) => {
                return Err(self.err(&p("translate"), "give either center or translate, not both"))
            }
            (Some(c), None) => {
                let c = self.vector(&p("center"), c, dim)?;
                let (lo, hi) = topology::bbox(&pts);
                (0..dim).map(|k| c[k] - 0.5 * (lo[k] + hi[k])).collect()
            }
            (None, t) => self.vector_or_zero(&p("translate"), t.as_ref(), dim)?,
        };
        for q in &mut pts {
            (0..dim).for_each(|k| q[k] += shift[k]);
        }
        let placed = mesh::Mesh { points: pts, ..m };
        let x: Vec<f64> = placed
            .points
            .iter()
            .flat_map(|q| q[..dim].to_vec())
            .collect();
        let density = self.positive(
            &p("density"),
            self.required(&body, "density", b.density, "mesh bodies")?,
        )?;
        let stiffness = self.stiffness(bi, b, "mesh bodies")?;
        let velocity = self.vector_or_zero(&p("velocity"), b.velocity.as_ref(), dim)?;
        let (contact_measure, on_boundary, surface) = topology::boundary(&placed, kind, dim);
        let boundary_nodes = on_boundary.iter().filter(|&&o| o).count().max(1);
        let lines_in_3d = kind == Kind::Lines && dim == 3;
        if lines_in_3d && !matches!(&b.contact_area, Some(v) if v.is_float() || v.is_integer()) {
            return Err(self.err(&p("contact_area"), "a polyline in 3D has no contact surface: give contact_area as a number (m² per node)"));
        }
        let area = self.contact_area(
            &p("contact_area"),
            b.contact_area.as_ref(),
            contact_measure / boundary_nodes as f64,
            true,
        )?;
        let first = model.num_nodes();
        let fixed = self.fixed_indices(&p("fixed"), &b.fixed, n)?;
        for (wi, w) in model.walls.iter().enumerate() {
            for (i, xi) in x.chunks(dim).enumerate() {
                let d = w.distance(xi);
                if d <= model.barrier.dhat {
                    return Err(self.err(
                        &p(if b.translate.is_some() { "translate" } else { "center" }),
                        format!(
                            "node {i} starts at distance {} m from walls[{wi}], which is not beyond contact.dhat = {}; move the body away from the wall",
                            fmt_num(d),
                            fmt_num(model.barrier.dhat)
                        ),
                    ));
                }
            }
        }
        model.x0.extend_from_slice(&x);
        for share in topology::node_shares(&placed, kind) {
            model.v0.extend_from_slice(&velocity);
            model.mass.push(density * share);
            model.contact_area.push(area);
        }
        model.fixed.extend(fixed);
        let off = first as u32;
        for ([a, c], share) in &springs {
            let l2: f64 = (0..dim)
                .map(|k| (x[*a as usize * dim + k] - x[*c as usize * dim + k]).powi(2))
                .sum();
            model.springs.push(Spring {
                a: a + off,
                b: c + off,
                rest_length_sq: l2,
                stiffness: stiffness.share_k(*share, l2),
            });
        }
        model
            .triangles
            .extend(surface.iter().map(|t| t.map(|i| i + off)));
        model
            .tetrahedra
            .extend(placed.tetrahedra.iter().map(|t| t.map(|i| i + off)));
        model.bodies.push(body_info(b, bi, first, n, springs.len()));
        let shape = match (kind, dim) {
            (Kind::Lines, _) => crate::collision::BodyShape {
                segments: placed.lines.clone(),
                triangles: vec![],
            },
            (Kind::Triangles, 2) => crate::collision::BodyShape {
                segments: topology::boundary_edges(&placed),
                triangles: vec![],
            },
            _ => crate::collision::BodyShape {
                segments: vec![],
                triangles: surface,
            },
        };
        self.add_collision_body(model, bi, b, n, shape)
    }
}
