//! Driven nodes on the CPU backend (docs/SCRIPTED.md): they follow their script
//! exactly where nothing is in the way, stop short of what is and report the lag,
//! never let anything pass through anything, and their work closes the energy
//! balance.

mod common;

use common::drive::{crush, plate, press, scene_2d, square};
use springsim::backend::cpu::CpuBackend;
use springsim::collision::check::intersections;
use springsim::drive::bound::MIN_GAP_DHAT;
use springsim::model::Model;
use springsim::sim::{Simulation, StepRecord};

fn cpu(model: &Model) -> Simulation {
    Simulation::new(Box::new(CpuBackend::new(model.clone())), model)
}

/// Steps `sim` `n` times and calls `each` after each step; no primitive crosses
/// another and no step stalls.
fn run_with(
    model: &Model,
    sim: &mut Simulation,
    n: usize,
    mut each: impl FnMut(&StepRecord, &[f64]),
) -> Vec<StepRecord> {
    (0..n)
        .map(|_| {
            let r = sim.step().unwrap_or_else(|e| panic!("{e}"));
            let x = sim.positions();
            let crossing = intersections(&model.collision, &x);
            assert!(crossing.is_empty(), "step {}: {:?}", r.step, crossing[0]);
            assert!(r.stall.is_none(), "step {} stalled", r.step);
            each(&r, &x);
            r
        })
        .collect()
}

/// [`run_with`], nothing more after each step.
fn run(model: &Model, sim: &mut Simulation, n: usize) -> Vec<StepRecord> {
    run_with(model, sim, n, |_, _| {})
}

/// The largest distance (m) of a driven node from its scripted pose at time `t`.
fn off_script(model: &Model, x: &[f64], t: f64) -> f64 {
    let dim = model.dim;
    let mut worst = 0.0f64;
    for d in &model.drives {
        let mut want = vec![0.0; d.rest.len()];
        assert!(d.targets(dim, t, &mut want));
        for (k, &i) in d.nodes.iter().enumerate() {
            for c in 0..dim {
                worst = worst.max((x[i as usize * dim + c] - want[k * dim + c]).abs());
            }
        }
    }
    worst
}

#[test]
fn a_driven_plate_follows_a_screw_motion_exactly_beside_a_falling_square() {
    let drive = "velocity = [0.5, 0.0]\nangular_velocity = 3.0\nstart = 0.05\nstop = 0.4";
    let model = scene_2d(
        "dt = 0.01",
        &format!(
            "{}{}",
            square("[0.0, 3.0]"),
            plate("plate", "[0.0, 0.0]", drive)
        ),
    );
    let mut sim = cpu(&model);
    run_with(&model, &mut sim, 50, |r, x| {
        assert_eq!(r.drive_lag, 0.0, "step {}", r.step);
        assert!(r.converged, "step {}", r.step);
        let off = off_script(&model, x, r.time);
        assert!(off < 1e-12, "step {}: {off} m off the script", r.step);
    });
    // It moved: half a second of 0.35 s at 0.5 m/s and 3 rad/s.
    let s = &sim.drive_summaries()[0];
    assert_eq!(
        (s.name.as_str(), s.nodes, s.lagged_steps),
        ("plate.drive0", 34, 0)
    );
}

#[test]
fn a_press_driven_into_a_fixed_block_stops_short_and_reports_its_lag() {
    let model = press();
    let mut sim = cpu(&model);
    let records = run(&model, &mut sim, 60);
    let floor = 0.5 * MIN_GAP_DHAT * model.barrier.dhat;
    for r in &records {
        assert!(
            r.min_pair_distance >= floor,
            "step {}: gap {}",
            r.step,
            r.min_pair_distance
        );
    }
    // Free until it reaches the block (0.1 m away at 1 m/s), then blocked: the lag
    // grows by v h = 0.01 m a step.
    assert!(records[..8].iter().all(|r| r.drive_lag == 0.0));
    let last = records.last().unwrap();
    assert!(
        (last.drive_lag - 0.5).abs() < 2e-3,
        "lag {}",
        last.drive_lag
    );
    let s = &sim.drive_summaries()[0];
    assert_eq!(s.first_lagged_step, Some(10));
    assert_eq!(s.lagged_steps, 51);
    let note = s.lag_note().expect("a note on the lag");
    assert!(
        note.contains("press.drive0") && note.contains("step 10"),
        "{note}"
    );
}

