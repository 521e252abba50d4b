//! Requested e against achieved COR for the restitution law (issue 56's table):
//! e ∈ {0, 0.25, 0.5, 0.75, 0.9, 1} × h ∈ {1e-2, 1e-3, 1e-4} × d̂ ∈ {1e-4, 1e-3, 1e-2}
//! × κ over two decades × impact speed ∈ {0.1, 1, 10} m/s, for seed 000's particle,
//! a stiff square (2D) landing flat and on a corner, and a stiff tet box (3D)
//! landing flat, on an edge and on a corner; without gravity, so that the impact
//! speed is the speed at the contact.
//!
//! `cargo run --release --example restitution_table -- OUT.csv` writes one row per
//! run and prints the summary per body and landing (docs/RESTITUTION.md).

use glam::{DQuat, DVec3};
use springsim::backend::cpu::CpuBackend;
use springsim::model::Model;
use springsim::sim::Simulation;
use std::fmt::Write as _;

const ES: [f64; 6] = [0.0, 0.25, 0.5, 0.75, 0.9, 1.0];
const HS: [f64; 3] = [1e-2, 1e-3, 1e-4];
const DHATS: [f64; 3] = [1e-4, 1e-3, 1e-2];
const SPEEDS: [f64; 3] = [0.1, 1.0, 10.0];
const FLAT: [f64; 3] = [0.0, -1.0, 0.0];

/// A body of the table: its scene text (without the contact) and its landing.
struct Case {
    name: &'static str,
    dim: usize,
    /// κ values (two decades apart), in the scene's units.
    kappas: [f64; 2],
    /// The direction in the body that lands pointing down: a face, an edge or a
    /// corner straight below the centre.
    down: [f64; 3],
}

fn body(case: &Case, h: f64) -> String {
    // Stiff: the springs' period below the step, whatever the step.
    let k = 1e7 * (1e-3 / h).powi(2).max(1.0);
    match case.dim {
        2 if case.name == "particle" => "generator = \"particle\"\nmass = 1.0\n".into(),
        2 => format!("generator = \"grid\"\nsize = [0.2, 0.2]\ncells = [4, 4]\ndensity = 1000.0\nspring_stiffness = {k:e}\n"),
        _ => format!("generator = \"lattice\"\nsize = [0.2, 0.2, 0.2]\ncells = [2, 2, 2]\ndensity = 1000.0\nspring_stiffness = {k:e}\n"),
    }
}

fn model(case: &Case, e: f64, h: f64, dhat: f64, kappa: f64, speed: f64) -> Model {
    let (zero, up) = match case.dim {
        2 => ("[0.0, 0.0]", "[0.0, 1.0]"),
        _ => ("[0.0, 0.0, 0.0]", "[0.0, 1.0, 0.0]"),
    };
    let text = format!(
        "dimension = {}\n[solver]\ndt = {h:e}\ngravity = {zero}\ntolerance = 1e-7\n\
         [contact]\ndhat = {dhat:e}\nkappa = {kappa:e}\nrestitution = {e}\n\
         [[walls]]\ntype = \"plane\"\npoint = {zero}\nnormal = {up}\n[[bodies]]\n{}center = {}\n",
        case.dim,
        body(case, h),
        if case.dim == 2 {
            "[0.0, 1.0]"
        } else {
            "[0.0, 1.0, 0.0]"
        },
    );
    let mut m = springsim::scene::parse(&text, "table", "table")
        .unwrap()
        .model;
    let dim = m.dim;
    // Turn the body about its centre (0, 1, 0) so that `down` points down.
    let d = case.down;
    let turn = DQuat::from_rotation_arc(DVec3::new(d[0], d[1], d[2]).normalize(), -DVec3::Y);
    for p in m.x0.chunks_mut(dim) {
        let r = DVec3::new(p[0], p[1] - 1.0, if dim == 3 { p[2] } else { 0.0 });
        let q = turn * r;
        p[..dim].copy_from_slice(&q.to_array()[..dim]);
        p[1] += 1.0;
    }
    let low = m.x0.chunks(dim).map(|p| p[1]).fold(f64::INFINITY, f64::min);
    let lift = 1.5 * dhat + 2.0 * speed * h - low;
    m.x0.chunks_mut(dim).for_each(|p| p[1] += lift);
    m.v0.chunks_mut(dim).for_each(|v| v[1] = -speed);
    m
}

