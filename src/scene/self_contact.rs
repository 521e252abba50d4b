//! Self-contact in scenes: `contact.self_contact`, `contact.self_friction` and
//! `bodies.collide` checked, each body's collision primitives registered, and the
//! refusal of a start where bodies intersect or touch.

use super::format::{fmt_num, BodySection, ContactSection, Generator};
use super::{Builder, SceneError};
use crate::collision::check::{start_violation, Violation};
use crate::collision::{BodyShape, Collide, SelfContactParams};
use crate::model::Model;

impl Builder<'_> {
    /// `contact.self_contact` (default on) and `contact.self_friction` (μ ≥ 0,
    /// default 0; needs the barrier model).
    pub(super) fn self_contact_params(
        &self,
        c: &ContactSection,
        nonsmooth: bool,
    ) -> Result<SelfContactParams, SceneError> {
        let mut p = SelfContactParams::default();
        if let Some(on) = c.self_contact {
            p.enabled = on;
        }
        if nonsmooth {
            // Particles only: nothing to collide.
            p.enabled = false;
        }
        if let Some(mu) = c.self_friction {
            let path = "contact.self_friction";
            if nonsmooth {
                return Err(self.err(path, "friction needs the barrier contact model"));
            }
            if !(mu.is_finite() && mu >= 0.0) {
                return Err(self.err(
                    path,
                    format!("must be a finite number ≥ 0, got {}", fmt_num(mu)),
                ));
            }
            p.friction = mu;
        }
        Ok(p)
    }

    /// `bodies.i.collide`: what body `bi` collides with (default `all`; particles
    /// meet walls only).
    pub(super) fn collide_mode(&self, bi: usize, b: &BodySection) -> Result<Collide, SceneError> {
        match (b.generator, b.collide) {
            (Generator::Particle, None | Some(Collide::Walls)) => Ok(Collide::Walls),
            (Generator::Particle, Some(_)) => Err(self.err(
                &format!("bodies.{bi}.collide"),
                "particles collide with walls only: give collide = \"walls\" or leave it out",
            )),
            (_, mode) => Ok(mode.unwrap_or_default()),
        }
    }

    /// Registers the body just added (its nodes are the last `nodes` of `model`)
    /// with its primitives (body-local node indices, offset here).
    pub(super) fn add_collision_body(
        &self,
        model: &mut Model,
        bi: usize,
        b: &BodySection,
        nodes: usize,
        mut shape: BodyShape,
    ) -> Result<(), SceneError> {
        let collide = self.collide_mode(bi, b)?;
        let first = (model.num_nodes() - nodes) as u32;
        shape
            .segments
            .iter_mut()
            .flatten()
            .for_each(|i| *i += first);
        shape
            .triangles
            .iter_mut()
            .flatten()
            .for_each(|i| *i += first);
        model.collision.add_body(nodes, collide, shape, &model.x0);
        Ok(())
    }

    /// Refuses a start where two collision primitives cross or touch (d ≤ 0), naming
    /// both bodies, both primitives and the distance.
    pub(super) fn check_self_contact_start(&self, model: &Model) -> Result<(), SceneError> {
        if !model.self_contact.enabled {
            return Ok(());
        }
        let Some(v) = start_violation(&model.collision, &model.x0) else {
            return Ok(());
        };
        // (body index, body name, body-local node) of a model node.
        let name = |node: u32| {
            let bi = model.collision.node_body[node as usize] as usize;
            let body = &model.bodies[bi];
            (bi, body.name.clone(), node as usize - body.first_node)
        };
        let Violation {
            a,
            b,
            distance,
            crossing,
        } = v;
        let (ba, na, _) = name(a.nodes[0]);
        let (bb, nb, _) = name(b.nodes[0]);
        let local = |p: &crate::collision::check::Primitive| {
            let list: Vec<String> = p.nodes.iter().map(|&i| name(i).2.to_string()).collect();
            format!("{} (body nodes {})", p.kind, list.join(", "))
        };
        let what = if crossing {
            "cross".to_string()
        } else {
            format!("are {} m apart", fmt_num(distance))
        };
        Err(self.err(
            &format!("bodies.{ba}"),
            format!(
                "bodies[{ba}] '{na}' and bodies[{bb}] '{nb}' intersect at the start: {} of '{na}' and {} of '{nb}' {what}; move the bodies apart (or set collide = \"others\" or \"walls\" on one, or contact.self_contact = false)",
                local(&a),
                local(&b),
            ),
        ))
    }
}
