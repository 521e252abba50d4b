//! Continuous collision detection (CCD) for one primitive pair: additive CCD
//! (Li et al., "Codimensional Incremental Potential Contact", 2021, Alg. 1).
//!
//! The pair's nodes move linearly, `x(t) = x + t p` for `t ∈ [0, t_max]`. The
//! distance `d(t)` between the two primitives is Lipschitz in `t` with constant
//! `l_p`, the largest speed of a point of one primitive plus the largest speed of
//! a point of the other (after removing the pair's mean displacement, which moves
//! nothing relative to anything): points of a primitive are convex combinations
//! of its nodes, so their speeds are bounded by the fastest node. A step of
//! length `η (d − ξ) / l_p` with `η < 1` therefore cannot bring the pair to
//! within `ξ`. Additive CCD takes such steps, re-evaluating the distance after
//! each, and stops once the remaining gap `d − ξ` has fallen below
//! `keep · (d(0) − ξ)`, returning the last time whose gap passed. The returned
//! time is thus a conservative bound: on `[0, t]` the pair never comes within
//! `ξ`, and at `t` it still keeps the fraction `keep` of its initial gap.
//!
//! Steps are evaluated at `x + t p` with the caller's `p` (not accumulated), so
//! the positions checked are the ones the caller will form. Non-finite input,
//! a non-finite distance, an exhausted iteration budget or a step too small to
//! advance `t` all end the search at the time reached so far (0 at worst): a NaN
//! never reads as "no collision".

use super::distance::{edge_edge_distance_sq, point_edge_distance_sq, point_triangle_distance_sq};

/// Which primitive pair; nodes stacked as in the brief: PE `[p, e0, e1]` (2D or
/// 3D), PT `[p, t0, t1, t2]`, EE `[ea0, ea1, eb0, eb1]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PairKind {
    /// Point–edge, 2D or 3D: `[p, e0, e1]`.
    PointEdge,
    /// Point–triangle, 3D: `[p, t0, t1, t2]`.
    PointTriangle,
    /// Edge–edge, 3D: `[ea0, ea1, eb0, eb1]`.
    EdgeEdge,
}

impl PairKind {
    /// Number of nodes of the pair (3 for point–edge, 4 otherwise).
    pub fn node_count(self) -> usize {
        match self {
            PairKind::PointEdge => 3,
            PairKind::PointTriangle | PairKind::EdgeEdge => 4,
        }
    }

    /// Number of nodes on the first side of the pair (1 point, or the 2 nodes of
    /// edge a); the remaining nodes form the other side.
    pub fn first_side_nodes(self) -> usize {
        match self {
            PairKind::PointEdge | PairKind::PointTriangle => 1,
            PairKind::EdgeEdge => 2,
        }
    }

    /// Whether the kind is defined in dimension `dim` (point–edge in 2D and 3D,
    /// the others in 3D only).
    pub fn supports_dim(self, dim: usize) -> bool {
        match self {
            PairKind::PointEdge => dim == 2 || dim == 3,
            PairKind::PointTriangle | PairKind::EdgeEdge => dim == 3,
        }
    }
}

/// Parameters of [`additive_ccd`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcdParams {
    /// ξ (m): a minimum separation the bound keeps on top of the gap (0 allowed).
    pub min_separation: f64,
    /// s in (0, 1): the fraction of the initial gap d − ξ that the pair keeps at
    /// the returned time (0.1 as in the paper, i.e. ipc-toolkit's conservative
    /// rescaling 0.9).
    pub keep: f64,
    /// Largest time returned (usually 1: the whole Newton step).
    pub t_max: f64,
    /// Iteration cap; reaching it returns the time reached so far (conservative).
    pub max_iterations: u32,
}

impl Default for CcdParams {
    /// ξ = 0, keep = 0.1, t_max = 1, at most 10⁶ distance evaluations.
    fn default() -> Self {
        CcdParams {
            min_separation: 0.0,
            keep: 0.1,
            t_max: 1.0,
            max_iterations: 1_000_000,
        }
    }
}

/// Why [`additive_ccd_outcome`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcdStop {
    /// Reached `t_max` (no contact within the step), or the pair does not move
    /// relative to itself.
    NoContact,
    /// The gap fell below `keep · (d(0) − ξ)`: a contact is ahead.
    GapReached,
    /// Already at or within ξ at `t = 0`.
    InitiallyTooClose,
    /// Non-finite input, parameters or distance, or an invalid parameter.
    Invalid,
    /// The iteration cap was reached (sliding contact at a small gap).
    IterationCap,
    /// A step was too small to advance `t` in floating point.
    Stalled,
}

/// Result of [`additive_ccd_outcome`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcdOutcome {
    /// The conservative time bound in `[0, t_max]`.
    pub t: f64,
    /// Distance evaluations made after the initial one.
    pub iterations: u32,
    /// Why the search stopped.
    pub stop: CcdStop,
}

/// The largest t in [0, t_max] such that the pair moving linearly from x to
/// x + t p keeps its distance above ξ, in practice with
/// d(t) − ξ ≥ keep·(d(0) − ξ) at the returned t; t_max when no contact within
/// t_max. 0 when the pair already is at or within ξ.
///
/// `x` and `p` hold the pair's nodes stacked in the order of [`PairKind`]
/// (`node_count · dim` values each). Non-finite input and invalid parameters
/// (ξ < 0, keep outside (0, 1), t_max negative or non-finite) give 0.
///
/// # Panics
/// If `kind` is not defined in `dim`, or `x` / `p` do not have
/// `node_count · dim` entries.
pub fn additive_ccd(kind: PairKind, dim: usize, x: &[f64], p: &[f64], params: &CcdParams) -> f64 {
    additive_ccd_outcome(kind, dim, x, p, params).t
}

