//! A run's first rebound off its walls, measured on the centre of mass: the
//! coefficient of restitution a sweep reports per variant (`--metric cor`).
//!
//! The contact is the first stretch of steps with a node within d̂ of a wall. The
//! normal is the wall's at the node nearest to it when the contact starts; the
//! centre's normal velocity is taken at the state before the contact and at the
//! state that ends it, each carried to the barrier's edge d̂ by free flight under
//! gravity (`v² + 2 (n·g)(d̂ − d)`), so that where a step's state lies does not
//! decide the figure.

use crate::contact::{walls, Wall};
use crate::model::Model;
use crate::rebound::free_flight;
use serde::{Deserialize, Serialize};

/// The first rebound (`summary.json`'s `first_rebound`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FirstRebound {
    /// First step that ended in contact.
    pub entry_step: u64,
    /// First step that ended out of contact again (`null` while it lasts).
    pub exit_step: Option<u64>,
    /// The centre of mass's normal velocity coming in (m/s, at d̂).
    pub v_in: f64,
    /// Its normal velocity going out (m/s, at d̂; `null` while the contact lasts).
    pub v_out: Option<f64>,
    /// `−v_out / v_in`; 0 while the contact lasts (stuck).
    pub cor: f64,
}

/// Follows a run's steps until its first rebound has ended.
pub struct Watch {
    /// The centre of mass's velocity (m/s) and the smallest wall distance (m) at the
    /// last state.
    last: (Vec<f64>, f64),
    /// The contact's normal and gravity along it (m/s²), once it has started.
    normal: Option<(Vec<f64>, f64)>,
    /// What has been measured.
    pub found: Option<FirstRebound>,
    done: bool,
}

/// The mass-weighted mean of `v` (m/s), `dim` components.
fn centre_velocity(model: &Model, v: &[f64]) -> Vec<f64> {
    let dim = model.dim;
    let mut p = vec![0.0; dim];
    for (u, m) in v.chunks(dim).zip(&model.mass) {
        p.iter_mut().zip(u).for_each(|(p, u)| *p += m * u);
    }
    let total: f64 = model.mass.iter().sum();
    p.iter_mut().for_each(|p| *p /= total);
    p
}

/// The normal of the wall nearest to any node at `x` (unit; the gradient's
/// direction for an implicit wall).
fn nearest_normal(model: &Model, x: &[f64]) -> Vec<f64> {
    let dim = model.dim;
    let mut best = (f64::INFINITY, vec![0.0; dim]);
    for xi in x.chunks(dim) {
        for w in walls(model) {
            let d = w.distance(xi);
            if d < best.0 {
                let n = match w {
                    Wall::Plane(p) => p.normal.clone(),
                    Wall::Implicit(iw) => iw.normal(xi)[..dim].to_vec(),
                };
                best = (d, n);
            }
        }
    }
    best.1
}

impl Watch {
    /// A watch from the model's initial state, `None` where the model has no wall.
    pub fn new(model: &Model) -> Option<Self> {
        let dim = model.dim;
        let low = model
            .x0
            .chunks(dim)
            .map(|xi| crate::contact::min_distance(model, xi))
            .fold(f64::INFINITY, f64::min);
        (walls(model).next().is_some()).then(|| Self {
            last: (centre_velocity(model, &model.v0), low),
            normal: None,
            found: None,
            done: false,
        })
    }

    /// Whether the first rebound has ended (nothing more to read).
    pub fn done(&self) -> bool {
        self.done
    }

    /// Takes step `step`, which ended at positions `x()` with velocities `v` and
    /// smallest wall distance `d` (m).
    pub fn after_step(
        &mut self,
        model: &Model,
        step: u64,
        x: impl FnOnce() -> Vec<f64>,
        v: &[f64],
        d: f64,
    ) {
        let dhat = model.barrier.dhat;
        let c = centre_velocity(model, v);
        let along = |c: &[f64], n: &[f64]| c.iter().zip(n).map(|(a, b)| a * b).sum::<f64>();
        match (&self.normal, d < dhat) {
            (None, true) => {
                let n = nearest_normal(model, &x());
                let a = along(&model.gravity, &n);
                let v_in = free_flight(along(&self.last.0, &n), a, self.last.1, dhat);
                self.found = Some(FirstRebound {
                    entry_step: step,
                    exit_step: None,
                    v_in,
                    v_out: None,
                    cor: 0.0,
                });
                self.normal = Some((n, a));
            }
            (Some((n, a)), false) => {
                let v_out = free_flight(along(&c, n), *a, d, dhat);
                if let Some(f) = &mut self.found {
                    f.exit_step = Some(step);
                    f.v_out = Some(v_out);
                    f.cor = -v_out / f.v_in;
                }
                self.done = true;
            }
            _ => {}
        }
        self.last = (c, d);
    }
}
