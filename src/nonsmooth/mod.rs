//! Seed 002's nonsmooth contact model for particle scenes: the explicit nonsmooth
//! Newmark scheme in which a contact is a velocity jump `w` (impulse `λ = m w`) that
//! sets the normal velocity to `−e` times the previous one, with the full energy
//! bookkeeping (kinetic, potential, dissipated, algorithmic and total energy).
//!
//! [`scheme`] is the time stepping ([`impact`] finds when a flight leaves an implicit
//! wall), [`plots`] the pictures of a [`scheme::ParticleSystem`]'s history. A whole
//! run of a scene with `contact.model = "nonsmooth"` and its CSV outputs is
//! [`crate::run::nonsmooth`]; this module knows nothing of scenes or runs.

pub mod impact;
pub mod plots;
pub mod scheme;

use crate::model::Model;
use scheme::ParticleSystem;
use serde::Serialize;

/// Parameters of the nonsmooth contact model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NonsmoothParams {
    /// Restitution coefficient e in [0, 1]: the normal velocity after an impact is
    /// `−e` times the one before.
    pub restitution: f64,
}

/// The particle system of `model` under the nonsmooth model with `params`: its
/// masses, fixed nodes, initial positions (m) and velocities (m/s), gravity (m/s²),
/// time step (s), plane and implicit walls.
pub fn system(model: &Model, params: NonsmoothParams) -> ParticleSystem {
    let m = model;
    let mut system = ParticleSystem::new(
        m.dim,
        m.solver.dt,
        params.restitution,
        m.gravity.clone(),
        m.walls.clone(),
        m.mass.clone(),
        m.fixed.clone(),
        m.x0.clone(),
        m.v0.clone(),
    );
    system.implicit_walls = m.implicit_walls.clone();
    system
}
