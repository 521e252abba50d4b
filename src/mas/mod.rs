//! The multilevel additive Schwarz (MAS) preconditioner for the Newton systems of
//! any spring graph (after Wu et al. 2022, as GPU IPC codes use it).
//!
//! Nodes are ranked along a Morton curve ([`morton`]). Level 0's domains are runs of
//! `B` consecutive ranks (compact patches); level l's supernodes are the runs of
//! `Bˡ` ranks, its domains runs of `B` supernodes, up to one domain covering all.
//! Level 0 solves each domain's block of H exactly. A coarser level's unknowns are
//! the rigid motions of its supernodes ([`basis`]: translation and rotation), its
//! matrix the Galerkin restriction `Pₗᵀ H Pₗ`, kept block-diagonal by domain; every
//! domain matrix is factored per Newton iteration and the levels are applied
//! additively: `z = Σₗ Pₗ (Pₗᵀ H Pₗ)⁻¹_domains Pₗᵀ r`.
//! That is symmetric positive definite whenever H is, so it serves PCG. Fixed nodes
//! are left out (their rows and columns of H are not solved for) and get `z = 0`.

mod assemble;
pub mod basis;
pub mod dense;
pub mod morton;

use crate::model::Spring;
use crate::parallel;
use crate::pcg::Preconditioner;
use basis::{coarse_dofs, Frames};
use dense::{cholesky_in_place, cholesky_solve};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Nodes per level-0 domain (and supernodes per domain on coarser levels) unless
/// asked otherwise: 16 keeps a domain matrix at 32 × 32 (level 0) and 48 × 48
/// (coarser levels) in 2D, 48 × 48 and 96 × 96 in 3D.
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
    /// Node positions (m), `nodes × dim`: where the coarse rigid motions pivot.
    pub x: &'a [f64],
}

impl BlockMatrix<'_> {
    /// `H_ii` (kg): node `i`'s block plus the blocks of its springs, in adjacency
    /// order, into `out[..dim²]`.
    pub fn diagonal_block(&self, i: usize, out: &mut [f64]) {
        let dd = self.dim * self.dim;
        out[..dd].copy_from_slice(&self.node_blocks[i * dd..(i + 1) * dd]);
        for e in self.adj_offsets[i]..self.adj_offsets[i + 1] {
            let s = self.adj_springs[e as usize] as usize;
            for (bk, sk) in out[..dd]
                .iter_mut()
                .zip(&self.spring_blocks[s * dd..(s + 1) * dd])
            {
                *bk += sk;
            }
        }
    }
}

/// One level's partition into domains (its supernodes in runs of B) with the
/// Cholesky factors of its domain matrices.
#[derive(Clone, Debug)]
struct Part {
    /// Unknowns per supernode: `dim` on level 0, rigid motions above.
    dofs: usize,
    /// `domains × m²` with `m = B dofs`.
    factors: Vec<f64>,
    /// The supernodes' frames (coarse levels; empty on level 0).
    frames: Frames,
}

impl Part {
    /// Order of a domain matrix.
    fn m(&self, b: usize) -> usize {
        b * self.dofs
    }
}

/// The MAS preconditioner: the node ranking and every level's factored domain
/// matrices, from the last [`Mas::factor`].
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
    /// Positions at the last factorisation (m).
    x: Vec<f64>,
    /// Supernodes per level.
    counts: Vec<usize>,
    parts: Vec<Part>,
    /// Pivots replaced in the last factorisation (a nearly singular domain matrix).
    replaced_pivots: usize,
}

