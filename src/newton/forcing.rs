//! Inexact Newton: how tightly each direction's CG solve must go. With
//! Eisenstat–Walker forcing terms (their choice 2) the relative CG tolerance η_k
//! follows the decrease of the gradient norm, so early directions of a step are not
//! solved to the final accuracy; [`super::solve`] re-solves a loose direction that
//! would end the step (its final-accuracy guard). The scene's choice is
//! [`crate::model::Forcing`].

/// γ of Eisenstat–Walker choice 2 (their recommended 0.9).
pub const GAMMA: f64 = 0.9;
/// Largest relative CG tolerance any direction gets.
pub const ETA_MAX: f64 = 0.5;
/// Below this, the safeguard `γ η_{k−1}²` is not applied (Eisenstat–Walker's 0.1).
pub const SAFEGUARD_THRESHOLD: f64 = 0.1;

/// The relative CG tolerance a direction solve must reach: fixed, or a function of
/// the norm of its right-hand side ‖b‖ = ‖∇E‖ (N), which only the backend knows
/// once it has assembled the system.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CgTolerance {
    /// This relative tolerance, whatever ‖b‖ is.
    Fixed(f64),
    /// Eisenstat–Walker choice 2 from the previous direction of the same step.
    Forcing {
        /// ‖g_{k−1}‖ (N), the previous direction's right-hand-side norm.
        previous_rhs_norm: f64,
        /// η_{k−1}, the previous direction's tolerance.
        previous_eta: f64,
        /// The smallest tolerance allowed (`solver.cg_tolerance`).
        floor: f64,
        /// What the stopping rule allows a direction's measure (`tolerance · h`, m): no
        /// direction is solved tighter than a zero direction's certificate needs.
        stop_distance: f64,
    },
}

impl From<f64> for CgTolerance {
    fn from(tolerance: f64) -> Self {
        CgTolerance::Fixed(tolerance)
    }
}

impl CgTolerance {
    /// Whether the tolerance depends on ‖b‖ (a backend must then know ‖b‖ before it
    /// starts iterating).
    pub fn needs_rhs_norm(&self) -> bool {
        matches!(self, CgTolerance::Forcing { .. })
    }

    /// The relative tolerance `‖r‖ ≤ η ‖b‖` for a right-hand side of norm `rhs_norm`
    /// (N), where the backend bounds a direction's error by `error_per_residual · ‖r‖`
    /// (m/N, the factor of [`super::Direction::error_bound`]; `+∞` without a bound).
    ///
    /// Under forcing, the Eisenstat–Walker η, but never tighter than the η at which the
    /// error bound is half of `stop_distance`: a direction solved tighter than that
    /// would be over-solved if it ends the step (the guard accepts it), and the
    /// iterations between matter little if it does not.
    pub fn relative(&self, rhs_norm: f64, error_per_residual: f64) -> f64 {
        match *self {
            CgTolerance::Fixed(t) => t,
            CgTolerance::Forcing {
                previous_rhs_norm,
                previous_eta,
                floor,
                stop_distance,
            } => {
                let ew = eisenstat_walker(rhs_norm, previous_rhs_norm, previous_eta, floor);
                let certified = 0.5 * stop_distance / (error_per_residual * rhs_norm);
                if certified.is_finite() {
                    ew.max(certified.min(ETA_MAX))
                } else {
                    ew
                }
            }
        }
    }
}

/// Eisenstat–Walker choice 2: `η = γ (‖g_k‖/‖g_{k−1}‖)²`, raised to `γ η_{k−1}²` when
/// that safeguard exceeds 0.1, then clamped to `[floor, ETA_MAX]` (a non-finite ratio
/// gives `floor`).
pub fn eisenstat_walker(
    rhs_norm: f64,
    previous_rhs_norm: f64,
    previous_eta: f64,
    floor: f64,
) -> f64 {
    let ratio = rhs_norm / previous_rhs_norm;
    let mut eta = GAMMA * ratio * ratio;
    if !eta.is_finite() {
        return floor;
    }
    let safeguard = GAMMA * previous_eta * previous_eta;
    if safeguard > SAFEGUARD_THRESHOLD {
        eta = eta.max(safeguard);
    }
    eta.clamp(floor, ETA_MAX.max(floor))
}

