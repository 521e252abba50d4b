//! Whole scenes on the GPU (ARCHITECTURE.md, tier C of the tests): the bundled scenes stepped on both
//! backends side by side, with the GPU holding the invariants (no node at or behind a
//! wall, accepted Newton iterates never raising E, no NaN) and staying within a stated
//! distance of the f64 CPU reference.

mod common;
use springsim::scene;

/// Steps a bundled scene on both backends (invariants checked on the GPU); returns
/// the largest node distance.
fn side_by_side(name: &str, steps: u64) -> Option<f64> {
    let s = scene::load(&format!("scenes/{name}.toml")).unwrap();
    common::side_by_side::gpu_follows_cpu(name, s, steps)
}

#[test]
fn square_drop_gpu_follows_the_cpu() {
    if let Some(d) = side_by_side("square_drop", 500) {
        assert!(d < 5e-6, "square drop: GPU and CPU {d} m apart");
    }
}

#[test]
fn lattice_drop_gpu_follows_the_cpu() {
    if let Some(d) = side_by_side("lattice_drop", 120) {
        assert!(d < 1e-5, "lattice drop: GPU and CPU {d} m apart");
    }
}

#[test]
fn cloth_drop_gpu_follows_the_cpu() {
    if let Some(d) = side_by_side("cloth_drop", 60) {
        assert!(d < 1e-4, "cloth drop: GPU and CPU {d} m apart");
    }
}

#[test]
fn particle_scene_gpu_follows_the_cpu() {
    if let Some(d) = side_by_side("balls_3d", 200) {
        assert!(d < 5e-5, "balls: GPU and CPU {d} m apart");
    }
}

#[test]
fn square_on_slope_with_friction_gpu_follows_the_cpu() {
    // The slide ends where μ g cos θ − g sin θ (9 % of the friction force) has eaten
    // the landing speed, so a 1 % error in the friction force moves the resting
    // place by about 10 cm: this bound checks the friction path end to end.
    if let Some(d) = side_by_side("square_on_slope", 800) {
        assert!(d < 5e-5, "square on slope: GPU and CPU {d} m apart");
    }
}

#[test]
fn cube_on_slope_with_friction_gpu_follows_the_cpu() {
    if let Some(d) = side_by_side("cube_on_slope", 300) {
        assert!(d < 1e-4, "cube on slope: GPU and CPU {d} m apart");
    }
}

#[test]
fn thrown_block_with_friction_gpu_follows_the_cpu() {
    if let Some(d) = side_by_side("block_thrown", 150) {
        assert!(d < 1e-5, "thrown block: GPU and CPU {d} m apart");
    }
}

/// Issue 25: on the GPU, `lattice_drop` reported 62 Newton iterations over 300 steps
/// against the CPU's 307, 0 on 245 resting steps whose first direction was below the
/// f32 resolution. The rule applies that direction too: through the landing and rest,
/// both backends count the same Newton iterations on (nearly) every step.
#[test]
fn lattice_drop_counts_the_same_newton_iterations_on_both_backends() {
    // every precision mode: mixed once counted 82 against 307 (CG's p and r in f32
    // gave directions at rest that did not lower the f64 energy)
    for precision in springsim::precision::GpuPrecision::ALL {
        lattice_drop_counts_in(precision);
    }
}

fn lattice_drop_counts_in(precision: springsim::precision::GpuPrecision) {
    use springsim::backend::cpu::CpuBackend;
    use springsim::sim::Simulation;
    let mut model = scene::load("scenes/lattice_drop.toml").unwrap().model;
    model.self_contact.enabled = false;
    model.solver.precision = springsim::precision::PrecisionChoice::of(precision);
    let Some(gpu) = common::gpu_backend(model.clone(), Default::default()) else {
        return;
    };
    let label = format!("lattice_drop GPU {}", precision.name());
    let mut cpu = Simulation::new(Box::new(CpuBackend::new(model.clone())), &model);
    let mut gpu = Simulation::new(Box::new(gpu), &model);
    let steps = 300;
    let (mut total_cpu, mut total_gpu, mut differ) = (0u64, 0u64, 0);
    for _ in 0..steps {
        let (rc, rg) = (cpu.step().unwrap(), gpu.step().unwrap());
        common::side_by_side::assert_applies_the_rule(
            &rg,
            model.solver.min_newton_iterations,
            &label,
        );
        total_cpu += u64::from(rc.newton_iterations);
        total_gpu += u64::from(rg.newton_iterations);
        differ += u32::from(rc.newton_iterations != rg.newton_iterations);
        // Counters are outputs too: every direction's CG reached its tolerance on
        // both backends, and both say so.
        assert_eq!(
            (rc.cg_unconverged, rg.cg_unconverged),
            (0, 0),
            "{label}: step {}: directions whose CG stopped short",
            rc.step
        );
    }
    eprintln!("{label}: Newton iterations CPU {total_cpu}, GPU {total_gpu}; {differ} steps differ");
    assert!(total_cpu >= steps, "the CPU applies a direction every step");
    assert!(
        differ <= steps as u32 / 50,
        "{label}: {differ} of {steps} steps count differently"
    );
    assert!(
        total_gpu.abs_diff(total_cpu) * 50 <= total_cpu,
        "{label}: Newton iterations: CPU {total_cpu}, GPU {total_gpu}"
    );
}
