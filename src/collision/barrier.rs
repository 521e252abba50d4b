//! The log barrier of one primitive pair: value, gradient and PSD-projected Hessian
//! block in the pair's stacked coordinates (up to 12).
//!
//! The same function, κ and d̂ as the walls ([`crate::energy::barrier`]), on the
//! pair's distance `d = √(d²)`, weighted by a contact area: the point's for
//! point–edge and point–triangle pairs, the mean of the four nodes' for edge–edge
//! pairs. Edge–edge pairs are multiplied by the mollifier `m(x)` that takes the
//! barrier to zero as the edges become parallel (IPC), so the energy stays C¹ where
//! the distance's case selection switches.
//!
//! With `s = d²`: `∇b = b′(d) ∇s / (2d)`,
//! `∇²b = b″(d) ∇d ∇dᵀ + b′(d) (∇²s / (2d) − ∇s ∇sᵀ / (4 d³))`, and for the mollified
//! product `E = m b`: `∇²E = b ∇²m + ∇m ∇bᵀ + ∇b ∇mᵀ + m ∇²b`.

// Index loops over the stacked coordinates mirror the formulas term by term.
#![allow(clippy::needless_range_loop)]

use super::ccd::PairKind;
use super::distance::{self, Derivatives};
use super::psd::project_psd;
use crate::energy::barrier::{barrier_gradient, barrier_value, BarrierKind, BarrierParams};

/// The barrier's second derivative in d (N/m), unclamped; 0 outside `(0, d̂)`.
fn barrier_second(p: &BarrierParams, area: f64, d: f64) -> f64 {
    if d >= p.dhat || d <= 0.0 {
        return 0.0;
    }
    match p.kind {
        BarrierKind::Book => area * p.kappa * (d + p.dhat) / (2.0 * d * d),
        BarrierKind::Ipc => {
            let r = p.dhat / d;
            -p.kappa * area * (2.0 * (d / p.dhat).ln() + 3.0 - 2.0 * r - r * r)
        }
    }
}

/// The contact weight (m in 2D, m² in 3D) of a pair with nodes `nodes[..k]`.
#[inline]
pub fn pair_weight(kind: PairKind, nodes: &[u32; 4], area: &[f64]) -> f64 {
    match kind {
        PairKind::PointEdge | PairKind::PointTriangle => area[nodes[0] as usize],
        PairKind::EdgeEdge => 0.25 * nodes.iter().map(|&i| area[i as usize]).sum::<f64>(),
    }
}

/// The squared distance and its derivatives for a pair's stacked coordinates `s`.
pub fn distance_derivatives(kind: PairKind, dim: usize, s: &[f64]) -> Derivatives {
    match kind {
        PairKind::PointEdge => distance::point_edge_distance_sq_derivatives(&s[..3 * dim], dim),
        PairKind::PointTriangle => distance::point_triangle_distance_sq_derivatives(&s[..12]),
        PairKind::EdgeEdge => distance::edge_edge_distance_sq_derivatives(&s[..12]),
    }
}

/// The barrier energy (J, without the potential weight) of a pair at squared
/// distance `dsq` with weight `area`; for edge–edge pairs `mollifier` is `m(x)`
/// (1 otherwise). `+∞` at d ≤ 0.
#[inline]
pub fn pair_barrier_value(p: &BarrierParams, area: f64, dsq: f64, mollifier: f64) -> f64 {
    if dsq >= p.dhat * p.dhat {
        return 0.0;
    }
    mollifier * barrier_value(p, area, dsq.max(0.0).sqrt())
}

/// The mollifier value of an edge–edge pair from its stacked coordinates, 1 for other kinds.
#[inline]
pub fn mollifier_value(kind: PairKind, s: &[f64], eps_x: f64) -> f64 {
    match kind {
        PairKind::EdgeEdge => {
            let c = distance::edge_edge_cross_norm_sq(&s[0..3], &s[3..6], &s[6..9], &s[9..12]);
            distance::mollifier_of(c, eps_x)
        }
        _ => 1.0,
    }
}

/// One pair's barrier: its value (J) and, unweighted by the potential weight, its
/// gradient (N) and PSD-projected Hessian (N/m) in the stacked coordinates.
pub struct PairBarrier {
    /// Entries used: `k · dim`.
    pub n: usize,
    /// Energy (J).
    pub value: f64,
    /// Gradient (N), first `n` entries.
    pub gradient: [f64; 12],
    /// PSD Hessian (N/m), row-major `n × n`.
    pub hessian: [f64; 144],
}

/// The barrier of a pair with stacked coordinates `s` (m), weight `area`, and for
/// edge–edge pairs the mollifier threshold `eps_x` (m⁴); `None` where the pair is not
/// active (d ≥ d̂). The Hessian is projected to PSD when `project` is set.
pub fn pair_barrier(
    kind: PairKind,
    dim: usize,
    s: &[f64],
    p: &BarrierParams,
    area: f64,
    eps_x: f64,
    project: bool,
) -> Option<PairBarrier> {
    // Most candidates are farther than d̂: the plain distance decides before the
    // derivatives are worth computing.
    let dsq = super::pairs::stacked_distance_sq(kind, dim, s);
    if dsq >= p.dhat * p.dhat || dsq <= 0.0 {
        return None;
    }
    let ds = distance_derivatives(kind, dim, s);
    let n = ds.n;
    let d = ds.value.sqrt();
    let b = barrier_value(p, area, d);
    let b1 = barrier_gradient(p, area, d);
    let b2 = barrier_second(p, area, d);
    // ∇b and ∇²b of the plain barrier.
    let mut g = [0.0; 12];
    let mut h = [0.0; 144];
    let gd = |i: usize| ds.gradient[i] / (2.0 * d);
    for i in 0..n {
        g[i] = b1 * gd(i);
    }
    // The upper triangle, mirrored: the block is exactly symmetric.
    for r in 0..n {
        for c in r..n {
            let v = b2 * gd(r) * gd(c)
                + b1 * (ds.hessian[r * n + c] / (2.0 * d)
                    - ds.gradient[r] * ds.gradient[c] / (4.0 * d * d * d));
            h[r * n + c] = v;
            h[c * n + r] = v;
        }
    }
    let mut value = b;
    if kind == PairKind::EdgeEdge {
        let m = distance::edge_edge_mollifier(&s[..12], eps_x);
        if m.value < 1.0 {
            for r in 0..n {
                for c in r..n {
                    let v = b * m.hessian[r * n + c]
                        + m.gradient[r] * g[c]
                        + g[r] * m.gradient[c]
                        + m.value * h[r * n + c];
                    h[r * n + c] = v;
                    h[c * n + r] = v;
                }
            }
            for i in 0..n {
                g[i] = b * m.gradient[i] + m.value * g[i];
            }
            value *= m.value;
        }
    }
    if project {
        project_psd(&mut h[..n * n], n);
    }
    Some(PairBarrier {
        n,
        value,
        gradient: g,
        hessian: h,
    })
}

#[cfg(test)]
#[path = "barrier/tests.rs"]
mod tests;