/// The e-folds of residual reduction a direction asked of CG at relative tolerance
/// `eta`: `ln(1/η)`, at least [`MIN_EFOLDS`]. CG's iterations grow with them at a
/// rate set by the matrix's conditioning, so a route's iterations per e-fold,
/// measured on one step, predict what it would take for another step's
/// tolerances: Eisenstat–Walker asks much (η = 0.1 or tighter) of a step's first
/// directions and little (η near 0.9) of those of a long step, where a body folds
/// (`square_64`: 140 block-Jacobi iterations for the one direction of a free-fall
/// step, 4.5 per direction over the 200 of a fold's step).
pub fn efolds(eta: f64) -> f64 {
    (1.0 / eta).ln().max(MIN_EFOLDS)
}

/// The fewest e-folds a direction counts for (η ≈ 0.95).
pub const MIN_EFOLDS: f64 = 0.05;

#[cfg(test)]
mod tests {
    use super::super::{solve, Direction, NewtonSystem};
    use super::*;
    use crate::model::{Forcing, SolverParams};

    #[test]
    fn eisenstat_walker_follows_the_squared_gradient_ratio_within_its_clamps() {
        // Plain choice 2: 0.9 (0.1)² = 0.009 (safeguard 0.9 · 0.1² = 0.009 ≤ 0.1: off).
        assert!((eisenstat_walker(0.1, 1.0, 0.1, 1e-6) - 0.009).abs() < 1e-15);
        // Safeguard: η_{k−1} = 0.5 gives 0.9 · 0.25 = 0.225 > 0.1, above 0.9 · 0.01.
        assert!((eisenstat_walker(0.1, 1.0, 0.5, 1e-6) - 0.225).abs() < 1e-15);
        // Clamped above at ETA_MAX (gradient growing) and below at the floor.
        assert_eq!(eisenstat_walker(2.0, 1.0, 0.1, 1e-6), ETA_MAX);
        assert_eq!(eisenstat_walker(1e-6, 1.0, 0.1, 1e-6), 1e-6);
        // No previous norm (0) or NaN: the floor, never a looser tolerance.
        assert_eq!(eisenstat_walker(1.0, 0.0, 0.1, 1e-6), 1e-6);
        assert_eq!(eisenstat_walker(f64::NAN, 1.0, 0.1, 1e-6), 1e-6);
        let t = CgTolerance::Forcing {
            previous_rhs_norm: 2.0,
            previous_eta: 0.1,
            floor: 1e-6,
            stop_distance: 1e-3,
        };
        assert!(t.needs_rhs_norm() && !CgTolerance::Fixed(1e-6).needs_rhs_norm());
        // No error bound: Eisenstat–Walker alone.
        assert!((t.relative(1.0, f64::INFINITY) - 0.225).abs() < 1e-15);
        // A bound of 1 m/N · ‖r‖: a zero direction is certified at η = 0.5e-3 / ‖b‖.
        // ‖b‖ = 1: Eisenstat–Walker's 0.225 is looser than 5e-4 and stays.
        assert!((t.relative(1.0, 1.0) - 0.225).abs() < 1e-15);
        // ‖b‖ = 0.1: 0.9 (0.05)² = 2.25e-3 would over-solve; 5e-3 certifies.
        assert!((t.relative(0.1, 1.0) - 5e-3).abs() < 1e-15);
        // ‖b‖ = 1e-3: certified at 0.5 = ETA_MAX, far above the floor EW gives.
        assert!((t.relative(1e-3, 1.0) - ETA_MAX).abs() < 1e-15);
        assert_eq!(CgTolerance::from(1e-3).relative(5.0, 1.0), 1e-3);
    }

