//! When the additive MAS preconditioner is factored again: at a time step's first
//! Newton direction, and at a later one only where CG has slowed down. Within a step
//! H changes little from one Newton iterate to the next, and the additive form
//! `Σ Pₗ Cₗ Pₗᵀ` stays symmetric positive definite with any SPD domain factors, so
//! a factorisation from an earlier iterate still serves PCG; it costs CG iterations
//! only as far as H has moved. The V-cycle is not reused: its smoother from an
//! earlier H can make the cycle indefinite (measured on the CPU: `square_64` took 30×
//! the CG iterations), so it factors at every direction.
//!
//! Both backends follow the same rule from the same counts, so their CG and Newton
//! counts stay comparable.

use crate::newton::efolds;

/// A direction solved with reused factors whose CG iterations per e-fold of its
/// tolerance exceed this multiple of the first direction's after the factorisation
/// makes the next direction factor again.
pub const SLOWDOWN: f64 = 1.5;

/// The factor-or-reuse decision of one backend's multilevel preconditioner.
#[derive(Clone, Debug, Default)]
pub struct Reuse {
    /// Whether factors may be reused at all (`solver.mas_reuse`, additive MAS only).
    enabled: bool,
    /// Whether the next direction must factor.
    due: bool,
    /// CG iterations per e-fold of the first direction solved with the current
    /// factors; `None` until it is solved.
    fresh_rate: Option<f64>,
    /// Whether the last factorisation has not been followed by a solve yet.
    just_factored: bool,
    /// Factorisations so far.
    pub factorisations: u64,
}

impl Reuse {
    /// A policy that reuses where `enabled`, else factors at every direction.
    pub fn new(enabled: bool) -> Self {
        Self {
            enabled,
            due: true,
            ..Self::default()
        }
    }

    /// A new time step: its first direction factors.
    pub fn begin_step(&mut self) {
        self.due = true;
    }

    /// Whether the direction about to be solved must factor first; if so, counts
    /// the factorisation.
    pub fn factor_now(&mut self) -> bool {
        let now = self.due || !self.enabled;
        if now {
            self.factorisations += 1;
            self.due = false;
            self.fresh_rate = None;
            self.just_factored = true;
        }
        now
    }

    /// Records a solve's CG iterations at relative tolerance `eta`.
    pub fn record(&mut self, cg: u32, eta: f64) {
        let rate = f64::from(cg) / efolds(eta);
        if std::mem::take(&mut self.just_factored) {
            self.fresh_rate = Some(rate);
        } else if self
            .fresh_rate
            .is_some_and(|fresh| rate > SLOWDOWN * fresh.max(1.0))
        {
            self.due = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_once_per_step_while_cg_keeps_its_pace() {
        let mut r = Reuse::new(true);
        for _ in 0..3 {
            r.begin_step();
            assert!(r.factor_now());
            r.record(20, 0.1);
            for _ in 0..4 {
                assert!(!r.factor_now());
                r.record(25, 0.1);
            }
        }
        assert_eq!(r.factorisations, 3);
    }

    #[test]
    fn a_slowed_solve_makes_the_next_direction_factor() {
        let mut r = Reuse::new(true);
        assert!(r.factor_now());
        r.record(20, 0.1);
        assert!(!r.factor_now());
        r.record(31, 0.1); // 1.55× the fresh rate
        assert!(r.factor_now());
        r.record(22, 0.1);
        assert!(!r.factor_now());
        // A looser tolerance with fewer iterations is the same pace, not a slowdown.
        r.record(11, 0.1f64.sqrt());
        assert!(!r.factor_now());
    }

    #[test]
    fn disabled_it_factors_every_direction() {
        let mut r = Reuse::new(false);
        for _ in 0..5 {
            assert!(r.factor_now());
            r.record(10, 0.1);
        }
        assert_eq!(r.factorisations, 5);
    }
}
