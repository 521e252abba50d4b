//! Whole scenes on the GPU (DESIGN.md §3, tier C): the bundled scenes stepped on both
//! backends side by side, with the GPU holding the invariants (no node at or behind a
//! wall, accepted Newton iterates never raising E, no NaN) and staying within a stated
//! distance of the f64 CPU reference.

mod common;
use springsim::backend::cpu::CpuBackend;
use springsim::backend::gpu::GpuOptions;
use springsim::compare::node_differences;
use springsim::scene;
use springsim::sim::Simulation;

/// Steps `name` for `steps` steps on both backends; returns the largest node distance.
fn side_by_side(name: &str, steps: u64) -> Option<f64> {
    let s = scene::load(&format!("scenes/{name}.toml")).unwrap();
    let model = s.model.clone();
    let gpu = common::gpu_backend(model.clone(), GpuOptions::default())?;
    let mut cpu = Simulation::new(
        Box::new(CpuBackend::new(model.clone())),
        model.solver.clone(),
    );
    let mut gpu = Simulation::new(Box::new(gpu), model.solver.clone());
    let mut worst: f64 = 0.0;
    for step in 1..=steps {
        cpu.step().unwrap();
        let rec = gpu
            .step()
            .unwrap_or_else(|e| panic!("{name} GPU step {step}: {e}"));
        for w in gpu.last_newton.energies.windows(2) {
            assert!(
                w[1] <= w[0],
                "{name} step {step}: accepted iterate raised E {} -> {}",
                w[0],
                w[1]
            );
        }
        let xg = gpu.backend().positions();
        assert!(xg.iter().all(|c| c.is_finite()), "{name} step {step}: NaN");
        for (wi, w) in model.walls.iter().enumerate() {
            for (i, p) in xg.chunks(model.dim).enumerate() {
                assert!(
                    w.distance(p) > 0.0,
                    "{name} step {step}: node {i} at or behind wall {wi}"
                );
            }
        }
        assert!(rec.min_wall_distance > 0.0);
        let (max, _) = node_differences(&cpu.backend().positions(), &xg, model.dim);
        worst = worst.max(max);
    }
    Some(worst)
}

#[test]
fn square_drop_gpu_follows_the_cpu() {
    if let Some(d) = side_by_side("square_drop", 500) {
        assert!(d < 5e-5, "square drop: GPU and CPU {d} m apart");
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
        assert!(d < 1e-3, "balls: GPU and CPU {d} m apart");
    }
}
