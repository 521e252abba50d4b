//! The line search's trials as a device backend keeps them: the first trial at
//! α = min(1, CCD bound) comes back with the direction, and E after an accepted step
//! is E plus that step's ΔE, so neither costs a readback of its own. Used by the GPU
//! backend and by a batched ensemble's variants (`crate::ensemble::member`).

/// The trials of the current direction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Trials {
    /// (α, ΔE) of the first trial, evaluated with the direction.
    speculative: Option<(f64, f64)>,
    /// (α, ΔE) of the latest trial the driver asked for.
    last: Option<(f64, f64)>,
}

impl Trials {
    /// A new step or direction: nothing is known.
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// The direction came with ΔE at `alpha` (J).
    pub fn speculate(&mut self, alpha: f64, de: f64) {
        self.speculative = Some((alpha, de));
    }

    /// Forgets the speculative trial (the direction changed).
    pub fn drop_speculative(&mut self) {
        self.speculative = None;
    }

    /// ΔE at `alpha` where the direction already brought it (then recorded as the
    /// latest trial), else `None`.
    pub fn take(&mut self, alpha: f64) -> Option<f64> {
        match self.speculative.take() {
            Some((a, de)) if a == alpha => {
                self.last = Some((alpha, de));
                Some(de)
            }
            _ => None,
        }
    }

    /// The driver evaluated ΔE at `alpha` (J).
    pub fn record(&mut self, alpha: f64, de: f64) {
        self.last = Some((alpha, de));
    }

    /// The step `alpha` was accepted from E = `current` (J): E after it, where the
    /// latest trial was at that α with a finite ΔE.
    pub fn accepted(&mut self, alpha: f64, current: f64) -> Option<f64> {
        self.speculative = None;
        match self.last.take() {
            Some((a, de)) if a == alpha && de.is_finite() => Some(current + de),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_trial_and_the_energy_after_a_step_come_without_a_readback() {
        let mut t = Trials::default();
        t.speculate(0.5, -2.0);
        assert_eq!(t.take(1.0), None, "another alpha is evaluated");
        t.speculate(0.5, -2.0);
        assert_eq!(t.take(0.5), Some(-2.0));
        assert_eq!(t.accepted(0.5, 10.0), Some(8.0));
        t.record(0.25, f64::INFINITY);
        assert_eq!(t.accepted(0.25, 10.0), None, "inadmissible: E is evaluated");
        t.record(0.25, -1.0);
        assert_eq!(t.accepted(0.125, 10.0), None, "another alpha was accepted");
    }
}
