//! The candidate pair lists of contact between and within bodies on the CPU: which
//! pairs every energy, assembly and CCD bound of a Newton iteration looks at.
//!
//! A list must hold every pair whose primitives can come within d̂ anywhere the
//! current evaluation reaches: at the iterate `x` (assembly, energy), or anywhere on
//! the segment `x → x + p` (CCD bound, line search). Two layers keep that cheap:
//!
//! - **A cache, reused as Verlet lists are.** A [`PairCache`] is the broad phase of
//!   a reference segment `x_ref → x_ref + α p_ref`, `α ∈ [0, 1]` (a point where
//!   `p_ref = 0`), with every box inflated by `d̂/2 + m` (margin `m`). It serves any
//!   evaluation whose collision vertices all lie within `m` (Euclidean) of
//!   `x_ref + α p_ref + c` for one `α` and one common translation `c`, checked at both
//!   ends of the evaluation's segment (between them the interpolated `α` and `c` do
//!   as well). Then a pair within d̂ there has boxes that lie, translated, within `m`
//!   of its boxes on the reference segment, which therefore overlap once inflated by
//!   `d̂/2 + m`: the pair is in the broad phase's list. A body falling or sliding as a
//!   whole keeps its list; so do the Newton iterations that follow a step's first,
//!   long direction, over whose sweep the cache was built. The reference direction is
//!   the direction less its common translation (the vertices' mid-range), which
//!   changes no distance and would only stretch every box.
//! - **Bounds that drop far pairs.** Each pair of the broad phase gets a lower bound
//!   on its distance along the reference segment (`collision::near`: its box gap,
//!   else its distance, less its displacement bound, which takes out the pair's own
//!   mean motion, so that a mesh moving coherently keeps its neighbours' bounds
//!   tight). Within the cache's region every vertex is within `m` of the segment, so
//!   a pair whose bound is at least `d̂ + 2m` never matters and is not kept; the rest
//!   are kept in order of their bound. An evaluation at excess `e ≤ m` (how far its
//!   vertices are from the segment) reads only the pairs bounded below `d̂ + 2e`, and
//!   of those keeps the **near list**: those that [`may_come_within`] d̂ on its own
//!   segment. The energies, the CCD bound and the next iteration's assembly (its
//!   iterate lies on the segment) read only that list.
//!
//! The margin is d̂, at most a fifth of the shortest collision edge ([`CACHE_MARGIN`],
//! [`CACHE_EDGE_FRACTION`]): a wider one multiplies the broad phase's pairs. Every
//! near list is sorted and holds every pair with a nonzero term, so an energy does
//! not depend on which list it was summed over.

use super::CpuBackend;
use crate::collision::near::{lower_bound, may_come_within};
use crate::collision::pairs::{candidates, stacked, Motion, Pair};

/// The cache's margin in units of d̂ (at most [`CACHE_EDGE_FRACTION`] of the
/// shortest collision edge).
pub const CACHE_MARGIN: f64 = 1.0;

/// The largest cache margin as a fraction of the shortest collision edge's rest
/// length: with d̂ as margin the 128×128 cloth (edges 1.25 d̂ long) got lists of
/// 960k pairs instead of 24k, and 5.6 s steps (measured before the lists kept
/// only the pairs their bounds cannot rule out).
pub const CACHE_EDGE_FRACTION: f64 = 0.2;

/// A candidate list built wider than needed, reusable near where it was built.
#[derive(Clone, Debug)]
pub(super) struct PairCache {
    /// Positions (m) of the collision vertices where it was built, in vertex order
    /// (`vertices × dim`).
    x_ref: Vec<f64>,
    /// The reference direction (m), as `x_ref`; empty for a cache built at a point.
    p_ref: Vec<f64>,
    /// How far (m, after a common translation) a vertex may leave the reference
    /// segment before the list may miss a pair.
    margin: f64,
    /// The pairs, in ascending order of `bound`.
    list: Vec<Pair>,
    /// Per pair, a lower bound (m) on its distance on the reference segment
    /// (ascending; `-∞` for a pair with a NaN coordinate).
    bound: Vec<f64>,
}

impl CpuBackend {
    /// Makes the candidate list cover the current iterate when it does not.
    pub(super) fn ensure_near_pairs(&mut self) {
        if !self.self_contact_on() || self.contact.valid {
            return;
        }
        self.refresh_near_pairs();
    }

