//! Implicit walls on the GPU: the generated WGSL module of every bundled implicit-wall
//! scene composes into every kernel and validates with naga (no device needed), and
//! the container scenes step on the GPU next to the CPU over a short horizon with no
//! ball leaving (the full 40 s runs are tested on the CPU in `implicit_walls.rs`).

mod common;
use springsim::backend::cpu::CpuBackend;
use springsim::backend::gpu::kernels::Kernel;
use springsim::backend::gpu::pipelines::reflect_with;
use springsim::backend::gpu::GpuOptions;
use springsim::backend::Probe;
use springsim::implicit::wgsl::generate;
use springsim::scene;

const SCENES: [&str; 5] = [
    "circle_balls",
    "diamond_balls",
    "sextic_balls",
    "square_in_bowl",
    "lattice_in_sphere",
];

#[test]
fn generated_wall_modules_validate_in_every_kernel() {
    let mut walls = Vec::new();
    for name in SCENES {
        let s = scene::load(&format!("scenes/{name}.toml")).unwrap();
        walls.extend(s.model.implicit_walls.clone());
        let gen = generate(&s.model.implicit_walls);
        for (path, _) in Kernel::files() {
            reflect_with(path, &gen).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
    // every operation of the language at once, as a user expression
    let e = springsim::implicit::parse(
        "abs(x)^2.5 + sqrt(1 + y^2) * exp(-x) / (2 + cos(x)) - ln(3 + sin(y)) + min(x, y) - max(x, -y)^3 + x^-2",
        2,
    )
    .unwrap();
    walls.push(springsim::implicit::ImplicitWall {
        expr: e,
        label: "all".into(),
    });
    let gen = generate(&walls);
    for (path, _) in Kernel::files() {
        reflect_with(path, &gen).unwrap_or_else(|e| panic!("all walls: {e}"));
    }
}

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
    common::gpu_follows_cpu(name, s, steps)
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
    let s = common::scene(
        r#"
dimension = 2
[solver]
dt = 1e-3
tolerance = 1e-3
gravity = [0.0, -9.8]
[contact]
dhat = 0.01
kappa = 1e4
barrier = "ipc"
[[walls]]
type = "implicit"
expression = "(15 - abs(x) - abs(y)) / sqrt(2)"
inside = "positive"
[[bodies]]
generator = "particle"
mass = 1.0
radius = 0.3
center = [0.05, -10.0]
velocity = [0.0, -30.0]
"#,
    );
    if let Some(d) = run_pair("diamond corner", s, 400) {
        assert!(d < 0.05, "diamond corner: GPU and CPU {d} m apart");
    }
}

/// Kernel parity on a state where most nodes feel the implicit walls' barrier (d̂ is
/// large): gradient and Jacobi diagonal (`assemble`), Hessian products
/// (`newton_matvec`), the incremental potential (`energy_total`) and the CCD bound
/// (`direction_stats`) against the f64 CPU twins.
fn kernel_parity(label: &str, text: &str, dhat: f64) {
    let s = common::scene(text);
    let mut model = s.model.clone();
    // the scene needs nodes beyond d̂ to load; the barrier then reaches most of them
    model.barrier.dhat = dhat;
    let Some(mut gpu) = common::gpu_backend(model.clone(), GpuOptions::default()) else {
        return;
    };
    let mut cpu = CpuBackend::new(model.clone());
    let mut rng = common::Rng(3);
    let (x, xp) = common::shared_state(&model.x0, &mut rng);
    cpu.set_positions(&x);
    cpu.set_prediction(&xp);
    gpu.set_positions(&x);
    gpu.set_prediction(&xp);
    let active = x
        .chunks(model.dim)
        .filter(|p| {
            model
                .implicit_walls
                .iter()
                .any(|w| w.distance(p) < model.barrier.dhat)
        })
        .count();
    assert!(
        active * 3 > model.num_nodes(),
        "{label}: only {active} nodes near a wall"
    );
    let rel = 2e-4;
    let (gc, gg) = (cpu.gradient(), gpu.potential_gradient());
    let err = common::max_diff(&gc, &gg);
    assert!(err <= rel * common::max_abs(&gc), "{label}: gradient {err}");
    let (dc, dg) = (cpu.preconditioner_blocks(), gpu.jacobi_blocks());
    let err = common::max_diff(&dc, &dg);
    assert!(
        err <= rel * common::max_abs(&dc),
        "{label}: preconditioner blocks {err}"
    );
    let u: Vec<f64> = (0..x.len()).map(|_| (rng.next() as f32) as f64).collect();
    let (hc, (hg, _)) = (cpu.hessian_times(&u), gpu.hessian_product(&u));
    let err = common::max_diff(&hc, &hg);
    assert!(err <= rel * common::max_abs(&hc), "{label}: H u {err}");
    let (ec, eg) = (cpu.incremental_potential(&x), gpu.potential());
    assert!(
        (ec - eg).abs() <= 1e-4 * ec.abs(),
        "{label}: E {ec} vs {eg}"
    );
    // CCD: a direction pushing every node outwards by up to 3 m
    let p: Vec<f64> = x
        .iter()
        .map(|c| ((0.2 * c + 0.5 * rng.next()) as f32) as f64)
        .collect();
    gpu.set_direction(&p);
    let (_, ccd_gpu) = gpu.direction_summary();
    let dim = model.dim;
    let mut ccd_cpu: f64 = 1.0;
    for (xi, pi) in x.chunks(dim).zip(p.chunks(dim)) {
        for w in &model.implicit_walls {
            ccd_cpu = ccd_cpu.min(w.ccd_bound(xi, pi));
        }
    }
    assert!(ccd_cpu < 1.0, "{label}: the direction should be limited");
    assert!(
        ccd_gpu > 0.5 * ccd_cpu && ccd_gpu < 2.0 * ccd_cpu,
        "{label}: CCD GPU {ccd_gpu} CPU {ccd_cpu}"
    );
    // the GPU's bound is safe in f64 too: dense samples of every segment stay inside
    for (xi, pi) in x.chunks(dim).zip(p.chunks(dim)) {
        for w in &model.implicit_walls {
            for k in 0..=200 {
                let t = ccd_gpu * k as f64 / 200.0;
                let y: Vec<f64> = xi.iter().zip(pi).map(|(a, b)| a + t * b).collect();
                assert!(
                    w.distance(&y) > 0.0,
                    "{label}: GPU CCD bound lets a node out"
                );
            }
        }
    }
    eprintln!("{label}: {active} active nodes, CCD CPU {ccd_cpu:.4} GPU {ccd_gpu:.4}");
}

#[test]
fn implicit_wall_kernels_match_their_cpu_twins_2d() {
    kernel_parity(
        "2D sextic and box",
        r#"
dimension = 2
[solver]
dt = 0.01
[contact]
dhat = 0.01
kappa = 100.0
barrier = "ipc"
[[walls]]
type = "implicit"
shape = "sextic"
radius = 15.0
[[walls]]
type = "implicit"
expression = "min(9 - abs(x), 8 - abs(y + 0.5))"
inside = "positive"
[[bodies]]
generator = "particle"
mass = 1.0
count = 300
seed = 9
spread = [9.0, 9.0]
"#,
        2.0,
    );
}

#[test]
fn implicit_wall_kernels_match_their_cpu_twins_3d() {
    kernel_parity(
        "3D ellipsoid and superellipse",
        r#"
dimension = 3
[solver]
dt = 0.01
[contact]
dhat = 0.01
kappa = 100.0
barrier = "book"
[[walls]]
type = "implicit"
shape = "ellipsoid"
semi_axes = [3.0, 2.5, 2.0]
[[walls]]
type = "implicit"
shape = "superellipse"
semi_axes = [2.8, 2.8, 2.8]
exponent = 3.5
[[bodies]]
generator = "particle"
mass = 1.0
count = 257
seed = 2
spread = [3.0, 3.0, 3.0]
"#,
        1.0,
    );
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
        let mut cpu_sim = Simulation::new(
            Box::new(CpuBackend::new(model.clone())),
            model.solver.clone(),
        );
        let mut gpu_sim = Simulation::new(Box::new(gpu), model.solver.clone());
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
    let g = if dim == 2 {
        "[0.0, -9.81]"
    } else {
        "[0.0, -9.81, 0.0]"
    };
    common::scene(&format!(
        "dimension = {dim}\n[solver]\ndt = 0.01\ngravity = {g}\n[contact]\ndhat = 0.01\nkappa = 1e3\n[[walls]]\ntype = \"implicit\"\n{wall}\n[[bodies]]\ngenerator = \"particle\"\nmass = 1.0\ncenter = {center}\n"
    ))
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

/// Defect: a 200-term sum failed on the GPU with naga's "recursion limit" (the
/// generated WGSL nested one call per term). The generated code is flat now: the
/// longest sum and the deepest expressions the parser accepts validate in every kernel.
#[test]
fn longest_sums_and_deepest_expressions_validate_in_every_kernel() {
    use springsim::implicit::expr::MAX_DEPTH;
    let mut srcs = vec![format!("x{}", " + y".repeat(MAX_DEPTH))];
    srcs.push(format!("{}x", "-".repeat(MAX_DEPTH)));
    srcs.push((0..MAX_DEPTH).fold("x".to_string(), |e, _| format!("sin({e})")));
    srcs.push((0..MAX_DEPTH - 1).fold("1 - x".to_string(), |e, _| format!("min({e}, 2 - y)")));
    srcs.push((0..MAX_DEPTH / 3).fold("x".to_string(), |e, _| format!("sqrt(1 + abs({e}))")));
    // constants beyond f32's range
    srcs.push("1e39 * x - 1e300 + abs(y)^1e40 - 1e-50".to_string());
    let walls: Vec<_> = srcs
        .iter()
        .map(|src| springsim::implicit::ImplicitWall {
            expr: springsim::implicit::parse(src, 2).unwrap(),
            label: "deep".into(),
        })
        .collect();
    let gen = generate(&walls);
    // flat: no line of the generated module holds more than one library call
    assert!(
        gen.lines().all(|l| l.matches('(').count() <= 3),
        "nested calls in the generated WGSL"
    );
    for (path, _) in Kernel::files() {
        reflect_with(path, &gen).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
}
