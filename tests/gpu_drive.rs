//! Driven nodes on the GPU backend (lavapipe in CI): the same drive stage, the same
//! lag and work, and the same crushed square as on the CPU.

mod common;

use common::drive::{crush, press};
use springsim::backend::cpu::CpuBackend;
use springsim::collision::check::intersections;
use springsim::model::Model;
use springsim::sim::Simulation;

/// Steps `model` `steps` times on both backends, the GPU's states checked for
/// intersections; returns the largest position difference (m) and the records'
/// largest lag and work differences.
fn beside(model: &Model, steps: usize) -> Option<(f64, f64, f64)> {
    let g = common::gpu_with_contact(model)?;
    let mut cpu = Simulation::new(Box::new(CpuBackend::new(model.clone())), model);
    let mut gpu = Simulation::new(g, model);
    let (mut lag, mut work) = (0.0f64, 0.0f64);
    for _ in 0..steps {
        let (a, b) = (cpu.step().unwrap(), gpu.step().unwrap());
        let x = gpu.positions();
        assert!(
            intersections(&model.collision, &x).is_empty(),
            "GPU step {}",
            b.step
        );
        lag = lag.max((a.drive_lag - b.drive_lag).abs());
        // A residual at the tolerance may take one more iteration on one backend.
        let (na, nb) = (a.newton_iterations, b.newton_iterations);
        assert!(
            na.abs_diff(nb) <= 1,
            "step {}: {na} and {nb} Newton iterations",
            a.step
        );
        work = work.max((a.drive_work - b.drive_work).abs() / a.drive_work.abs().max(1.0));
    }
    let (xa, xb) = (cpu.positions(), gpu.positions());
    let diff = xa
        .iter()
        .zip(&xb)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    let (sa, sb) = (cpu.drive_summaries(), gpu.drive_summaries());
    for (a, b) in sa.iter().zip(&sb) {
        assert_eq!(a.first_lagged_step, b.first_lagged_step, "{}", a.name);
        assert_eq!(a.lagged_steps, b.lagged_steps, "{}", a.name);
    }
    Some((diff, lag, work))
}

#[test]
fn a_crushed_square_follows_the_cpu_on_the_gpu() {
    // Solved tightly, so that the backends' rounding, not the tolerance, is what
    // differs (each step may stop anywhere within h × tolerance otherwise), up to
    // step 50: as the plates stop (step 60) the squeezed square buckles, and from
    // there a difference of 1e-7 m grows tenfold every two steps.
    let mut model = crush();
    model.solver.tolerance = 1e-6;
    let Some((diff, lag, work)) = beside(&model, 50) else {
        return;
    };
    assert!(diff < 1e-6, "positions differ by {diff} m");
    assert_eq!(lag, 0.0, "nothing is in the plates' way");
    assert!(work < 1e-3, "work differs by {work} (relative)");
}

#[test]
fn a_blocked_press_lags_on_the_gpu_as_on_the_cpu() {
    let Some((diff, lag, _)) = beside(&press(), 30) else {
        return;
    };
    assert!(diff < 1e-6, "positions differ by {diff} m");
    assert!(lag < 1e-6, "lags differ by {lag} m");
}
