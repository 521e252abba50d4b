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
    /// Whether p is within the rounding noise of the iterate: every coordinate
    /// `|p_ik| ≤ ε max_k |x_ik|` (one unit in the last place, ε = 2⁻²³ in f32), so no further
    /// iteration can make progress in the backend's precision.
    pub below_resolution: bool,
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
    /// Whether the solve stopped short of the tolerance because the direction was
    /// below the backend's floating-point resolution ([`Direction::below_resolution`]).
    pub resolution_limited: bool,
    /// Direction solves whose CG stopped at its iteration cap.
    pub cg_unconverged: u32,
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
    stats.solve_starts.push(0);
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
        if dir.below_resolution {
            stats.resolution_limited = true;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Integrator;

    /// E(x) = ½ (x − a)² with x held in f32, like the GPU's positions: Newton can get
    /// no closer to a than rounding allows.
    struct F32Quadratic {
        x: f32,
        p: f32,
        a: f64,
    }

    impl NewtonSystem for F32Quadratic {
        fn energy(&mut self) -> f64 {
            0.5 * (self.x as f64 - self.a).powi(2)
        }
        fn compute_direction(&mut self) -> Direction {
            self.p = (self.a - self.x as f64) as f32;
            Direction {
                norm: self.p.abs() as f64,
                cg_iterations: 1,
                cg_converged: true,
                below_resolution: self.p.abs() <= f32::EPSILON * self.x.abs(),
            }
        }
        fn ccd_bound(&mut self) -> f64 {
            1.0
        }
        fn energy_change(&mut self, alpha: f64) -> f64 {
            let x1 = self.x + (alpha as f32) * self.p;
            0.5 * (x1 as f64 - self.a).powi(2) - self.energy()
        }
        fn advance(&mut self, alpha: f64) {
            self.x += (alpha as f32) * self.p;
        }
    }

    #[test]
    fn a_direction_below_the_f32_resolution_ends_the_solve() {
        let params = SolverParams {
            dt: 1.0,
            integrator: Integrator::ImplicitEuler,
            tolerance: 1e-15,
            max_newton_iterations: 100,
            cg_tolerance: 1e-6,
            cg_max_iterations: 10,
            max_line_search_halvings: 10,
            friction_updates: 0,
        };
        let mut sys = F32Quadratic {
            x: 3.0,
            p: 0.0,
            a: 1.0 + 1.0 / 3.0,
        };
        let stats = solve(&mut sys, &params).unwrap();
        assert!(stats.resolution_limited && !stats.converged, "{stats:?}");
        assert!(stats.iterations <= 2, "{stats:?}");
        assert!((sys.x as f64 - sys.a).abs() <= f32::EPSILON as f64 * sys.a);
        // The stop is reported as such, not as meeting the tolerance.
        assert!(stats.residual > params.tolerance);
    }
}