/// Squared distance of the pair whose stacked nodes are `y`.
fn pair_distance_sq(kind: PairKind, dim: usize, y: &[f64]) -> f64 {
    let n = |i: usize| &y[i * dim..(i + 1) * dim];
    match kind {
        PairKind::PointEdge => point_edge_distance_sq(n(0), n(1), n(2)),
        PairKind::PointTriangle => point_triangle_distance_sq(n(0), n(1), n(2), n(3)),
        PairKind::EdgeEdge => edge_edge_distance_sq(n(0), n(1), n(2), n(3)),
    }
}

/// `l_p` (m): largest node displacement norm on one side plus the largest on the
/// other, after subtracting the mean displacement of the pair's nodes; bounds how
/// much the pair's distance can shrink along `p` (`p` stacked like `x`).
pub fn displacement_bound(kind: PairKind, dim: usize, p: &[f64]) -> f64 {
    let k = kind.node_count();
    let mut mean = [0.0; 3];
    for node in p.chunks_exact(dim) {
        for (m, v) in mean.iter_mut().zip(node) {
            *m += v;
        }
    }
    for m in mean.iter_mut() {
        *m /= k as f64;
    }
    let split = kind.first_side_nodes();
    let mut side = [0.0f64; 2];
    for (i, node) in p.chunks_exact(dim).enumerate() {
        let sq: f64 = node.iter().zip(&mean).map(|(v, m)| (v - m) * (v - m)).sum();
        let s = usize::from(i >= split);
        side[s] = side[s].max(sq);
    }
    side[0].sqrt() + side[1].sqrt()
}

/// [`additive_ccd`] with the iteration count and the reason it stopped.
///
/// # Panics
/// As [`additive_ccd`].
pub fn additive_ccd_outcome(
    kind: PairKind,
    dim: usize,
    x: &[f64],
    p: &[f64],
    params: &CcdParams,
) -> CcdOutcome {
    assert!(
        kind.supports_dim(dim),
        "{kind:?} is not defined in dimension {dim}"
    );
    let n = kind.node_count() * dim;
    assert_eq!(
        x.len(),
        n,
        "additive_ccd: x has {} entries, expected {n}",
        x.len()
    );
    assert_eq!(
        p.len(),
        n,
        "additive_ccd: p has {} entries, expected {n}",
        p.len()
    );

    let outcome = |t: f64, iterations: u32, stop: CcdStop| CcdOutcome {
        t,
        iterations,
        stop,
    };
    let xi = params.min_separation;
    let keep = params.keep;
    let t_max = params.t_max;
    let valid = xi >= 0.0
        && xi.is_finite()
        && keep > 0.0
        && keep < 1.0
        && t_max >= 0.0
        && t_max.is_finite();
    if !valid || x.iter().chain(p).any(|v| !v.is_finite()) {
        return outcome(0.0, 0, CcdStop::Invalid);
    }

    let xi_sq = xi * xi;
    let d0_sq = pair_distance_sq(kind, dim, x);
    if !d0_sq.is_finite() {
        return outcome(0.0, 0, CcdStop::Invalid);
    }
    if d0_sq <= xi_sq {
        return outcome(0.0, 0, CcdStop::InitiallyTooClose);
    }
    let l_p = displacement_bound(kind, dim, p);
    if !l_p.is_finite() {
        return outcome(0.0, 0, CcdStop::Invalid);
    }
    if l_p == 0.0 || t_max == 0.0 {
        return outcome(t_max, 0, CcdStop::NoContact);
    }

    // d − ξ, computed as (d² − ξ²)/(d + ξ) to avoid cancellation when ξ ≈ d.
    let gap_of = |d_sq: f64| (d_sq - xi_sq) / (d_sq.sqrt() + xi);
    let target = keep * gap_of(d0_sq);

    let mut y = [0.0f64; 12];
    let y = &mut y[..n];
    let mut t = 0.0f64;
    let mut gap = gap_of(d0_sq);
    let mut iterations = 0u32;
    loop {
        if iterations >= params.max_iterations {
            return outcome(t, iterations, CcdStop::IterationCap);
        }
        // The first step keeps (1 − keep)·gap ≥ target by the Lipschitz bound;
        // later steps keep 10% of the current gap and are checked against target.
        let first = iterations == 0;
        let eta = if first { 1.0 - keep } else { 0.9 };
        let mut t_next = t + eta * gap / l_p;
        let at_end = t_next >= t_max;
        if at_end {
            t_next = t_max;
        }
        if t_next.is_nan() || t_next <= t {
            return outcome(t, iterations, CcdStop::Stalled);
        }
        for ((yi, x0), pi) in y.iter_mut().zip(x).zip(p) {
            *yi = x0 + t_next * pi;
        }
        iterations += 1;
        let d_sq = pair_distance_sq(kind, dim, y);
        if !d_sq.is_finite() {
            return outcome(t, iterations, CcdStop::Invalid);
        }
        let new_gap = gap_of(d_sq);
        // The first step passes on the Lipschitz bound alone (its gap equals the
        // target in a head-on approach, up to rounding); it must still be open.
        let passed = if first {
            new_gap > 0.0
        } else {
            new_gap >= target
        };
        if !passed {
            return outcome(t, iterations, CcdStop::GapReached);
        }
        t = t_next;
        gap = new_gap;
        if at_end {
            return outcome(t_max, iterations, CcdStop::NoContact);
        }
    }
}

#[cfg(test)]
#[path = "ccd/tests.rs"]
mod tests;

#[cfg(test)]
#[path = "ccd/exact.rs"]
mod exact;

#[cfg(test)]
#[path = "ccd/property.rs"]
mod property;
