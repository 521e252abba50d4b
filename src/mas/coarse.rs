//! The coarse levels' Galerkin matrices `A_l = P_lᵀ H P_l` over the supernodes'
//! rigid motions, whole (not only their domain blocks): the V-cycle needs their
//! products for residuals, and every level's domain matrices are cut from them.
//! Level 1 is built from H's node and spring blocks, level l + 1 from level l through
//! the exact transfer of rigid motions between nested supernodes ([`transfer`]).

use super::assemble::{add, sandwich};
use super::basis::Frames;
use super::BlockMatrix;
use crate::model::Spring;
use rayon::prelude::*;

/// A coarse level's matrix: block rows in CSR form, `q × q` blocks (kg, for the
/// rigid-motion unknowns), both triangles stored, columns sorted per row.
#[derive(Clone, Debug, Default)]
pub(super) struct CoarseMatrix {
    /// Unknowns per supernode.
    q: usize,
    /// Row `a`'s blocks are `offsets[a]..offsets[a + 1]`.
    offsets: Vec<u32>,
    /// Column supernode of each block.
    cols: Vec<u32>,
    /// The blocks, row-major, `q²` each.
    blocks: Vec<f64>,
}

/// `T_a`, the rigid motion of child supernode `a` (level l, centroid `c_a`, radius
/// `R_a`) implied by its parent's (level l + 1, supernode `parent`), `q × q`
/// row-major: the parent's basis at `c_a` gives the translation, and the rotation is
/// the parent's scaled by `R_a / R_A` (rotations are stored per unit radius).
pub(super) fn transfer(child: &Frames, a: usize, parent: &Frames, pa: usize, out: &mut [f64]) {
    let (dim, q) = (child.dim(), super::basis::coarse_dofs(child.dim()));
    let mut p = [0.0; 18];
    parent.basis(pa, child.centroid(a), &mut p);
    out[..q * q].iter_mut().for_each(|v| *v = 0.0);
    out[..dim * q].copy_from_slice(&p[..dim * q]);
    let scale = child.radius(a) / parent.radius(pa);
    for k in dim..q {
        out[k * q + k] = scale;
    }
}

impl CoarseMatrix {
    /// The pattern of rows with the given (unsorted, repeating) column lists.
    fn from_rows(q: usize, rows: Vec<Vec<u32>>) -> Self {
        let mut offsets = Vec::with_capacity(rows.len() + 1);
        let mut cols = Vec::new();
        offsets.push(0);
        for mut row in rows {
            row.sort_unstable();
            row.dedup();
            cols.extend(row);
            offsets.push(cols.len() as u32);
        }
        let blocks = vec![0.0; cols.len() * q * q];
        Self {
            q,
            offsets,
            cols,
            blocks,
        }
    }

    /// Level 1's pattern: supernode `rank / span` for each node, coupled where a
    /// spring joins two of them.
    pub fn level1_pattern(springs: &[Spring], rank: &[u32], span: usize, q: usize) -> Self {
        let count = rank.len().div_ceil(span);
        let mut rows: Vec<Vec<u32>> = (0..count as u32).map(|a| vec![a]).collect();
        for s in springs {
            let a = rank[s.a as usize] / span as u32;
            let b = rank[s.b as usize] / span as u32;
            if a != b {
                rows[a as usize].push(b);
                rows[b as usize].push(a);
            }
        }
        Self::from_rows(q, rows)
    }

    /// The next level's pattern: supernodes in runs of `b` of this one.
    pub fn coarser_pattern(&self, b: usize) -> Self {
        let count = self.rows().div_ceil(b);
        let mut rows: Vec<Vec<u32>> = vec![Vec::new(); count];
        for a in 0..self.rows() {
            let row = &mut rows[a / b];
            row.extend(self.row_cols(a).iter().map(|&c| c / b as u32));
        }
        Self::from_rows(self.q, rows)
    }

    /// The row offsets (into the columns) and the sorted columns of every block row.
    pub fn pattern(&self) -> (&[u32], &[u32]) {
        (&self.offsets, &self.cols)
    }

    /// Supernodes (block rows).
    pub fn rows(&self) -> usize {
        self.offsets.len() - 1
    }

    fn row_cols(&self, a: usize) -> &[u32] {
        &self.cols[self.offsets[a] as usize..self.offsets[a + 1] as usize]
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.blocks.len() * 8 + (self.cols.len() + self.offsets.len()) * 4
    }

    /// Calls `f(row, cols, blocks)` for every block row, in parallel, with the row's
    /// blocks zeroed.
    fn fill_rows(&mut self, f: impl Fn(usize, &[u32], &mut [f64]) + Sync) {
        let qq = self.q * self.q;
        let mut rows = Vec::with_capacity(self.rows());
        let mut rest = &mut self.blocks[..];
        for a in 0..self.offsets.len() - 1 {
            let len = (self.offsets[a + 1] - self.offsets[a]) as usize * qq;
            let (row, tail) = rest.split_at_mut(len);
            rows.push(row);
            rest = tail;
        }
        let (offsets, cols) = (&self.offsets, &self.cols);
        rows.into_par_iter().enumerate().for_each(|(a, row)| {
            row.iter_mut().for_each(|v| *v = 0.0);
            f(a, &cols[offsets[a] as usize..offsets[a + 1] as usize], row);
        });
    }

