//! Moving implicit walls (`walls.N.drive` on a shape or an expression,
//! docs/SCRIPTED.md) on both backends: a turning diamond stirs seed 004's balls and
//! never lets one out (checked against the diamond computed here, not through the
//! library's frames); a frictionless circle that turns does nothing a still one
//! would not; with friction it carries a resting ball up its side; the GPU takes the
//! same steps as the CPU.

mod common;

use springsim::backend::cpu::CpuBackend;
use springsim::model::Model;
use springsim::sim::{Simulation, StepRecord};

const R: f64 = 3.0;
const BALL: f64 = 0.3;
const OMEGA: f64 = 1.0;

fn cpu(model: &Model) -> Simulation {
    Simulation::new(Box::new(CpuBackend::new(model.clone())), model)
}

fn run(sim: &mut Simulation, n: usize) -> Vec<StepRecord> {
    (0..n)
        .map(|_| sim.step().unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

/// Five balls in the diamond |x| + |y| ≤ R turning at OMEGA about the origin.
fn spinning_diamond() -> Model {
    common::scene(&format!(
        "dimension = 2\n[solver]\ndt = 0.005\ntolerance = 1e-3\n[contact]\ndhat = 0.01\nkappa = 1e4\n\
         barrier = \"ipc\"\n[[walls]]\ntype = \"implicit\"\nshape = \"diamond\"\nradius = {R}\n\
         [walls.drive]\nangular_velocity = {OMEGA}\n[[bodies]]\nname = \"balls\"\n\
         generator = \"particle\"\nmass = 1.0\nradius = {BALL}\ncount = 5\nseed = 4\n\
         spread = [2.0, 2.0]\nspeed = 1.0\n"
    ))
    .model
}

/// One ball resting at the bottom of the circle of radius R (friction `mu`), which
/// turns at `omega`.
fn ball_in_circle(omega: f64, mu: f64) -> Model {
    common::scene(&format!(
        "dimension = 2\n[solver]\ndt = 0.005\ntolerance = 1e-6\n[contact]\ndhat = 0.01\nkappa = 1e4\n\
         barrier = \"ipc\"\n[[walls]]\ntype = \"implicit\"\nshape = \"circle\"\nradius = {R}\n\
         friction = {mu}\n[walls.drive]\nangular_velocity = {omega}\n[[bodies]]\nname = \"ball\"\n\
         generator = \"particle\"\nmass = 1.0\nradius = {BALL}\ncenter = [0.0, {}]\n",
        -(R - BALL - 0.02)
    ))
    .model
}

/// `|x| + |y| ≤ R − BALL` in the diamond's own frame at time t: the distance
/// measure of the diamond turned by OMEGA t, written out here.
fn inside_turned_diamond(x: &[f64], t: f64) -> f64 {
    let (c, s) = ((OMEGA * t).cos(), (OMEGA * t).sin());
    let (u, v) = (c * x[0] + s * x[1], -s * x[0] + c * x[1]);
    (R - BALL - u.abs() - v.abs()) / 2f64.sqrt()
}

#[test]
fn a_turning_diamond_stirs_the_balls_and_never_lets_one_out() {
    let model = spinning_diamond();
    let mut sim = cpu(&model);
    let mut kinetic_late = 0.0f64;
    for _ in 0..800 {
        let r = sim.step().unwrap();
        let x = sim.positions();
        for xi in x.chunks_exact(2) {
            let d = inside_turned_diamond(xi, r.time);
            assert!(
                d > 0.0,
                "step {}: a ball at {xi:?} is outside ({d})",
                r.step
            );
        }
        assert_eq!(r.drive_lag, 0.0, "step {}: the wall lagged", r.step);
        assert!(r.total.is_finite() && r.newton_iterations < 50);
        if r.step > 400 {
            kinetic_late = kinetic_late.max(r.kinetic);
        }
    }
    // Resting balls in a still diamond would have no kinetic energy left; the
    // turning faces keep them tumbling, and the script did the work.
    assert!(
        kinetic_late > 1.0,
        "largest kinetic energy late: {kinetic_late} J"
    );
    let s = &sim.drive_summaries()[0];
    assert!(s.work > 10.0 && s.first_lagged_step.is_none(), "{s:?}");
}

#[test]
fn a_frictionless_circle_that_turns_does_what_a_still_one_does() {
    let (still, turning) = (ball_in_circle(0.0, 0.0), ball_in_circle(2.0, 0.0));
    let (mut a, mut b) = (cpu(&still), cpu(&turning));
    let (ra, rb) = (run(&mut a, 200), run(&mut b, 200));
    let diff = common::max_diff(&a.positions(), &b.positions());
    assert!(diff < 1e-6, "positions differ by {diff} m");
    // Its barrier pushes straight out, so the turning does no work either (to the
    // turn's third order: measured along the chord from the point's start, the
    // sagitta alone made 0.26 J).
    let work: f64 = rb.iter().map(|r| r.drive_work.abs()).sum();
    assert!(work < 1e-4, "work {work} J");
    assert!(ra.iter().chain(&rb).all(|r| r.min_wall_distance > 0.0));
}

#[test]
fn a_turning_circle_with_friction_carries_a_ball_up_its_side() {
    let model = ball_in_circle(1.0, 0.5);
    let mut sim = cpu(&model);
    let records = run(&mut sim, 200);
    assert!(records.iter().all(|r| r.min_wall_distance > 0.0));
    // Counter-clockwise: the bottom moves to +x, and carries the ball that way and up.
    let x = sim.positions();
    assert!(x[0] > 0.2, "ball at {x:?}");
    assert!(records[150..].iter().any(|r| r.sticking + r.sliding > 0));
    // A still circle holds it where it is.
    let mut still = cpu(&ball_in_circle(0.0, 0.5));
    run(&mut still, 50);
    assert!(still.positions()[0].abs() < 1e-9);
}

#[test]
fn the_gpu_turns_the_diamond_as_the_cpu_does() {
    let model = spinning_diamond();
    let Some(g) = common::gpu_with_contact(&model) else {
        return;
    };
    let mut cpu = cpu(&model);
    let mut gpu = Simulation::new(g, &model);
    for _ in 0..300 {
        let (a, b) = (cpu.step().unwrap(), gpu.step().unwrap());
        assert_eq!(
            (a.newton_iterations, a.cg_iterations),
            (b.newton_iterations, b.cg_iterations),
            "step {}",
            a.step
        );
        assert!(b.min_wall_distance > 0.0);
    }
    let diff = common::max_diff(&cpu.positions(), &gpu.positions());
    assert!(diff < 1e-8, "positions differ by {diff} m");
}

#[test]
fn a_turning_circle_with_friction_carries_the_ball_on_the_gpu_too() {
    let model = ball_in_circle(1.0, 0.5);
    let Some(g) = common::gpu_with_contact(&model) else {
        return;
    };
    let mut cpu = cpu(&model);
    let mut gpu = Simulation::new(g, &model);
    run(&mut cpu, 100);
    run(&mut gpu, 100);
    let diff = common::max_diff(&cpu.positions(), &gpu.positions());
    assert!(diff < 1e-8, "positions differ by {diff} m");
    assert!(gpu.positions()[0] > 0.05);
}

#[test]
fn the_bundled_cloth_is_carried_round_the_turning_sphere_without_intersecting() {
    let model = springsim::scene::load("cloth_on_turning_sphere")
        .unwrap()
        .model;
    let mut sim = cpu(&model);
    let corner = |x: &[f64]| x[2].atan2(x[0]);
    let start = corner(&model.x0);
    for _ in 0..100 {
        let r = sim.step().unwrap();
        common::assert_progress(&r, "cloth");
        let x = sim.positions();
        let hits = springsim::collision::check::intersections(&model.collision, &x);
        assert!(hits.is_empty(), "step {}: {hits:?}", r.step);
        assert!(r.min_wall_distance > 0.0 && r.drive_lag == 0.0);
    }
    // Turning about +y takes the corner from angle −135° towards −180°.
    let turned = (start - corner(&sim.positions()))
        .to_degrees()
        .rem_euclid(360.0);
    assert!(turned > 30.0, "the cloth's corner turned {turned}°");
}

#[test]
fn wall_drives_refuse_what_they_cannot_do() {
    let plane = "dimension = 2\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e4\n[[walls]]\ntype = \"plane\"\n\
                 point = [0.0, -1.0]\nnormal = [0.0, 1.0]\n[walls.drive]\nangular_velocity = 1.0\n\
                 [[bodies]]\ngenerator = \"particle\"\nmass = 1.0\n";
    let e = springsim::scene::parse(plane, "p.toml", "p").unwrap_err();
    let e = e.to_string();
    assert!(e.contains("walls[0].drive.angular_velocity"), "{e}");
    let implicit = plane
        .replace(
            "type = \"plane\"\npoint = [0.0, -1.0]\nnormal = [0.0, 1.0]",
            "type = \"implicit\"\nshape = \"circle\"\nradius = 2.0",
        )
        .replace(
            "angular_velocity = 1.0",
            "angular_velocity = 1.0\nnodes = [0]",
        );
    let e = springsim::scene::parse(&implicit, "i.toml", "i").unwrap_err();
    assert!(e.to_string().contains("walls[0].drive"), "{e}");
}

#[test]
fn a_turning_wall_never_carries_a_ball_through_a_wall_that_stays() {
    // A shelf (the plane y = −1.6) across the turning diamond: the faces sweep the
    // balls lying on it into it, and whatever the drive stage carries is bounded by
    // the shelf too; a ball caught between them holds the diamond back (it lags).
    let text = format!(
        "dimension = 2\n[solver]\ndt = 0.005\ntolerance = 1e-3\n[contact]\ndhat = 0.01\nkappa = 1e4\n\
         barrier = \"ipc\"\n[[walls]]\ntype = \"plane\"\npoint = [0.0, -1.6]\nnormal = [0.0, 1.0]\n\
         [[walls]]\ntype = \"implicit\"\nshape = \"diamond\"\nradius = {R}\n\
         [walls.drive]\nangular_velocity = {OMEGA}\n[[bodies]]\nname = \"balls\"\n\
         generator = \"particle\"\nmass = 1.0\nradius = {BALL}\ncount = 5\nseed = 4\n\
         spread = [2.0, 2.0]\nspeed = 1.0\n"
    );
    let model = common::scene(&text).model;
    let mut sim = cpu(&model);
    for _ in 0..600 {
        let r = sim.step().unwrap();
        assert!(
            r.min_wall_distance > 0.0,
            "step {}: {}",
            r.step,
            r.min_wall_distance
        );
        for xi in sim.positions().chunks_exact(2) {
            assert!(
                xi[1] > -1.6 + BALL,
                "step {}: a ball at {xi:?} is through the shelf",
                r.step
            );
        }
    }
    assert!(
        sim.drive_summaries()[0].work > 1.0,
        "the faces pushed the balls"
    );
}