impl Mas {
    /// The hierarchy for nodes at positions `x` (m, `nodes × dim`), with `domain`
    /// supernodes per domain (at least 2); call [`Self::factor`] before use.
    pub fn new(x: &[f64], dim: usize, domain: usize) -> Self {
        let order = morton::morton_order(x, dim);
        let mut rank = vec![0u32; order.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        let b = domain.max(2);
        let n = order.len();
        let (mut counts, mut parts) = (Vec::new(), Vec::new());
        let mut count = n; // supernodes at this level
        while count > 0 {
            let dofs = if counts.is_empty() {
                dim
            } else {
                coarse_dofs(dim)
            };
            counts.push(count);
            let domains = count.div_ceil(b);
            parts.push(Part {
                dofs,
                factors: vec![0.0; domains * (b * dofs).pow(2)],
                frames: Frames::default(),
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
            x: x.to_vec(),
            counts,
            parts,
            replaced_pivots: 0,
        }
    }

    /// Levels of the hierarchy.
    pub fn levels(&self) -> usize {
        self.counts.len()
    }

    /// Bytes held by the factors, the frames and the ranking.
    pub fn memory_bytes(&self) -> u64 {
        let f: usize = self.parts.iter().map(|p| p.factors.len() * 8).sum();
        (f + self.order.len() * (9 + 8 * self.dim)) as u64
    }

    /// Pivots replaced in the last factorisation (0 for an SPD H).
    pub fn replaced_pivots(&self) -> usize {
        self.replaced_pivots
    }

    /// Nodes per supernode at `level`.
    fn span(&self, level: usize) -> usize {
        self.domain.pow(level as u32)
    }

    /// Assembles every level's domain matrices from `h` and factors them.
    pub fn factor(&mut self, h: &BlockMatrix) {
        self.free = h.fixed.iter().map(|f| !f).collect();
        self.x.copy_from_slice(h.x);
        let mut parts = std::mem::take(&mut self.parts);
        let replaced = AtomicUsize::new(0);
        for (level, part) in parts.iter_mut().enumerate() {
            let span = self.span(level);
            if level > 0 {
                part.frames = Frames::new(h.x, self.dim, &self.order, span);
            }
            let (m, frames) = (part.m(self.domain), &part.frames);
            let this = &*self;
            parallel::for_each_heavy_piece(&mut part.factors, m * m, |d, a| {
                if level == 0 {
                    this.assemble_nodes(h, d, a);
                } else {
                    this.assemble_coarse(h, span, frames, d, a);
                }
                assemble::fill_empty_unknowns(a, m);
                replaced.fetch_add(cholesky_in_place(a, m), Ordering::Relaxed);
            });
        }
        self.parts = parts;
        self.replaced_pivots = replaced.into_inner();
    }

    /// `r` restricted to every level: by rank on level 0, `Σ P_iᵀ r_i` over each
    /// supernode above (fixed nodes left out), padded to whole domains.
    fn restrict(&self, r: &[f64]) -> Vec<Vec<f64>> {
        let (dim, b, n) = (self.dim, self.domain, self.order.len());
        let mut out = Vec::with_capacity(self.parts.len());
        for (level, part) in self.parts.iter().enumerate() {
            let q = part.dofs;
            let mut v = vec![0.0; part.factors.len() / part.m(b)];
            let span = self.span(level);
            parallel::for_each_piece(&mut v, q, |a, o| {
                let mut p = [0.0; 18];
                for rank in a * span..((a + 1) * span).min(n) {
                    let i = self.order[rank] as usize;
                    if !self.free[i] {
                        continue;
                    }
                    let ri = &r[i * dim..(i + 1) * dim];
                    if level == 0 {
                        o.copy_from_slice(ri);
                        continue;
                    }
                    part.frames
                        .basis(a, &self.x[i * dim..(i + 1) * dim], &mut p);
                    for (c, oc) in o.iter_mut().enumerate() {
                        *oc += (0..dim).map(|k| p[k * q + c] * ri[k]).sum::<f64>();
                    }
                }
            });
            out.push(v);
        }
        out
    }
}

impl Preconditioner for Mas {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        let (dim, b) = (self.dim, self.domain);
        let mut levels = self.restrict(r);
        for (v, part) in levels.iter_mut().zip(&self.parts) {
            let (m, f) = (part.m(b), &part.factors);
            parallel::for_each_heavy_piece(v, m, |d, y| {
                cholesky_solve(&f[d * m * m..(d + 1) * m * m], m, y)
            });
        }
        // Prolong and add, levels in order.
        parallel::for_each_piece(z, dim, |i, zi| {
            zi.iter_mut().for_each(|c| *c = 0.0);
            if !self.free[i] {
                return;
            }
            let rank = self.rank[i] as usize;
            zi.copy_from_slice(&levels[0][rank * dim..(rank + 1) * dim]);
            let mut p = [0.0; 18];
            for (level, (v, part)) in levels.iter().zip(&self.parts).enumerate().skip(1) {
                let (a, q) = (rank / self.span(level), part.dofs);
                part.frames
                    .basis(a, &self.x[i * dim..(i + 1) * dim], &mut p);
                for k in 0..dim {
                    zi[k] += (0..q).map(|c| p[k * q + c] * v[a * q + c]).sum::<f64>();
                }
            }
        });
    }
}

#[cfg(test)]
mod tests;