    /// E = ½ m (x − a)²: an inexact solve to η returns the step shortened by η (as
    /// CG from zero understates it), with the error bound `η |g| / m` or none.
    struct Loose {
        x: f64,
        a: f64,
        m: f64,
        with_bound: bool,
        etas: Vec<f64>,
        p: f64,
    }

    impl Loose {
        /// x = 0 pulled towards a = 1 by a unit mass, with or without an error bound.
        fn unit(with_bound: bool) -> Self {
            Loose {
                x: 0.0,
                a: 1.0,
                m: 1.0,
                with_bound,
                etas: vec![],
                p: 0.0,
            }
        }
    }

    impl NewtonSystem for Loose {
        fn energy(&mut self) -> f64 {
            0.5 * self.m * (self.x - self.a).powi(2)
        }
        fn compute_direction(&mut self, tolerance: CgTolerance) -> Direction {
            let g = (self.m * (self.x - self.a)).abs();
            let per_residual = if self.with_bound {
                1.0 / self.m
            } else {
                f64::INFINITY
            };
            let eta = tolerance.relative(g, per_residual);
            self.etas.push(eta);
            self.p = (1.0 - eta) * (self.a - self.x);
            Direction {
                norm: self.p.abs(),
                cg_iterations: (1.0 - eta.log10()) as u32,
                cg_converged: true,
                below_resolution: false,
                near_resolution: false,
                cg_tolerance: eta,
                rhs_norm: g,
                error_bound: eta * g * per_residual,
            }
        }
        fn ccd_bound(&mut self) -> f64 {
            1.0
        }
        fn energy_change(&mut self, alpha: f64) -> f64 {
            0.5 * self.m * ((self.x + alpha * self.p - self.a).powi(2) - (self.x - self.a).powi(2))
        }
        fn advance(&mut self, alpha: f64) {
            self.x += alpha * self.p;
        }
    }

    fn params(forcing: Forcing) -> SolverParams {
        SolverParams {
            dt: 1.0,
            tolerance: 0.2,
            forcing,
            forcing_start: 0.4,
            ..Default::default()
        }
    }

    #[test]
    fn a_loose_direction_that_meets_the_rule_is_solved_again_unless_its_bound_proves_it() {
        // Without a bound: the driver must re-solve a passing loose direction, at the
        // latest to cg_tolerance, before it stops.
        let mut s = Loose::unit(false);
        let stats = solve(&mut s, &params(Forcing::EisenstatWalker)).unwrap();
        assert!(stats.converged);
        assert!(stats.recomputed_directions >= 1, "{stats:?}");
        assert_eq!(*s.etas.last().unwrap(), 1e-6, "{:?}", s.etas);
        assert!(s.etas[0] == 0.4 && s.etas[1] < 0.4, "{:?}", s.etas);
        // The exact remaining step is below the tolerance (not only the loose one).
        assert!((s.a - s.x).abs() < 0.2, "x = {}", s.x);
        // With a bound tight enough, no re-solve is needed and the exact step still
        // meets the rule.
        let mut b = Loose::unit(true);
        let sb = solve(&mut b, &params(Forcing::EisenstatWalker)).unwrap();
        assert!(
            sb.converged && (b.a - b.x).abs() < 0.2,
            "{sb:?} x = {}",
            b.x
        );
        assert!(
            sb.cg_iterations < stats.cg_iterations,
            "{sb:?} vs {stats:?}"
        );
        // Fixed forcing: every direction to cg_tolerance, never re-solved.
        let mut f = Loose::unit(false);
        let sf = solve(&mut f, &params(Forcing::Fixed)).unwrap();
        assert!(f.etas.iter().all(|&e| e == 1e-6) && sf.recomputed_directions == 0);
    }
}
