//! The backend-independent Newton driver with CCD-capped filter line search
//! (docs/PHYSICS.md, seeds 001 and 003). A backend supplies the energy, the search
//! direction, the CCD bound and the update through [`NewtonSystem`]; this file
//! owns every decision, so the CPU and GPU backends take identical steps.

mod forcing;
mod machine;
mod stats;
#[cfg(test)]
mod tests;

pub use crate::model::Forcing;
use crate::model::SolverParams;
pub use forcing::{
    efolds, eisenstat_walker, CgTolerance, ETA_MAX, GAMMA, MIN_EFOLDS, SAFEGUARD_THRESHOLD,
};
pub use machine::{Ask, Machine};
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
    /// [`Self::energy`], then, where it is finite, [`Self::compute_direction`] to
    /// `tolerance`: what the driver asks next of a finite energy, so a backend may
    /// answer both at once (the GPU in one submission and one read; it may compute
    /// the direction anyway, which the driver then ignores).
    fn energy_and_direction(&mut self, tolerance: CgTolerance) -> (f64, Option<Direction>) {
        let e = self.energy();
        let dir = e.is_finite().then(|| self.compute_direction(tolerance));
        (e, dir)
    }
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
/// The decisions are [`Machine`]'s; this loop asks `sys` what it asks for.
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
    let mut m = Machine::new(params);
    loop {
        match m.ask() {
            Ask::Energy => match m.direction_after_energy() {
                Some(tolerance) => {
                    let (e, dir) = sys.energy_and_direction(tolerance);
                    match (m.energy(e), dir) {
                        (Ask::Direction(_), Some(dir)) => m.direction(dir, sys.failure()),
                        (ask, _) => ask,
                    }
                }
                None => m.energy(sys.energy()),
            },
            Ask::Direction(tolerance) => {
                let dir = sys.compute_direction(tolerance);
                m.direction(dir, sys.failure())
            }
            Ask::CcdBound => m.ccd_bound(sys.ccd_bound()),
            Ask::EnergyChange(alpha) => m.energy_change(sys.energy_change(alpha)),
            Ask::Advance(alpha) => {
                sys.advance(alpha);
                m.advanced()
            }
            Ask::Done => return m.finish(),
        };
    }
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
