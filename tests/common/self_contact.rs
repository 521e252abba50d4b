//! Whole runs that check IPC's promise after every step (the self-contact tests).

use super::{assert_energy_never_rises, assert_progress};
use springsim::scene::Scene;

/// Steps `scene` on the CPU backend (with the scene's linear solver) for `steps`
/// steps and checks after every step that
/// the promise of IPC held: no two collision primitives cross (the exact checker of
/// `springsim::collision::check`), no NaN, no stalled step, no step at the Newton cap,
/// accepted Newton iterates never raise E, no step longer than its CCD bound.
/// Returns the records and the final positions.
pub fn run_intersection_free(
    scene: &Scene,
    steps: u64,
) -> (Vec<springsim::sim::StepRecord>, Vec<f64>) {
    run_checked(scene, steps, false)
}

/// As [`run_intersection_free`]; with `allow_capped`, steps that stop at the Newton
/// cap (not stalled) are accepted and counted instead (a folding body's Newton, issue
/// 26): they are returned in the records' `newton_capped`.
pub fn run_checked(
    scene: &Scene,
    steps: u64,
    allow_capped: bool,
) -> (Vec<springsim::sim::StepRecord>, Vec<f64>) {
    let (records, x, _) = run_checked_each(scene, steps, allow_capped, |_, _| {});
    (records, x)
}

/// As [`run_checked`], calling `each(record, positions)` after every step for the
/// caller's own checks; returns the records, the final positions and velocities.
pub fn run_checked_each(
    scene: &Scene,
    steps: u64,
    allow_capped: bool,
    mut each: impl FnMut(&springsim::sim::StepRecord, &[f64]),
) -> (Vec<springsim::sim::StepRecord>, Vec<f64>, Vec<f64>) {
    use springsim::backend::cpu::CpuBackend;
    use springsim::collision::check::intersections;
    use springsim::sim::Simulation;
    let model = scene.model.clone();
    // The scene's linear solver: `auto` (the default) factors the small ones.
    let backend = CpuBackend::new(model.clone()).with_linear_solver(scene.linear_solver);
    let mut sim = Simulation::new(Box::new(backend), &model);
    let mut records = Vec::new();
    for _ in 0..steps {
        let rec = sim.step().unwrap_or_else(|e| panic!("{}: {e}", scene.name));
        let label = format!("{} step {}", scene.name, rec.step);
        if allow_capped {
            assert!(rec.stall.is_none(), "{label}: stalled ({:?})", rec.stall);
        } else {
            assert_progress(&rec, &scene.name);
        }
        assert_energy_never_rises(&sim.last_newton, &label);
        let x = sim.backend().positions();
        assert!(x.iter().all(|v| v.is_finite()), "{label}: NaN");
        let crossings = intersections(&model.collision, &x);
        assert!(
            crossings.is_empty(),
            "{label}: {} crossing primitives, first {:?}",
            crossings.len(),
            crossings[0]
        );
        assert!(rec.min_pair_distance > 0.0, "{label}: a pair at d = 0");
        assert!(
            rec.alpha_min <= rec.ccd_alpha_min + 1e-15,
            "{label}: step longer than the CCD bound"
        );
        each(&rec, &x);
        records.push(rec);
    }
    let x = sim.backend().positions();
    (records, x, sim.backend().velocities())
}
