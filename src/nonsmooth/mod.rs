//! Seed 002's nonsmooth contact model for particle scenes: the explicit nonsmooth
//! Newmark scheme in which a contact is a velocity jump `w` (impulse `λ = m w`) that
//! sets the normal velocity to `−e` times the previous one, with the full energy
//! bookkeeping (kinetic, potential, dissipated, algorithmic and total energy).
//!
//! [`scheme`] is the time stepping ([`impact`] finds when a flight leaves an implicit
//! wall), [`run`] a whole run of a scene with
//! `contact.model = "nonsmooth"` and its CSV outputs, [`plots`] its pictures.

pub mod impact;
pub mod plots;
pub mod run;
pub mod scheme;

use serde::Serialize;

/// Parameters of the nonsmooth contact model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NonsmoothParams {
    /// Restitution coefficient e in [0, 1]: the normal velocity after an impact is
    /// `−e` times the one before.
    pub restitution: f64,
}