#[test]
fn a_crushed_square_stays_intersection_free_and_never_gains_energy_the_plates_did_not_give() {
    let model = crush();
    let mut sim = cpu(&model);
    let e0 = sim.backend().diagnostics().total();
    let records = run(&model, &mut sim, 150);
    // The plates follow their script: the square gives way.
    assert!(records.iter().all(|r| r.drive_lag == 0.0));
    assert!(
        records.iter().any(|r| r.contact_pairs > 20),
        "the plates press on it"
    );
    // Implicit Euler only takes energy out: E_n − E_0 ≤ Σ work, step by step.
    let mut work = 0.0;
    for r in &records {
        work += r.drive_work;
        let gained = r.total - e0;
        assert!(
            gained <= work + 1e-9 * work.abs().max(1.0),
            "step {}: {gained} J > {work} J of work",
            r.step
        );
    }
    // Between the plates it is squeezed to their final gap, 0.74 m.
    let x = sim.positions();
    let ring = (0..81).filter(|i| i % 9 == 0 || i % 9 == 8 || *i < 9 || *i >= 72);
    let between: Vec<f64> = ring
        .filter(|i| x[2 * i].abs() < 0.3)
        .map(|i| x[2 * i + 1])
        .collect();
    let top = between.iter().fold(f64::MIN, |a, &b| a.max(b));
    let bottom = between.iter().fold(f64::MAX, |a, &b| a.min(b));
    assert!(
        top < 0.37 && bottom > -0.37 && top - bottom > 0.70,
        "{bottom}..{top}"
    );
    let (lo, hi) = (0..162)
        .skip(1)
        .step_by(2)
        .fold((f64::MAX, f64::MIN), |(a, b), c| (a.min(x[c]), b.max(x[c])));
    assert!(
        lo > -0.37 && hi < 0.37,
        "every node between the plates: {lo}..{hi}"
    );
}

#[test]
fn the_work_of_a_rigidly_driven_body_is_its_energy_change_and_eulers_damping() {
    // Gravity, no contact, every node driven: W = ΔK + ΔG + ½ Σ m |Δv|² per step.
    let drive = "velocity = [0.3, 0.7]\nangular_velocity = -2.0\nstart = 0.02\nstop = 0.2";
    let model = scene_2d("dt = 0.01", &plate("plate", "[0.0, 0.0]", drive));
    let mut sim = cpu(&model);
    let mut before = sim.backend().diagnostics();
    let mut v0 = sim.velocities();
    for _ in 0..30 {
        let r = sim.step().unwrap();
        let d = sim.backend().diagnostics();
        let v = sim.velocities();
        let damping: f64 = (0..model.num_nodes())
            .map(|i| {
                let dv2: f64 = (0..2).map(|c| (v[2 * i + c] - v0[2 * i + c]).powi(2)).sum();
                0.5 * model.mass[i] * dv2
            })
            .sum();
        let change = d.kinetic - before.kinetic + d.gravity - before.gravity;
        let scale = change.abs().max(damping).max(1e-3);
        assert!(
            (r.drive_work - change - damping).abs() < 1e-8 * scale,
            "step {}: work {} J, ΔK + ΔG {change} J, damping {damping} J",
            r.step,
            r.drive_work
        );
        (before, v0) = (d, v);
    }
}

#[test]
fn targets_set_from_outside_move_fixed_nodes_and_free_nodes_are_refused() {
    let mut text = square("[0.0, 0.0]");
    text.push_str("fixed = [0, 72]\n");
    let model = scene_2d("dt = 0.01", &text);
    let mut sim = cpu(&model);
    let err = sim.set_targets(&model, &[1], &[0.0, 0.0]).unwrap_err();
    assert!(err.contains("node 1 is free"), "{err}");
    let err = sim.set_targets(&model, &[0], &[0.0]).unwrap_err();
    assert!(err.contains("give 2 per node"), "{err}");
    // Pull the bottom corners (nodes 0 and 72 of the 9 × 9, column by column) 5 cm
    // apart over one step.
    sim.set_targets(&model, &[0, 72], &[-0.55, -0.5, 0.55, -0.5])
        .unwrap();
    let r = sim.step().unwrap();
    assert_eq!(r.drive_lag, 0.0);
    let x = sim.positions();
    assert_eq!((x[0], x[1], x[144], x[145]), (-0.55, -0.5, 0.55, -0.5));
    assert!(
        r.drive_work > 0.0,
        "stretching the square takes work: {}",
        r.drive_work
    );
    assert_eq!(sim.drive_summaries()[0].name, "targets");
}
