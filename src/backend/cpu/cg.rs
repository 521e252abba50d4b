//! The backend's part of the Newton direction solve; CPU twin of
//! `shaders/kernels/cg.wgsl`: the generic PCG of [`crate::pcg`] on the Newton
//! matrix ([`super::newton_matvec`]) with the block-Jacobi preconditioner
//! ([`BlockJacobi`]) from the assembly, the multilevel one ([`crate::mas`]) applied
//! additively or as a V-cycle ([`VCycle`], CPU only), or the sparse direct baseline.

use super::{CpuBackend, LinearSolver};
use crate::mas::{BlockMatrix, VCycle};
use crate::pcg::{pcg, BlockJacobi, PcgResult, Preconditioner};

impl CpuBackend {
    /// Solves `H p = r` for the Newton direction `p` (m) with the configured linear
    /// solver, PCG to the relative residual `tol`; needs [`CpuBackend::assemble`] at
    /// the current iterate.
    pub(super) fn solve(&mut self, tol: f64) -> PcgResult {
        let max_iter = self.model.solver.cg_max_iterations;
        let direct = match self.linear_solver {
            LinearSolver::Direct => self.solve_direct(),
            LinearSolver::Pcg | LinearSolver::Auto => None,
        };
        let mut p = std::mem::take(&mut self.p);
        let mut work = std::mem::take(&mut self.work);
        // PCG also stands in should a factorisation ever fail (H is SPD, so it should not).
        let res = match direct {
            Some(res) => {
                self.direct_solves += 1;
                res
            }
            None => {
                let (res, multilevel) = self.with_preconditioner(|b, pre| {
                    let h = b.block_matrix();
                    pcg(&h, pre, &b.r, &mut p, tol, max_iter, &mut work)
                });
                if multilevel {
                    self.mas_reuse.record(res.iterations, tol);
                }
                res
            }
        };
        self.p = p;
        self.work = work;
        self.last_pcg = Some(res);
        res
    }

    /// Factors the scene's preconditioner at the current assembly where it is due (the
    /// multilevel one, timed into `preconditioner_seconds`, [`crate::mas::reuse`];
    /// block-Jacobi's inverses come with the assembly) and calls `f` with the backend
    /// and it; also says whether the preconditioner was the multilevel one.
    pub(super) fn with_preconditioner<R>(
        &mut self,
        f: impl FnOnce(&Self, &dyn Preconditioner) -> R,
    ) -> (R, bool) {
        // `auto`'s block-Jacobi route leaves the multilevel preconditioner unused.
        let jacobi_route = self
            .switching
            .as_ref()
            .is_some_and(|s| s.route == super::switching::Route::Jacobi);
        let mut mas = if jacobi_route { None } else { self.mas.take() };
        if let Some(mas) = mas.as_mut().filter(|_| self.mas_reuse.factor_now()) {
            let start = std::time::Instant::now();
            mas.factor(&self.block_matrix());
            self.preconditioner_seconds += start.elapsed().as_secs_f64();
        }
        let out = {
            let jacobi = BlockJacobi {
                dim: self.model.dim,
                inverse_blocks: &self.preconditioner_blocks,
            };
            // The V-cycle's levels hold the springs and node blocks only; its
            // residuals must see the same matrix, without the contact pairs'
            // couplings, or the cycle stops being a good approximate inverse.
            let vcycle = match &mas {
                Some(mas) if self.vcycle => Some(VCycle {
                    mas,
                    h: BlockMatrix {
                        pairs: &crate::collision::blocks::NO_PAIRS,
                        ..self.block_matrix()
                    },
                }),
                _ => None,
            };
            let pre: &dyn Preconditioner = match (&mas, &vcycle) {
                (_, Some(v)) => v,
                (Some(m), None) => m,
                (None, None) => &jacobi,
            };
            f(self, pre)
        };
        let multilevel = mas.is_some();
        if multilevel {
            self.mas = mas;
        }
        (out, multilevel)
    }

    /// H as node and spring blocks (the preconditioners read it).
    pub(super) fn block_matrix(&self) -> BlockMatrix<'_> {
        BlockMatrix {
            dim: self.model.dim,
            node_blocks: &self.newton_blocks,
            spring_blocks: &self.spring_hess,
            springs: &self.model.springs,
            adj_offsets: &self.adj_offsets,
            adj_springs: &self.adj_springs,
            adj_nodes: &self.adj_nodes,
            fixed: &self.model.fixed,
            x: &self.x,
            pairs: &self.contact.blocks,
        }
    }
}
