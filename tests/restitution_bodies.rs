//! The restitution law on bodies: a stiff tet box landing flat (3D), two squares
//! meeting head-on, boxes at rest that must stay at rest, and seed 002's ball.

mod common;

use common::bounce::{at_edge, body_nodes, centre_velocity, measure, on_ground};
use springsim::backend::cpu::CpuBackend;
use springsim::model::Model;
use springsim::sim::Simulation;

/// A stiff 0.2 m lattice box (3D, 2×2×2 cells) landing flat at 1 m/s.
fn tet_box(e: f64) -> Model {
    on_ground(
        3,
        "dt = 1e-3",
        &format!("dhat = 1e-3\nkappa = 1e5\nrestitution = {e}"),
        "",
        "[[bodies]]\ngenerator = \"lattice\"\nsize = [0.2, 0.2, 0.2]\ncells = [2, 2, 2]\n\
         center = [0.0, 0.114, 0.0]\nvelocity = [0.0, -1.0, 0.0]\ndensity = 1000.0\n\
         spring_stiffness = 1e7",
    )
}

#[test]
fn a_stiff_tet_box_landing_flat_bounces_with_e_at_its_centre() {
    for e in [0.25, 0.5, 0.9] {
        let m = tet_box(e);
        let dhat = m.barrier.dhat;
        let nodes = body_nodes(&m, 0);
        let run = measure(
            &m,
            Box::new(CpuBackend::new(m.clone())),
            200,
            |r| r.min_wall_distance < dhat,
            |v, r| {
                let d = r.map_or(0.014, |r| r.min_wall_distance);
                at_edge(
                    centre_velocity(&m, v, nodes.clone(), 1),
                    m.gravity[1],
                    d,
                    dhat,
                )
            },
        );
        let b = run.bounces.first().expect("a bounce");
        eprintln!("tet box e {e}: COR {:.4}", b.cor());
        assert!(
            (b.cor() - e).abs() <= 0.03,
            "e {e}: COR {} ({b:?})",
            b.cor()
        );
    }
}

/// Two stiff squares, the second three times as dense, meeting head-on without
/// gravity at 1 m/s each.
fn head_on(e: f64) -> Model {
    let square = |x: f64, v: f64, density: f64| {
        format!(
            r#"
[[bodies]]
generator = "grid"
size = [0.2, 0.2]
cells = [2, 2]
center = [{x}, 0.0]
velocity = [{v}, 0.0]
density = {density}
spring_stiffness = 1e8
"#
        )
    };
    common::scene(&format!(
        r#"
dimension = 2
[solver]
dt = 1e-3
gravity = [0.0, 0.0]
[contact]
dhat = 1e-3
kappa = 1e5
restitution = {e}
{}{}"#,
        square(-0.11, 1.0, 1000.0),
        square(0.11, -1.0, 3000.0)
    ))
    .model
}

#[test]
fn two_bodies_of_mass_ratio_three_meet_as_newton_says() {
    for e in [0.0, 0.5, 0.9, 1.0] {
        let m = head_on(e);
        let (a, b) = (body_nodes(&m, 0), body_nodes(&m, 1));
        let mass = |r: std::ops::Range<usize>| r.map(|i| m.mass[i]).sum::<f64>();
        let (m1, m2) = (mass(a.clone()), mass(b.clone()));
        let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), &m);
        let p0 = m1 * 1.0 - m2 * 1.0;
        let mut touched = false;
        let mut last = (0.0, 0.0);
        for _ in 0..150 {
            let r = sim.step().unwrap();
            touched |= r.contact_pairs > 0;
            let x = sim.backend().positions();
            let crossing = springsim::collision::check::intersections(&m.collision, &x);
            assert!(crossing.is_empty(), "step {}: surfaces cross", r.step);
            let v = sim.backend().velocities();
            last = (
                centre_velocity(&m, &v, a.clone(), 0),
                centre_velocity(&m, &v, b.clone(), 0),
            );
            let p = m1 * last.0 + m2 * last.1;
            assert!((p - p0).abs() < 1e-9 * m2, "momentum {p} against {p0}");
        }
        assert!(touched, "they never met");
        let (v1, v2) = (1.0, -1.0);
        let want1 = ((m1 - e * m2) * v1 + (1.0 + e) * m2 * v2) / (m1 + m2);
        let want2 = ((m2 - e * m1) * v2 + (1.0 + e) * m1 * v1) / (m1 + m2);
        eprintln!(
            "e {e}: v1' {:.4} ({want1:.4}), v2' {:.4} ({want2:.4})",
            last.0, last.1
        );
        // Relative speed 2 m/s: 3 % of it.
        assert!(
            (last.0 - want1).abs() <= 0.06,
            "e {e}: v1' {} against {want1}",
            last.0
        );
        assert!(
            (last.1 - want2).abs() <= 0.06,
            "e {e}: v2' {} against {want2}",
            last.1
        );
    }
}

