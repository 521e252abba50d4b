//! The candidate pair lists of contact between and within bodies on the CPU: which
//! pairs every energy, assembly and CCD bound of a Newton iteration looks at.
//!
//! A list must hold every pair whose primitives can come within d̂ anywhere the
//! current evaluation reaches: at the iterate `x` (assembly, energy), or anywhere on
//! the segment `x → x + p` (CCD bound, line search). Two layers keep that cheap:
//!
//! - **A cache, reused as Verlet lists are.** A [`PairCache`] is the broad phase of
//!   a reference segment `x_ref → x_ref + p_ref` (a point where `p_ref = 0`), with
//!   every box inflated by `d̂/2 + m` (margin `m`). It serves any evaluation whose
//!   collision vertices all lie, after taking out a common translation, within `m`
//!   (per coordinate) of their own box on the reference segment, checked at both
//!   ends of the evaluation's segment (the translation at a point between is the one
//!   interpolated between the ends'). Then a pair within d̂ there has boxes that lie,
//!   translated, within `m` of its boxes on the reference segment, which therefore
//!   overlap once inflated by `d̂/2 + m`: the pair is in the list. A body falling or
//!   sliding as a whole keeps its list; so do the Newton iterations that follow a
//!   step's first, long direction, whose sweep the cache was built over. The margin
//!   is d̂, at most a fifth of the shortest collision edge ([`CACHE_MARGIN`],
//!   [`CACHE_EDGE_FRACTION`]); wider ones multiply the lists (a margin that followed
//!   the motion, 1.25 × the last direction's largest coordinate, made the 64×64
//!   cloth's lists 26× longer and its steps 18× slower). The reference direction is
//!   the direction less its common translation (the vertices' mid-range), which
//!   changes no distance and would only stretch every box.
//! - **A near list** taken from the cache's: the pairs whose box gap, less how far
//!   the direction can bring them together, is below d̂ ([`may_come_within`]). The
//!   energies, the CCD bound and the next iteration's assembly (its iterate lies on
//!   the segment) read only that list; the distances of the rest are never computed.
//!
//! Every list is sorted and holds every pair with a nonzero term, so an energy does
//! not depend on which list it was summed over.

use super::CpuBackend;
use crate::collision::near::may_come_within;
use crate::collision::pairs::{candidates, stacked, Motion, Pair};
use crate::parallel;

/// The cache's margin in units of d̂ (at most [`CACHE_EDGE_FRACTION`] of the
/// shortest collision edge).
pub const CACHE_MARGIN: f64 = 1.0;

/// The largest cache margin as a fraction of the shortest collision edge's rest
/// length: with d̂ as margin the 128×128 cloth (edges 1.25 d̂ long) got lists of
/// 960k pairs instead of 24k, and 5.6 s steps.
pub const CACHE_EDGE_FRACTION: f64 = 0.2;

/// A candidate list built wider than needed, reusable near where it was built.
#[derive(Clone, Debug)]
pub(super) struct PairCache {
    /// Lower ends (m) of the collision vertices' coordinates on the reference segment,
    /// in vertex order (`vertices × dim`).
    lo: Vec<f64>,
    /// Upper ends (m), as `lo`.
    hi: Vec<f64>,
    /// How far (m, per coordinate, after a common translation) a vertex may leave its
    /// `lo..hi` before the list may miss a pair.
    margin: f64,
    /// The pairs, sorted.
    list: Vec<Pair>,
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

    /// Whether the cache holds every pair within d̂ at the iterate, or (`sweep`)
    /// anywhere on the segment along `p` (see the module docs): at each end, per
    /// coordinate, some translation `c` puts every vertex within the margin of its
    /// reference range, i.e. `max(y − hi) − min(y − lo) ≤ 2 m`.
    fn covered(&self, sweep: bool) -> bool {
        let Some(c) = &self.contact.cache else {
            return false;
        };
        let dim = self.model.dim;
        let verts = &self.model.collision.vertices;
        let (x, p) = (&self.x, &self.p);
        let fits = |end: bool| {
            (0..dim).all(|k| {
                let (mut above, mut below) = (f64::NEG_INFINITY, f64::INFINITY);
                for (j, &v) in verts.iter().enumerate() {
                    let i = v as usize * dim + k;
                    let y = x[i] + if end { p[i] } else { 0.0 };
                    let r = j * dim + k;
                    if !y.is_finite() {
                        return false;
                    }
                    above = above.max(y - c.hi[r]);
                    below = below.min(y - c.lo[r]);
                }
                above - below <= 2.0 * c.margin
            })
        };
        fits(false) && (!sweep || fits(true))
    }

    /// Points `candidates` at the pairs that may come within d̂ at the iterate (and on
    /// the segment along p with `sweep`): those of the cache's list that
    /// [`may_come_within`] d̂, after a new cache where it does not cover them.
    fn cover(&mut self, sweep: bool) {
        if !self.covered(sweep) {
            self.rebuild_cache(sweep);
        }
        let list = &self.contact.cache.as_ref().expect("a cache covers").list;
        let near = self.near(list, sweep);
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
        let (x, p) = (&self.x, &self.p);
        let keep = parallel::map(list.len(), |c| {
            let pair = list[c];
            let (_, _, s) = stacked(&m.collision, x, pair);
            let q = sweep.then(|| stacked(&m.collision, p, pair).2);
            may_come_within(pair.kind, dim, &s, q.as_ref().map(|q| &q[..]), dhat)
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
        let list = candidates(&m.collision, motion, reach, &self.contact.excluded);
        let (mut lo, mut hi) = (Vec::new(), Vec::new());
        for &v in verts {
            for k in 0..dim {
                let i = v as usize * dim + k;
                let end = self.x[i] + if sweep { relative[i] } else { 0.0 };
                lo.push(self.x[i].min(end));
                hi.push(self.x[i].max(end));
            }
        }
        let found = list.len();
        self.contact.cache = Some(PairCache {
            lo,
            hi,
            margin,
            list,
        });
        self.count_broad_phase(t0, found);
    }

    /// The direction p (m) less its common translation: per coordinate, the mid-range
    /// of its values at the collision vertices.
    fn relative_direction(&self) -> Vec<f64> {
        let dim = self.model.dim;
        let p = &self.p;
        let mut shift = [0.0; 3];
        for (k, s) in shift.iter_mut().enumerate().take(dim) {
            let (lo, hi) = self
                .model
                .collision
                .vertices
                .iter()
                .map(|&v| p[v as usize * dim + k])
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| {
                    (lo.min(c), hi.max(c))
                });
            *s = 0.5 * (lo + hi);
        }
        (0..p.len()).map(|i| p[i] - shift[i % dim]).collect()
    }

    /// Books a broad phase that started at `t0` and found `found` pairs.
    fn count_broad_phase(&mut self, t0: std::time::Instant, found: usize) {
        let st = &mut self.contact.stats;
        st.broad_phase_seconds += t0.elapsed().as_secs_f64();
        st.broad_phases += 1;
        st.candidate_pairs += found as u64;
    }
}
