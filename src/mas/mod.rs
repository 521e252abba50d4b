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
mod coarse;
mod cycle;
pub mod dense;
pub mod morton;
pub mod reuse;

use crate::model::Spring;
use crate::parallel;
use basis::{coarse_dofs, Frames};
use coarse::CoarseMatrix;
pub use cycle::VCycle;
use dense::cholesky_in_place;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Nodes per level-0 domain (and supernodes per domain on coarser levels) unless
/// asked otherwise: 16 keeps a domain matrix at 32 × 32 (level 0) and 48 × 48
/// (coarser levels) in 2D, 48 × 48 and 96 × 96 in 3D.
pub const DEFAULT_DOMAIN: usize = 16;

/// Factor entries (f64) of a level below which its domain solves run on one thread:
/// handing a small coarse level to the thread pool costs more than the work (10 %
/// of a step on the 4,225-node square).
const SERIAL_LEN: usize = 1 << 15;

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
    /// The other end of each adjacency entry's spring (the products read it instead
    /// of the spring, a quarter of the bytes).
    pub adj_nodes: &'a [u32],
    /// Fixed nodes (not solved for).
    pub fixed: &'a [bool],
    /// Node positions (m), `nodes × dim`: where the coarse rigid motions pivot.
    pub x: &'a [f64],
    /// The contact pairs' couplings between distinct nodes (their diagonal
    /// sub-blocks are in `node_blocks`); the multilevel levels leave them out.
    pub pairs: &'a crate::collision::PairBlocks,
}

/// For each entry of a node → springs adjacency, the spring's other end.
pub fn other_ends(springs: &[Spring], adj_offsets: &[u32], adj_springs: &[u32]) -> Vec<u32> {
    let mut out = vec![0; adj_springs.len()];
    for i in 0..adj_offsets.len() - 1 {
        for e in adj_offsets[i] as usize..adj_offsets[i + 1] as usize {
            let sp = &springs[adj_springs[e] as usize];
            out[e] = if sp.a as usize == i { sp.b } else { sp.a };
        }
    }
    out
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

/// The empty Galerkin matrices of levels 1 … `levels − 1` (`q` unknowns per
/// supernode) of nodes ranked `rank` in domains of `b`: their block patterns, from
/// the springs and the ranking alone.
fn coarse_patterns(
    springs: &[Spring],
    rank: &[u32],
    b: usize,
    levels: usize,
    q: usize,
) -> Vec<CoarseMatrix> {
    let mut out = Vec::new();
    if levels < 2 {
        return out;
    }
    let mut pattern = CoarseMatrix::level1_pattern(springs, rank, b, q);
    for _ in 1..levels {
        let next = pattern.coarser_pattern(b);
        out.push(std::mem::replace(&mut pattern, next));
    }
    out
}

/// The block patterns of the coarse levels 1 … `levels − 1` as CSR (row offsets into
/// the columns, sorted columns per row) for nodes ranked `rank` in domains of `b`:
/// what the GPU's V-cycle fills.
pub fn coarse_csr(
    springs: &[Spring],
    rank: &[u32],
    b: usize,
    levels: usize,
) -> Vec<(Vec<u32>, Vec<u32>)> {
    coarse_patterns(springs, rank, b, levels, 1)
        .iter()
        .map(|c| {
            let (o, cols) = c.pattern();
            (o.to_vec(), cols.to_vec())
        })
        .collect()
}

/// One level's partition into domains (its supernodes in runs of B) with the
/// Cholesky factors of its domain matrices.
#[derive(Clone, Debug)]
struct Part {
    /// Unknowns per supernode: `dim` on level 0, rigid motions above.
    dofs: usize,
    /// Domains.
    domains: usize,
    /// `domains ×` the packed lower triangle of `m × m` ([`dense::packed_len`]),
    /// `m = B dofs`.
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
    /// The Galerkin matrices of levels 1 and up (`coarse[l − 1]`).
    coarse: Vec<CoarseMatrix>,
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
                domains,
                factors: vec![0.0; domains * dense::packed_len(b * dofs)],
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
            coarse: Vec::new(),
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
        let c: usize = self.coarse.iter().map(|c| c.memory_bytes()).sum();
        (f + c + self.order.len() * (9 + 8 * self.dim)) as u64
    }

    /// Pivots replaced in the last factorisation (0 for an SPD H).
    pub fn replaced_pivots(&self) -> usize {
        self.replaced_pivots
    }

    /// Nodes per supernode at `level`.
    fn span(&self, level: usize) -> usize {
        self.domain.pow(level as u32)
    }

    /// Assembles every level's matrices from `h` (level 0's domain blocks of H, the
    /// coarse levels' Galerkin matrices) and factors their domain matrices.
    pub fn factor(&mut self, h: &BlockMatrix) {
        self.free = h.fixed.iter().map(|f| !f).collect();
        self.x.copy_from_slice(h.x);
        let b = self.domain;
        let mut parts = std::mem::take(&mut self.parts);
        for (level, part) in parts.iter_mut().enumerate().skip(1) {
            part.frames = Frames::new(h.x, self.dim, &self.order, self.span(level));
        }
        let q = coarse_dofs(self.dim);
        if self.coarse.is_empty() && parts.len() > 1 {
            // The patterns depend on the springs and the ranking only: built once.
            self.coarse = coarse_patterns(h.springs, &self.rank, b, parts.len(), q);
        }
        for level in 1..parts.len() {
            let (done, rest) = self.coarse.split_at_mut(level - 1);
            if level == 1 {
                rest[0].fill_level1(h, &self.order, &self.rank, b, &parts[1].frames);
            } else {
                let (fine, coarse) = (&parts[level - 1].frames, &parts[level].frames);
                rest[0].fill_coarser(&done[level - 2], b, fine, coarse);
            }
        }
        let replaced = AtomicUsize::new(0);
        for (level, part) in parts.iter_mut().enumerate() {
            let m = part.m(b);
            let this = &*self;
            parallel::for_each_heavy_piece(&mut part.factors, dense::packed_len(m), |d, f| {
                let mut a = vec![0.0; m * m];
                if level == 0 {
                    this.assemble_nodes(h, d, &mut a);
                } else {
                    this.coarse[level - 1].domain_matrix(d, b, &mut a);
                }
                assemble::fill_empty_unknowns(&mut a, m);
                replaced.fetch_add(cholesky_in_place(&mut a, m), Ordering::Relaxed);
                dense::pack_lower(&a, m, f);
            });
        }
        self.parts = parts;
        self.replaced_pivots = replaced.into_inner();
    }
}

#[cfg(test)]
mod cycle_tests;
#[cfg(test)]
mod tests;
