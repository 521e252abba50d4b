//! Which linear solver computes the Newton direction `p = −H⁻¹∇E`.

use serde::{Deserialize, Serialize};

/// The Newton direction solver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum LinearSolver {
    /// The one expected faster for the model (the default): on the CPU backend
    /// `direct` where the factorisation is cheap ([`LinearSolver::resolve`]), `pcg`
    /// elsewhere; `pcg` on the GPU backend.
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

    /// How a backend runs `self` for `model` ([`AutoChoice`]): `Pcg` and `Direct` as
    /// they are; `Auto` is `Pcg` on the GPU (`gpu`), where the scene names a
    /// preconditioner (one asks for PCG) and above [`DIRECT_AUTO_MAX_NODES`] nodes,
    /// and elsewhere switches between the two by the CG iterations PCG needs, against
    /// the estimated cost of one factorisation
    /// ([`crate::backend::cpu::direct_cost::factor_flops_per_node`], before contact
    /// pairs).
    pub fn resolve(self, model: &crate::model::Model, gpu: bool) -> AutoChoice {
        match self {
            LinearSolver::Pcg => AutoChoice::Pcg,
            LinearSolver::Direct => AutoChoice::Direct,
            LinearSolver::Auto
                if gpu
                    || model.solver.preconditioner != PreconditionerKind::Auto
                    || model.num_nodes() > DIRECT_AUTO_MAX_NODES =>
            {
                AutoChoice::Pcg
            }
            LinearSolver::Auto => {
                match crate::backend::cpu::direct_cost::factor_flops_per_node(model) {
                    Some(f) => AutoChoice::Switching {
                        factor_flops_per_node: f,
                    },
                    None => AutoChoice::Pcg,
                }
            }
        }
    }
}

/// What [`LinearSolver::resolve`] makes of a solver for one model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AutoChoice {
    /// PCG throughout.
    Pcg,
    /// The sparse factorisation throughout.
    Direct,
    /// PCG while its directions take few CG iterations, the factorisation while they
    /// take many (`crate::backend::cpu::auto_solver`): a factorisation costs about
    /// the same whatever the state, CG's count grows where the body crumples or
    /// presses into contact.
    Switching {
        /// The estimated operations per node of one factorisation.
        factor_flops_per_node: f64,
    },
}

/// Most nodes for which `--linear-solver auto` considers the direct solver: above
/// it the symbolic analysis alone takes seconds and the factor's memory grows past
/// PCG's (the 1,050,625-node square factors slower than the V-cycle solves,
/// BENCHMARKS.md).
pub const DIRECT_AUTO_MAX_NODES: usize = 300_000;

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
    /// about three times fewer CG iterations than `mas`; CPU backend only so far.
    Multigrid,
}

/// Nodes from which `auto` picks the V-cycle on the CPU backend, by dimension
/// (BENCHMARKS.md, AMD EPYC 2 threads, scenes in free fall):
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
    use super::{multigrid_auto_nodes, AutoChoice, LinearSolver as L, PreconditionerKind as K};

    #[test]
    fn auto_switches_by_the_factorisations_estimated_cost() {
        assert_eq!(L::default(), L::Auto);
        let load = |name: &str, cells: &str| {
            let o = crate::scene::Override::parse(&format!("bodies[0].cells={cells}")).unwrap();
            crate::scene::load_with(name, &[o]).unwrap().model
        };
        let flops = |m: &crate::model::Model| match L::Auto.resolve(m, false) {
            AutoChoice::Switching {
                factor_flops_per_node: f,
            } => f,
            other => panic!("{other:?}"),
        };
        // A 2D grid factors with little fill-in, a 3D lattice with much more: per
        // node (2×2 or 3×3 blocks) ~5·10⁴ operations for the 66k-node square, ~4·10⁵
        // for the 1,331-node lattice.
        let square = load("square_64", "[256, 256]");
        let lattice = load("lattice_drop", "[10, 10, 10]");
        let (fs, fl) = (flops(&square), flops(&lattice));
        assert!((2e4..1e5).contains(&fs), "{fs}");
        assert!((2e5..1e6).contains(&fl), "{fl}");
        assert!(flops(&load("lattice_drop", "[4, 4, 4]")) < fl / 10.0);
        assert_eq!(L::Auto.resolve(&square, true), AutoChoice::Pcg, "GPU");
        assert_eq!(L::Pcg.resolve(&square, false), AutoChoice::Pcg);
        let mut named = square.clone();
        named.solver.preconditioner = K::Mas;
        assert_eq!(L::Auto.resolve(&named, false), AutoChoice::Pcg, "MAS named");
        assert_eq!(L::Direct.resolve(&named, false), AutoChoice::Direct);
    }

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
