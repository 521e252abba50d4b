//! The restitution law on the GPU backend (lavapipe in CI): the same events, the
//! same corrections and the same bounce as on the CPU.

mod common;

use common::bounce::{body_nodes, centre_velocity, on_ground};
use springsim::backend::cpu::CpuBackend;
use springsim::model::Model;
use springsim::sim::Simulation;

/// Steps `model` on both backends; per step the corrected contacts must agree, and
/// at the end `velocity(v)` on both (m/s) within `tol`.
fn agree(model: &Model, steps: usize, velocity: impl Fn(&[f64]) -> f64, tol: f64) {
    let Some(g) = common::gpu_with_contact(model) else {
        return;
    };
    let mut cpu = Simulation::new(Box::new(CpuBackend::new(model.clone())), model);
    let mut gpu = Simulation::new(g, model);
    let mut corrected = 0;
    for _ in 0..steps {
        let (a, b) = (cpu.step().unwrap(), gpu.step().unwrap());
        assert_eq!(
            a.rebounds, b.rebounds,
            "step {}: corrected contacts",
            a.step
        );
        corrected += a.rebounds;
    }
    assert!(corrected > 0, "no bounce within {steps} steps");
    let (va, vb) = (
        velocity(&cpu.backend().velocities()),
        velocity(&gpu.backend().velocities()),
    );
    eprintln!("after {steps} steps: CPU {va:.6} m/s, GPU {vb:.6} m/s");
    assert!((va - vb).abs() <= tol, "CPU {va} against GPU {vb}");
}

#[test]
fn a_square_bounces_alike_on_both_backends() {
    let m = on_ground(
        2,
        "dt = 1e-3",
        "dhat = 1e-3\nkappa = 1e5\nrestitution = 0.7",
        "",
        "[[bodies]]\ngenerator = \"grid\"\nsize = [0.2, 0.2]\ncells = [4, 4]\n\
         center = [0.0, 0.106]\nvelocity = [0.0, -1.0]\ndensity = 1000.0\n\
         spring_stiffness = 1e7",
    );
    let nodes = body_nodes(&m, 0);
    agree(&m, 40, |v| centre_velocity(&m, v, nodes.clone(), 1), 2e-3);
}

#[test]
fn two_squares_meet_alike_on_both_backends() {
    let square = |x: f64, v: f64, density: f64| {
        format!(
            "[[bodies]]\ngenerator = \"grid\"\nsize = [0.2, 0.2]\ncells = [2, 2]\n\
             center = [{x}, 0.0]\nvelocity = [{v}, 0.0]\ndensity = {density}\n\
             spring_stiffness = 1e8\n"
        )
    };
    let m = common::scene(&format!(
        "dimension = 2\n[solver]\ndt = 1e-3\ngravity = [0.0, 0.0]\n\
         [contact]\ndhat = 1e-3\nkappa = 1e5\nrestitution = 0.5\n{}{}",
        square(-0.11, 1.0, 1000.0),
        square(0.11, -1.0, 3000.0)
    ))
    .model;
    let nodes = body_nodes(&m, 0);
    // Newton's answer for the lighter square: −1.25 m/s.
    agree(&m, 40, |v| centre_velocity(&m, v, nodes.clone(), 0), 2e-3);
}
