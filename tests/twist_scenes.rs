//! IPC's twisting stress scenes in mass-spring form (docs/SCRIPTED.md): the bundled
//! rope twisted by its ends until it coils and the cloth strip wrung two turns at
//! each end, run to their ends with their contacts checked after every step, and
//! the strip's first contacts on the GPU beside the CPU.

mod common;

use springsim::backend::cpu::CpuBackend;
use springsim::collision::check::intersections;
use springsim::sim::{Simulation, StepRecord};

/// Runs bundled scene `name` on the CPU to its end: every step makes progress, its
/// driven ends follow their script, and `check(record, positions)` holds. Returns
/// the model, the final positions (m) and the steps with contact pairs.
fn run_to_end(
    name: &str,
    check: impl Fn(&StepRecord, &[f64]),
) -> (springsim::model::Model, Vec<f64>, u32) {
    let scene = springsim::scene::load(name).unwrap();
    let (model, steps) = (scene.model, scene.default_steps.unwrap());
    let mut sim = Simulation::new(Box::new(CpuBackend::new(model.clone())), &model);
    let mut touching = 0;
    for _ in 0..steps {
        let r = sim.step().unwrap();
        common::assert_progress(&r, name);
        check(&r, &sim.positions());
        assert!(
            r.drive_lag < 1e-6,
            "step {}: the ends lag by {} m",
            r.step,
            r.drive_lag
        );
        touching += (r.contact_pairs > 0) as u32;
    }
    (model, sim.positions(), touching)
}

/// Squared distance (m²) between two points.
fn dist2(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(p, q)| (p - q).powi(2)).sum()
}

#[test]
fn the_bundled_rope_coils_round_itself_without_passing_through() {
    let (model, x, touching) = run_to_end("rope_twist", |r, _| {
        assert!(
            r.min_pair_distance > 0.0,
            "step {}: {}",
            r.step,
            r.min_pair_distance
        );
    });
    assert!(
        touching > 100,
        "the rope touched itself in {touching} steps"
    );
    // Coiled: two stations at least 30 cm apart along the rope (2 cm per station,
    // three nodes each) lie within 3 cm of each other.
    let node = |i: usize| &x[3 * i..3 * i + 3];
    let n = model.num_nodes();
    let coiled = (0..n).any(|a| (a + 45..n).any(|b| dist2(node(a), node(b)) < 0.03f64.powi(2)));
    assert!(coiled, "no two far-apart parts of the rope touch");
}

#[test]
fn the_bundled_strip_wrings_two_turns_each_way_without_intersecting() {
    let collision = springsim::scene::load("strip_twist")
        .unwrap()
        .model
        .collision;
    let (_, x, touching) = run_to_end("strip_twist", |r, x| {
        let hits = intersections(&collision, x);
        assert!(hits.is_empty(), "step {}: {hits:?}", r.step);
    });
    assert!(
        touching > 200,
        "the strip's layers touched in {touching} steps"
    );
    // Two full turns: each end is back where it started, and the strip between is
    // wrung to a fraction of its width (0.2 m) at its middle.
    let middle: Vec<&[f64]> = x.chunks_exact(3).filter(|p| p[0].abs() < 0.02).collect();
    let width = middle
        .iter()
        .flat_map(|a| middle.iter().map(move |b| dist2(a, b)))
        .fold(0.0f64, f64::max)
        .sqrt();
    assert!(width < 0.1, "the middle is {width} m wide");
}

/// The strip buckles where the twist gets to about 1.4 turns between its ends
/// (step ~55): a symmetric strip picks a side, and round-off picks it, so the two
/// backends agree step by step up to there (to 1e-10 m, equal counts) and then go
/// their own ways, each intersection-free.
#[test]
fn the_strip_on_the_gpu_matches_the_cpu_until_it_buckles_and_stays_intersection_free() {
    let model = springsim::scene::load("strip_twist").unwrap().model;
    let Some(g) = common::gpu_with_contact(&model) else {
        return;
    };
    let mut cpu = Simulation::new(Box::new(CpuBackend::new(model.clone())), &model);
    let mut gpu = Simulation::new(g, &model);
    let mut touched = false;
    for step in 1..=130 {
        let b = gpu.step().unwrap();
        let hits = intersections(&model.collision, &gpu.positions());
        assert!(hits.is_empty(), "GPU step {}: {hits:?}", b.step);
        common::assert_progress(&b, "strip_twist on the GPU");
        assert!(b.drive_lag < 1e-6);
        touched |= b.contact_pairs > 0;
        if step <= 50 {
            let a = cpu.step().unwrap();
            let counts = |r: &springsim::sim::StepRecord| (r.newton_iterations, r.cg_iterations);
            assert_eq!(counts(&a), counts(&b), "step {step}");
        }
        if step == 50 {
            let diff = common::max_diff(&cpu.positions(), &gpu.positions());
            assert!(
                diff < 1e-10,
                "positions differ by {diff} m before the buckling"
            );
        }
    }
    assert!(touched, "no contact within 130 steps");
}
