//! `--linear-solver auto`: which direction solver a CPU backend runs ([`resolve`]),
//! and the cost model its step-by-step switching ([`super::switching`]) weighs the
//! routes with, in block-Jacobi CG iterations.
//!
//! A factorisation costs about the same at every Newton iteration; PCG costs its CG
//! iterations, few in free fall or at rest and many where a body crumples or presses
//! into contact, and fewer again where Eisenstat–Walker asks little of a direction.
//! No rule fixed before a run can know which, so the backend measures each route's
//! CG iterations per e-fold of residual reduction as it runs and takes, for each
//! step, the route that would have been cheapest on the last one. Every decision is
//! taken from counts (CG iterations, tolerances, directions, steps), never from
//! clocks, so a run is reproducible.

use super::direct_cost::FactorCost;
use crate::linear_solver::{LinearSolver, PreconditionerKind};
use crate::model::Model;

/// How a backend runs `solver` for `model` ([`AutoChoice`]): `Pcg` and `Direct` as
/// they are; `Auto` is `Pcg` on the GPU (`gpu`), where the scene names a
/// preconditioner (one asks for PCG) and above [`DIRECT_AUTO_MAX_NODES`] nodes, and
/// elsewhere switches between the two by the CG iterations PCG needs, against the
/// estimated cost of one factorisation ([`super::direct_cost::factor_cost`],
/// before contact pairs).
pub fn resolve(solver: LinearSolver, model: &Model, gpu: bool) -> AutoChoice {
    match solver {
        LinearSolver::Pcg => AutoChoice::Pcg,
        LinearSolver::Direct => AutoChoice::Direct,
        LinearSolver::Auto
            if gpu
                || model.solver.preconditioner != PreconditionerKind::Auto
                || model.num_nodes() > DIRECT_AUTO_MAX_NODES =>
        {
            AutoChoice::Pcg
        }
        LinearSolver::Auto => match super::direct_cost::factor_cost(model) {
            Some(factor) => AutoChoice::Switching { factor },
            None => AutoChoice::Pcg,
        },
    }
}

/// What [`resolve`] makes of a solver for one model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AutoChoice {
    /// PCG throughout.
    Pcg,
    /// The sparse factorisation throughout.
    Direct,
    /// Step by step the cheapest of block-Jacobi PCG, V-cycle PCG (where the
    /// preconditioner's `auto` takes it) and the factorisation
    /// ([`super::switching::SwitchingSolver`]).
    Switching {
        /// The estimated cost of one factorisation.
        factor: FactorCost,
    },
}

/// Most nodes for which `--linear-solver auto` considers the direct solver: above
/// it the symbolic analysis alone takes seconds and the factor's memory grows past
/// PCG's (the 1,050,625-node square factors slower than the V-cycle solves,
/// benchmarks/NOTES.md).
pub const DIRECT_AUTO_MAX_NODES: usize = 300_000;

/// Costs below are in block-Jacobi CG iterations (one product with the Newton matrix
/// and one block-Jacobi application), the unit a direction's count comes in. They
/// were fitted to timings of one direction at 1, 33 and 129 CG iterations and of one
/// factorisation, at the initial state of 15 bundled scenes and the shell (AMD EPYC,
/// one thread, 2026-11-26; benchmarks/NOTES.md, "The default linear solver"): a
/// factorisation costs 4–96 block-Jacobi iterations there (ropes 7, square_64 18,
/// cloth_on_sphere 47, the shell 96), the V-cycle's setup 13–56 and each of its
/// iterations 3.3–6.8.
///
/// What one entry of the factor costs, in operations of a CG iteration (per node):
/// the numeric pass's bookkeeping, assembling the sparse matrix, and the two
/// triangular solves touch every entry, where CG touches the Newton matrix's.
pub const FACTOR_ENTRY_WEIGHT: f64 = 12.0;

/// What one estimated operation of a factorisation costs, in operations of a CG
/// iteration: a supernodal factorisation runs dense kernels, CG gathers node blocks
/// from memory. With [`FACTOR_ENTRY_WEIGHT`] a least-squares fit (12.4 and 0.012)
/// over the scenes above 25 nodes; it predicts 14–97 iterations where 14–96 were
/// measured, within 30 % but for square_64 (29 against 18; its factorisation in the
/// fold measured 27, benchmarks/NOTES.md) and cloth_on_sphere (39 against 47).
pub const FACTOR_OPERATION_WEIGHT: f64 = 0.012;

/// A symbolic analysis (the fill-reducing ordering and the factor's pattern, redone
/// wherever the contact pairs changed) in numeric factorisations: measured 0.1–2.9
/// (the 341-node tet_drop's 29 block-Jacobi iterations rise to 32 with a new analysis
/// at every solve, square_64's 22 to 42, the 1,681-node cloth_on_sphere's 23 to 89).
pub const SYMBOLIC_COST: f64 = 1.0;

/// The V-cycle's setup per direction (the Galerkin levels) in block-Jacobi CG
/// iterations (measured 13–56, most near 27).
pub const VCYCLE_SETUP: f64 = 25.0;

/// One V-cycle CG iteration in block-Jacobi CG iterations (measured 3.3–6.8).
pub const VCYCLE_ITERATION: f64 = 4.5;
