//! The candidate pair lists of contact between and within bodies on the CPU: which
//! pairs every energy, assembly and CCD bound of a Newton iteration looks at.
//!
//! A list must hold every pair whose primitives can come within d̂ anywhere the
//! current evaluation reaches: at the iterate `x` (assembly, energy), or anywhere on
//! the segment `x → x + p` (CCD bound, line search). Building one (the broad phase)
//! costs about a microsecond per primitive, so lists are reused, as Verlet lists
//! are: a [`PairCache`] is built at `x_ref` with every box inflated by `d̂/2 + m`
//! (margin `m`), and serves any evaluation whose collision vertices all stay within
//! `m` of `x_ref` in every coordinate (checked at both ends of the segment, which
//! bound it). Then a pair within d̂ somewhere on the segment has boxes there that lie
//! within `m` of its boxes at `x_ref`, which therefore overlap once inflated by
//! `d̂/2 + m`: the pair is in the list. The margin is d̂, at most a fifth of the
//! shortest collision edge ([`CACHE_MARGIN`], [`CACHE_EDGE_FRACTION`]); wider ones
//! multiply the lists (a margin that followed the motion, 1.25 × the last
//! direction's largest coordinate, made the 64×64 cloth's lists 26× longer and its
//! steps 18× slower). A direction that leaves the margin gets a swept broad phase of
//! its own.

use super::CpuBackend;
use crate::collision::pairs::{candidates, Motion, Pair};

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
    /// Positions (m) of the collision vertices when it was built, in vertex order.
    x_ref: Vec<f64>,
    /// How far (m, per coordinate) a vertex may move from `x_ref` before the list may
    /// miss a pair.
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
    /// anywhere on the segment along `p`.
    fn covered(&self, sweep: bool) -> bool {
        let Some(c) = &self.contact.cache else {
            return false;
        };
        let dim = self.model.dim;
        let (x, p) = (&self.x, &self.p);
        let verts = &self.model.collision.vertices;
        verts.iter().enumerate().all(|(j, &v)| {
            (0..dim).all(|k| {
                let (i, r) = (v as usize * dim + k, c.x_ref[j * dim + k]);
                (x[i] - r).abs() <= c.margin && (!sweep || (x[i] + p[i] - r).abs() <= c.margin)
            })
        })
    }

    /// Points `candidates` at a list that covers the iterate (and the segment along p
    /// with `sweep`): the cache's if it does, else a new cache; a direction longer
    /// than the cache's margin gets a swept broad phase of its own instead.
    fn cover(&mut self, sweep: bool) {
        if !self.covered(sweep) {
            if sweep && self.largest_step() > self.cache_margin() {
                let t0 = std::time::Instant::now();
                let m = &self.model;
                let motion = Motion {
                    x: &self.x,
                    sweep: Some((&self.p, 1.0)),
                };
                self.contact.candidates =
                    candidates(&m.collision, motion, m.barrier.dhat, &self.contact.excluded);
                self.count_broad_phase(t0);
                self.contact.valid = true;
                return;
            }
            self.rebuild_cache();
        }
        if let Some(c) = &self.contact.cache {
            if self.contact.candidates != c.list {
                self.contact.candidates.clone_from(&c.list);
            }
        }
        self.contact.valid = true;
    }

    /// The largest coordinate (m) of the direction p at a collision vertex.
    fn largest_step(&self) -> f64 {
        let dim = self.model.dim;
        let (p, verts) = (&self.p, &self.model.collision.vertices);
        verts
            .iter()
            .flat_map(|&v| p[v as usize * dim..(v as usize + 1) * dim].iter())
            .fold(0.0f64, |m, c| m.max(c.abs()))
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

    /// A new cache at the iterate.
    fn rebuild_cache(&mut self) {
        let t0 = std::time::Instant::now();
        let margin = self.cache_margin();
        let m = &self.model;
        let dhat = m.barrier.dhat;
        let motion = Motion {
            x: &self.x,
            sweep: None,
        };
        let list = candidates(
            &m.collision,
            motion,
            dhat + 2.0 * margin,
            &self.contact.excluded,
        );
        let dim = m.dim;
        let x_ref = m
            .collision
            .vertices
            .iter()
            .flat_map(|&v| {
                self.x[v as usize * dim..(v as usize + 1) * dim]
                    .iter()
                    .copied()
            })
            .collect();
        self.contact.cache = Some(PairCache {
            x_ref,
            margin,
            list,
        });
        self.contact
            .candidates
            .clone_from(&self.contact.cache.as_ref().unwrap().list);
        self.count_broad_phase(t0);
    }

    /// Books a broad phase that started at `t0`.
    fn count_broad_phase(&mut self, t0: std::time::Instant) {
        let st = &mut self.contact.stats;
        st.broad_phase_seconds += t0.elapsed().as_secs_f64();
        st.broad_phases += 1;
        st.candidate_pairs += self.contact.candidates.len() as u64;
    }
}