/// `count` lattice boxes (0.2 m, 2×2×2 cells) stacked on the ground with friction
/// 0.5, each set down 1 % of d̂ beyond the contact distance of what is below it.
fn stack(count: usize) -> Model {
    let dhat = 0.005;
    let mut bodies = String::new();
    for k in 0..count {
        let y = 0.1 + k as f64 * 0.2 + (k + 1) as f64 * 1.01 * dhat;
        bodies += &format!(
            "[[bodies]]\ngenerator = \"lattice\"\nsize = [0.2, 0.2, 0.2]\ncells = [2, 2, 2]\n\
             center = [0.0, {y}, 0.0]\ndensity = 1000.0\nspring_stiffness = 1e6\n"
        );
    }
    let contact = format!("dhat = {dhat}\nkappa = 1e5\nrestitution = 0.9\nself_friction = 0.5");
    on_ground(3, "dt = 0.02", &contact, "friction = 0.5", &bodies)
}

#[test]
fn boxes_at_rest_stay_at_rest_for_ten_seconds() {
    for count in [1, 3] {
        let m = stack(count);
        let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), &m);
        let mut settled = None;
        for step in 1..=500 {
            let r = sim.step().unwrap();
            assert_eq!(
                r.rebounds, 0,
                "{count} boxes, step {step}: a resting contact bounced"
            );
            if step == 100 {
                settled = Some(sim.backend().positions());
            }
        }
        let (x0, x) = (settled.unwrap(), sim.backend().positions());
        let drift = x0
            .iter()
            .zip(&x)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        eprintln!("{count} boxes: largest node drift over seconds 2-10 {drift:.2e} m");
        assert!(drift < 1e-4, "{count} boxes crept {drift} m");
    }
}

#[test]
fn seed_002s_ball_bounces_as_the_nonsmooth_scheme_does() {
    use springsim::nonsmooth::scheme::seed_ball;
    let (e, h) = (0.9, 1e-4);
    let m = on_ground(
        2,
        &format!("dt = {h}\ntolerance = 1e-6"),
        &format!("dhat = 1e-4\nkappa = 100.0\nrestitution = {e}"),
        "",
        "[[bodies]]\ngenerator = \"particle\"\nmass = 1.0\ncenter = [0.0, 1.0]",
    );
    let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), &m);
    let mut ball = seed_ball(1.0, 1.0, 0.0, 9.81, e, h);
    // Apex heights: the highest point between two landings.
    let (mut ours, mut theirs) = (vec![], vec![]);
    let (mut top_a, mut top_b, mut up_a, mut up_b) = (0.0f64, 0.0f64, false, false);
    for _ in 0..(4.0 / h) as usize {
        sim.step().unwrap();
        ball.step();
        let (ya, va) = (sim.backend().positions()[1], sim.backend().velocities()[1]);
        let (yb, vb) = (ball.u[0], ball.v[0]);
        for (y, v, top, up, list) in [
            (ya, va, &mut top_a, &mut up_a, &mut ours),
            (yb, vb, &mut top_b, &mut up_b, &mut theirs),
        ] {
            if v > 0.0 {
                *up = true;
                *top = top.max(y);
            } else if *up {
                list.push(*top);
                *up = false;
                *top = 0.0;
            }
        }
    }
    eprintln!("apex heights, restitution law: {ours:?}");
    eprintln!("apex heights, nonsmooth scheme: {theirs:?}");
    assert!(ours.len() >= 4 && theirs.len() >= 4, "too few bounces");
    for (k, (a, b)) in ours.iter().zip(&theirs).take(4).enumerate() {
        assert!(
            (a - b).abs() <= 0.01 * b,
            "bounce {}: {a} m against {b} m",
            k + 1
        );
    }
}

