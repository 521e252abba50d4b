//! The restitution law's keys with the barrier model (`contact.restitution`,
//! `contact.restitution_min_speed`, a wall's `restitution`): what [`crate::rebound`]
//! reads from [`RestitutionParams`].

use super::format::{fmt_num, SceneFile};
use super::{Builder, SceneError};
use crate::model::{Integrator, Model, RestitutionParams};

impl Builder<'_> {
    /// A coefficient of restitution at `path`: `None`, or a number in [0, 1].
    pub(super) fn restitution_value(
        &self,
        path: &str,
        e: Option<f64>,
    ) -> Result<Option<f64>, SceneError> {
        match e {
            Some(e) if !(0.0..=1.0).contains(&e) => {
                Err(self.err(path, format!("must be between 0 and 1, got {}", fmt_num(e))))
            }
            e => Ok(e),
        }
    }

    /// `walls.i.restitution`, or `contact.restitution` where the wall has none; with
    /// the nonsmooth model a wall (and a body) takes none of its own.
    pub(super) fn wall_restitution(
        &self,
        raw: &SceneFile,
        i: usize,
        nonsmooth: bool,
    ) -> Result<Option<f64>, SceneError> {
        let path = format!("walls.{i}.restitution");
        let own = raw.walls[i].restitution;
        if nonsmooth && own.is_some() {
            return Err(self.err(
                &path,
                "the nonsmooth model has one restitution for every wall: contact.restitution",
            ));
        }
        Ok(self
            .restitution_value(&path, own)?
            .or(raw.contact.restitution))
    }

    /// Refuses a body's own e with the nonsmooth model (it has one e for all).
    pub(super) fn nonsmooth_body_restitution(&self, raw: &SceneFile) -> Result<(), SceneError> {
        match raw.bodies.iter().position(|b| b.restitution.is_some()) {
            Some(b) => Err(self.err(
                &format!("bodies.{b}.restitution"),
                "the nonsmooth model has one restitution for every contact: contact.restitution",
            )),
            None => Ok(()),
        }
    }

    /// The restitution law of a barrier scene, `None` where no contact has an e;
    /// `walls` are the walls' e in the contact layer's order. Needs implicit Euler.
    pub(super) fn restitution_params(
        &self,
        raw: &SceneFile,
        walls: Vec<Option<f64>>,
        model: &Model,
    ) -> Result<Option<RestitutionParams>, SceneError> {
        let pairs = self.restitution_value("contact.restitution", raw.contact.restitution)?;
        let mut bodies = Vec::new();
        for (i, b) in raw.bodies.iter().enumerate() {
            bodies.push(self.restitution_value(&format!("bodies.{i}.restitution"), b.restitution)?);
        }
        let min_speed = raw.contact.restitution_min_speed;
        let none = |v: &[Option<f64>]| v.iter().all(Option::is_none);
        if pairs.is_none() && none(&walls) && none(&bodies) {
            if min_speed.is_some() {
                return Err(self.err(
                    "contact.restitution_min_speed",
                    "needs a restitution: contact.restitution or a wall's restitution",
                ));
            }
            return Ok(None);
        }
        if model.solver.integrator != Integrator::ImplicitEuler {
            let path = match raw.contact.restitution {
                Some(_) => "contact.restitution".to_string(),
                None => match raw.walls.iter().position(|w| w.restitution.is_some()) {
                    Some(i) => format!("walls.{i}.restitution"),
                    None => {
                        let i = raw.bodies.iter().position(|b| b.restitution.is_some());
                        format!("bodies.{}.restitution", i.unwrap_or(0))
                    }
                },
            };
            return Err(self.err(
                &path,
                "the restitution law corrects implicit Euler's velocities; set solver.integrator = \"implicit_euler\" (Newmark's bounce is its own)",
            ));
        }
        let g = model.gravity.iter().map(|g| g * g).sum::<f64>().sqrt();
        let min_speed = match min_speed {
            None => 2.0 * g * model.solver.dt,
            Some(s) if s.is_finite() && s >= 0.0 => s,
            Some(s) => {
                return Err(self.err(
                    "contact.restitution_min_speed",
                    format!("must be a finite number ≥ 0, got {}", fmt_num(s)),
                ))
            }
        };
        Ok(Some(RestitutionParams {
            walls,
            pairs,
            bodies,
            min_speed,
        }))
    }
}