    /// Level 1 from H: row `a` sums `P_iᵀ H_ii P_i` over its free nodes and
    /// `−P_iᵀ S P_j` over their springs to free nodes j (of any supernode).
    pub fn fill_level1(
        &mut self,
        h: &BlockMatrix,
        order: &[u32],
        rank: &[u32],
        span: usize,
        frames: &Frames,
    ) {
        let (dim, q) = (h.dim, self.q);
        let (dd, qq) = (dim * dim, q * q);
        self.fill_rows(|a, cols, row| {
            let (mut pi, mut pj, mut blk, mut hii) = ([0.0; 18], [0.0; 18], [0.0; 36], [0.0; 9]);
            let at = |b: usize| cols.binary_search(&(b as u32)).expect("pattern") * qq;
            for &i in &order[a * span..((a + 1) * span).min(order.len())] {
                let i = i as usize;
                if h.fixed[i] {
                    continue;
                }
                frames.basis(a, &h.x[i * dim..(i + 1) * dim], &mut pi);
                h.diagonal_block(i, &mut hii);
                sandwich(&pi[..dim * q], &hii[..dd], &pi[..dim * q], dim, q, &mut blk);
                let o = at(a);
                add(&mut row[o..o + qq], q, 0, 0, &blk[..qq], q, 1.0);
                for e in h.adj_offsets[i]..h.adj_offsets[i + 1] {
                    let s = h.adj_springs[e as usize] as usize;
                    let sp = &h.springs[s];
                    let j = if sp.a as usize == i { sp.b } else { sp.a } as usize;
                    if h.fixed[j] {
                        continue;
                    }
                    let b = rank[j] as usize / span;
                    frames.basis(b, &h.x[j * dim..(j + 1) * dim], &mut pj);
                    let sb = &h.spring_blocks[s * dd..(s + 1) * dd];
                    sandwich(&pi[..dim * q], sb, &pj[..dim * q], dim, q, &mut blk);
                    let o = at(b);
                    add(&mut row[o..o + qq], q, 0, 0, &blk[..qq], q, -1.0);
                }
            }
        });
    }

    /// This level (l + 1) from the finer `finer` (level l, supernodes in runs of `b`
    /// per parent): `A_{l+1}(A, B) = Σ T_aᵀ A_l(a, c) T_c` over children a of A and
    /// c of B.
    pub fn fill_coarser(&mut self, finer: &CoarseMatrix, b: usize, fine: &Frames, coarse: &Frames) {
        let q = self.q;
        let qq = q * q;
        self.fill_rows(|pa, cols, row| {
            let (mut ta, mut tc, mut blk) = ([0.0; 36], [0.0; 36], [0.0; 36]);
            for a in pa * b..((pa + 1) * b).min(finer.rows()) {
                transfer(fine, a, coarse, pa, &mut ta);
                for (k, &c) in finer.row_cols(a).iter().enumerate() {
                    let c = c as usize;
                    let pc = c / b;
                    transfer(fine, c, coarse, pc, &mut tc);
                    let e = finer.offsets[a] as usize + k;
                    sandwich(
                        &ta[..qq],
                        &finer.blocks[e * qq..(e + 1) * qq],
                        &tc[..qq],
                        q,
                        q,
                        &mut blk,
                    );
                    let o = cols.binary_search(&(pc as u32)).expect("pattern") * qq;
                    add(&mut row[o..o + qq], q, 0, 0, &blk[..qq], q, 1.0);
                }
            }
        });
    }

    /// `out = A u` on this level's vectors (`q` per supernode; entries past the last
    /// supernode, padding, are left as they are).
    pub fn apply(&self, u: &[f64], out: &mut [f64]) {
        let q = self.q;
        let qq = q * q;
        crate::parallel::for_each_piece(&mut out[..self.rows() * q], q, |a, o| {
            o.iter_mut().for_each(|v| *v = 0.0);
            for e in self.offsets[a] as usize..self.offsets[a + 1] as usize {
                let c = self.cols[e] as usize;
                let blk = &self.blocks[e * qq..(e + 1) * qq];
                for r in 0..q {
                    o[r] += (0..q).map(|k| blk[r * q + k] * u[c * q + k]).sum::<f64>();
                }
            }
        });
    }

    /// The dense `m × m` matrix (`m = b q`) of domain `d`: the blocks between its
    /// supernodes `d b .. (d + 1) b`.
    pub fn domain_matrix(&self, d: usize, b: usize, a: &mut [f64]) {
        let q = self.q;
        let (qq, m) = (q * q, b * q);
        a.iter_mut().for_each(|v| *v = 0.0);
        let first = d * b;
        for r in first..(first + b).min(self.rows()) {
            for e in self.offsets[r] as usize..self.offsets[r + 1] as usize {
                let c = self.cols[e] as usize;
                if c >= first && c < first + b {
                    let blk = &self.blocks[e * qq..(e + 1) * qq];
                    add(a, m, (r - first) * q, (c - first) * q, blk, q, 1.0);
                }
            }
        }
    }
}
