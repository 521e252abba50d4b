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
    /// Per node the inverse of H's diagonal block (both backends).
    #[default]
    BlockJacobi,
    /// Multilevel additive Schwarz over Morton-ordered domains ([`crate::mas`]); CPU
    /// backend only for now.
    Mas,
}

impl PreconditionerKind {
    /// The name used in scene files, on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            PreconditionerKind::BlockJacobi => "block_jacobi",
            PreconditionerKind::Mas => "mas",
        }
    }
}
