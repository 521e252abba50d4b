//! Contact between and within bodies on the CPU (f64): the executable specification
//! of IPC self-contact ([`crate::collision`]).
//!
//! Per Newton iteration:
//! - the assembly takes a candidate list that covers `x` ([`super::contact_lists`]),
//!   adds each active pair's barrier gradient to `r`, its diagonal sub-blocks to the
//!   node blocks and its couplings to [`PairBlocks`] (the operator gathers them);
//! - the CCD bound takes a list that covers the whole segment along `p`, bounds each
//!   pair by additive CCD, and keeps that list for the line search, so every trial
//!   energy sees every pair that can be within d̂ anywhere on the step;
//! - the energy sums the active pairs of the current list serially in sorted order,
//!   so E at a point does not depend on which list found its pairs.
//!
//! Friction on these contacts is in [`super::self_friction`].

// Index loops over the d components mirror the WGSL kernels line for line.
#![allow(clippy::needless_range_loop)]

use super::CpuBackend;
use crate::collision::barrier::{mollifier_value, pair_barrier, pair_barrier_value, pair_weight};
use crate::collision::ccd::{additive_ccd, CcdParams};
use crate::collision::pairs::{stacked, stacked_distance_sq, Pair};
use crate::collision::PairBlocks;
use crate::parallel;

/// The share of its gap a pair keeps at the CCD bound (additive CCD's `s`): the
/// distance may shrink to a tenth of its start in one Newton step, never to 0.
pub const CCD_KEEP: f64 = 0.1;

/// Additive CCD iterations per pair before the bound stops where it got to.
pub const CCD_MAX_ITERATIONS: u32 = 100_000;

/// The self-contact state of the CPU backend.
#[derive(Debug, Default)]
pub(super) struct SelfContact {
    /// Pairs excluded for good: mesh neighbours closer than d̂ at rest
    /// ([`crate::collision::REST_EXCLUSION`]).
    pub excluded: Vec<Pair>,
    /// The current candidate list (see the module docs), sorted.
    pub candidates: Vec<Pair>,
    /// Whether `candidates` covers the current iterate.
    pub valid: bool,
    /// Whether `candidates` also covers the segment from the iterate along the
    /// current direction p (swept broad phase done since p was computed).
    pub swept: bool,
    /// The candidate list of a wider broad phase, reused while every vertex stays
    /// near where it was built ([`super::contact_lists`]).
    pub cache: Option<super::contact_lists::PairCache>,
    /// The active pairs' couplings from the last assembly.
    pub blocks: PairBlocks,
    /// Lagged friction contacts (empty without self friction).
    pub friction: Vec<super::self_friction::FrictionPair>,
    /// Costs so far.
    pub stats: crate::backend::ContactStats,
    /// Nanoseconds spent in the barrier energies (evaluated behind `&self`).
    pub energy_nanos: std::sync::atomic::AtomicU64,
}

impl CpuBackend {
    /// Whether this model has any self-contact primitives to watch.
    #[inline]
    pub(super) fn self_contact_on(&self) -> bool {
        self.model.self_contact.enabled && !self.model.collision.is_empty()
    }

    /// `f(pair, nodes, stacked coordinates at y)` for every current candidate, in order,
    /// in parallel.
    pub(super) fn map_candidates<T: Send>(
        &self,
        y: &[f64],
        f: impl Fn(Pair, &[u32; 4], &[f64; 12]) -> T + Sync + Send,
    ) -> Vec<T> {
        self.map_pairs(&self.contact.candidates, y, f)
    }

    /// `f(pair, nodes, stacked coordinates at y)` for every pair of `list`, in order,
    /// in parallel.
    pub(super) fn map_pairs<T: Send>(
        &self,
        list: &[Pair],
        y: &[f64],
        f: impl Fn(Pair, &[u32; 4], &[f64; 12]) -> T + Sync + Send,
    ) -> Vec<T> {
        let mesh = &self.model.collision;
        parallel::map(list.len(), |c| {
            let (nodes, _, s) = stacked(mesh, y, list[c]);
            f(list[c], &nodes, &s)
        })
    }

