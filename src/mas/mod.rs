//! The multilevel additive Schwarz (MAS) preconditioner for the Newton systems of
//! any spring graph (after Wu et al. 2022, as GPU IPC codes use it).
//!
//! Nodes are ranked along a Morton curve ([`morton`]). Level 0's domains are runs of
//! `B` consecutive ranks (compact patches); level l's supernodes are the runs of
//! `Bˡ` ranks, its domains runs of `B` supernodes, up to one domain covering all.
//! Each level's matrix is the Galerkin restriction `Pₗᵀ H Pₗ` with piecewise
//! constant `Pₗ` (each component of a supernode moves all its free nodes alike), kept
//! block-diagonal by domain; every domain matrix is factored per Newton iteration
//! and the levels are applied additively: `z = Σₗ Pₗ (Pₗᵀ H Pₗ)⁻¹_domains Pₗᵀ r`.
//! That is symmetric positive definite whenever H is, so it serves PCG. Fixed nodes
//! are left out (their rows and columns of H are not solved for) and get `z = 0`.

pub mod dense;
pub mod morton;

use crate::model::Spring;
use crate::parallel;
use crate::pcg::Preconditioner;
use dense::{cholesky_in_place, cholesky_solve};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Nodes per level-0 domain (and supernodes per domain on coarser levels) unless
/// asked otherwise: 16 keeps a domain matrix at 32 × 32 in 2D and 48 × 48 in 3D.
pub const DEFAULT_DOMAIN: usize = 16;

/// The Newton matrix H as the backends hold it: per node its block (mass, barrier,
/// friction), per spring its projected block, both weighted, `dim × dim` row-major;
/// `H_ii = node block + Σ spring blocks`, `H_ij = −spring block`.
#[derive(Clone, Copy)]
pub struct BlockMatrix<'a> {
    /// Components per node (2 or 3).
    pub dim: usize,
    /// Node blocks (kg), `nodes × dim²`.
    pub node_blocks: &'a [f64],
    /// Spring blocks (kg), `springs × dim²`.
    pub spring_blocks: &'a [f64],
    /// The springs (their end nodes).
    pub springs: &'a [Spring],
    /// Node → springs adjacency: node i's springs are `adj_springs[adj_offsets[i]..adj_offsets[i + 1]]`.
    pub adj_offsets: &'a [u32],
    /// Spring indices of the adjacency.
    pub adj_springs: &'a [u32],
    /// Fixed nodes (not solved for).
    pub fixed: &'a [bool],
}

/// One level's partition into domains (its supernodes in runs of B) with the
/// Cholesky factors of its domain matrices.
#[derive(Clone, Debug)]
struct Part {
    level: usize,
    /// `domains × m²` with `m = B dim`.
    factors: Vec<f64>,
}

/// The MAS preconditioner: the node ranking and the factored domain matrices of
/// every partition of every level, from the last [`Mas::factor`].
#[derive(Clone, Debug)]
pub struct Mas {
    dim: usize,
    /// Supernodes per domain, B.
    domain: usize,
    /// `order[rank]` = node.
    order: Vec<u32>,
    /// `rank[node]`.
    rank: Vec<u32>,
    /// Nodes that are solved for (not fixed).
    free: Vec<bool>,
    /// Supernodes per level.
    counts: Vec<usize>,
    parts: Vec<Part>,
    /// Pivots replaced in the last factorisation (a nearly singular domain matrix).
    replaced_pivots: usize,
}

