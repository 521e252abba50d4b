//! The restitution law of barrier contact (`contact.restitution`, src/rebound/):
//! the achieved coefficient of restitution against the requested e.

mod common;

use common::bounce::{at_edge, body_nodes, centre_velocity, measure, on_ground, Bounces};
use springsim::backend::cpu::CpuBackend;
use springsim::model::Model;

/// A particle of seed 000 falling on the ground at `speed` (m/s) with gravity `g`.
fn particle(e: f64, h: f64, dhat: f64, kappa: f64, speed: f64, g: f64) -> Model {
    let (y, v) = (20.0 * dhat + 3.0 * speed * h, -speed);
    on_ground(
        2,
        &format!("dt = {h}\ngravity = [0.0, {g}]\ntolerance = 1e-7"),
        &format!("dhat = {dhat}\nkappa = {kappa}\nrestitution = {e}"),
        "",
        &format!(
            "[[bodies]]\ngenerator = \"particle\"\nmass = 1.0\n\
             center = [0.0, {y}]\nvelocity = [0.0, {v}]"
        ),
    )
}

fn particle_bounces(model: &Model, steps: u64) -> Bounces {
    let dhat = model.barrier.dhat;
    measure(
        model,
        Box::new(CpuBackend::new(model.clone())),
        steps,
        |r| r.min_wall_distance < dhat,
        |v, r| {
            let d = r.map_or(model.x0[1], |r| r.min_wall_distance);
            at_edge(v[1], model.gravity[1], d, dhat)
        },
    )
}

#[test]
fn a_particle_bounces_with_the_requested_e() {
    let mut worst: f64 = 0.0;
    for e in [0.0, 0.25, 0.5, 0.75, 0.9, 1.0] {
        for (h, dhat, kappa, speed, g) in [
            (1e-3, 1e-3, 100.0, 10.0, 0.0),
            (1e-2, 1e-2, 1e3, 1.0, -9.81),
            (1e-3, 1e-4, 1e4, 0.1, -9.81),
            (1e-4, 1e-3, 10.0, 10.0, -9.81),
            (1e-2, 1e-3, 1e5, 10.0, 0.0),
        ] {
            let m = particle(e, h, dhat, kappa, speed, g);
            let steps = (40.0 * dhat / (speed * h)).ceil() as u64 + 200;
            let run = particle_bounces(&m, steps);
            let label = format!("e {e} h {h} dhat {dhat} kappa {kappa} speed {speed} g {g}");
            let Some(b) = run.bounces.first() else {
                assert!(
                    e < 0.01 && run.stuck,
                    "{label}: no contact ended ({} steps)",
                    steps
                );
                continue;
            };
            worst = worst.max((b.cor() - e).abs());
            assert!(
                (b.cor() - e).abs() <= 0.01,
                "{label}: COR {} ({b:?})",
                b.cor()
            );
        }
    }
    eprintln!("worst |COR - e| over the particle table: {worst:.2e}");
}

/// A stiff square (2D grid, side 0.2 m, 40 kg) dropped at `speed` onto the ground,
/// turned by `angle` (degrees; 45 lands on a corner). Stiff means its vibration
/// period is shorter than a step, so its springs are 10⁷ N/m, and 10⁹ N/m for the
/// short steps below 10⁻³ s.
fn square(e: f64, h: f64, dhat: f64, kappa: f64, speed: f64, angle: f64) -> Model {
    let (v, k) = (-speed, if h < 1e-3 { 1e9 } else { 1e7 });
    let mut model = on_ground(
        2,
        &format!("dt = {h}\ngravity = [0.0, -9.81]"),
        &format!("dhat = {dhat}\nkappa = {kappa}\nrestitution = {e}"),
        "",
        &format!(
            "[[bodies]]\ngenerator = \"grid\"\nsize = [0.2, 0.2]\ncells = [4, 4]\n\
             center = [0.0, 1.0]\ndensity = 1000.0\nspring_stiffness = {k}\n\
             velocity = [0.0, {v}]"
        ),
    );
    // Turn about the centre, then lift the lowest node to 10 d̂ + 3 steps' travel.
    let (s, c) = angle.to_radians().sin_cos();
    for p in model.x0.chunks_mut(2) {
        let (x, y) = (p[0], p[1]);
        p[0] = c * x - s * y;
        p[1] = s * x + c * y;
    }
    let low = model
        .x0
        .chunks(2)
        .map(|p| p[1])
        .fold(f64::INFINITY, f64::min);
    let lift = 10.0 * dhat + 3.0 * speed * h - low;
    model.x0.chunks_mut(2).for_each(|p| p[1] += lift);
    model
}

fn centre_bounces(model: &Model, steps: u64) -> Bounces {
    let dhat = model.barrier.dhat;
    let nodes = body_nodes(model, 0);
    measure(
        model,
        Box::new(CpuBackend::new(model.clone())),
        steps,
        |r| r.min_wall_distance < dhat,
        |v, r| {
            let low = model
                .x0
                .chunks(2)
                .map(|p| p[1])
                .fold(f64::INFINITY, f64::min);
            let d = r.map_or(low, |r| r.min_wall_distance);
            let vc = centre_velocity(model, v, nodes.clone(), 1);
            at_edge(vc, model.gravity[1], d, dhat)
        },
    )
}

