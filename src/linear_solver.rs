//! Which linear solver computes the Newton direction `p = −H⁻¹∇E`.

use serde::{Deserialize, Serialize};

/// The Newton direction solver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum LinearSolver {
    /// The one expected faster, step by step (the default): on the CPU backend PCG
    /// or the factorisation by CG counts
    /// ([`crate::backend::cpu::auto_solver::resolve`]); `pcg` on the GPU backend.
    #[default]
    Auto,
    /// Preconditioned conjugate gradients, matrix-free (both backends), with the
    /// scene's preconditioner.
    Pcg,
    /// Sparse Cholesky factorisation of the assembled projected Hessian (`faer`),
    /// CPU backend only: the baseline many users would reach for.
    Direct,
}

impl LinearSolver {
    /// The name used in scene files, on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            LinearSolver::Auto => "auto",
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
    /// the CPU backend `multigrid` from [`multigrid_auto_nodes`] nodes on,
    /// `block_jacobi` below; on the GPU backend whichever of `mas` and
    /// `block_jacobi` the GPU cost model expects faster on the adapter
    /// ([`crate::backend::gpu::auto_choice::gpu_preconditioner`]: on an H200 `mas`
    /// for 2D meshes from about 16,000 nodes, `block_jacobi` elsewhere).
    #[default]
    Auto,
    /// Per node the inverse of H's diagonal block (both backends).
    BlockJacobi,
    /// Multilevel additive Schwarz over Morton-ordered domains ([`crate::mas`] on the
    /// CPU, [`crate::backend::gpu::mas`] on the GPU).
    Mas,
    /// The same levels applied as a symmetric V-cycle ([`crate::mas::VCycle`]):
    /// about three times fewer CG iterations than `mas` (both backends; the GPU's
    /// is [`crate::backend::gpu::mas_cycle`]).
    Multigrid,
}

/// Nodes from which `auto` picks the V-cycle on the CPU backend, by dimension
/// (benchmarks/NOTES.md, AMD EPYC 2 threads, scenes in free fall):
/// - 2D, the square: block-Jacobi is faster at 1,089 nodes (5.2 against 8.4
///   ms/step), about even at 1,681, the V-cycle faster at 2,401 (16.3 against 27.4)
///   and every size above; 2,000 is taken.
/// - 3D, the lattice: block-Jacobi is faster at 9,261 nodes (163 against 204), about
///   even at 29,791 (815 against 769), the V-cycle faster at 103,823 (2.2 against
///   3.0 s); 30,000 is taken. A 3D node costs the V-cycle 2–4× a 2D one (dense
///   48 × 48 and 96 × 96 domains), while block-Jacobi converges faster in a 3D
///   lattice. (Cloth, a sheet in 3D, gains from 4,225 nodes on; it gets the 3D rule.)
pub fn multigrid_auto_nodes(dim: usize) -> usize {
    if dim == 2 {
        2_000
    } else {
        30_000
    }
}

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
    /// resolved (see [`PreconditionerKind::Auto`]), the others as they are. With
    /// `gpu` this is the choice without a device (block-Jacobi); a GPU run resolves
    /// `auto` by the cost model for its adapter instead.
    pub fn resolve(self, nodes: usize, dim: usize, gpu: bool) -> PreconditionerKind {
        match self {
            PreconditionerKind::Auto if !gpu && nodes >= multigrid_auto_nodes(dim) => {
                PreconditionerKind::Multigrid
            }
            PreconditionerKind::Auto => PreconditionerKind::BlockJacobi,
            other => other,
        }
    }
}

#[cfg(test)]
mod auto_tests {
    use super::{multigrid_auto_nodes, PreconditionerKind as K};

    #[test]
    fn auto_takes_the_vcycle_on_large_cpu_scenes_only() {
        assert_eq!(K::default(), K::Auto);
        for dim in [2, 3] {
            let n = multigrid_auto_nodes(dim);
            assert_eq!(K::Auto.resolve(n, dim, false), K::Multigrid);
            assert_eq!(K::Auto.resolve(n - 1, dim, false), K::BlockJacobi);
            assert_eq!(K::Auto.resolve(10 * n, dim, true), K::BlockJacobi);
        }
        assert!(multigrid_auto_nodes(3) > multigrid_auto_nodes(2));
        let n = multigrid_auto_nodes(3);
        for named in [K::BlockJacobi, K::Mas, K::Multigrid] {
            assert_eq!(named.resolve(1, 2, false), named);
            assert_eq!(named.resolve(10 * n, 3, true), named);
        }
    }
}