impl Mas {
    /// The hierarchy for nodes at positions `x` (m, `nodes × dim`), with `domain`
    /// supernodes per domain (at least 2); call
    /// [`Self::factor`] before use.
    pub fn new(x: &[f64], dim: usize, domain: usize) -> Self {
        let order = morton::morton_order(x, dim);
        let mut rank = vec![0u32; order.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        let b = domain.max(2);
        let n = order.len();
        let m2 = (b * dim).pow(2);
        let (mut counts, mut parts) = (Vec::new(), Vec::new());
        let mut count = n; // supernodes at this level
        while count > 0 {
            let level = counts.len();
            counts.push(count);
            let domains = count.div_ceil(b);
            parts.push(Part {
                level,
                factors: vec![0.0; domains * m2],
            });
            if domains == 1 {
                break;
            }
            count = domains;
        }
        Self {
            dim,
            domain: b,
            order,
            rank,
            free: vec![true; n],
            counts,
            parts,
            replaced_pivots: 0,
        }
    }

    /// Levels of the hierarchy.
    pub fn levels(&self) -> usize {
        self.counts.len()
    }

    /// Bytes held by the factors and the ranking.
    pub fn memory_bytes(&self) -> u64 {
        let f: usize = self.parts.iter().map(|p| p.factors.len() * 8).sum();
        (f + self.order.len() * 9) as u64
    }

    /// Pivots replaced in the last factorisation (0 for an SPD H).
    pub fn replaced_pivots(&self) -> usize {
        self.replaced_pivots
    }

    /// Nodes per supernode at `level`.
    fn span(&self, level: usize) -> usize {
        self.domain.pow(level as u32)
    }

    /// Assembles every partition's domain matrices from `h` and factors them.
    pub fn factor(&mut self, h: &BlockMatrix) {
        let m = self.domain * self.dim;
        self.free = h.fixed.iter().map(|f| !f).collect();
        let mut parts = std::mem::take(&mut self.parts);
        let replaced = AtomicUsize::new(0);
        for part in parts.iter_mut() {
            let span = self.span(part.level);
            let this = &*self;
            parallel::for_each_piece(&mut part.factors, m * m, |d, a| {
                this.assemble_domain(h, span, d, a);
                replaced.fetch_add(cholesky_in_place(a, m), Ordering::Relaxed);
            });
        }
        self.parts = parts;
        self.replaced_pivots = replaced.into_inner();
    }

    /// The matrix of domain `d` at the level whose supernodes span `span` nodes, into
    /// `a` (`m × m`, row-major): `Pᵀ H P` restricted to the domain's supernodes; an
    /// empty or all-fixed supernode gets the identity.
    fn assemble_domain(&self, h: &BlockMatrix, span: usize, d: usize, a: &mut [f64]) {
        let (dim, b) = (self.dim, self.domain);
        let (m, dd) = (b * dim, dim * dim);
        a.iter_mut().for_each(|v| *v = 0.0);
        // supernode s sits in slot s − d B
        let first = d * b * span;
        let last = ((d + 1) * b * span).min(self.order.len());
        let slot_of = |rank: usize| rank / span - d * b;
        let mut add = |sa: usize, sb: usize, blk: &[f64], sign: f64| {
            for r in 0..dim {
                for c in 0..dim {
                    a[(sa * dim + r) * m + sb * dim + c] += sign * blk[r * dim + c];
                }
            }
        };
        for rank in first..last {
            let i = self.order[rank] as usize;
            if !self.free[i] {
                continue;
            }
            let slot = slot_of(rank);
            add(slot, slot, &h.node_blocks[i * dd..(i + 1) * dd], 1.0);
            for e in h.adj_offsets[i]..h.adj_offsets[i + 1] {
                let s = h.adj_springs[e as usize] as usize;
                let sp = &h.springs[s];
                let j = if sp.a as usize == i { sp.b } else { sp.a } as usize;
                let blk = &h.spring_blocks[s * dd..(s + 1) * dd];
                add(slot, slot, blk, 1.0);
                let rj = self.rank[j] as usize;
                if self.free[j] && rj >= first && rj < last {
                    add(slot, slot_of(rj), blk, -1.0);
                }
            }
        }
        for slot in 0..b {
            let empty = (0..dim).all(|k| a[(slot * dim + k) * m + slot * dim + k] == 0.0);
            if empty {
                for k in 0..dim {
                    a[(slot * dim + k) * m + slot * dim + k] = 1.0;
                }
            }
        }
    }

    /// `r` summed onto the supernodes of every level (fixed nodes left out).
    fn restrict(&self, r: &[f64]) -> Vec<Vec<f64>> {
        let (dim, b) = (self.dim, self.domain);
        let mut out: Vec<Vec<f64>> = Vec::with_capacity(self.counts.len());
        for (level, &count) in self.counts.iter().enumerate() {
            let mut v = vec![0.0; count * dim];
            if level == 0 {
                parallel::for_each_piece(&mut v, dim, |rank, o| {
                    let i = self.order[rank] as usize;
                    if self.free[i] {
                        o.copy_from_slice(&r[i * dim..(i + 1) * dim]);
                    }
                });
            } else {
                let fine = &out[level - 1];
                let fine_count = self.counts[level - 1];
                parallel::for_each_piece(&mut v, dim, |s, o| {
                    for c in s * b..((s + 1) * b).min(fine_count) {
                        for k in 0..dim {
                            o[k] += fine[c * dim + k];
                        }
                    }
                });
            }
            out.push(v);
        }
        out
    }
}

impl Preconditioner for Mas {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        let (dim, b) = (self.dim, self.domain);
        let m = b * dim;
        let restricted = self.restrict(r);
        // Every level's domain solves, on its supernodes (padded to whole domains).
        let mut corrections: Vec<Vec<f64>> = Vec::with_capacity(self.parts.len());
        for (part, sup) in self.parts.iter().zip(restricted) {
            let mut v = sup;
            v.resize(part.factors.len() / m, 0.0);
            let f = &part.factors;
            parallel::for_each_piece(&mut v, m, |d, y| {
                cholesky_solve(&f[d * m * m..(d + 1) * m * m], m, y)
            });
            corrections.push(v);
        }
        // Prolong and add, levels in order.
        parallel::for_each_piece(z, dim, |i, zi| {
            zi.iter_mut().for_each(|c| *c = 0.0);
            if !self.free[i] {
                return;
            }
            let rank = self.rank[i] as usize;
            for (level, v) in corrections.iter().enumerate() {
                let s = rank / self.span(level);
                for k in 0..dim {
                    zi[k] += v[s * dim + k];
                }
            }
        });
    }
}

#[cfg(test)]
mod tests;
