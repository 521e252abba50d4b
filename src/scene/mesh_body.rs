//! Mesh bodies (`grid`, `lattice`, `cloth` generators): their keys checked, the mesh
//! generated, masses, contact areas, fixed nodes and springs added to the [`Model`];
//! and the memory check every body passes first.

use super::builder::{body_info, Body, PARTICLE_KEYS};
use super::format::{fmt_num, Generator};
use super::inline_mesh::INLINE_MESH_KEYS;
use super::{generators, memory, Builder, SceneError};
use crate::collision::mesh::{cloth_triangles, grid_boundary, lattice_boundary};
use crate::collision::BodyShape;
use crate::model::{Model, Spring};

impl Builder<'_> {
    /// Refuses, at `path`, a body of `counts` (nodes, springs; `None`: overflowed)
    /// that would take the scene past [`memory::MAX_NODES`] nodes or past the memory
    /// this machine has available (see [`memory`]).
    pub(super) fn check_memory(
        &self,
        model: &Model,
        path: &str,
        counts: Option<(u64, u64)>,
    ) -> Result<(), SceneError> {
        let total = counts.and_then(|(n, s)| {
            Some((
                n.checked_add(model.num_nodes() as u64)?,
                s.checked_add(model.springs.len() as u64)?,
            ))
        });
        memory::check(
            model.dim as u64,
            total.map(|t| t.0),
            total.map(|t| t.1),
            memory::available_bytes(),
        )
        .map_err(|why| self.err(path, why))
    }

    /// Adds `body` to `model`: a generated body (grid, lattice, cloth) here, the
    /// others through [`Self::add_mesh`], [`Self::add_particle`] and [`Self::add_balls`].
    pub(super) fn add_body(&self, model: &mut Model, body: Body) -> Result<(), SceneError> {
        let Body { bi, b } = body;
        let dim = model.dim;
        let p = |f: &str| body.key(f);
        if b.generator == Generator::Mesh {
            return self.add_mesh(model, body);
        }
        let mesh_keys = [
            &["file", "scale", "rotate", "translate"][..],
            &INLINE_MESH_KEYS,
        ]
        .concat();
        self.reject_body_keys(bi, b, &mesh_keys, |key| {
            format!("only mesh bodies (generator = \"mesh\") take a {key}")
        })?;
        let (gen_dim, extents) = match b.generator {
            Generator::Grid => (2, 2),
            Generator::Lattice => (3, 3),
            Generator::Cloth => (3, 2),
            Generator::Particle if b.count.is_some() || b.seed.is_some() => {
                return self.add_balls(model, body)
            }
            Generator::Particle => return self.add_particle(model, body),
            Generator::Mesh => unreachable!("mesh bodies are built by add_mesh"),
        };
        let what = format!("{:?} bodies", b.generator).to_lowercase();
        self.reject_body_keys(bi, b, &PARTICLE_KEYS, |key| {
            format!("only particle bodies take a {key}; {what} take a density")
        })?;
        let body = format!("bodies.{bi}");
        let b_size = self.required(&body, "size", b.size.as_ref(), &what)?;
        let b_cells = self.required(&body, "cells", b.cells.as_ref(), &what)?;
        if gen_dim != dim {
            return Err(self.err(
                &p("generator"),
                format!(
                    "{:?} makes {gen_dim}D bodies but the scene has dimension {dim}",
                    b.generator
                )
                .to_lowercase(),
            ));
        }
        let size = self.vector(&p("size"), b_size, extents)?;
        for (k, s) in size.iter().enumerate() {
            self.positive(&format!("{}.{k}", p("size")), *s)?;
        }
        if b_cells.len() != extents {
            return Err(self.err(
                &p("cells"),
                format!("must have {extents} components, got {}", b_cells.len()),
            ));
        }
        let mut cells = [0u64; 3];
        for (k, c) in b_cells.iter().enumerate() {
            if *c == 0 {
                return Err(self.err(
                    &format!("{}.{k}", p("cells")),
                    format!("must be at least 1, got {c}"),
                ));
            }
            cells[k] = *c;
        }
        if b.bending && b.generator != Generator::Cloth {
            return Err(self.err(&p("bending"), "only cloth bodies have bending springs"));
        }
        // Count before generating: refuse what overflows or does not fit in memory.
        let counts = match b.generator {
            Generator::Grid => generators::count_grid([cells[0], cells[1]]),
            Generator::Lattice => generators::count_lattice(cells),
            _ => generators::count_cloth([cells[0], cells[1]], b.bending),
        };
        self.check_memory(model, &p("cells"), counts)?;
        let cells = cells.map(|c| c as usize);
        let center = self.vector_or_zero(&p("center"), b.center.as_ref(), dim)?;
        let density = self.positive(
            &p("density"),
            self.required(&body, "density", b.density, &what)?,
        )?;
        let stiffness = self.stiffness(bi, b, &what)?;
        let velocity = self.vector_or_zero(&p("velocity"), b.velocity.as_ref(), dim)?;
        let mesh = match b.generator {
            Generator::Grid => generators::grid(
                [size[0], size[1]],
                [cells[0], cells[1]],
                [center[0], center[1]],
            ),
            Generator::Lattice => generators::lattice(
                [size[0], size[1], size[2]],
                [cells[0], cells[1], cells[2]],
                [center[0], center[1], center[2]],
            ),
            Generator::Cloth => generators::cloth(
                [size[0], size[1]],
                [cells[0], cells[1]],
                [center[0], center[1], center[2]],
                b.bending,
            ),
            Generator::Particle | Generator::Mesh => {
                unreachable!("particle and mesh bodies are built elsewhere")
            }
        };
        let n = mesh.num_nodes();
        let area = self.contact_area(
            &p("contact_area"),
            b.contact_area.as_ref(),
            mesh.contact_measure / mesh.contact_nodes as f64,
            true,
        )?;
        let first = model.num_nodes();
        let fixed = self.fixed_indices(&p("fixed"), &b.fixed, n)?;
        // No node may start at, behind, or within d̂ of a wall.
        for (wi, w) in model.walls.iter().enumerate() {
            for (i, xi) in mesh.x.chunks(dim).enumerate() {
                let d = w.distance(xi);
                if d <= model.barrier.dhat {
                    return Err(self.err(
                        &p("center"),
                        format!(
                            "node {i} starts at distance {} m from walls[{wi}], which is not beyond contact.dhat = {}; move the body away from the wall",
                            fmt_num(d),
                            fmt_num(model.barrier.dhat)
                        ),
                    ));
                }
            }
        }
        let node_mass = density * mesh.measure / n as f64;
        model.x0.extend_from_slice(&mesh.x);
        for _ in 0..n {
            model.v0.extend_from_slice(&velocity);
            model.mass.push(node_mass);
            model.contact_area.push(area);
        }
        model.fixed.extend(fixed);
        for [a, c] in &mesh.springs {
            let (ia, ic) = (*a as usize, *c as usize);
            let l2: f64 = (0..dim)
                .map(|k| (mesh.x[ia * dim + k] - mesh.x[ic * dim + k]).powi(2))
                .sum();
            model.springs.push(Spring {
                a: a + first as u32,
                b: c + first as u32,
                rest_length_sq: l2,
                stiffness: stiffness.spring_k(mesh.measure, mesh.springs.len(), l2),
            });
        }
        model
            .bodies
            .push(body_info(b, bi, first, n, mesh.springs.len()));
        let shape = match b.generator {
            Generator::Grid => BodyShape {
                segments: grid_boundary(0, cells[0], cells[1]),
                triangles: vec![],
            },
            Generator::Lattice => BodyShape {
                segments: vec![],
                triangles: lattice_boundary(0, [cells[0], cells[1], cells[2]]),
            },
            _ => BodyShape {
                segments: vec![],
                triangles: cloth_triangles(0, [cells[0], cells[1]]),
            },
        };
        self.add_collision_body(model, bi, b, n, shape)
    }
}
