//! Implicit walls (seed 004) on the CPU, simulated: the three seed containers for 40
//! simulated seconds with no ball leaving, a ball shot into the diamond's corner, the
//! impulse model's energy bound with e = 1, and single particles at a circle's centre
//! or on a `√` kink. (Parser and scene errors: `implicit_parse.rs`; derivatives,
//! intervals and the CCD bound: `implicit_math.rs`.)

mod common;
use common::implicit::{ball_shot_down, one_particle};
use springsim::backend::cpu::CpuBackend;
use springsim::scene;
use springsim::sim::Simulation;

/// The mechanical energy ½ m |v|² − m g·x of each ball.
fn ball_energies(m: &springsim::model::Model, x: &[f64], v: &[f64]) -> Vec<f64> {
    let d = m.dim;
    (0..m.num_nodes())
        .map(|i| {
            let (xi, vi) = (&x[i * d..(i + 1) * d], &v[i * d..(i + 1) * d]);
            let ke: f64 = 0.5 * m.mass[i] * vi.iter().map(|c| c * c).sum::<f64>();
            let pe: f64 = -m.mass[i] * m.gravity.iter().zip(xi).map(|(g, x)| g * x).sum::<f64>();
            ke + pe
        })
        .collect()
}

/// Runs `name` on the CPU for its whole duration; every ball stays inside every step.
/// Returns (total energy at the start, at the end).
fn run_inside(name: &str, steps: Option<u64>) -> (f64, f64) {
    let s = scene::load(&format!("scenes/{name}.toml")).unwrap();
    let m = s.model.clone();
    let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), &m);
    let e0: f64 = ball_energies(&m, &m.x0, &m.v0).iter().sum();
    let steps = steps.or(s.default_steps).unwrap();
    for step in 1..=steps {
        sim.step()
            .unwrap_or_else(|e| panic!("{name} step {step}: {e}"));
        let x = sim.backend().positions();
        for (i, p) in x.chunks(m.dim).enumerate() {
            for w in &m.implicit_walls {
                // W here already has the ball radius subtracted: the ball's surface is inside
                assert!(
                    w.distance(p) > 0.0,
                    "{name} step {step}: ball {i} at {p:?} left {}",
                    w.label
                );
            }
        }
    }
    let (x, v) = (sim.backend().positions(), sim.backend().velocities());
    (e0, ball_energies(&m, &x, &v).iter().sum())
}

#[test]
fn seed_containers_hold_their_balls_for_40_seconds_with_ipc() {
    for name in ["circle_balls", "diamond_balls", "sextic_balls"] {
        let (e0, e1) = run_inside(name, None);
        // heights measured from y = −15 m, the bottom of every container
        let base = 5.0 * 9.8 * 15.0;
        eprintln!(
            "{name}: IPC mechanical energy {:.3} J -> {:.3} J after 40 s ({:.1} % lost)",
            e0 + base,
            e1 + base,
            100.0 * (e0 - e1) / (e0 + base)
        );
        assert!(
            e1 <= e0 + 1e-6,
            "{name}: IPC with implicit Euler gained energy"
        );
    }
    // the circle's geometry, checked without the distance measure
    let s = scene::load("scenes/circle_balls.toml").unwrap();
    let m = s.model.clone();
    let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), &m);
    for _ in 0..5000 {
        sim.step().unwrap();
        for p in sim.backend().positions().chunks(2) {
            assert!((p[0] * p[0] + p[1] * p[1]).sqrt() < 15.0 - 0.3);
        }
    }
}

