//! Level 0's domain matrices of the MAS (blocks of H itself) and the small dense
//! helpers the coarse levels' Galerkin products ([`super::coarse`]) share with it. A
//! spring inside a domain couples its two ends' unknowns; one that leaves the domain
//! (or ends at a fixed node) adds only its diagonal part.

use super::{BlockMatrix, Mas};

/// Adds `sign × blk` (`rows × cols`, row-major) at unknown offsets `(ra, ca)` of the
/// `m × m` matrix `a`.
pub(super) fn add(
    a: &mut [f64],
    m: usize,
    ra: usize,
    ca: usize,
    blk: &[f64],
    rows: usize,
    sign: f64,
) {
    let cols = blk.len() / rows;
    for r in 0..rows {
        for c in 0..cols {
            a[(ra + r) * m + ca + c] += sign * blk[r * cols + c];
        }
    }
}

/// `Pᵀ B Q` for `P`, `Q` (`dim × q`, row-major) and `B` (`dim × dim`), into `out`
/// (`q × q`); `dim`, `q` ≤ 6.
pub(super) fn sandwich(p: &[f64], b: &[f64], qm: &[f64], dim: usize, q: usize, out: &mut [f64]) {
    let mut bq = [0.0; 36];
    for r in 0..dim {
        for c in 0..q {
            bq[r * q + c] = (0..dim).map(|k| b[r * dim + k] * qm[k * q + c]).sum();
        }
    }
    for r in 0..q {
        for c in 0..q {
            out[r * q + c] = (0..dim).map(|k| p[k * q + r] * bq[k * q + c]).sum();
        }
    }
}

/// Puts 1 on the diagonal of every unknown whose row is empty (a padded slot, an
/// all-fixed supernode, the rotation of a one-node supernode), so the matrix stays
/// factorable.
pub fn fill_empty_unknowns(a: &mut [f64], m: usize) {
    for k in 0..m {
        if a[k * m + k] == 0.0 {
            a[k * m + k] = 1.0;
        }
    }
}

impl Mas {
    /// Level 0's domain `d` (nodes of B consecutive ranks): their block of H.
    pub(super) fn assemble_nodes(&self, h: &BlockMatrix, d: usize, a: &mut [f64]) {
        let (dim, b) = (self.dim, self.domain);
        let (m, dd) = (b * dim, dim * dim);
        a.iter_mut().for_each(|v| *v = 0.0);
        let first = d * b;
        let last = (first + b).min(self.order.len());
        for rank in first..last {
            let i = self.order[rank] as usize;
            if !self.free[i] {
                continue;
            }
            let si = (rank - first) * dim;
            add(a, m, si, si, &h.node_blocks[i * dd..(i + 1) * dd], dim, 1.0);
            for e in h.adj_offsets[i]..h.adj_offsets[i + 1] {
                let s = h.adj_springs[e as usize] as usize;
                let sp = &h.springs[s];
                let j = if sp.a as usize == i { sp.b } else { sp.a } as usize;
                let blk = &h.spring_blocks[s * dd..(s + 1) * dd];
                add(a, m, si, si, blk, dim, 1.0);
                let rj = self.rank[j] as usize;
                if self.free[j] && rj >= first && rj < last {
                    add(a, m, si, (rj - first) * dim, blk, dim, -1.0);
                }
            }
        }
    }
}
