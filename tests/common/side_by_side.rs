//! The CPU and GPU backends stepped side by side: the GPU holding the invariants and
//! following the f64 reference, with the Newton rule's counts checked.

use super::{assert_energy_never_rises, assert_progress, gpu_backend};
use springsim::scene::Scene;

/// Asserts that a step applied the `min_newton_iterations` directions the rule asks
/// for, unless the line search found no decrease along one that already met the
/// tolerance (then the step converged without it, on either backend).
pub fn assert_applies_the_rule(rec: &springsim::sim::StepRecord, min: u32, label: &str) {
    assert!(
        rec.newton_iterations >= min || (rec.converged && rec.line_search_failed),
        "{label} step {}: {} Newton iterations, fewer than min_newton_iterations = {min} ({} CG)",
        rec.step,
        rec.newton_iterations,
        rec.cg_iterations
    );
}

/// Steps `scene` on the CPU and GPU backends side by side for `steps` steps, checking
/// after every step: no stalled step and no step at the Newton cap on either backend,
/// every GPU step applying the directions `min_newton_iterations` asks for,
/// and on the GPU no NaN, accepted Newton iterates never raise E, every node strictly
/// inside every plane and implicit wall. Returns the largest distance
/// between a node's CPU and GPU positions (m), or `None` when there is no GPU (see
/// [`gpu_backend`]). Both run without contact between bodies: these compare wall
/// contact (`tests/self_contact_scenes.rs` shows that the single-body scenes compared
/// here take the same steps with it on; `tests/gpu_self_contact.rs` compares contact
/// between bodies across the backends).
pub fn gpu_follows_cpu(name: &str, scene: Scene, steps: u64) -> Option<f64> {
    use springsim::backend::cpu::CpuBackend;
    use springsim::compare::node_differences;
    use springsim::sim::Simulation;
    let mut model = scene.model;
    model.self_contact.enabled = false;
    let gpu = gpu_backend(model.clone(), Default::default())?;
    let mut cpu = Simulation::new(Box::new(CpuBackend::new(model.clone())), &model);
    let mut gpu = Simulation::new(Box::new(gpu), &model);
    let mut worst: f64 = 0.0;
    for step in 1..=steps {
        let rc = cpu.step().unwrap();
        let rec = gpu
            .step()
            .unwrap_or_else(|e| panic!("{name} GPU step {step}: {e}"));
        assert_progress(&rc, &format!("{name} CPU"));
        assert_progress(&rec, &format!("{name} GPU"));
        assert_applies_the_rule(
            &rec,
            model.solver.min_newton_iterations,
            &format!("{name} GPU"),
        );
        assert_energy_never_rises(&gpu.last_newton, &format!("{name} step {step}"));
        let xg = gpu.backend().positions();
        assert!(xg.iter().all(|c| c.is_finite()), "{name} step {step}: NaN");
        for (i, p) in xg.chunks(model.dim).enumerate() {
            for (wi, w) in model.walls.iter().enumerate() {
                assert!(
                    w.distance(p) > 0.0,
                    "{name} step {step}: node {i} at or behind wall {wi}"
                );
            }
            for w in &model.implicit_walls {
                assert!(
                    w.distance(p) > 0.0,
                    "{name} step {step}: node {i} at {p:?} left {}",
                    w.label
                );
            }
        }
        assert!(rec.min_wall_distance > 0.0);
        let (max, _) = node_differences(&cpu.backend().positions(), &xg, model.dim);
        worst = worst.max(max);
    }
    eprintln!("{name}: GPU and CPU at most {worst:.3e} m apart over {steps} steps");
    Some(worst)
}
