//! The sparse direct baseline of the CPU backend (`--linear-solver direct`): the
//! PSD-projected Newton matrix assembled as a sparse matrix (lower triangle) and
//! factored by `faer`'s sparse Cholesky. The symbolic analysis (fill-reducing
//! ordering and the factor's pattern) is done once per pattern: the springs fix
//! most of it, the contact pairs' couplings add to it, so it is redone only when the
//! pairs' node sets change; each Newton iteration refactors the values.

use super::CpuBackend;
use crate::pcg::PcgResult;
use faer::linalg::solvers::Solve;
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{Argsort, Pair, SparseColMat, SymbolicSparseColMat};
use faer::{MatMut, Side};

/// The fixed sparsity pattern and its symbolic Cholesky factorisation.
pub(super) struct DirectSolver {
    symbolic: SymbolicSparseColMat<usize>,
    argsort: Argsort<usize>,
    llt: SymbolicLlt<usize>,
    values: Vec<f64>,
    /// The contact pairs' node sets the pattern was built with.
    pair_key: Vec<[u32; 4]>,
}

impl CpuBackend {
    /// Calls `f(row, col, value)` for every lower-triangle entry of the projected
    /// Newton matrix (assembled by [`CpuBackend::assemble`]), in a fixed order;
    /// duplicates are summed. Fixed nodes get identity rows and columns.
    fn newton_entries(&self, mut f: impl FnMut(usize, usize, f64)) {
        let m = &self.model;
        let dim = m.dim;
        let dd = dim * dim;
        for i in 0..m.num_nodes() {
            for r in 0..dim {
                for c in 0..=r {
                    let v = match m.fixed[i] {
                        true => f64::from(u8::from(r == c)),
                        false => self.newton_blocks[i * dd + r * dim + c],
                    };
                    f(i * dim + r, i * dim + c, v);
                }
            }
        }
        for (s, sp) in m.springs.iter().enumerate() {
            let h = &self.spring_hess[s * dd..(s + 1) * dd];
            let (a, b) = (sp.a as usize, sp.b as usize);
            let (fa, fb) = (m.fixed[a], m.fixed[b]);
            for r in 0..dim {
                for c in 0..=r {
                    f(
                        a * dim + r,
                        a * dim + c,
                        if fa { 0.0 } else { h[r * dim + c] },
                    );
                    f(
                        b * dim + r,
                        b * dim + c,
                        if fb { 0.0 } else { h[r * dim + c] },
                    );
                }
            }
            let (hi, lo) = (a.max(b), a.min(b));
            for r in 0..dim {
                for c in 0..dim {
                    let v = if fa || fb { 0.0 } else { -h[r * dim + c] };
                    f(hi * dim + r, lo * dim + c, v);
                }
            }
        }
        // The contact pairs' couplings between distinct nodes (their diagonal
        // sub-blocks are in the node blocks).
        let pb = &self.contact.blocks;
        for p in 0..pb.len() {
            let k = pb.count[p] as usize;
            let (b, n) = (pb.block(p), k * dim);
            for l in 0..k {
                for mm in 0..k {
                    let (i, j) = (pb.nodes[p][l] as usize, pb.nodes[p][mm] as usize);
                    if i <= j {
                        continue;
                    }
                    let zero = m.fixed[i] || m.fixed[j];
                    for r in 0..dim {
                        for c in 0..dim {
                            let v = if zero {
                                0.0
                            } else {
                                b[(l * dim + r) * n + mm * dim + c]
                            };
                            f(i * dim + r, j * dim + c, v);
                        }
                    }
                }
            }
        }
    }

    /// Solves `H p = −∇E` by sparse Cholesky at the current iterate (after
    /// [`CpuBackend::assemble`]); `None` when the factorisation fails.
    pub(super) fn solve_direct(&mut self) -> Option<PcgResult> {
        let n = self.r.len();
        let key: Vec<[u32; 4]> = {
            let pb = &self.contact.blocks;
            (0..pb.len())
                .map(|p| {
                    let mut k = pb.nodes[p];
                    k[pb.count[p] as usize..]
                        .iter_mut()
                        .for_each(|c| *c = u32::MAX);
                    k
                })
                .collect()
        };
        if self.direct.as_ref().is_some_and(|d| d.pair_key != key) {
            self.direct = None;
        }
        if self.direct.is_none() {
            self.direct_analyses += 1;
            let mut pairs = Vec::new();
            self.newton_entries(|row, col, _| pairs.push(Pair { row, col }));
            let (symbolic, argsort) =
                SymbolicSparseColMat::try_new_from_indices(n, n, &pairs).ok()?;
            let llt = SymbolicLlt::try_new(symbolic.as_ref(), Side::Lower).ok()?;
            self.direct = Some(DirectSolver {
                symbolic,
                argsort,
                llt,
                values: Vec::with_capacity(pairs.len()),
                pair_key: key,
            });
        }
        let mut d = self.direct.take()?;
        d.values.clear();
        self.newton_entries(|_, _, v| d.values.push(v));
        let result = (|| {
            let mat =
                SparseColMat::new_from_argsort(d.symbolic.clone(), &d.argsort, &d.values).ok()?;
            let llt = Llt::try_new_with_symbolic(d.llt.clone(), mat.as_ref(), Side::Lower).ok()?;
            self.p.copy_from_slice(&self.r);
            llt.solve_in_place(MatMut::from_column_major_slice_mut(&mut self.p, n, 1));
            Some(PcgResult {
                iterations: 0,
                converged: true,
                relative_residual: 0.0,
            })
        })();
        self.direct = Some(d);
        result
    }
}
