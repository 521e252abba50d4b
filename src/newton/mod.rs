//! The backend-independent Newton driver with CCD-capped filter line search
//! (docs/PHYSICS.md, seeds 001 and 003). A backend supplies the energy, the search
//! direction, the CCD bound and the update through [`NewtonSystem`]; this file
//! owns every decision, so the CPU and GPU backends take identical steps.

mod forcing;
mod stats;
#[cfg(test)]
mod tests;

pub use crate::model::Forcing;
use crate::model::SolverParams;
pub use forcing::{
    efolds, eisenstat_walker, CgTolerance, ETA_MAX, GAMMA, MIN_EFOLDS, SAFEGUARD_THRESHOLD,
};
pub use stats::{NewtonError, NewtonStats, Stall};

/// What the driver learns from one search-direction solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Direction {
    /// `max_i Σ_k |p_ik|` (m): the node-wise ∞-norm of p that the stopping rule uses.
    pub norm: f64,
    /// CG iterations of the solve.
    pub cg_iterations: u32,
    /// Whether CG reached its tolerance.
    pub cg_converged: bool,
    /// Whether p is within the rounding noise of the iterate: every coordinate
    /// `|p_ik| ≤ ε max_k |x_ik|` (one unit in the last place, ε = 2⁻²³ in f32), so no further
    /// iteration can make progress in the backend's precision.
    pub below_resolution: bool,
    /// Whether p is within [`NEAR_RESOLUTION_ULPS`] units in the last place of the
    /// iterate: there a trial point is only a few representable positions away, the
    /// energies along p are quantised, and a line search that finds no decrease has
    /// met the backend's precision, not a stall.
    pub near_resolution: bool,
    /// The relative CG tolerance η the solve was asked to reach (`‖r‖ ≤ η ‖b‖`).
    pub cg_tolerance: f64,
    /// ‖b‖₂ = ‖∇E‖₂ (N) at the iterate: the right-hand side's norm (0 when unknown).
    pub rhs_norm: f64,
    /// An upper bound (m) on how far the stopping measure of the exact Newton direction
    /// `−H⁻¹∇E` can lie from [`Self::norm`]: `√d ‖r‖₂ / λ` with λ ≤ λ_min(H) (every free
    /// node's mass, since H − M is PSD-projected); `+∞` where the backend has none.
    pub error_bound: f64,
}

/// How many units in the last place of a node's coordinates a direction may span
/// and still count as [`Direction::near_resolution`]. The f32 GPU's line search fails
/// on directions of 1.4–5.6 ulps in seed 004's 15 m containers (measured); 16 leaves
/// a margin and is still far below any step that moves a body.
pub const NEAR_RESOLUTION_ULPS: f64 = 16.0;

/// The incremental potential E of one time step, as a backend evaluates it.
pub trait NewtonSystem {
    /// E (J) at the current iterate; also makes it the reference for [`Self::energy_change`].
    fn energy(&mut self) -> f64;
    /// Computes and stores `p = −H⁻¹ ∇E` at the current iterate (H PSD-projected),
    /// with CG to the relative tolerance `tolerance` gives for ‖∇E‖.
    fn compute_direction(&mut self, tolerance: CgTolerance) -> Direction;
    /// Largest α ∈ (0, 1] that continuous collision detection allows along p.
    fn ccd_bound(&mut self) -> f64;
    /// `E(x + α p) − E(x)` (J); `+∞` where the trial point is not admissible.
    fn energy_change(&mut self, alpha: f64) -> f64;
    /// Accepts the step: `x ← x + α p`.
    fn advance(&mut self, alpha: f64);
    /// Why the system cannot go on (a resource it cannot get, such as room for the
    /// contact pairs on the device), once; the solve then ends with that error.
    fn failure(&mut self) -> Option<String> {
        None
    }
}

