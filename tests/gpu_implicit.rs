//! Implicit walls on the GPU: the container scenes step on the GPU next to the CPU
//! over a short horizon with no ball leaving (the full 40 s runs are tested on the
//! CPU in `implicit_walls.rs`; the generated WGSL in `gpu_implicit_wgsl.rs`, the
//! kernels against their twins in `gpu_implicit_parity.rs`).

mod common;
use springsim::scene;

/// Steps `name` on both backends; the GPU keeps every node inside every implicit wall
/// and every accepted iterate lowers E. Returns the largest CPU–GPU node distance.
fn side_by_side(name: &str, steps: u64) -> Option<f64> {
    run_pair(
        name,
        scene::load(&format!("scenes/{name}.toml")).unwrap(),
        steps,
    )
}

fn run_pair(name: &str, s: scene::Scene, steps: u64) -> Option<f64> {
    common::side_by_side::gpu_follows_cpu(name, s, steps)
}

/// f32 positions near 10 m resolve 1e-6 m, so with h = 1e-3 s each step's velocity
/// `(x − xⁿ)/h` carries about 1e-3 m/s of rounding, and the ball paths drift apart
/// quadratically in time: about 1 cm after 0.3 s.
#[test]
fn container_balls_gpu_follows_the_cpu() {
    for name in ["circle_balls", "diamond_balls", "sextic_balls"] {
        if let Some(d) = side_by_side(name, 300) {
            assert!(d < 0.03, "{name}: GPU and CPU {d} m apart");
        }
    }
}

#[test]
fn square_in_bowl_gpu_follows_the_cpu() {
    if let Some(d) = side_by_side("square_in_bowl", 150) {
        assert!(d < 1e-3, "square in bowl: GPU and CPU {d} m apart");
    }
}

#[test]
fn lattice_in_sphere_gpu_follows_the_cpu() {
    if let Some(d) = side_by_side("lattice_in_sphere", 40) {
        assert!(d < 1e-3, "lattice in sphere: GPU and CPU {d} m apart");
    }
}

/// A ball shot into the bottom corner of the diamond `15 − |x| − |y|` (a user
/// expression, so the corner is a kink of W): contact, CCD and barrier on the GPU.
#[test]
fn ball_shot_into_the_diamond_corner_on_the_gpu() {
    let s = common::scene(&common::implicit::ball_shot_down(
        "type = \"implicit\"\nexpression = \"(15 - abs(x) - abs(y)) / sqrt(2)\"\ninside = \"positive\"",
        "[0.05, -10.0]",
    ));
    if let Some(d) = run_pair("diamond corner", s, 400) {
        assert!(d < 0.05, "diamond corner: GPU and CPU {d} m apart");
    }
}

/// A ball's first contact: the step at which its distance to a wall first fell below
/// d̂, and its speed (m/s) the step before and the step it left the barrier zone.
#[derive(Clone, Copy, Debug)]
struct FirstContact {
    step: u64,
    v_in: f64,
    v_out: f64,
}

/// Steps `sim` until every node (ball) has entered and left its first contact, or
/// `max_steps`; every step must make progress. Returns each ball's first contact.
fn first_contacts(
    sim: &mut springsim::sim::Simulation,
    model: &springsim::model::Model,
    max_steps: u64,
    label: &str,
) -> Vec<Option<FirstContact>> {
    let dim = model.dim;
    let n = model.num_nodes();
    let dhat = model.barrier.dhat;
    let mut found: Vec<Option<FirstContact>> = vec![None; n];
    let mut left = vec![false; n];
    let mut speed_before = vec![0.0; n];
    for _ in 0..max_steps {
        let rec = sim.step().unwrap_or_else(|e| panic!("{label}: {e}"));
        common::assert_progress(&rec, label);
        let x = sim.backend().positions();
        let v = sim.backend().velocities();
        for i in 0..n {
            let p = &x[i * dim..(i + 1) * dim];
            let speed = v[i * dim..(i + 1) * dim]
                .iter()
                .map(|c| c * c)
                .sum::<f64>()
                .sqrt();
            let d = model
                .implicit_walls
                .iter()
                .map(|w| w.distance(p))
                .fold(f64::INFINITY, f64::min);
            match &mut found[i] {
                None if d < dhat => {
                    found[i] = Some(FirstContact {
                        step: rec.step,
                        v_in: speed_before[i],
                        v_out: 0.0,
                    })
                }
                Some(c) if !left[i] && d >= dhat => {
                    c.v_out = speed;
                    left[i] = true;
                }
                _ => {}
            }
            speed_before[i] = speed;
        }
        if left.iter().all(|&l| l) {
            break;
        }
    }
    found
}

