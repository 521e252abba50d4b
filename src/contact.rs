//! The per-node contact layer on the CPU (f64), twin of `shaders/contact.wgsl`: one
//! node against ALL walls, plane walls first, then implicit walls, in that order
//! everywhere. Every wall loop of the CPU backend (and of the initial acceleration)
//! is a call into this file, so a new wall kind touches only it and its WGSL twin.
//!
//! Per node: the barrier values ([`barrier_values`], summed for the diagnostics by
//! [`barrier_value`]), the barrier gradient ([`add_barrier_gradient`]) and the PSD
//! Hessian block ([`add_barrier_hessian`]), the CCD step bound ([`ccd_bound`]), the
//! smallest wall distance ([`min_distance`]) and the lagged friction contact
//! (λ, normal) of every wall slot ([`friction_lag`]). The GPU's line search also has
//! the barrier's change along δ with admissibility (`contact_value_change`); the CPU
//! evaluates E at the trial point instead, so it has no twin of that here.

// Index loops over the d components mirror the WGSL kernels line for line.
#![allow(clippy::needless_range_loop)]

use crate::energy::add_outer;
use crate::energy::barrier::{barrier_gradient, barrier_hessian};
use crate::implicit::wall::{
    implicit_barrier_gradient, implicit_barrier_hessian, implicit_barrier_value,
};
use crate::implicit::ImplicitWall;
use crate::model::Model;
use crate::wall::{plane_ccd_bound, PlaneWall};

/// One wall of a model as the contact layer sees it.
#[derive(Clone, Copy, Debug)]
pub enum Wall<'a> {
    /// A plane wall `n·(x − o) ≥ 0`.
    Plane(&'a PlaneWall),
    /// An implicit wall `W(x) ≥ 0`.
    Implicit(&'a ImplicitWall),
}

impl Wall<'_> {
    /// The distance measure (m) of `x`: `n·(x − o)` or `W(x)`; positive on the allowed side.
    #[inline]
    pub fn distance(&self, x: &[f64]) -> f64 {
        match self {
            Wall::Plane(w) => w.distance(x),
            Wall::Implicit(w) => w.distance(x),
        }
    }
}

/// Every wall of the model, plane walls first, then implicit walls: the one wall
/// loop of the CPU side. A wall's index here is its friction slot.
#[inline]
pub fn walls(m: &Model) -> impl Iterator<Item = Wall<'_>> {
    let planes = m.walls.iter().map(Wall::Plane);
    planes.chain(m.implicit_walls.iter().map(Wall::Implicit))
}

/// The barrier energy (J, without the potential weight) of node `i` at `x` against
/// each wall, in wall order.
#[inline]
pub fn barrier_values<'a>(m: &'a Model, i: usize, x: &'a [f64]) -> impl Iterator<Item = f64> + 'a {
    let (b, area) = (&m.barrier, m.contact_area[i]);
    walls(m).map(move |w| match w {
        Wall::Plane(w) => crate::energy::barrier::barrier_value(b, area, w.distance(x)),
        Wall::Implicit(w) => implicit_barrier_value(w, b, area, x),
    })
}

/// The barrier energy (J, without the potential weight) of node `i` at `x`, summed
/// over every wall (the diagnostics' barrier energy).
#[inline]
pub fn barrier_value(m: &Model, i: usize, x: &[f64]) -> f64 {
    barrier_values(m, i, x).sum::<f64>()
}

/// Adds the barrier gradient (N) of node `i` at `x` over every wall to `out[..dim]`:
/// `b′(d) n` for a plane wall, `b′(W) ∇W` for an implicit wall.
#[inline]
pub fn add_barrier_gradient(m: &Model, i: usize, x: &[f64], out: &mut [f64]) {
    let (b, area) = (&m.barrier, m.contact_area[i]);
    for w in walls(m) {
        match w {
            Wall::Plane(w) => {
                let g = barrier_gradient(b, area, w.distance(x));
                for k in 0..m.dim {
                    out[k] += g * w.normal[k];
                }
            }
            Wall::Implicit(w) => implicit_barrier_gradient(w, b, area, x, out),
        }
    }
}

/// Adds `weight` (s², the potential weight) times the PSD barrier Hessian block (N/m)
/// of node `i` at `x` over every wall to the row-major `dim × dim` block `out`:
/// `b″(d) n nᵀ` for a plane wall, the Gauss–Newton `b″(W) ∇W ∇Wᵀ` for an implicit one.
#[inline]
pub fn add_barrier_hessian(m: &Model, i: usize, x: &[f64], weight: f64, out: &mut [f64]) {
    let (b, area) = (&m.barrier, m.contact_area[i]);
    for w in walls(m) {
        match w {
            Wall::Plane(w) => {
                let h = barrier_hessian(b, area, w.distance(x));
                if h > 0.0 {
                    add_outer(out, m.dim, weight * h, &w.normal, &w.normal);
                }
            }
            Wall::Implicit(w) => implicit_barrier_hessian(w, b, area, x, weight, out),
        }
    }
}

/// The largest step fraction α ≤ 1 along `p` that keeps the node at `x` clear of
/// every wall (the CCD bound, dimensionless).
#[inline]
pub fn ccd_bound(m: &Model, x: &[f64], p: &[f64]) -> f64 {
    walls(m)
        .map(|w| match w {
            Wall::Plane(w) => plane_ccd_bound(&w.normal, w.distance(x), p),
            Wall::Implicit(w) => w.ccd_bound(x, p),
        })
        .fold(1.0, f64::min)
}

/// The smallest distance measure (m) of the node at `x` to any wall; +∞ without walls.
#[inline]
pub fn min_distance(m: &Model, x: &[f64]) -> f64 {
    walls(m)
        .map(|w| w.distance(x))
        .fold(f64::INFINITY, f64::min)
}

/// The lagged friction contact of node `i` at `x` with every wall slot: λ (N) into
/// `lambda[slot]` and the unit normal into `normals[slot × dim ..]`; `λ = −b′(d)`,
/// `n` the plane's normal for a plane wall, `λ = −b′(W) |∇W|`, `n = ∇W/|∇W|` for an
/// implicit wall (the barrier force's magnitude and direction). Zero for a fixed node
/// and where `∇W` vanishes.
pub fn friction_lag(m: &Model, i: usize, x: &[f64], lambda: &mut [f64], normals: &mut [f64]) {
    let dim = m.dim;
    let area = m.contact_area[i];
    for (slot, w) in walls(m).enumerate() {
        let out = &mut normals[slot * dim..(slot + 1) * dim];
        lambda[slot] = 0.0;
        out.iter_mut().for_each(|c| *c = 0.0);
        if m.fixed[i] {
            continue;
        }
        match w {
            Wall::Plane(wall) => {
                lambda[slot] = -barrier_gradient(&m.barrier, area, wall.distance(x));
                out.copy_from_slice(&wall.normal);
            }
            Wall::Implicit(wall) => {
                let dual = wall.dual(x);
                let g = &dual.g[..dim];
                let len = g.iter().map(|c| c * c).sum::<f64>().sqrt();
                if len > 0.0 && len.is_finite() {
                    lambda[slot] = -barrier_gradient(&m.barrier, area, dual.v) * len;
                    for k in 0..dim {
                        out[k] = g[k] / len;
                    }
                }
            }
        }
    }
}