    /// A candidate list that covers the current iterate.
    pub(super) fn refresh_near_pairs(&mut self) {
        self.cover(false);
        self.contact.swept = false;
    }

    /// A candidate list that covers the whole segment from the iterate along `p`: the
    /// list of the line search.
    pub(super) fn sweep_pairs(&mut self) {
        if !self.self_contact_on() {
            return;
        }
        self.cover(true);
        self.contact.swept = true;
    }

    /// How far (m) the iterate, or (`sweep`) the segment along `p`, lies from the
    /// cache's reference segment: at each end `y`, the largest distance of a vertex
    /// from `x_ref + α p_ref + c`, for one step fraction `α ∈ [0, 1]` and one
    /// translation `c` (any choice bounds it; `α` is the least-squares fit, `c` the
    /// per-coordinate mid-range). Between the ends the interpolated `α` and `c` bound
    /// it too (a distance to an affine path is convex). `None` without a cache, or
    /// beyond its margin (or NaN).
    fn excess(&self, sweep: bool) -> Option<f64> {
        let c = self.contact.cache.as_ref()?;
        let dim = self.model.dim;
        let verts = &self.model.collision.vertices;
        let (x, p) = (&self.x, &self.p);
        let nv = verts.len().max(1) as f64;
        let at_end = |end: bool| {
            // u: the vertices' displacement from x_ref, per collision-vertex slot.
            let u = |r: usize| {
                let i = verts[r / dim] as usize * dim + r % dim;
                x[i] + if end { p[i] } else { 0.0 } - c.x_ref[r]
            };
            let q = |r: usize| c.p_ref.get(r).copied().unwrap_or(0.0);
            let n = c.x_ref.len();
            let (mut um, mut qm) = ([0.0; 3], [0.0; 3]);
            for r in 0..n {
                um[r % dim] += u(r) / nv;
                qm[r % dim] += q(r) / nv;
            }
            let (mut uq, mut qq) = (0.0, 0.0);
            for r in 0..n {
                let (du, dq) = (u(r) - um[r % dim], q(r) - qm[r % dim]);
                uq += du * dq;
                qq += dq * dq;
            }
            let alpha = if qq > 0.0 {
                (uq / qq).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let shift = midrange(n, dim, |r| u(r) - alpha * q(r));
            let mut worst = 0.0f64;
            for j in 0..verts.len() {
                let mut e = 0.0;
                for (k, c) in shift.iter().enumerate().take(dim) {
                    let r = j * dim + k;
                    let w = u(r) - alpha * q(r) - c;
                    e += w * w;
                }
                if e.is_nan() {
                    return f64::INFINITY;
                }
                worst = worst.max(e);
            }
            worst.sqrt()
        };
        let e = if sweep {
            at_end(false).max(at_end(true))
        } else {
            at_end(false)
        };
        (e <= c.margin).then_some(e)
    }

    /// Points `candidates` at the pairs that may come within d̂ at the iterate (and on
    /// the segment along p with `sweep`), sorted: after a new cache where the current
    /// one does not cover them, the cache's pairs whose bound is below `d̂ + 2 e`
    /// (`e` the [`Self::excess`]: each node of a pair lies within `e` of the translated
    /// reference segment), of those the ones that [`may_come_within`] d̂.
    fn cover(&mut self, sweep: bool) {
        let e = match self.excess(sweep) {
            Some(e) => e,
            None => {
                self.rebuild_cache(sweep);
                self.excess(sweep).unwrap_or(f64::INFINITY)
            }
        };
        let c = self.contact.cache.as_ref().expect("a cache covers");
        let reach = self.model.barrier.dhat + 2.0 * e;
        let within = c.bound.partition_point(|&b| b < reach);
        let mut near = self.near(&c.list[..within], sweep);
        near.sort_unstable();
        self.contact.candidates = near;
        self.contact.valid = true;
    }

    /// The pairs of `list` that may come within d̂ at the iterate (with `sweep`, on
    /// the segment along p), in order: a box gap and a displacement bound per pair,
    /// much cheaper than the distances that every energy would otherwise compute.
    fn near(&self, list: &[Pair], sweep: bool) -> Vec<Pair> {
        let t0 = std::time::Instant::now();
        let m = &self.model;
        let (dim, dhat) = (m.dim, m.barrier.dhat);
        let p = &self.p;
        let keep = self.map_pairs(list, &self.x, |pair, _, s| {
            let q = sweep.then(|| stacked(&m.collision, p, pair).2);
            may_come_within(pair.kind, dim, s, q.as_ref().map(|q| &q[..]), dhat)
        });
        let near: Vec<Pair> = list
            .iter()
            .zip(keep)
            .filter_map(|(&pair, k)| k.then_some(pair))
            .collect();
        let ns = t0.elapsed().as_nanos() as u64;
        self.contact
            .energy_nanos
            .fetch_add(ns, std::sync::atomic::Ordering::Relaxed);
        near
    }

    /// The margin (m) of a new cache: d̂, at most a fifth of the shortest collision
    /// edge (a wider margin reaches the next ring of a fine mesh's primitives and
    /// multiplies the list).
    fn cache_margin(&self) -> f64 {
        let m = &self.model;
        let shortest = m
            .collision
            .edge_rest_length_sq
            .iter()
            .fold(f64::INFINITY, |a, &l| a.min(l))
            .sqrt();
        (m.barrier.dhat * CACHE_MARGIN).min(CACHE_EDGE_FRACTION * shortest)
    }

    /// A new cache at the iterate, or (`sweep`) over the segment along p less its
    /// common translation.
    fn rebuild_cache(&mut self, sweep: bool) {
        let t0 = std::time::Instant::now();
        let margin = self.cache_margin();
        let m = &self.model;
        let dim = m.dim;
        let verts = &m.collision.vertices;
        let relative = if sweep {
            self.relative_direction()
        } else {
            Vec::new()
        };
        let motion = Motion {
            x: &self.x,
            sweep: sweep.then_some((&relative[..], 1.0)),
        };
        let reach = m.barrier.dhat + 2.0 * margin;
        let found = candidates(&m.collision, motion, reach, &self.contact.excluded);
        // While the cache serves, every vertex stays within the margin of the
        // reference segment: a pair bounded at d̂ + 2m or more along it never matters.
        let bounds = self.map_pairs(&found, &self.x, |pair, _, s| {
            let q = sweep.then(|| stacked(&m.collision, &relative, pair).2);
            lower_bound(pair.kind, dim, s, q.as_ref().map(|q| &q[..]), reach)
        });
        let mut kept: Vec<(f64, Pair)> = bounds
            .into_iter()
            .zip(found)
            .filter(|&(b, _)| b < reach)
            .collect();
        kept.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let (bound, list): (Vec<f64>, Vec<Pair>) = kept.into_iter().unzip();
        let slot = |&v: &u32| v as usize * dim..(v as usize + 1) * dim;
        let x_ref = verts
            .iter()
            .flat_map(|v| self.x[slot(v)].to_vec())
            .collect();
        let p_ref = if sweep {
            verts
                .iter()
                .flat_map(|v| relative[slot(v)].to_vec())
                .collect()
        } else {
            Vec::new()
        };
        let kept = list.len();
        self.contact.cache = Some(PairCache {
            x_ref,
            p_ref,
            margin,
            list,
            bound,
        });
        self.count_broad_phase(t0, kept);
    }

    /// The direction p (m) less its common translation: per coordinate, the mid-range
    /// of its values at the collision vertices.
    fn relative_direction(&self) -> Vec<f64> {
        let dim = self.model.dim;
        let (p, verts) = (&self.p, &self.model.collision.vertices);
        let shift = midrange(verts.len() * dim, dim, |r| {
            p[verts[r / dim] as usize * dim + r % dim]
        });
        (0..p.len()).map(|i| p[i] - shift[i % dim]).collect()
    }

    /// Books a broad phase that started at `t0` and kept `kept` pairs.
    fn count_broad_phase(&mut self, t0: std::time::Instant, kept: usize) {
        let st = &mut self.contact.stats;
        st.broad_phase_seconds += t0.elapsed().as_secs_f64();
        st.broad_phases += 1;
        st.candidate_pairs += kept as u64;
    }
}

/// Per coordinate `k < dim`, the mid-range of `value(r)` over the slots `r < len`
/// with `r % dim == k` (vertex-major `vertices × dim` data).
fn midrange(len: usize, dim: usize, value: impl Fn(usize) -> f64) -> [f64; 3] {
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for r in 0..len {
        let v = value(r);
        lo[r % dim] = lo[r % dim].min(v);
        hi[r % dim] = hi[r % dim].max(v);
    }
    [0, 1, 2].map(|k| 0.5 * (lo[k] + hi[k]))
}
