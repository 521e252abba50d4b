//! `q = H d` with the PSD-projected Newton matrix, matrix-free; CPU twin of
//! `shaders/kernels/newton_matvec.wgsl`: per node its Newton block plus every incident
//! spring's projected block applied to `(d_i − d_j)`, gathered over the adjacency,
//! plus the contact pairs' couplings ([`crate::collision::PairBlocks::gather`]).

// Index loops over the d components mirror the WGSL kernels line for line.
#![allow(clippy::needless_range_loop)]

use super::CpuBackend;
use crate::mas::BlockMatrix;
use crate::parallel;
use crate::pcg::LinearOperator;

impl CpuBackend {
    /// `H u` with the PSD-projected Hessian assembled at the current iterate.
    pub fn hessian_times(&mut self, u: &[f64]) -> Vec<f64> {
        self.assemble();
        let mut out = vec![0.0; u.len()];
        self.block_matrix().apply(u, &mut out);
        out
    }
}

/// The projected Newton matrix as a gather-by-node operator (fixed rows are zero).
impl LinearOperator for BlockMatrix<'_> {
    fn len(&self) -> usize {
        self.fixed.len() * self.dim
    }

    fn apply(&self, u: &[f64], out: &mut [f64]) {
        let dim = self.dim;
        let dd = dim * dim;
        parallel::for_each_piece(out, dim, |i, yi| {
            yi.iter_mut().for_each(|c| *c = 0.0);
            if self.fixed[i] {
                return;
            }
            let ui = &u[i * dim..(i + 1) * dim];
            let nh = &self.node_blocks[i * dd..(i + 1) * dd];
            for r in 0..dim {
                for c in 0..dim {
                    yi[r] += nh[r * dim + c] * ui[c];
                }
            }
            for e in self.adj_offsets[i] as usize..self.adj_offsets[i + 1] as usize {
                let (s, j) = (self.adj_springs[e] as usize, self.adj_nodes[e] as usize);
                let uj = &u[j * dim..(j + 1) * dim];
                let bh = &self.spring_blocks[s * dd..(s + 1) * dd];
                for r in 0..dim {
                    for c in 0..dim {
                        yi[r] += bh[r * dim + c] * (ui[c] - uj[c]);
                    }
                }
            }
            self.pairs.gather(i, u, self.fixed, yi);
        });
    }
}
