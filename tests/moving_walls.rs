//! Moving plane walls (`walls.N.drive`, docs/SCRIPTED.md) on both backends: a belt
//! carries a box by friction, a rising floor lifts one and does the work, a wall
//! driven into a fixed block stops short and reports its lag.

mod common;

use springsim::backend::cpu::CpuBackend;
use springsim::model::Model;
use springsim::sim::{Simulation, StepRecord};

/// A 4 × 4-cell box (1000 kg) resting on the plane y = −0.51 (its `drive` keys), plus
/// `more` scene text.
fn on_floor(drive: &str, more: &str) -> Model {
    common::scene(&format!(
        "dimension = 2\n[solver]\ndt = 0.01\ntolerance = 1e-4\n[contact]\ndhat = 0.01\nkappa = 1e5\n\
         [[walls]]\ntype = \"plane\"\npoint = [0.0, -0.51]\nnormal = [0.0, 1.0]\nfriction = 0.5\n\
         [walls.drive]\n{drive}\n{more}\
         [[bodies]]\nname = \"box\"\ngenerator = \"grid\"\nsize = [1.0, 1.0]\ncells = [4, 4]\n\
         density = 1000.0\nmaterial_stiffness = 1e6\n"
    ))
    .model
}

fn run(sim: &mut Simulation, n: usize) -> Vec<StepRecord> {
    (0..n)
        .map(|_| sim.step().unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

fn cpu(model: &Model) -> Simulation {
    Simulation::new(Box::new(CpuBackend::new(model.clone())), model)
}

fn mean(v: &[f64], dim: usize, c: usize) -> f64 {
    v.iter().skip(c).step_by(dim).sum::<f64>() / (v.len() / dim) as f64
}

#[test]
fn a_belt_carries_a_box_by_friction() {
    let model = on_floor("velocity = [0.5, 0.0]", "");
    let mut sim = cpu(&model);
    let records = run(&mut sim, 150);
    assert!(records
        .iter()
        .all(|r| r.drive_lag == 0.0 && r.min_wall_distance > 0.0));
    // Carried: over the last second the box moved with the belt, 0.5 m (± its rocking).
    let x = sim.positions();
    let travelled = mean(&x, 2, 0);
    assert!(
        (travelled - 0.75).abs() < 0.05,
        "centroid at {travelled} m after 1.5 s"
    );
    assert!(
        records[140..].iter().all(|r| r.sticking > 0),
        "held by static friction"
    );
    // Without the belt's motion in the slip, nothing would carry it.
    let still = on_floor("velocity = [0.0, 0.0]", "");
    let mut sim = cpu(&still);
    run(&mut sim, 50);
    assert!(mean(&sim.positions(), 2, 0).abs() < 1e-9);
}

#[test]
fn a_rising_floor_lifts_a_box_and_its_work_is_the_energy_it_gave() {
    let model = on_floor(
        "keyframes = [{ time = 0.2 }, { time = 1.2, translate = [0.0, 0.3] }]",
        "",
    );
    let mut sim = cpu(&model);
    let e0 = sim.backend().diagnostics().total();
    let y0 = mean(&sim.positions(), 2, 1);
    let records = run(&mut sim, 200);
    assert!(records
        .iter()
        .all(|r| r.drive_lag == 0.0 && r.min_wall_distance > 0.0));
    let lifted = mean(&sim.positions(), 2, 1) - y0;
    assert!((lifted - 0.3).abs() < 0.01, "lifted by {lifted} m");
    // The floor's work is what the box gained (m g h = 2943 J), less implicit Euler's
    // damping; never less than the gain.
    let work: f64 = records.iter().map(|r| r.drive_work).sum();
    let gained = records.last().unwrap().total - e0;
    assert!(
        work >= gained - 1e-6 && work < 1.05 * gained,
        "work {work} J, gained {gained} J"
    );
    assert!(
        (gained - 1000.0 * 9.81 * 0.3).abs() < 0.05 * 2943.0,
        "gained {gained} J"
    );
}

#[test]
fn a_wall_driven_into_a_fixed_block_stops_short_and_says_so() {
    // The floor rises into a box whose top row is fixed.
    let model = common::scene(
        "dimension = 2\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n\
         [[walls]]\ntype = \"plane\"\npoint = [0.0, -0.6]\nnormal = [0.0, 1.0]\n\
         [walls.drive]\nvelocity = [0.0, 1.0]\n\
         [[bodies]]\ngenerator = \"grid\"\nsize = [1.0, 1.0]\ncells = [4, 4]\n\
         density = 1000.0\nmaterial_stiffness = 1e6\nfixed_where = \"y > -10\"\n",
    )
    .model;
    let mut sim = cpu(&model);
    let records = run(&mut sim, 40);
    let dhat = model.barrier.dhat;
    assert!(records.iter().all(|r| r.min_wall_distance >= 0.5e-3 * dhat));
    assert!(records[..8].iter().all(|r| r.drive_lag == 0.0));
    let last = records.last().unwrap();
    assert!(
        (last.drive_lag - 0.3).abs() < 0.02,
        "lag {}",
        last.drive_lag
    );
    let s = &sim.drive_summaries()[0];
    assert_eq!((s.name.as_str(), s.nodes), ("walls[0]", 0));
    assert!(s.lag_note().unwrap().contains("walls[0]"));
}

#[test]
fn the_gpu_moves_the_walls_as_the_cpu_does() {
    let model = on_floor("velocity = [0.5, 0.0]", "");
    let Some(g) = common::gpu_with_contact(&model) else {
        return;
    };
    let mut gpu = Simulation::new(g, &model);
    let mut cpu = cpu(&model);
    for _ in 0..40 {
        let (a, b) = (cpu.step().unwrap(), gpu.step().unwrap());
        assert_eq!(
            (a.sticking, a.sliding),
            (b.sticking, b.sliding),
            "step {}",
            a.step
        );
    }
    let d = common::max_diff(&cpu.positions(), &gpu.positions());
    assert!(d < 1e-6, "positions differ by {d} m");
}

#[test]
fn a_belts_friction_work_is_its_speed_times_the_momentum_it_gives() {
    // The belt moves at a constant 0.5 m/s and its friction is the only horizontal
    // force on the box, so its work is 0.5 m/s times the box's horizontal momentum.
    let model = on_floor("velocity = [0.5, 0.0]", "");
    let mass: f64 = model.mass.iter().sum();
    let mut sim = cpu(&model);
    let records = run(&mut sim, 150);
    let before = mean(&sim.positions(), 2, 0);
    let last = sim.step().unwrap();
    let speed = (mean(&sim.positions(), 2, 0) - before) / model.solver.dt;
    let work: f64 = records.iter().map(|r| r.drive_work).sum::<f64>() + last.drive_work;
    let momentum = mass * speed;
    assert!(
        (speed - 0.5).abs() < 0.1,
        "the box moves at {speed} m/s (it rocks)"
    );
    // to 1 %: the work uses the friction lagged at the step's start
    assert!(
        (work - 0.5 * momentum).abs() < 1e-2 * work,
        "work {work} J against 0.5 m/s × {momentum} kg m/s"
    );
}
