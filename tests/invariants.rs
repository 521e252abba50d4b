//! Invariants over whole scenes: no node ever at or behind a wall, accepted Newton
//! iterates never raise the incremental potential, no NaN; the 3D scenes come to rest;
//! Newmark conserves energy where implicit Euler dissipates it.

mod common;
use springsim::backend::cpu::CpuBackend;
use springsim::scene::{self, Scene};
use springsim::sim::{Simulation, StepRecord};

/// Runs `steps` steps, checking the invariants after every one (those of
/// `common::self_contact::run_checked`, intersection-free included, and every node
/// strictly inside every plane wall); returns the records and the final velocities.
fn run_checked(scene: &Scene, steps: u64) -> (Vec<StepRecord>, Vec<f64>) {
    let model = &scene.model;
    let (records, _, v) = common::self_contact::run_checked_each(scene, steps, true, |rec, x| {
        for (wi, w) in model.walls.iter().enumerate() {
            for (i, p) in x.chunks(model.dim).enumerate() {
                assert!(
                    w.distance(p) > 0.0,
                    "{} step {}: node {i} at or behind wall {wi}",
                    scene.name,
                    rec.step
                );
            }
        }
        assert!(rec.min_wall_distance > 0.0);
    });
    (records, v)
}

#[test]
fn square_drop_keeps_the_invariants() {
    let s = scene::load("scenes/square_drop.toml").unwrap();
    let (recs, _) = run_checked(&s, 150);
    assert!(
        recs.iter().any(|r| r.barrier > 0.0),
        "the square must reach the barrier"
    );
    assert!(recs.iter().all(|r| r.converged));
}

/// The largest node speed (m/s) of 3D velocities `v`.
fn max_speed_3d(v: &[f64]) -> f64 {
    v.chunks(3)
        .map(|p| springsim::energy::dot(p, p).sqrt())
        .fold(0.0, f64::max)
}

#[test]
fn lattice_drop_comes_to_rest_without_penetration() {
    let s = scene::load("scenes/lattice_drop.toml").unwrap();
    let (recs, v) = run_checked(&s, 300);
    let last = recs.last().unwrap();
    let speed = max_speed_3d(&v);
    assert!(speed < 1e-2, "lattice still moving at {speed} m/s");
    assert!(
        last.min_wall_distance > 0.0 && last.min_wall_distance < s.model.barrier.dhat,
        "resting on the ground"
    );
}

#[test]
fn cloth_drop_comes_to_rest_without_penetration() {
    let s = scene::load("scenes/cloth_drop.toml").unwrap();
    let (recs, v) = run_checked(&s, 300);
    let speed = max_speed_3d(&v);
    assert!(speed < 1e-2, "cloth still moving at {speed} m/s");
    assert!(
        recs.last().unwrap().min_wall_distance < s.model.barrier.dhat,
        "resting on the walls"
    );
}

fn free_square(integrator: &str) -> Scene {
    // A stretched square vibrating in free space: no walls, no gravity.
    let body = common::grid_body([1.0, 1.0], [3, 3], 100.0, 1e3);
    common::scene(&format!(
        r#"
dimension = 2
[solver]
dt = 0.005
integrator = "{integrator}"
tolerance = 1e-7
cg_tolerance = 1e-10
gravity = [0.0, 0.0]
[contact]
dhat = 0.01
kappa = 1e5
{body}velocity = [0.0, 0.0]
fixed = []
"#
    ))
}

#[test]
fn newmark_conserves_energy_and_euler_dissipates_it() {
    for (integrator, check) in [("newmark", true), ("implicit_euler", false)] {
        let mut s = free_square(integrator);
        // Start stretched by 5 % so the springs vibrate.
        s.model.x0.iter_mut().for_each(|v| *v *= 1.05);
        let (recs, _) = run_checked(&s, 400);
        let e0 = recs[0].total;
        let drift = recs
            .iter()
            .map(|r| (r.total - e0).abs())
            .fold(0.0, f64::max)
            / e0;
        if check {
            assert!(drift < 2e-2, "Newmark energy drift {drift}");
        } else {
            let last = recs.last().unwrap().total;
            assert!(last < 0.5 * e0, "implicit Euler kept {last} of {e0} J");
        }
    }
}

#[test]
fn fixed_nodes_do_not_move() {
    let mut s = common::grid_scene("book", "implicit_euler", "fixed = [0, 3]");
    s.model.solver.tolerance = 1e-4;
    let x0 = s.model.x0.clone();
    let model = s.model.clone();
    let mut sim = Simulation::new(Box::new(CpuBackend::new(model.clone())), &model);
    for _ in 0..50 {
        sim.step().unwrap();
    }
    let x = sim.backend().positions();
    for i in [0usize, 3] {
        assert_eq!(&x[i * 2..i * 2 + 2], &x0[i * 2..i * 2 + 2]);
    }
    assert!(
        (x[2 * 5 + 1] - x0[2 * 5 + 1]).abs() > 1e-3,
        "free nodes hang down"
    );
}