/// A ball shot straight at the diamond's bottom corner (a non-differentiable point of
/// `15 − |x| − |y|`, written as a user expression so the corner stays a kink).
#[test]
fn ball_shot_into_the_diamond_corner_stays_inside() {
    for (wall, label) in [
        ("type = \"implicit\"\nexpression = \"(15 - abs(x) - abs(y)) / sqrt(2)\"\ninside = \"positive\"", "expression"),
        ("type = \"implicit\"\nshape = \"diamond\"\nradius = 15.0", "shape"),
    ] {
        let s = common::scene(&ball_shot_down(wall, "[0.0, -10.0]"));
        let m = s.model.clone();
        let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), &m);
        let mut lowest = 0.0f64;
        for step in 1..=1500 {
            sim.step().unwrap_or_else(|e| panic!("{label} step {step}: {e}"));
            let p = sim.backend().positions();
            lowest = lowest.min(p[1]);
            assert!(p[0].abs() + p[1].abs() < 15.0 - 0.3 * 2f64.sqrt(), "{label} step {step}: {p:?}");
        }
        // it reached the corner region: the vertex of the ball-centre diamond is at y = −14.58
        assert!(lowest < -14.0, "{label}: lowest {lowest}");
    }
}

#[test]
fn impulse_model_keeps_each_balls_energy_within_the_bound() {
    for name in [
        "circle_balls_impulse",
        "diamond_balls_impulse",
        "sextic_balls_impulse",
    ] {
        let s = scene::load(&format!("scenes/{name}.toml")).unwrap();
        let m = s.model.clone();
        let mut sys = springsim::run::nonsmooth::system(&s).unwrap();
        let e0 = ball_energies(&m, &sys.u, &sys.v);
        let mut worst: f64 = 0.0;
        let mut deepest: f64 = 0.0;
        for _ in 0..s.default_steps.unwrap() {
            sys.step();
            let e = ball_energies(&m, &sys.u, &sys.v);
            for (a, b) in e.iter().zip(&e0) {
                worst = worst.max((a - b).abs() / b.abs().max(1.0));
            }
            for p in sys.u.chunks(2) {
                for w in &m.implicit_walls {
                    deepest = deepest.min(w.distance(p));
                }
            }
        }
        eprintln!("{name}: largest relative change of a ball's energy {worst:.3e}, deepest surface overlap {:.3e} m", -deepest);
        assert!(worst < 1e-9, "{name}: energy changed by {worst}");
        assert!(deepest > -1e-3, "{name}: overlap {deepest}");
    }
}

/// Defect: a node exactly at the centre of a circle or sphere froze (the interval of
/// `√(x² + y²)` over a box at the origin was the whole line, so the CCD bound was 0).
#[test]
fn particle_at_the_centre_of_a_circle_or_sphere_falls() {
    for (dim, wall, center) in [
        (2, "shape = \"circle\"\nradius = 3.0", "[0.0, 0.0]"),
        (3, "shape = \"sphere\"\nradius = 3.0", "[0.0, 0.0, 0.0]"),
        (
            2,
            "expression = \"3 - sqrt(x^2 + y^2)\"\ninside = \"positive\"",
            "[0.0, 0.0]",
        ),
    ] {
        let s = common::scene(&one_particle(dim, wall, center));
        let m = s.model.clone();
        let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), &m);
        for step in 1..=20 {
            let rec = sim
                .step()
                .unwrap_or_else(|e| panic!("{wall} step {step}: {e}"));
            assert!(rec.converged, "{wall} step {step}: not converged");
        }
        let x = sim.backend().positions();
        assert!(x.iter().all(|c| c.is_finite()), "{wall}: {x:?}");
        // implicit Euler: y₂₀ = −g h² (1 + 2 + … + 20) = −0.206 m
        assert!((x[1] + 0.20601).abs() < 1e-6, "{wall}: y = {}", x[1]);
    }
}

/// A V-shaped floor `y + 2 + 0.1 √(x²)` whose kink is under the particle: contact
/// happens exactly where the derivative of `√` is taken at 0.
pub const VALLEY: &str = "expression = \"y + 2 + 0.1 * sqrt(x^2)\"\ninside = \"positive\"";

#[test]
fn particle_rests_in_a_valley_at_a_sqrt_kink() {
    let s = common::scene(&one_particle(2, VALLEY, "[0.0, -1.9]"));
    let m = s.model.clone();
    let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), &m);
    for step in 1..=100 {
        sim.step().unwrap_or_else(|e| panic!("step {step}: {e}"));
    }
    let x = sim.backend().positions();
    assert_eq!(x[0], 0.0);
    assert!(x[1] > -2.0 && x[1] < -1.99, "{x:?}");
}
