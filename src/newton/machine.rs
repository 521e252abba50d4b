//! The Newton driver as a state machine: [`Machine`] holds what the solve has learnt,
//! says what it needs next ([`Ask`]), and takes each answer to its next question.
//! [`super::solve`] answers from a [`super::NewtonSystem`] one call at a time; a
//! device that records a whole step ahead needs the same decisions taken where the
//! answers are, and this table of transitions is what its kernels transcribe
//! (DESIGN.md §7: one decision table, two transcriptions).

use super::{tighter, CgTolerance, Direction, NewtonError, NewtonStats, Stall};
use crate::model::{Forcing, SolverParams};

/// What the solve needs next.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ask {
    /// E at the current iterate, which becomes the reference for energy changes.
    Energy,
    /// `p = −H⁻¹ ∇E` at the current iterate, solved to this tolerance.
    Direction(CgTolerance),
    /// The largest α ∈ (0, 1] CCD allows along p.
    CcdBound,
    /// `E(x + α p) − E(x)` for this α.
    EnergyChange(f64),
    /// `x ← x + α p` for this α.
    Advance(f64),
    /// Nothing: the solve has ended ([`Machine::finish`]).
    Done,
}

/// The decisions of one Newton solve (projected Newton with a CCD-capped filter line
/// search; see [`super::solve`] for the rules).
#[derive(Clone, Debug)]
pub struct Machine {
    params: SolverParams,
    stats: NewtonStats,
    /// The last direction.
    dir: Direction,
    /// Whether the last direction meets the stopping rule.
    within: bool,
    /// Whether it met the rule only unproven (solved looser than the floor, its
    /// error bound not small enough).
    unproven: bool,
    /// The line search's current step fraction.
    alpha: f64,
    /// Energy changes evaluated for the current direction.
    trials: u32,
    /// Why the solve failed, where it did.
    error: Option<NewtonError>,
    /// What it needs next.
    ask: Ask,
}

impl Machine {
    /// A solve of one time step with `params`; it first asks for the energy.
    pub fn new(params: &SolverParams) -> Self {
        Self {
            params: params.clone(),
            stats: NewtonStats {
                alpha_min: 1.0,
                ccd_alpha_min: 1.0,
                ..Default::default()
            },
            dir: Direction {
                norm: 0.0,
                cg_iterations: 0,
                cg_converged: true,
                below_resolution: false,
                near_resolution: false,
                cg_tolerance: params.cg_tolerance,
                rhs_norm: 0.0,
                error_bound: f64::INFINITY,
            },
            within: false,
            unproven: false,
            alpha: 1.0,
            trials: 0,
            error: None,
            ask: Ask::Energy,
        }
    }

    /// What the solve needs next.
    pub fn ask(&self) -> Ask {
        self.ask
    }

    /// The direction [`Self::energy`] will ask for next if the energy it is given is
    /// finite (whatever its value), where the machine asks for the energy now: a
    /// system may then compute both at once.
    pub fn direction_after_energy(&self) -> Option<CgTolerance> {
        if self.ask != Ask::Energy {
            return None;
        }
        match self.clone().energy(0.0) {
            Ask::Direction(t) => Some(t),
            _ => None,
        }
    }

    /// The statistics so far.
    pub fn stats(&self) -> &NewtonStats {
        &self.stats
    }