/// Three stiff squares in a row without gravity, e = 1, the first moving at 1 m/s
/// onto the other two, with gaps `gap` (m) between them: a Newton's cradle. Returns
/// their centres' velocities after 60 steps (the energy never above the start's).
fn cradle(gap: f64) -> Vec<f64> {
    let square = |x: f64, v: f64| {
        format!(
            "[[bodies]]\ngenerator = \"grid\"\nsize = [0.1, 0.1]\ncells = [2, 2]\n\
             center = [{x}, 0.0]\nvelocity = [{v}, 0.0]\ndensity = 1000.0\n\
             spring_stiffness = 1e8\n"
        )
    };
    let step = 0.1 + gap;
    let m = common::scene(&format!(
        "dimension = 2\n[solver]\ndt = 1e-3\ngravity = [0.0, 0.0]\n\
         [contact]\ndhat = 1e-3\nkappa = 1e5\nrestitution = 1.0\n{}{}{}",
        square(-step, 1.0),
        square(0.0, 0.0),
        square(step, 0.0)
    ))
    .model;
    let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), &m);
    let energy0 = sim.backend().diagnostics().total();
    for _ in 0..60 {
        let r = sim.step().unwrap();
        assert!(
            r.total <= energy0 * (1.0 + 1e-9),
            "step {}: energy rose",
            r.step
        );
    }
    let v = sim.backend().velocities();
    let speeds: Vec<f64> = (0..3)
        .map(|b| centre_velocity(&m, &v, body_nodes(&m, b), 0))
        .collect();
    eprintln!("cradle, gaps {gap} m: centre velocities {speeds:?}");
    speeds
}

/// Gaps of 5 d̂: the contacts come one at a time and the momentum passes on whole.
#[test]
fn a_newtons_cradle_of_three_passes_the_momentum_on() {
    let speeds = cradle(5e-3);
    assert!(
        speeds[0].abs() < 0.03 && speeds[1].abs() < 0.03,
        "{speeds:?}"
    );
    assert!((speeds[2] - 1.0).abs() < 0.03, "{speeds:?}");
}

/// Gaps within d̂: the contacts are solved together, a simultaneous-impact answer
/// (docs/RESTITUTION.md, "Limits"), with the momentum kept.
#[test]
fn a_touching_cradle_is_a_simultaneous_impact() {
    let speeds = cradle(0.9e-3);
    // Equal masses: the momentum is the sum of the velocities.
    assert!(
        (speeds.iter().sum::<f64>() - 1.0).abs() < 1e-6,
        "{speeds:?}"
    );
    for (got, want) in speeds.iter().zip([-0.294, 0.641, 0.653]) {
        assert!((got - want).abs() < 0.01, "{speeds:?}");
    }
}

