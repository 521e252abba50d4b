//! The backend-independent Newton driver with CCD-capped filter line search
//! (docs/PHYSICS.md, seeds 001 and 003). A backend supplies the energy, the search
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
    /// Whether p is within [`NEAR_RESOLUTION_ULPS`] units in the last place of the
    /// iterate: there a trial point is only a few representable positions away, the
    /// energies along p are quantised, and a line search that finds no decrease has
    /// met the backend's precision, not a stall.
    pub near_resolution: bool,
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

/// Minimises E by projected Newton with a CCD-capped filter line search:
/// `p = −H⁻¹g`; stop when `|p|/h < tol` after at least `min_newton_iterations`
/// applied directions; `α = α_C`, halve while `E(x + αp) > E(x)`.
///
/// A solve that cannot make progress ends at once with [`NewtonStats::stall`] set:
/// a CCD bound of 0, a line search that finds no decrease, a direction that is not
/// finite, or the iteration cap reached with E no lower than at the start. An energy
/// that is not finite is an error: the state itself is broken.
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
            stats.stall = Some(Stall::NonFiniteDirection);
            stats.residual = dir.norm;
            break;
        }
        stats.residual = dir.norm / h;
        let within_tolerance = stats.residual < params.tolerance;
        // The course's rule stops before applying a first direction that already meets
        // the tolerance, so a body at rest with g·h < tol never falls; by default at
        // least one direction is applied (`min_newton_iterations`).
        if within_tolerance
            && (stats.iterations >= params.min_newton_iterations || dir.below_resolution)
        {
            stats.converged = true;
            break;
        }
        if dir.below_resolution {
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
            alpha *= 0.5;
            stats.halvings += 1;
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
        dir = sys.compute_direction();
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

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
                near_resolution: self.p.abs() <= 16.0 * f32::EPSILON * self.x.abs(),
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

    fn params(tolerance: f64, min_newton_iterations: u32) -> SolverParams {
        SolverParams {
            dt: 1.0,
            tolerance,
            min_newton_iterations,
            max_newton_iterations: 100,
            max_line_search_halvings: 10,
            ..Default::default()
        }
    }

    /// E(x) = ½ (x − a)² in f64 with a CCD bound and a direction that can be broken.
    struct Quadratic {
        x: f64,
        a: f64,
        ccd: f64,
        nan_direction: bool,
        ccd_calls: u32,
    }

    impl Quadratic {
        fn new(x: f64, a: f64) -> Self {
            Self {
                x,
                a,
                ccd: 1.0,
                nan_direction: false,
                ccd_calls: 0,
            }
        }
    }

    impl NewtonSystem for Quadratic {
        fn energy(&mut self) -> f64 {
            0.5 * (self.x - self.a).powi(2)
        }
        fn compute_direction(&mut self) -> Direction {
            let p = if self.nan_direction {
                f64::NAN
            } else {
                self.a - self.x
            };
            Direction {
                norm: p.abs(),
                cg_iterations: 1,
                cg_converged: true,
                below_resolution: false,
                near_resolution: false,
            }
        }
        fn ccd_bound(&mut self) -> f64 {
            self.ccd_calls += 1;
            self.ccd
        }
        fn energy_change(&mut self, alpha: f64) -> f64 {
            let x1 = self.x + alpha * (self.a - self.x);
            0.5 * (x1 - self.a).powi(2) - self.energy()
        }
        fn advance(&mut self, alpha: f64) {
            self.x += alpha * (self.a - self.x);
        }
    }

    #[test]
    fn a_zero_ccd_bound_stalls_the_step_at_once() {
        let mut sys = Quadratic::new(0.0, 1.0);
        sys.ccd = 0.0;
        let stats = solve(&mut sys, &params(1e-6, 1)).unwrap();
        assert_eq!(stats.stall, Some(Stall::CcdZero), "{stats:?}");
        assert!(!stats.converged && !stats.capped);
        // It does not spin: one bound asked for, no iteration taken.
        assert_eq!((sys.ccd_calls, stats.iterations), (1, 0));
        assert_eq!(sys.x, 0.0);
    }

    /// A system whose energy never decreases along its direction (rounding noise).
    struct Noisy {
        near_resolution: bool,
    }

    impl NewtonSystem for Noisy {
        fn energy(&mut self) -> f64 {
            1.0
        }
        fn compute_direction(&mut self) -> Direction {
            Direction {
                norm: 1.0,
                cg_iterations: 1,
                cg_converged: true,
                below_resolution: false,
                near_resolution: self.near_resolution,
            }
        }
        fn ccd_bound(&mut self) -> f64 {
            1.0
        }
        fn energy_change(&mut self, _alpha: f64) -> f64 {
            1e-12
        }
        fn advance(&mut self, _alpha: f64) {}
    }

    #[test]
    fn a_failed_line_search_stalls_unless_the_direction_is_at_the_precision_floor() {
        let stats = solve(
            &mut Noisy {
                near_resolution: false,
            },
            &params(1e-6, 1),
        )
        .unwrap();
        assert_eq!(stats.stall, Some(Stall::LineSearch), "{stats:?}");
        assert!(stats.line_search_failed && !stats.resolution_limited);
        let stats = solve(
            &mut Noisy {
                near_resolution: true,
            },
            &params(1e-6, 1),
        )
        .unwrap();
        assert_eq!(stats.stall, None, "{stats:?}");
        assert!(stats.line_search_failed && stats.resolution_limited && !stats.converged);
    }

    #[test]
    fn a_non_finite_direction_stalls_the_step() {
        let mut sys = Quadratic::new(0.0, 1.0);
        sys.nan_direction = true;
        let stats = solve(&mut sys, &params(1e-6, 1)).unwrap();
        assert_eq!(stats.stall, Some(Stall::NonFiniteDirection), "{stats:?}");
        assert_eq!((sys.ccd_calls, stats.iterations), (0, 0));
    }

    #[test]
    fn the_first_direction_is_applied_unless_the_course_rule_is_asked_for() {
        // |p| = 5e-3 < tol = 1e-2: the course's rule stops before moving.
        let mut course = Quadratic::new(0.0, 5e-3);
        let stats = solve(&mut course, &params(1e-2, 0)).unwrap();
        assert!(stats.converged && stats.iterations == 0, "{stats:?}");
        assert_eq!(course.x, 0.0);
        // The default applies it, then stops.
        let mut default = Quadratic::new(0.0, 5e-3);
        let stats = solve(&mut default, &params(1e-2, 1)).unwrap();
        assert!(stats.converged && stats.iterations == 1, "{stats:?}");
        assert!((default.x - 5e-3).abs() < 1e-15);
        assert_eq!(stats.stall, None);
    }

    #[test]
    fn a_direction_below_the_f32_resolution_ends_the_solve() {
        let params = params(1e-15, 1);
        let mut sys = F32Quadratic {
            x: 3.0,
            p: 0.0,
            a: 1.0 + 1.0 / 3.0,
        };
        let stats = solve(&mut sys, &params).unwrap();
        assert!(stats.resolution_limited && !stats.converged, "{stats:?}");
        assert_eq!(stats.stall, None);
        assert!(stats.iterations <= 2, "{stats:?}");
        assert!((sys.x as f64 - sys.a).abs() <= f32::EPSILON as f64 * sys.a);
        // The stop is reported as such, not as meeting the tolerance.
        assert!(stats.residual > params.tolerance);
    }
}
