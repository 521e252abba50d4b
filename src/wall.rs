//! Plane walls: the half-space `n·(x − o) ≥ 0` that nodes must stay in.
//!
//! A plane is the ground (`n = +y`), a slope, or a side wall. Distances are in
//! metres, measured from the plane along its unit normal.

use serde::Serialize;

/// A plane wall `n·(x − o) = 0`; the allowed side is where `n·(x − o) > 0`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlaneWall {
    /// A point on the plane (m), `dim` components.
    pub origin: Vec<f64>,
    /// Unit normal pointing into the allowed side, `dim` components.
    pub normal: Vec<f64>,
}

/// The fraction of the distance to a wall that one line-search step may cover (seed 003's 0.9).
pub const CCD_SAFETY: f64 = 0.9;

impl PlaneWall {
    /// Builds a wall from a point and any non-zero normal, which is normalised here.
    /// Returns `None` when the normal has zero length or the sizes disagree.
    pub fn new(origin: &[f64], normal: &[f64]) -> Option<Self> {
        if origin.len() != normal.len() {
            return None;
        }
        // Scale by the largest component first: |n|² of [1e308, 1] overflows to inf
        // and that of [1e-170, 0] underflows to 0.
        let big = normal.iter().fold(0.0f64, |m, c| m.max(c.abs()));
        if !(big > 0.0 && big.is_finite()) || normal.iter().any(|c| !c.is_finite()) {
            return None;
        }
        let len = normal.iter().map(|c| (c / big).powi(2)).sum::<f64>().sqrt();
        Some(Self {
            origin: origin.to_vec(),
            normal: normal.iter().map(|c| c / big / len).collect(),
        })
    }

    /// Signed distance (m) of point `x` to the plane: positive on the allowed side.
    #[inline]
    pub fn distance(&self, x: &[f64]) -> f64 {
        plane_distance(&self.normal, &self.origin, x)
    }
}

/// Signed distance `n·(x − o)` (m) of `x` to the plane through `o` with unit normal `n`.
#[inline]
pub fn plane_distance(normal: &[f64], origin: &[f64], x: &[f64]) -> f64 {
    normal
        .iter()
        .zip(origin)
        .zip(x)
        .map(|((n, o), x)| n * (x - o))
        .sum()
}

/// Largest step fraction α ≤ 1 along `p` that keeps the node at distance `d > 0`
/// from the plane with normal `n` out of it, shrunk by [`CCD_SAFETY`]:
/// `0.9 · d / (−n·p)` when the node moves towards the plane, else 1.
#[inline]
pub fn plane_ccd_bound(normal: &[f64], distance: f64, p: &[f64]) -> f64 {
    let np: f64 = normal.iter().zip(p).map(|(n, p)| n * p).sum();
    if np < 0.0 {
        (CCD_SAFETY * distance / -np).min(1.0)
    } else {
        1.0
    }
}