/// One run: the centre's normal velocity before the first contact and at the state
/// that leaves it, the largest total energy over the initial one, the steps.
struct Row {
    cor: Option<f64>,
    energy_gain: f64,
    steps: u64,
}

fn run(m: &Model, speed: f64) -> Row {
    let (dim, dhat, h) = (m.dim, m.barrier.dhat, m.solver.dt);
    let centre = |v: &[f64]| {
        let (p, mass) = v
            .chunks(dim)
            .zip(&m.mass)
            .fold((0.0, 0.0), |(p, s), (u, mi)| (p + mi * u[1], s + mi));
        p / mass
    };
    let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), m);
    let d = sim.backend().diagnostics();
    let e0 = d.total();
    let (mut prev, mut entered, mut gain, mut steps) = (centre(&m.v0), None, 0.0f64, 0);
    // Its approach twice over, then 2000 steps of contact: a contact still under way
    // then is stuck (the law's e = 0).
    let mut limit = 200 + (dhat / (speed * h)) as u64;
    while steps < limit {
        let r = sim.step().unwrap();
        steps += 1;
        gain = gain.max(r.total - e0);
        let now = centre(&sim.backend().velocities());
        match entered {
            None if r.min_wall_distance < dhat => {
                entered = Some(prev);
                limit = steps + 2000;
            }
            Some(v_in) if r.min_wall_distance >= dhat => {
                return Row {
                    cor: Some(-now / v_in),
                    energy_gain: gain.max(0.0) / e0,
                    steps,
                };
            }
            _ => {}
        }
        prev = now;
    }
    Row {
        cor: entered.map(|_| 0.0),
        energy_gain: gain.max(0.0) / e0,
        steps,
    }
}

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or("restitution_table.csv".into());
    let cases = [
        Case {
            name: "particle",
            dim: 2,
            kappas: [1e4, 1e6],
            down: FLAT,
        },
        Case {
            name: "square flat",
            dim: 2,
            kappas: [1e5, 1e7],
            down: FLAT,
        },
        Case {
            name: "square corner",
            dim: 2,
            kappas: [1e5, 1e7],
            down: [-1.0, -1.0, 0.0],
        },
        Case {
            name: "tet box flat",
            dim: 3,
            kappas: [1e5, 1e7],
            down: FLAT,
        },
        Case {
            name: "tet box edge",
            dim: 3,
            kappas: [1e5, 1e7],
            down: [0.0, -1.0, -1.0],
        },
        Case {
            name: "tet box corner",
            dim: 3,
            kappas: [1e5, 1e7],
            down: [-1.0, -1.0, -1.0],
        },
    ];
    let mut csv = String::from("body,e,h,dhat,kappa,speed,cor,error,energy_gain,steps\n");
    let mut summary = String::from(
        "| body, landing | runs | stuck (e = 0) | worst \\|COR − e\\| | mean \\|COR − e\\| | largest energy gain |\n|---|---:|---:|---:|---:|---:|\n",
    );
    for case in &cases {
        let (mut n, mut stuck, mut worst, mut sum, mut gain) = (0, 0, 0.0f64, 0.0, 0.0f64);
        for e in ES {
            for h in HS {
                for dhat in DHATS {
                    for kappa in case.kappas {
                        for speed in SPEEDS {
                            let m = model(case, e, h, dhat, kappa, speed);
                            let row = run(&m, speed);
                            let cor = row.cor.unwrap_or(f64::NAN);
                            let err = (cor - e).abs();
                            n += 1;
                            stuck += usize::from(cor == 0.0 && e == 0.0);
                            worst = worst.max(err);
                            sum += err;
                            gain = gain.max(row.energy_gain);
                            let _ = writeln!(
                                csv,
                                "{},{e},{h:e},{dhat:e},{kappa:e},{speed},{cor},{err:e},{:e},{}",
                                case.name, row.energy_gain, row.steps
                            );
                        }
                    }
                }
            }
        }
        let _ = writeln!(
            summary,
            "| {} | {n} | {stuck} | {worst:.2e} | {:.2e} | {gain:.1e} |",
            case.name,
            sum / n as f64
        );
        eprintln!("{} done", case.name);
    }
    std::fs::write(&out, csv).unwrap();
    println!("{summary}");
}
