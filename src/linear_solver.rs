//! Which linear solver computes the Newton direction `p = −H⁻¹∇E`.

use serde::{Deserialize, Serialize};

/// The Newton direction solver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum LinearSolver {
    /// Block-Jacobi-preconditioned conjugate gradients, matrix-free (both backends).
    #[default]
    Pcg,
    /// Sparse Cholesky factorisation of the assembled projected Hessian (`faer`),
    /// CPU backend only: the baseline many users would reach for.
    Direct,
}

impl LinearSolver {
    /// The name used in scene files, on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            LinearSolver::Pcg => "pcg",
            LinearSolver::Direct => "direct",
        }
    }
}

/// The preconditioner of the PCG direction solve (`[solver] preconditioner`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum PreconditionerKind {
    /// The one measured faster for the scene's size and backend (the default): on
    /// the CPU backend `multigrid` from [`MULTIGRID_AUTO_NODES`] nodes on,
    /// `block_jacobi` below; on the GPU backend `block_jacobi` until a hardware GPU
    /// has timed `mas` (BENCHMARKS.md).
    #[default]
    Auto,
    /// Per node the inverse of H's diagonal block (both backends).
    BlockJacobi,
    /// Multilevel additive Schwarz over Morton-ordered domains ([`crate::mas`] on the
    /// CPU, [`crate::backend::gpu::mas`] on the GPU).
    Mas,
    /// The same levels applied as a symmetric V-cycle ([`crate::mas::VCycle`]):
    /// about three times fewer CG iterations than `mas`; CPU backend only so far.
    Multigrid,
}

/// Nodes from which `auto` picks the V-cycle on the CPU backend. Measured on the
/// square in free fall (BENCHMARKS.md, 2 threads, 20 steps): block-Jacobi is faster
/// at 1,089 nodes (5.4 against 6.4 ms/step), the V-cycle at 2,401 (17.2 against 26.5)
/// and every size above; the crossover lies between, and 2,000 is taken.
pub const MULTIGRID_AUTO_NODES: usize = 2_000;

impl PreconditionerKind {
    /// The name used in scene files, on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            PreconditionerKind::Auto => "auto",
            PreconditionerKind::BlockJacobi => "block_jacobi",
            PreconditionerKind::Mas => "mas",
            PreconditionerKind::Multigrid => "multigrid",
        }
    }

    /// The preconditioner a backend uses for a scene of `nodes` nodes: `auto`
    /// resolved (see [`PreconditionerKind::Auto`]), the others as they are.
    pub fn resolve(self, nodes: usize, gpu: bool) -> PreconditionerKind {
        match self {
            PreconditionerKind::Auto if !gpu && nodes >= MULTIGRID_AUTO_NODES => {
                PreconditionerKind::Multigrid
            }
            PreconditionerKind::Auto => PreconditionerKind::BlockJacobi,
            other => other,
        }
    }
}

#[cfg(test)]
mod auto_tests {
    use super::{PreconditionerKind as K, MULTIGRID_AUTO_NODES as N};

    #[test]
    fn auto_takes_the_vcycle_on_large_cpu_scenes_only() {
        assert_eq!(K::default(), K::Auto);
        assert_eq!(K::Auto.resolve(N, false), K::Multigrid);
        assert_eq!(K::Auto.resolve(N - 1, false), K::BlockJacobi);
        assert_eq!(K::Auto.resolve(10 * N, true), K::BlockJacobi);
        for named in [K::BlockJacobi, K::Mas, K::Multigrid] {
            assert_eq!(named.resolve(1, false), named);
            assert_eq!(named.resolve(10 * N, true), named);
        }
    }
}
