//! Implicit walls on the GPU: the generated WGSL module of every bundled implicit-wall
//! scene composes into every kernel and validates with naga (no device needed), and
//! the container scenes step on the GPU next to the CPU over a short horizon with no
//! ball leaving (the full 40 s runs are tested on the CPU in `implicit_walls.rs`).

mod common;
use springsim::backend::cpu::CpuBackend;
use springsim::backend::gpu::GpuOptions;
use springsim::compare::node_differences;
use springsim::gpu::pipelines::reflect_with;
use springsim::gpu::shaders::KERNELS;
use springsim::implicit::wgsl::generate;
use springsim::scene;
use springsim::sim::Simulation;

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
        for (path, _) in KERNELS {
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
    for (path, _) in KERNELS {
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
    let model = s.model.clone();
    let gpu = common::gpu_backend(model.clone(), GpuOptions::default())?;
    let mut cpu = Simulation::new(
        Box::new(CpuBackend::new(model.clone())),
        model.solver.clone(),
    );
    let mut gpu = Simulation::new(Box::new(gpu), model.solver.clone());
    let mut worst: f64 = 0.0;
    for step in 1..=steps {
        cpu.step().unwrap();
        gpu.step()
            .unwrap_or_else(|e| panic!("{name} GPU step {step}: {e}"));
        for w in gpu.last_newton.energies.windows(2) {
            assert!(
                w[1] <= w[0],
                "{name} step {step}: accepted iterate raised E"
            );
        }
        let xg = gpu.backend().positions();
        for (i, p) in xg.chunks(model.dim).enumerate() {
            for w in &model.implicit_walls {
                assert!(
                    w.distance(p) > 0.0,
                    "{name} step {step}: node {i} at {p:?} left {}",
                    w.label
                );
            }
        }
        let (max, _) = node_differences(&cpu.backend().positions(), &xg, model.dim);
        worst = worst.max(max);
    }
    eprintln!("{name}: GPU and CPU at most {worst:.3e} m apart over {steps} steps");
    Some(worst)
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
