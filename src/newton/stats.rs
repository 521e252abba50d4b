//! What one Newton solve reports: its statistics, why it stalled, and the error of
//! a solve whose state is broken.

use std::fmt;

/// Statistics of one Newton solve (one time step).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NewtonStats {
    /// Accepted Newton iterations.
    pub iterations: u32,
    /// CG iterations over all direction solves of the step.
    pub cg_iterations: u64,
    /// Line-search halvings over the step.
    pub halvings: u32,
    /// Smallest accepted α (1 when no iteration was taken).
    pub alpha_min: f64,
    /// Smallest CCD bound α_C seen (1 when no iteration was taken).
    pub ccd_alpha_min: f64,
    /// Stopping measure `|p| / h` (m/s) at the end.
    pub residual: f64,
    /// Whether the stopping rule was met.
    pub converged: bool,
    /// Whether the line search ran out of halvings (no step was taken then).
    pub line_search_failed: bool,
    /// Whether the solve stopped short of the tolerance because the direction was
    /// below the backend's floating-point resolution ([`super::Direction::below_resolution`]).
    pub resolution_limited: bool,
    /// Loose directions solved again by the final-accuracy guard (inexact Newton).
    pub recomputed_directions: u32,
    /// Direction solves whose CG stopped at its iteration cap.
    pub cg_unconverged: u32,
    /// Whether the solve stopped at `max_newton_iterations` short of its tolerance.
    pub capped: bool,
    /// Why the solve could not make progress, when it could not: the step then ends
    /// where the iterate stands, and the run reports it (see [`Stall`]).
    pub stall: Option<Stall>,
    /// E (J) at the start and after every accepted iteration of every solve of the
    /// step, one solve after another (see [`Self::solves`]).
    pub energies: Vec<f64>,
    /// Where each solve's run of `energies` starts: `[0]` for one solve, one more
    /// entry per friction lagging update (which changes the potential, so E may jump
    /// between runs but never rises within one).
    pub solve_starts: Vec<usize>,
}

impl NewtonStats {
    /// The energies (J) of each solve of the step, in order; each never increasing.
    pub fn solves(&self) -> Vec<&[f64]> {
        let mut ends: Vec<usize> = self.solve_starts.iter().skip(1).copied().collect();
        ends.push(self.energies.len());
        self.solve_starts
            .iter()
            .zip(ends)
            .map(|(&a, b)| &self.energies[a..b])
            .collect()
    }
}

/// Why a Newton solve could make no progress. The driver ends the step at once
/// instead of spinning to the iteration cap; the run counts such steps and does not
/// report success (`summary.json` status `stalled`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stall {
    /// The CCD bound was α = 0: no step along p is known to keep every node off the walls.
    CcdZero,
    /// The line search halved α `max_line_search_halvings` times without a decrease of E.
    LineSearch,
    /// The search direction held NaN or infinity (the state itself is still finite).
    NonFiniteDirection,
    /// `max_newton_iterations` were taken and E ended no lower than it started.
    NoDecrease,
}

impl Stall {
    /// The short name used in `steps.csv` and `summary.json`.
    pub fn code(self) -> &'static str {
        match self {
            Stall::CcdZero => "ccd_zero",
            Stall::LineSearch => "line_search",
            Stall::NonFiniteDirection => "non_finite_direction",
            Stall::NoDecrease => "no_decrease",
        }
    }

    /// What happened, in words.
    pub fn describe(self) -> &'static str {
        match self {
            Stall::CcdZero => "the CCD step bound was 0 (no step along the Newton direction is known to keep every node off the walls)",
            Stall::LineSearch => "the line search found no decrease of the incremental potential",
            Stall::NonFiniteDirection => "the Newton direction held NaN or infinity",
            Stall::NoDecrease => "the Newton iteration cap was reached with no decrease of the incremental potential",
        }
    }
}

impl fmt::Display for Stall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.describe())
    }
}

/// A solve that cannot go on: the state holds NaN or infinity.
#[derive(Clone, Debug, PartialEq)]
pub struct NewtonError(pub String);

impl fmt::Display for NewtonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NewtonError {}
