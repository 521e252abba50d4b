//! IPC's twisting stress scenes in mass-spring form (docs/SCRIPTED.md): the bundled
//! rope twisted by its ends until it coils, run to its end with its contacts
//! checked after every step.

mod common;

use springsim::backend::cpu::CpuBackend;
use springsim::sim::Simulation;

#[test]
fn the_bundled_rope_coils_round_itself_without_passing_through() {
    let scene = springsim::scene::load("rope_twist").unwrap();
    let (model, steps) = (scene.model, scene.default_steps.unwrap());
    let mut sim = Simulation::new(Box::new(CpuBackend::new(model.clone())), &model);
    let mut touching = 0;
    for _ in 0..steps {
        let r = sim.step().unwrap();
        common::assert_progress(&r, "rope_twist");
        assert!(
            r.min_pair_distance > 0.0,
            "step {}: {}",
            r.step,
            r.min_pair_distance
        );
        assert!(
            r.drive_lag < 1e-6,
            "step {}: the ends lag by {} m",
            r.step,
            r.drive_lag
        );
        touching += (r.contact_pairs > 0) as u32;
    }
    assert!(
        touching > 100,
        "the rope touched itself in {touching} steps"
    );
    // Coiled: two stations at least 30 cm apart along the rope (2 cm per station,
    // three nodes each) lie within 3 cm of each other.
    let x = sim.positions();
    let node = |i: usize| &x[3 * i..3 * i + 3];
    let mut coiled = false;
    for a in 0..model.num_nodes() {
        for b in a + 45..model.num_nodes() {
            let d2: f64 = node(a)
                .iter()
                .zip(node(b))
                .map(|(p, q)| (p - q).powi(2))
                .sum();
            coiled |= d2 < 0.03f64.powi(2);
        }
    }
    assert!(coiled, "no two far-apart parts of the rope touch");
}