    /// The mollifier threshold ε× (m⁴) of an edge–edge pair, 0 for other kinds.
    #[inline]
    pub(super) fn eps_x(&self, pair: Pair) -> f64 {
        self.model.collision.mollifier_threshold(pair)
    }

    /// The self-contact barrier energy (J, without the potential weight) at `y` over
    /// the current candidates, summed serially in sorted order; `+∞` where a pair is
    /// at d ≤ 0.
    pub(super) fn self_contact_barrier(&self, y: &[f64]) -> f64 {
        if !self.self_contact_on() {
            return 0.0;
        }
        let t0 = std::time::Instant::now();
        let m = &self.model;
        let dim = m.dim;
        let values: Vec<f64> = self.map_candidates(y, |pair, nodes, s| {
            let dsq = stacked_distance_sq(pair.kind, dim, s);
            if dsq >= m.barrier.dhat * m.barrier.dhat {
                return 0.0;
            }
            let w = pair_weight(pair.kind, nodes, &m.contact_area);
            let moll = mollifier_value(pair.kind, s, self.eps_x(pair));
            pair_barrier_value(&m.barrier, w, dsq, moll)
        });
        let mut e = 0.0;
        for v in values {
            if v != 0.0 {
                e += v;
            }
        }
        let ns = t0.elapsed().as_nanos() as u64;
        self.contact
            .energy_nanos
            .fetch_add(ns, std::sync::atomic::Ordering::Relaxed);
        e
    }

    /// What self-contact has cost so far.
    pub(super) fn self_contact_costs(&self) -> crate::backend::ContactStats {
        let mut st = self.contact.stats;
        let ns = self
            .contact
            .energy_nanos
            .load(std::sync::atomic::Ordering::Relaxed);
        st.pair_seconds += ns as f64 * 1e-9;
        st.excluded_pairs = self.contact.excluded.len() as u64;
        st
    }

    /// The self-contact barrier and friction energies (J, without the potential
    /// weight) at `y`: Ψ's contact part.
    pub(super) fn self_contact_energy(&self, y: &[f64]) -> f64 {
        if !self.self_contact_on() {
            return 0.0;
        }
        self.self_contact_barrier(y) + self.self_friction_energy(y)
    }

    /// Adds the active pairs' weighted barrier (and friction) terms at the current
    /// iterate: gradients into `r`, diagonal blocks into the node blocks, couplings
    /// into the pair blocks.
    pub(super) fn assemble_self_contact(&mut self) {
        let dim = self.model.dim;
        let mut blocks = std::mem::take(&mut self.contact.blocks);
        blocks.clear(dim);
        if !self.self_contact_on() {
            self.contact.blocks = blocks;
            return;
        }
        self.ensure_near_pairs();
        let t0 = std::time::Instant::now();
        let m = &self.model;
        let weight = self.potential_weight;
        // The active pairs first (a distance each), then their terms: a term holds a
        // 12 × 12 block, too much to allocate for every candidate.
        let dhat2 = m.barrier.dhat * m.barrier.dhat;
        let near = self.map_candidates(&self.x, |pair, _, s| {
            let dsq = stacked_distance_sq(pair.kind, dim, s);
            (dsq < dhat2 && dsq > 0.0).then_some(pair)
        });
        let near: Vec<Pair> = near.into_iter().flatten().collect();
        let x = &self.x;
        let terms = parallel::map(near.len(), |i| {
            let pair = near[i];
            let (nodes, k, s) = crate::collision::pairs::stacked(&m.collision, x, pair);
            let w = pair_weight(pair.kind, &nodes, &m.contact_area);
            pair_barrier(pair.kind, dim, &s, &m.barrier, w, self.eps_x(pair), true)
                .map(|b| (nodes, k, b))
        });
        let mut active = 0;
        let mut scratch = [0.0; 144];
        for (nodes, k, b) in terms.into_iter().flatten() {
            active += 1;
            let n = k * dim;
            for (l, &i) in nodes[..k].iter().enumerate() {
                if self.model.fixed[i as usize] {
                    continue;
                }
                for c in 0..dim {
                    self.r[i as usize * dim + c] -= weight * b.gradient[l * dim + c];
                }
            }
            for e in 0..n * n {
                scratch[e] = weight * b.hessian[e];
            }
            self.add_pair_block(&mut blocks, nodes, k, &scratch);
        }
        self.add_friction_blocks(&mut blocks);
        blocks.build_adjacency(self.model.num_nodes());
        self.contact.blocks = blocks;
        let st = &mut self.contact.stats;
        st.pair_seconds += t0.elapsed().as_secs_f64();
        st.active_pairs += active as u64;
        st.assemblies += 1;
    }

