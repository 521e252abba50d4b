//! Particle bodies (single nodes: balls with a mass and an optional radius) and the
//! contact-model keys of `[contact]`: the parts of scene building that particles add.
//!
//! A particle's radius r is honoured by moving every wall by r along its normal, so
//! the barrier (or the nonsmooth gap) sees the distance of the ball's surface, not of
//! its centre. Walls are shared, so every particle of a scene has the same radius, and
//! a scene with meshes has radius 0.

use super::builder::{body_info, Body, GENERATOR_KEYS};
use super::format::{fmt_num, BodySection, ContactModel, ContactSection, Generator};
use super::{Builder, SceneError};
use crate::model::Model;
use crate::nonsmooth::NonsmoothParams;

impl Builder<'_> {
    /// `value`, or the error "missing field `key` (required by `by`)" at `section`.
    pub(super) fn required<T>(
        &self,
        section: &str,
        key: &str,
        value: Option<T>,
        by: &str,
    ) -> Result<T, SceneError> {
        value.ok_or_else(|| self.err(section, format!("missing field `{key}` (required by {by})")))
    }

    /// The nonsmooth model's parameters, `None` for the barrier model; rejects keys
    /// that the chosen model does not use.
    pub(super) fn nonsmooth_params(
        &self,
        c: &ContactSection,
    ) -> Result<Option<NonsmoothParams>, SceneError> {
        match c.model {
            ContactModel::Barrier => Ok(None),
            ContactModel::Nonsmooth => {
                self.reject_given(
                    "contact",
                    &[
                        ("dhat", c.dhat.is_some()),
                        ("kappa", c.kappa.is_some()),
                        ("barrier", c.barrier.is_some()),
                        ("restitution_min_speed", c.restitution_min_speed.is_some()),
                    ],
                    |_| "the nonsmooth contact model has no barrier; remove this key".into(),
                )?;
                let e = self.required(
                    "contact",
                    "restitution",
                    c.restitution,
                    "the nonsmooth contact model",
                )?;
                if !(0.0..=1.0).contains(&e) {
                    return Err(self.err(
                        "contact.restitution",
                        format!("must be between 0 and 1, got {}", fmt_num(e)),
                    ));
                }
                Ok(Some(NonsmoothParams { restitution: e }))
            }
        }
    }

    /// The common particle radius (m) of `bodies`; checks that the nonsmooth model
    /// only meets particles and that radii agree.
    pub(super) fn particle_radius(
        &self,
        bodies: &[BodySection],
        nonsmooth: bool,
    ) -> Result<f64, SceneError> {
        let mut radius: Option<(usize, f64)> = None;
        let mut mesh = None;
        for (bi, b) in bodies.iter().enumerate() {
            if b.generator != Generator::Particle {
                if nonsmooth {
                    return Err(self.err(
                        "contact.model",
                        format!(
                            "nonsmooth contact needs a scene of particles only, but bodies[{bi}] is a {:?} body with springs",
                            b.generator
                        )
                        .to_lowercase(),
                    ));
                }
                mesh.get_or_insert(bi);
                continue;
            }
            let path = format!("bodies.{bi}.radius");
            let r = match b.radius {
                None => 0.0,
                Some(r) if r.is_finite() && r >= 0.0 => r,
                Some(r) => {
                    return Err(self.err(
                        &path,
                        format!("must be a finite number ≥ 0, got {}", fmt_num(r)),
                    ))
                }
            };
            match radius {
                None => radius = Some((bi, r)),
                Some((first, r0)) if r0 != r => {
                    return Err(self.err(
                        &path,
                        format!(
                            "every particle of a scene has the same radius (walls are moved by it), but bodies[{first}] has {} and this one {}",
                            fmt_num(r0),
                            fmt_num(r)
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        let r = radius.map_or(0.0, |(_, r)| r);
        if let (Some(mi), true) = (mesh, r > 0.0) {
            let bi = radius.map_or(0, |(bi, _)| bi);
            return Err(self.err(
                &format!("bodies.{bi}.radius"),
                format!("particles with a radius cannot share a scene with meshes (bodies[{mi}]): walls are moved by the radius"),
            ));
        }
        Ok(r)
    }

    /// Adds a particle body: one node with the body's mass.
    pub(super) fn add_particle(&self, model: &mut Model, body: Body) -> Result<(), SceneError> {
        let Body { bi, b } = body;
        let dim = model.dim;
        let p = |f: &str| body.key(f);
        let others = ["material_stiffness", "bending", "spread", "speed"];
        self.reject_body_keys(bi, b, &[&GENERATOR_KEYS[..], &others].concat(), |_| {
            "particle bodies are single nodes and take no such key (they take mass, radius, center, velocity)"
                .into()
        })?;
        let mass = self.positive(
            &p("mass"),
            self.required(&format!("bodies.{bi}"), "mass", b.mass, "particle bodies")?,
        )?;
        let x = self.vector_or_zero(&p("center"), b.center.as_ref(), dim)?;
        let v = self.vector_or_zero(&p("velocity"), b.velocity.as_ref(), dim)?;
        let area = self.contact_area(&p("contact_area"), b.contact_area.as_ref(), 1.0, true)?;
        let mut fixed = false;
        for (k, &f) in b.fixed.iter().enumerate() {
            if f != 0 {
                return Err(self.err(
                    &format!("{}.{k}", p("fixed")),
                    format!("node index {f} is out of range: a particle has the single node 0"),
                ));
            }
            fixed = true;
        }
        for (wi, w) in model.walls.iter().enumerate() {
            let d = w.distance(&x);
            if d <= model.barrier.dhat {
                let limit = if model.barrier.dhat > 0.0 {
                    format!("not beyond contact.dhat = {}", fmt_num(model.barrier.dhat))
                } else {
                    "not in front of it".to_string()
                };
                return Err(self.err(
                    &p("center"),
                    format!("the particle's surface starts at distance {} m from walls[{wi}], which is {limit}; move it away from the wall", fmt_num(d)),
                ));
            }
        }
        let first = model.num_nodes();
        model.x0.extend_from_slice(&x);
        model.v0.extend_from_slice(&v);
        model.mass.push(mass);
        model.contact_area.push(area);
        model.fixed.push(fixed);
        model.bodies.push(body_info(b, bi, first, 1, 0));
        self.add_collision_body(model, bi, b, 1, Default::default())
    }
}