/// The bundled scene: three disks with their own e, side by side; each body's first
/// bounce, on its centre of mass, comes back with its own e.
#[test]
fn the_bundled_disks_each_bounce_with_their_own_e() {
    let m = springsim::scene::load("restitution_balls").unwrap().model;
    let e = m.restitution.as_ref().unwrap().bodies.clone();
    let (dim, dhat, g) = (m.dim, m.barrier.dhat, m.gravity[1]);
    let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), &m);
    let low = |x: &[f64], b: usize| {
        body_nodes(&m, b)
            .map(|i| x[i * dim + 1])
            .fold(f64::INFINITY, f64::min)
    };
    let mut last: Vec<(f64, f64)> = (0..3)
        .map(|b| {
            (
                centre_velocity(&m, &m.v0, body_nodes(&m, b), 1),
                low(&m.x0, b),
            )
        })
        .collect();
    let mut v_in = [None; 3];
    let mut cor = [None; 3];
    for _ in 0..700 {
        sim.step().unwrap();
        let (x, v) = (sim.backend().positions(), sim.backend().velocities());
        for b in 0..3 {
            let (vc, d) = (centre_velocity(&m, &v, body_nodes(&m, b), 1), low(&x, b));
            match (v_in[b], cor[b]) {
                (None, _) if d < dhat => v_in[b] = Some(at_edge(last[b].0, g, last[b].1, dhat)),
                (Some(vi), None) if d >= dhat => cor[b] = Some(-at_edge(vc, g, d, dhat) / vi),
                _ => {}
            }
            last[b] = (vc, d);
        }
    }
    for b in 0..3 {
        let (want, got) = (e[b].unwrap(), cor[b].expect("a bounce"));
        eprintln!("disk {b}: e {want}, first bounce COR {got:.4}");
        assert!((got - want).abs() <= 0.03, "disk {b}: {got} against {want}");
    }
}

/// A soft body: a 10 × 10 cloth dropped flat with e = 0.5 leaves the ground with half
/// its landing speed as a whole (docs/RESTITUTION.md, "Limits").
#[test]
fn a_cloth_dropped_flat_bounces_with_e_as_a_whole() {
    let m = on_ground(
        3,
        "dt = 0.01\ntolerance = 1e-2",
        "dhat = 0.01\nkappa = 1e4\nbarrier = \"ipc\"\nrestitution = 0.5",
        "",
        "[[bodies]]\ngenerator = \"cloth\"\nsize = [1.0, 1.0]\ncells = [10, 10]\n\
         center = [0.0, 0.5, 0.0]\ndensity = 1.0\nspring_stiffness = 1e3",
    );
    let (dhat, nodes) = (m.barrier.dhat, body_nodes(&m, 0));
    let run = measure(
        &m,
        Box::new(CpuBackend::new(m.clone())),
        60,
        |r| r.min_wall_distance < dhat,
        |v, r| {
            let d = r.map_or(0.5, |r| r.min_wall_distance);
            at_edge(
                centre_velocity(&m, v, nodes.clone(), 1),
                m.gravity[1],
                d,
                dhat,
            )
        },
    );
    let b = run.bounces.first().expect("a bounce");
    eprintln!("cloth: COR {:.4}", b.cor());
    assert!((b.cor() - 0.5).abs() <= 0.03, "{b:?}");
}

/// Friction acts on the barrier's normal force, not on the correction: a particle
/// hitting a μ = 0.5 ground at 45° (1 m/s each way) with e = 0.5 leaves with normal
/// COR 0.5 and keeps 0.465 of its 1 m/s tangential velocity (Coulomb friction on the
/// whole impulse 1 + e would keep 0.25).
#[test]
fn friction_takes_the_barriers_impulse_and_the_normal_bounce_stays_e() {
    let m = on_ground(
        2,
        "dt = 1e-3\ngravity = [0.0, 0.0]\ntolerance = 1e-7",
        "dhat = 1e-3\nkappa = 1e4\nrestitution = 0.5",
        "friction = 0.5",
        "[[bodies]]\ngenerator = \"particle\"\nmass = 1.0\ncenter = [0.0, 0.02]\n\
         velocity = [1.0, -1.0]",
    );
    let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), &m);
    for _ in 0..60 {
        sim.step().unwrap();
    }
    let v = sim.backend().velocities();
    eprintln!(
        "after the bounce: tangential {:.4}, normal {:.4} m/s",
        v[0], v[1]
    );
    assert!((v[1] - 0.5).abs() < 1e-6, "normal {}", v[1]);
    assert!(v[0] > 0.4 && v[0] < 0.55, "tangential {}", v[0]);
}