/// Minimises E by projected Newton with a CCD-capped filter line search:
/// `p = −H⁻¹g`; stop when `|p|/h < tol` after at least `min_newton_iterations`
/// applied directions; `α = α_C`, halve while `E(x + αp) > E(x)`.
///
/// A solve that cannot make progress ends at once with [`NewtonStats::stall`] set:
/// a CCD bound of 0, a line search that finds no decrease, a direction that is not
/// finite, or the iteration cap reached with E no lower than at the start. An energy
/// that is not finite is an error: the state itself is broken.
///
/// With `solver.forcing = "eisenstat_walker"` the first direction of the step is
/// solved to `solver.forcing_start` and each later one to the Eisenstat–Walker
/// tolerance. A direction solved looser than `solver.cg_tolerance` that meets the
/// stopping rule ends the step only if its [`Direction::error_bound`] shows that the
/// exact direction meets it too; otherwise it is solved again, tighter (at the latest
/// to `solver.cg_tolerance`), before the rule is applied.
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
    stats.solve_starts.push(0);
    let floor = params.cg_tolerance;
    let inexact = params.forcing.as_run() == Forcing::EisenstatWalker;
    let first = if inexact {
        params.forcing_start.max(floor)
    } else {
        floor
    };
    let mut dir = sys.compute_direction(CgTolerance::Fixed(first));
    loop {
        if let Some(why) = sys.failure() {
            return Err(NewtonError(why));
        }
        stats.cg_iterations += dir.cg_iterations as u64;
        stats.cg_unconverged += u32::from(!dir.cg_converged);
        if !dir.norm.is_finite() {
            stats.stall = Some(Stall::NonFiniteDirection);
            stats.residual = dir.norm;
            break;
        }
        stats.residual = dir.norm / h;
        let within_tolerance = stats.residual < params.tolerance;
        // The final-accuracy guard: a loose direction may understate the exact one,
        // so it ends the step only where its error bound proves the exact one would.
        let unproven = within_tolerance
            && dir.cg_tolerance > floor
            && dir
                .error_bound
                .partial_cmp(&(params.tolerance * h - dir.norm))
                != Some(std::cmp::Ordering::Less);
        let ends_here = stats.iterations >= params.min_newton_iterations;
        if unproven && ends_here {
            stats.recomputed_directions += 1;
            dir = sys.compute_direction(CgTolerance::Fixed(tighter(&dir, params)));
            continue;
        }
        // The course's rule stops before applying a first direction that already meets
        // the tolerance, so a body at rest with g·h < tol never falls; by default at
        // least one direction is applied (`min_newton_iterations`), also one below the
        // backend's resolution (the f32 GPU's at rest): it moves x by an ulp at most,
        // and the iteration counts of both backends then count the same thing.
        if within_tolerance && stats.iterations >= params.min_newton_iterations {
            stats.converged = true;
            break;
        }
        if dir.below_resolution && !within_tolerance {
            stats.resolution_limited = true;
            break;
        }
        if stats.iterations >= params.max_newton_iterations {
            stats.capped = true;
            if stats.energies.last().is_some_and(|&e| e >= e0) {
                stats.stall = Some(Stall::NoDecrease);
            }
            break;
        }
        let alpha_c = sys.ccd_bound();
        stats.ccd_alpha_min = stats.ccd_alpha_min.min(alpha_c);
        if alpha_c.is_nan() || alpha_c <= 0.0 {
            if unproven {
                stats.recomputed_directions += 1;
                dir = sys.compute_direction(CgTolerance::Fixed(tighter(&dir, params)));
                continue;
            }
            // As below: a direction within the tolerance that cannot be applied is
            // the course's convergence, not a stall.
            stats.converged = within_tolerance;
            if !within_tolerance {
                stats.stall = Some(Stall::CcdZero);
            }
            break;
        }
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
            if dir.below_resolution {
                // Halving a direction within rounding noise only adds more noise.
                break;
            }
            alpha *= 0.5;
            stats.halvings += 1;
        }
        if accepted.is_none() && unproven {
            stats.recomputed_directions += 1;
            dir = sys.compute_direction(CgTolerance::Fixed(tighter(&dir, params)));
            continue;
        }
        if accepted.is_none() {
            stats.line_search_failed = true;
            // A direction applied only because of `min_newton_iterations` already met
            // the tolerance: not finding a decrease along it is the course's
            // convergence, not a stall. One within a few ulps of the positions met
            // the backend's precision.
            stats.converged = within_tolerance;
            if !within_tolerance {
                if dir.near_resolution {
                    stats.resolution_limited = true;
                } else {
                    stats.stall = Some(Stall::LineSearch);
                }
            }
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
        let next = if inexact {
            CgTolerance::Forcing {
                previous_rhs_norm: dir.rhs_norm,
                previous_eta: dir.cg_tolerance,
                floor,
                stop_distance: params.tolerance * h,
            }
        } else {
            CgTolerance::Fixed(floor)
        };
        dir = sys.compute_direction(next);
    }
    Ok(stats)
}

/// The tolerance a loose direction that met the stopping rule unproven is solved
/// again to: small enough that its error bound would fit in what the rule leaves
/// (with a factor 2 to spare), at least 10× tighter, at most `solver.cg_tolerance`.
fn tighter(dir: &Direction, params: &SolverParams) -> f64 {
    let reach = params.tolerance * params.dt - dir.norm;
    let needed = 0.5 * reach * dir.cg_tolerance / dir.error_bound;
    let eta = (0.1 * dir.cg_tolerance).min(needed);
    if eta.is_finite() {
        eta.max(params.cg_tolerance)
    } else {
        params.cg_tolerance
    }
}
