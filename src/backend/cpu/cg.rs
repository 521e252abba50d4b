//! The backend's part of the Newton direction solve; CPU twin of
//! `shaders/kernels/cg.wgsl`: the generic PCG of [`crate::pcg`] on the Newton
//! matrix ([`super::newton_matvec`]) with the block-Jacobi preconditioner
//! ([`BlockJacobi`]) from the assembly, or the sparse direct baseline.

use super::{CpuBackend, LinearSolver};
use crate::pcg::{pcg, BlockJacobi, PcgResult};

impl CpuBackend {
    /// Solves `H p = r` for the Newton direction `p` (m) with the configured linear
    /// solver; needs [`CpuBackend::assemble`] at the current iterate.
    pub(super) fn solve(&mut self) -> PcgResult {
        let s = &self.model.solver;
        let (tol, max_iter) = (s.cg_tolerance, s.cg_max_iterations);
        let direct = match self.linear_solver {
            LinearSolver::Direct => self.solve_direct(),
            LinearSolver::Pcg => None,
        };
        let mut p = std::mem::take(&mut self.p);
        let mut work = std::mem::take(&mut self.work);
        // PCG also stands in should a factorisation ever fail (H is SPD, so it should not).
        let res = direct.unwrap_or_else(|| {
            let preconditioner = BlockJacobi {
                dim: self.model.dim,
                inverse_blocks: &self.preconditioner_blocks,
            };
            pcg(
                &self.operator(),
                &preconditioner,
                &self.r,
                &mut p,
                tol,
                max_iter,
                &mut work,
            )
        });
        self.p = p;
        self.work = work;
        self.last_pcg = Some(res);
        res
    }
}