    /// Adds a weighted pair block: its diagonal sub-blocks to the node blocks, the
    /// whole block (the operator reads only its couplings) to `blocks`.
    pub(super) fn add_pair_block(
        &mut self,
        blocks: &mut PairBlocks,
        nodes: [u32; 4],
        k: usize,
        h: &[f64],
    ) {
        let dim = self.model.dim;
        let (n, dd) = (k * dim, dim * dim);
        for (l, &i) in nodes[..k].iter().enumerate() {
            let out = &mut self.newton_blocks[i as usize * dd..(i as usize + 1) * dd];
            for r in 0..dim {
                for c in 0..dim {
                    out[r * dim + c] += h[(l * dim + r) * n + l * dim + c];
                }
            }
        }
        blocks.push(nodes, k, h);
    }

    /// The largest step fraction in (0, 1] along `p` that additive CCD allows every
    /// pair of the swept broad phase ([`Self::sweep_pairs`]).
    pub(super) fn self_contact_ccd_bound(&mut self) -> f64 {
        if !self.self_contact_on() {
            return 1.0;
        }
        self.sweep_pairs();
        let t0 = std::time::Instant::now();
        let m = &self.model;
        let dim = m.dim;
        let params = CcdParams {
            min_separation: 0.0,
            keep: CCD_KEEP,
            t_max: 1.0,
            max_iterations: CCD_MAX_ITERATIONS,
        };
        let (x, p, list) = (&self.x, &self.p, &self.contact.candidates);
        let bound = parallel::min(list.len(), |c| {
            let pair = list[c];
            let (_, k, s) = stacked(&m.collision, x, pair);
            let (_, _, q) = stacked(&m.collision, p, pair);
            additive_ccd(pair.kind, dim, &s[..k * dim], &q[..k * dim], &params)
        })
        .min(1.0);
        self.contact.stats.ccd_seconds += t0.elapsed().as_secs_f64();
        bound
    }

    /// Active pairs and the smallest distance (m) among them (`+∞` without one) at
    /// the current iterate.
    pub(super) fn self_contact_stats(&mut self) -> (u64, f64) {
        if !self.self_contact_on() {
            return (0, f64::INFINITY);
        }
        self.ensure_near_pairs();
        let (dim, dhat) = (self.model.dim, self.model.barrier.dhat);
        let dhat2 = dhat * dhat;
        let dsq = self.map_candidates(&self.x, |pair, _, s| stacked_distance_sq(pair.kind, dim, s));
        // Only pairs within d̂ count: the list may hold farther ones (a reused list
        // is built wider), and the figure must not depend on which list it was.
        let near = dsq.iter().copied().filter(|&d| d < dhat2);
        let active = near.clone().count() as u64;
        let min = near.fold(f64::INFINITY, f64::min);
        (
            active,
            if min.is_finite() {
                min.max(0.0).sqrt()
            } else {
                min
            },
        )
    }
}
