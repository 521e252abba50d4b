//! The simulation loop's handling of a backend's failures.

use super::*;
use crate::backend::cpu::CpuBackend;
use crate::backend::Diagnostics;
use crate::newton::{CgTolerance, Direction, NewtonSystem};

/// The CPU backend with a failure that appears in the diagnostics of its `at`-th step
/// (what a batch's round that the device cut short looks like after a step's last
/// Newton solve).
struct FailsInDiagnostics {
    inner: CpuBackend,
    steps: u64,
    at: u64,
    failure: Option<String>,
}

impl NewtonSystem for FailsInDiagnostics {
    fn energy(&mut self) -> f64 {
        self.inner.energy()
    }
    fn compute_direction(&mut self, tolerance: CgTolerance) -> Direction {
        self.inner.compute_direction(tolerance)
    }
    fn ccd_bound(&mut self) -> f64 {
        self.inner.ccd_bound()
    }
    fn energy_change(&mut self, alpha: f64) -> f64 {
        self.inner.energy_change(alpha)
    }
    fn advance(&mut self, alpha: f64) {
        self.inner.advance(alpha)
    }
    fn failure(&mut self) -> Option<String> {
        self.failure.take()
    }
}

impl Backend for FailsInDiagnostics {
    fn name(&self) -> &'static str {
        "fails-in-diagnostics"
    }
    fn device(&self) -> String {
        String::new()
    }
    fn begin_step(&mut self) {
        self.inner.begin_step()
    }
    fn end_step(&mut self) {
        self.inner.end_step()
    }
    fn positions(&mut self) -> Vec<f64> {
        self.inner.positions()
    }
    fn velocities(&mut self) -> Vec<f64> {
        self.inner.velocities()
    }
    fn diagnostics(&mut self) -> Diagnostics {
        self.steps += 1;
        if self.steps == self.at {
            self.failure = Some("a round of diagnostics was cut short".into());
        }
        self.inner.diagnostics()
    }
}

/// A failure the backend meets after a step's last solve ends that step with its
/// reason: the last step of a run has no next solve to report it.
#[test]
fn a_failure_met_after_a_step_s_last_solve_ends_that_step() {
    let model = crate::scene::load("square_drop").unwrap().model;
    let backend = FailsInDiagnostics {
        inner: CpuBackend::new(model.clone()),
        steps: 0,
        at: 2,
        failure: None,
    };
    let mut sim = Simulation::new(Box::new(backend), &model);
    assert!(sim.step().is_ok(), "step 1");
    let err = sim.step().expect_err("step 2 fails");
    assert!(err.0.contains("diagnostics was cut short"), "{}", err.0);
}
