//! What a device solve leaves in the `newton` buffer: where each figure lies (the
//! twins of the `DN_*`, `W_*` and `R_*` constants of
//! `shaders/kernels/device_newton.wgsl`), and the statistics and outcome it
//! decodes to.

use crate::newton::{NewtonError, NewtonStats, Stall};

/// Entries of each log, energies and CG iterations per direction (`DN_LOG_LEN`).
pub const LOG_LEN: usize = 512;
/// Where the machine's state starts in `newton` (reals; `DN_STATE`).
pub(super) const STATE: usize = 16;
/// Where the wrapper's figures start (`DN_WRAP`).
pub(super) const WRAP: usize = 48;
/// Where the logs start (`DN_LOG`).
pub(super) const LOG: usize = 80;
/// 1 while a direction solve's CG runs (started, not yet checked; `W_RUNNING`).
pub(super) const W_RUNNING: usize = 48;
/// The wrapper's figures the host reads (`W_*` in the kernel file).
pub(super) const W_HOST: usize = 61;
pub(super) const W_CHECKS: usize = 62;
pub(super) const W_CANDIDATES: usize = 63;
pub(super) const W_PAIRS_FOUND: usize = 64;
pub(super) const W_TERMS_FOUND: usize = 65;
/// `W_HOST`: the pair list or the term slots overflowed.
pub(super) const HOST_PAIRS: u32 = 1;
pub(super) const HOST_TERMS: u32 = 2;
/// `W_HOST`: the pair list of the step start's deferred friction lag overflowed.
pub(super) const HOST_START: u32 = 3;
/// The rule: 1 where the step start's friction lag was deferred into this solve's
/// submission (`newton_begin` checks its pair list; `R_START_LAG`).
pub(super) const R_START_LAG: usize = 11;
/// What the deferred lag's broad phases found, before and after the lag.
pub(super) const W_LAG_BEFORE: usize = 56;
pub(super) const W_LAG_AFTER: usize = 57;
/// Where the step's diagnostics land (four result slots of `Lanes`, eight reals
/// each in f64) where the solve also ran the step's end.
pub(super) const DIAG: usize = LOG + 2 * LOG_LEN;
/// Reals of the `newton` buffer.
pub(super) const NEWTON_REALS: usize = DIAG + 32;
/// `W_ENDED`: the step's end and diagnostics ran after the solve.
pub(super) const W_ENDED: usize = 68;

/// The outcome of a device solve as read back (`newton` from [`STATE`]).
pub(super) struct Report<'a>(pub(super) &'a [f64]);

impl Report<'_> {
    pub(super) fn at(&self, i: usize) -> f64 {
        self.0[i - STATE]
    }
    pub(super) fn count(&self, i: usize) -> u32 {
        self.at(i) as u32
    }
    pub(super) fn flag(&self, i: usize) -> bool {
        self.at(i) != 0.0
    }
    pub(super) fn done(&self) -> bool {
        self.count(STATE) == 5
    }
    pub(super) fn log(&self, from: usize, len: u32) -> Vec<f64> {
        let len = (len as usize).min(LOG_LEN);
        (from..from + len).map(|i| self.at(i)).collect()
    }

    /// The statistics and outcome [`crate::newton::solve`] would return.
    pub(super) fn outcome(&self) -> Result<NewtonStats, NewtonError> {
        let s = STATE;
        let energies = self.log(LOG, self.count(s + 15));
        let stall = match self.count(s + 28) {
            1 => Some(Stall::CcdZero),
            2 => Some(Stall::LineSearch),
            3 => Some(Stall::NonFiniteDirection),
            4 => Some(Stall::NoDecrease),
            _ => None,
        };
        let bad = match self.flag(WRAP + 5) {
            true => f64::INFINITY,
            false => self.at(WRAP + 4),
        };
        let alpha = self.at(s + 5);
        match self.count(s + 29) {
            0 => {}
            1 => {
                return Err(NewtonError(format!(
                    "incremental potential is not finite ({bad}) at the start of the step"
                )))
            }
            2 => {
                return Err(NewtonError(format!(
                    "incremental potential is not finite ({bad}) after a step of alpha = {alpha}"
                )))
            }
            3 => {
                return Err(NewtonError(format!(
                    "energy change is NaN at alpha = {alpha}"
                )))
            }
            code => return Err(NewtonError(format!("the device solve failed ({code})"))),
        }
        Ok(NewtonStats {
            iterations: self.count(s + 16),
            cg_iterations: self.count(s + 20) as u64,
            halvings: self.count(s + 17),
            alpha_min: self.at(s + 7),
            ccd_alpha_min: self.at(s + 8),
            residual: self.at(s + 6),
            converged: self.flag(s + 24),
            line_search_failed: self.flag(s + 25),
            resolution_limited: self.flag(s + 26),
            recomputed_directions: self.count(s + 18),
            cg_unconverged: self.count(s + 19),
            capped: self.flag(s + 27),
            stall,
            energies,
            solve_starts: vec![0],
        })
    }
}