    /// The solve's outcome once [`Self::ask`] is [`Ask::Done`].
    pub fn finish(self) -> Result<NewtonStats, NewtonError> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.stats),
        }
    }

    fn fail(&mut self, why: String) -> Ask {
        self.error = Some(NewtonError(why));
        self.done()
    }

    fn done(&mut self) -> Ask {
        self.ask = Ask::Done;
        self.ask
    }

    fn direction_to(&mut self, tolerance: f64) -> Ask {
        self.ask = Ask::Direction(CgTolerance::Fixed(tolerance));
        self.ask
    }

    /// The same direction solved again tighter (a loose one that met the rule
    /// unproven, or could not be applied).
    fn recompute(&mut self) -> Ask {
        self.stats.recomputed_directions += 1;
        let eta = tighter(&self.dir, &self.params);
        self.direction_to(eta)
    }

    /// The answer to [`Ask::Energy`]: E (J) at the current iterate.
    pub fn energy(&mut self, e: f64) -> Ask {
        let first = self.stats.energies.is_empty();
        if !e.is_finite() {
            return self.fail(match first {
                true => {
                    format!("incremental potential is not finite ({e}) at the start of the step")
                }
                false => format!(
                    "incremental potential is not finite ({e}) after a step of alpha = {}",
                    self.alpha
                ),
            });
        }
        self.stats.energies.push(e);
        let floor = self.params.cg_tolerance;
        let inexact = self.params.forcing.as_run() == Forcing::EisenstatWalker;
        if first {
            self.stats.solve_starts.push(0);
            let start = match inexact {
                true => self.params.forcing_start.max(floor),
                false => floor,
            };
            return self.direction_to(start);
        }
        self.ask = Ask::Direction(match inexact {
            true => CgTolerance::Forcing {
                previous_rhs_norm: self.dir.rhs_norm,
                previous_eta: self.dir.cg_tolerance,
                floor,
                stop_distance: self.params.tolerance * self.params.dt,
            },
            false => CgTolerance::Fixed(floor),
        });
        self.ask
    }

    /// The answer to [`Ask::Direction`]: the direction, and the system's failure (a
    /// resource it cannot get) if it has one.
    pub fn direction(&mut self, dir: Direction, failure: Option<String>) -> Ask {
        if let Some(why) = failure {
            return self.fail(why);
        }
        let p = &self.params;
        let (h, floor) = (p.dt, p.cg_tolerance);
        self.dir = dir;
        self.stats.cg_iterations += dir.cg_iterations as u64;
        self.stats.cg_unconverged += u32::from(!dir.cg_converged);
        if !dir.norm.is_finite() {
            self.stats.stall = Some(Stall::NonFiniteDirection);
            self.stats.residual = dir.norm;
            return self.done();
        }
        self.stats.residual = dir.norm / h;
        self.within = self.stats.residual < p.tolerance;
        // The final-accuracy guard: a loose direction may understate the exact one,
        // so it ends the step only where its error bound proves the exact one would.
        self.unproven = self.within
            && dir.cg_tolerance > floor
            && dir.error_bound.partial_cmp(&(p.tolerance * h - dir.norm))
                != Some(std::cmp::Ordering::Less);
        let ends_here = self.stats.iterations >= p.min_newton_iterations;
        if self.unproven && ends_here {
            return self.recompute();
        }
        // The course's rule would stop before applying a first direction within the
        // tolerance; `min_newton_iterations` applies at least that many.
        if self.within && ends_here {
            self.stats.converged = true;
            return self.done();
        }
        if dir.below_resolution && !self.within {
            self.stats.resolution_limited = true;
            return self.done();
        }
        if self.stats.iterations >= p.max_newton_iterations {
            self.stats.capped = true;
            // no decrease: E ended no lower than the step's first energy
            let e = &self.stats.energies;
            if e.last().zip(e.first()).is_some_and(|(last, e0)| last >= e0) {
                self.stats.stall = Some(Stall::NoDecrease);
            }
            return self.done();
        }
        self.ask = Ask::CcdBound;
        self.ask
    }

    /// The answer to [`Ask::CcdBound`]: the largest α CCD allows along p.
    pub fn ccd_bound(&mut self, alpha_c: f64) -> Ask {
        self.stats.ccd_alpha_min = self.stats.ccd_alpha_min.min(alpha_c);
        if alpha_c.is_nan() || alpha_c <= 0.0 {
            if self.unproven {
                return self.recompute();
            }
            // A direction within the tolerance that cannot be applied is the course's
            // convergence, not a stall.
            self.stats.converged = self.within;
            if !self.within {
                self.stats.stall = Some(Stall::CcdZero);
            }
            return self.done();
        }
        self.alpha = alpha_c;
        self.trials = 0;
        self.ask = Ask::EnergyChange(alpha_c);
        self.ask
    }

    /// The answer to [`Ask::EnergyChange`]: `E(x + α p) − E(x)` (J).
    pub fn energy_change(&mut self, de: f64) -> Ask {
        let alpha = self.alpha;
        if de.is_nan() {
            return self.fail(format!("energy change is NaN at alpha = {alpha}"));
        }
        if de <= 0.0 {
            self.ask = Ask::Advance(alpha);
            return self.ask;
        }
        self.trials += 1;
        // Halving a direction within rounding noise only adds more noise.
        if !self.dir.below_resolution {
            self.alpha *= 0.5;
            self.stats.halvings += 1;
            if self.trials <= self.params.max_line_search_halvings {
                self.ask = Ask::EnergyChange(self.alpha);
                return self.ask;
            }
        }
        if self.unproven {
            return self.recompute();
        }
        self.stats.line_search_failed = true;
        // A direction applied only because of `min_newton_iterations` already met the
        // tolerance: no decrease along it is convergence, not a stall; one within a
        // few ulps of the positions met the backend's precision.
        self.stats.converged = self.within;
        if !self.within {
            if self.dir.near_resolution {
                self.stats.resolution_limited = true;
            } else {
                self.stats.stall = Some(Stall::LineSearch);
            }
        }
        self.done()
    }

    /// The answer to [`Ask::Advance`]: the step was taken.
    pub fn advanced(&mut self) -> Ask {
        self.stats.iterations += 1;
        self.stats.alpha_min = self.stats.alpha_min.min(self.alpha);
        self.ask = Ask::Energy;
        self.ask
    }
}
