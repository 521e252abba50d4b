//! What the device did over a run, as `summary.json` reports it (every figure 0 on
//! the CPU): the host–device round trips and dispatches that bound a GPU step on
//! small scenes, counted the same on lavapipe as on hardware (docs/OUTPUTS.md).

use crate::backend::DeviceCounters;
use serde::{Deserialize, Serialize};

/// The device's part of [`super::summary::Summary`], flattened into it (its keys
/// are top-level keys of `summary.json`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceTotals {
    /// Queue submissions to the device over the run.
    pub device_submissions: u64,
    /// Blocking reads from the device over the run.
    pub device_readbacks: u64,
    /// Device memory held by the scene's buffers (bytes).
    pub device_memory_bytes: u64,
    /// Kernels dispatched over the run.
    #[serde(default)]
    pub device_dispatches: u64,
    /// Dispatches per recorded CG iteration (3 for block-Jacobi's fused form, 5
    /// split; more with a multilevel preconditioner; 0 without CG on the device).
    #[serde(default)]
    pub device_dispatches_per_cg_iteration: f64,
    /// Dispatches of CG iterations recorded past the end of their solve, or of a
    /// solve computed again (their kernels return at once).
    #[serde(default)]
    pub device_empty_dispatches: u64,
    /// Median host time to record one dispatch (µs) over the latest recordings.
    #[serde(default)]
    pub device_record_us_per_dispatch: f64,
}

impl DeviceTotals {
    /// The totals of a backend's counters.
    pub fn of(c: &DeviceCounters) -> Self {
        let per_iteration = match c.cg_iterations_recorded {
            0 => 0.0,
            n => c.cg_dispatches as f64 / n as f64,
        };
        let idle = c
            .cg_iterations_recorded
            .saturating_sub(c.cg_iterations_done);
        Self {
            device_submissions: c.submissions,
            device_readbacks: c.readbacks,
            device_memory_bytes: c.memory_bytes,
            device_dispatches: c.dispatches,
            device_dispatches_per_cg_iteration: per_iteration,
            device_empty_dispatches: (idle as f64 * per_iteration).round() as u64,
            device_record_us_per_dispatch: c.record_ns_per_dispatch as f64 * 1e-3,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per-iteration dispatches and empty ones follow from the CG counts.
    #[test]
    fn totals_from_counters() {
        let c = DeviceCounters {
            submissions: 7,
            readbacks: 6,
            dispatches: 100,
            memory_bytes: 4096,
            cg_iterations_recorded: 12,
            cg_iterations_done: 9,
            cg_dispatches: 36,
            record_ns_per_dispatch: 1500,
        };
        let t = DeviceTotals::of(&c);
        assert_eq!(t.device_dispatches_per_cg_iteration, 3.0);
        assert_eq!(t.device_empty_dispatches, 9);
        assert_eq!(t.device_record_us_per_dispatch, 1.5);
        assert_eq!((t.device_submissions, t.device_readbacks), (7, 6));
        assert_eq!(
            DeviceTotals::of(&DeviceCounters::default()),
            DeviceTotals::default()
        );
    }
}