#[test]
fn a_stiff_square_landing_flat_bounces_with_e_at_its_centre() {
    for e in [0.25, 0.5, 0.9, 1.0] {
        for (h, dhat, kappa, speed) in [
            (1e-3, 1e-3, 1e5, 1.0),
            (1e-2, 1e-2, 1e5, 1.0),
            (1e-3, 1e-3, 1e6, 10.0),
        ] {
            let m = square(e, h, dhat, kappa, speed, 0.0);
            let run = centre_bounces(&m, 400);
            let b = run.bounces.first().expect("a bounce");
            let label = format!("e {e} h {h} dhat {dhat} kappa {kappa} speed {speed}");
            eprintln!(
                "{label}: COR {:.4} ({} steps in contact)",
                b.cor(),
                b.exit - b.entry
            );
            assert!(
                (b.cor() - e).abs() <= 0.03,
                "{label}: COR {} ({b:?})",
                b.cor()
            );
        }
    }
}

/// The rigid-body answer for a square whose lowest node hits frictionless ground at
/// normal speed `v` (m/s, negative), not spinning: the centre's normal velocity after
/// an impulse that gives the contact point `−e v` (m/s).
fn rigid_centre_after(model: &Model, e: f64, v: f64) -> f64 {
    let (mut m, mut c) = (0.0, [0.0; 2]);
    for (p, &mi) in model.x0.chunks(2).zip(&model.mass) {
        m += mi;
        c[0] += mi * p[0];
        c[1] += mi * p[1];
    }
    let c = [c[0] / m, c[1] / m];
    let inertia: f64 = model
        .x0
        .chunks(2)
        .zip(&model.mass)
        .map(|(p, mi)| mi * ((p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2)))
        .sum();
    let low = model
        .x0
        .chunks(2)
        .min_by(|a, b| a[1].total_cmp(&b[1]))
        .unwrap();
    // r × n with n = (0, 1): r_x.
    let arm = low[0] - c[0];
    let j = -(1.0 + e) * v / (1.0 / m + arm * arm / inertia);
    v + j / m
}

#[test]
fn a_stiff_square_landing_on_a_corner_bounces_as_a_rigid_body() {
    // A short contact (h = d̂ = 10⁻⁴): the body turns little while it lasts, as
    // the instantaneous impulse of the rigid-body answer assumes.
    for angle in [30.0, 45.0] {
        for e in [0.5, 0.9] {
            let m = square(e, 1e-4, 1e-4, 1e6, 2.0, angle);
            let run = centre_bounces(&m, 300);
            let b = run.bounces.first().expect("a bounce");
            let want = rigid_centre_after(&m, e, b.v_in);
            eprintln!(
                "angle {angle} e {e}: centre {:.4} m/s after, rigid body {want:.4}",
                b.v_out
            );
            assert!(
                (b.v_out - want).abs() <= 0.03 * b.v_in.abs(),
                "angle {angle} e {e}: {} against {want} ({b:?})",
                b.v_out
            );
        }
    }
}

/// Seed 004's balls in their containers (circle, diamond, sextic) with e: each
/// bounce's normal velocity, read along the wall's gradient at the impact and taken
/// at d̂ under gravity, comes back as −e times.
#[test]
fn balls_in_seed_004s_containers_bounce_with_e() {
    for shape in ["circle", "diamond", "sextic"] {
        let e = 0.8;
        let text = format!(
            r#"
dimension = 2
[solver]
dt = 1e-3
gravity = [0.0, -9.8]
tolerance = 1e-6
[contact]
dhat = 0.01
kappa = 1e4
barrier = "ipc"
restitution = {e}
[[walls]]
type = "implicit"
shape = "{shape}"
radius = 15.0
[[bodies]]
generator = "particle"
mass = 1.0
radius = 0.3
count = 3
seed = 4
spread = [8.0, 8.0]
speed = 5.0
"#
        );
        let m = common::scene(&text).model;
        let wall = &m.implicit_walls;
        let dhat = m.barrier.dhat;
        let mut sim = springsim::sim::Simulation::new(Box::new(CpuBackend::new(m.clone())), &m);
        // Per ball: the wall part it is near, and its normal rate at d̂ before.
        let n = m.num_nodes();
        let mut open: Vec<Option<(usize, f64)>> = vec![None; n];
        let (mut x_prev, mut v_prev) = (m.x0.clone(), m.v0.clone());
        let mut cors = vec![];
        for _ in 0..4000 {
            sim.step().unwrap();
            let (x, v) = (sim.backend().positions(), sim.backend().velocities());
            for i in 0..n {
                let (xi, vi) = (&x[2 * i..2 * i + 2], &v[2 * i..2 * i + 2]);
                let near = wall.iter().position(|w| w.distance(xi) < dhat);
                match (open[i], near) {
                    (None, Some(k)) => {
                        let (xp, vp) = (&x_prev[2 * i..2 * i + 2], &v_prev[2 * i..2 * i + 2]);
                        let d = wall[k].dual(xp);
                        let rate = d.g[0] * vp[0] + d.g[1] * vp[1];
                        let a = d.g[1] * m.gravity[1];
                        open[i] = Some((k, at_edge(rate, a, d.v, dhat)));
                    }
                    (Some((k, v_in)), None) => {
                        let d = wall[k].dual(xi);
                        let rate = d.g[0] * vi[0] + d.g[1] * vi[1];
                        let a = d.g[1] * m.gravity[1];
                        cors.push(-at_edge(rate, a, d.v, dhat) / v_in);
                        open[i] = None;
                    }
                    _ => {}
                }
            }
            (x_prev, v_prev) = (x, v);
        }
        let worst = cors.iter().map(|c| (c - e).abs()).fold(0.0, f64::max);
        eprintln!(
            "{shape}: {} bounces, worst |COR − e| {worst:.2e}",
            cors.len()
        );
        assert!(cors.len() >= 3, "{shape}: only {} bounces", cors.len());
        assert!(worst <= 0.01, "{shape}: {cors:?}");
    }
}