/// How far apart (steps) a ball's first contact may be on the two backends. Measured
/// on lavapipe: the same step for all 15 balls (the f32 paths drift by millimetres
/// before the first contacts, under one step at the balls' speeds).
const FIRST_CONTACT_STEPS: u64 = 2;
/// How far apart a ball's rebound ratio `v_out / v_in` may be on the two backends.
/// Measured on lavapipe: at most 1.3e-3 (sextic ball 4; the others below 3e-4).
const REBOUND_RATIO: f64 = 5e-3;

/// Seed 004's containers on the GPU through every ball's first contact and rebound
/// (the GPU once froze the circle at its first contact, step 795, with α = 0): no
/// stalled step, no step at the Newton cap, and each ball's first-contact step and
/// rebound ratio `v_out / v_in` close to the CPU's.
#[test]
fn container_balls_first_contacts_match_the_cpu() {
    use springsim::backend::cpu::CpuBackend;
    use springsim::sim::Simulation;
    for name in ["circle_balls", "diamond_balls", "sextic_balls"] {
        let model = scene::load(&format!("scenes/{name}.toml")).unwrap().model;
        let Some(gpu) = common::gpu_backend(model.clone(), Default::default()) else {
            return;
        };
        let mut cpu_sim = Simulation::new(Box::new(CpuBackend::new(model.clone())), &model);
        let mut gpu_sim = Simulation::new(Box::new(gpu), &model);
        let cpu = first_contacts(&mut cpu_sim, &model, 4000, &format!("{name} CPU"));
        let gpu = first_contacts(&mut gpu_sim, &model, 4000, &format!("{name} GPU"));
        for (i, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
            let c = c.unwrap_or_else(|| panic!("{name} ball {i}: no contact on the CPU"));
            let g = g.unwrap_or_else(|| panic!("{name} ball {i}: no contact on the GPU"));
            eprintln!("{name} ball {i}: CPU {c:?}, GPU {g:?}");
            assert!(
                c.v_out > 0.0 && g.v_out > 0.0,
                "{name} ball {i}: never left"
            );
            assert!(
                c.step.abs_diff(g.step) <= FIRST_CONTACT_STEPS,
                "{name} ball {i}: first contact at step {} on the CPU, {} on the GPU",
                c.step,
                g.step
            );
            let (rc, rg) = (c.v_out / c.v_in, g.v_out / g.v_in);
            assert!(
                (rc - rg).abs() <= REBOUND_RATIO,
                "{name} ball {i}: rebound ratio {rc} on the CPU, {rg} on the GPU"
            );
        }
    }
}
/// One particle (1 kg, no radius) at `center` inside `wall` (dt 0.01 s, d̂ 0.01 m).
fn one_particle(dim: usize, wall: &str, center: &str) -> scene::Scene {
    common::scene(&common::implicit::one_particle(dim, wall, center))
}

/// Defect: a particle exactly at the centre of a circle or sphere froze on the GPU too
/// (the f32 interval of `√(x² + y²)` at the origin was the whole line, CCD bound 0).
/// It falls 0.206 m in 20 steps on the CPU; the GPU follows it. A V-shaped floor whose
/// kink (`√(x²)` at x = 0, the dual `√` at 0) is right under a particle: it lands and
/// rests on both backends, no NaN.
#[test]
fn particle_at_a_circle_centre_or_on_a_sqrt_kink_moves_on_the_gpu() {
    for (label, s, steps) in [
        (
            "circle centre",
            one_particle(2, "shape = \"circle\"\nradius = 3.0", "[0.0, 0.0]"),
            20,
        ),
        (
            "sphere centre",
            one_particle(3, "shape = \"sphere\"\nradius = 3.0", "[0.0, 0.0, 0.0]"),
            20,
        ),
        (
            "sqrt kink",
            one_particle(
                2,
                "expression = \"y + 2 + 0.1 * sqrt(x^2)\"\ninside = \"positive\"",
                "[0.0, -1.9]",
            ),
            60,
        ),
    ] {
        if let Some(d) = run_pair(label, s, steps) {
            assert!(d < 1e-3, "{label}: GPU and CPU {d} m apart");
        }
    }
}
