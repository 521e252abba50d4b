//! The backend-independent Newton driver with CCD-capped filter line search
//! (DESIGN.md §1, seeds 001 and 003). A backend supplies the energy, the search
//! direction, the CCD bound and the update through [`NewtonSystem`]; this file
//! owns every decision, so the CPU and GPU backends take identical steps.

use crate::model::SolverParams;
use std::fmt;

/// What the driver learns from one search-direction solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Direction {
    /// `max_i Σ_k |p_ik|` (m): the node-wise ∞-norm of p that the stopping rule uses.
    pub norm: f64,
    /// CG iterations of the solve.
    pub cg_iterations: u32,
    /// Whether CG reached its tolerance.
    pub cg_converged: bool,
}

/// The incremental potential E of one time step, as a backend evaluates it.
pub trait NewtonSystem {
    /// E (J) at the current iterate; also makes it the reference for [`Self::energy_change`].
    fn energy(&mut self) -> f64;
    /// Computes and stores `p = −H⁻¹ ∇E` at the current iterate (H PSD-projected).
    fn compute_direction(&mut self) -> Direction;
    /// Largest α ∈ (0, 1] that continuous collision detection allows along p.
    fn ccd_bound(&mut self) -> f64;
    /// `E(x + α p) − E(x)` (J); `+∞` where the trial point is not admissible.
    fn energy_change(&mut self, alpha: f64) -> f64;
    /// Accepts the step: `x ← x + α p`.
    fn advance(&mut self, alpha: f64);
}

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
    /// Direction solves whose CG stopped at its iteration cap.
    pub cg_unconverged: u32,
    /// E (J) at the start and after every accepted iteration; never increasing.
    pub energies: Vec<f64>,
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

/// Minimises E by projected Newton with a CCD-capped filter line search:
/// `p = −H⁻¹g`; stop when `|p|/h < tol`; `α = α_C`, halve while `E(x + αp) > E(x)`.
pub fn solve<S: NewtonSystem + ?Sized>(
    sys: &mut S,
    params: &SolverParams,
) -> Result<NewtonStats, NewtonError> {
    let h = params.dt;
    let mut stats = NewtonStats {
        alpha_min: 1.0,
        ccd_alpha_min: 1.0,
        ..Default::default()
    };
    let e0 = sys.energy();
    if !e0.is_finite() {
        return Err(NewtonError(format!(
            "incremental potential is not finite ({e0}) at the start of the step"
        )));
    }
    stats.energies.push(e0);
    let mut dir = sys.compute_direction();
    loop {
        stats.cg_iterations += dir.cg_iterations as u64;
        stats.cg_unconverged += u32::from(!dir.cg_converged);
        if !dir.norm.is_finite() {
            return Err(NewtonError(format!(
                "search direction is not finite (|p| = {})",
                dir.norm
            )));
        }
        stats.residual = dir.norm / h;
        if stats.residual < params.tolerance {
            stats.converged = true;
            break;
        }
        if stats.iterations >= params.max_newton_iterations {
            break;
        }
        let alpha_c = sys.ccd_bound();
        stats.ccd_alpha_min = stats.ccd_alpha_min.min(alpha_c);
        let mut alpha = alpha_c;
        let mut accepted = None;
        for _ in 0..=params.max_line_search_halvings {
            let de = sys.energy_change(alpha);
            if de.is_nan() {
                return Err(NewtonError(format!(
                    "energy change is NaN at alpha = {alpha}"
                )));
            }
            if de <= 0.0 {
                accepted = Some(alpha);
                break;
            }
            alpha *= 0.5;
            stats.halvings += 1;
        }
        if accepted.is_none() {
            stats.line_search_failed = true;
            break;
        }
        sys.advance(alpha);
        stats.iterations += 1;
        stats.alpha_min = stats.alpha_min.min(alpha);
        let e = sys.energy();
        if !e.is_finite() {
            return Err(NewtonError(format!(
                "incremental potential is not finite ({e}) after a step of alpha = {alpha}"
            )));
        }
        stats.energies.push(e);
        dir = sys.compute_direction();
    }
    Ok(stats)
}
