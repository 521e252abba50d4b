//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod bad_scene;
pub mod bounce;
pub mod cli;
pub mod drive;
pub mod ensemble;
mod gpu;
pub mod gpu_pairs;
pub mod implicit;
pub mod mesh_files;
pub mod self_contact;
pub mod side_by_side;
pub use gpu::*;

use springsim::scene::{self, Scene};

/// Parses a scene from TOML text, panicking with the error (tests only).
pub fn scene(text: &str) -> Scene {
    scene::parse(text, "test.toml", "test").unwrap_or_else(|e| panic!("{e}"))
}

/// A small deterministic pseudo-random generator (xorshift) for test inputs.
pub struct Rng(pub u64);

impl Rng {
    /// Uniform in [-1, 1).
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// The scene of [`grid_scene`] and [`lattice_scene`]: `dimension = dim`, dt 0.01 s,
/// CG tolerance 1e-12 and the `solver` keys, d̂ 0.05 m, κ 1e4 and the `barrier` kind,
/// then `rest` (walls and bodies).
fn contact_scene(dim: usize, solver: &str, barrier: &str, rest: &str) -> Scene {
    scene(&format!(
        "dimension = {dim}\n[solver]\ndt = 0.01\ncg_tolerance = 1e-12\n{solver}\
         [contact]\ndhat = 0.05\nkappa = 1e4\nbarrier = \"{barrier}\"\n{rest}"
    ))
}

/// A `[[bodies]]` section: a `grid` body of `size` (m) and `cells`, `density` (kg/m²)
/// and `spring_stiffness` (N/m), each number written as Rust's `{:?}` writes it.
pub fn grid_body(size: [f64; 2], cells: [u32; 2], density: f64, stiffness: f64) -> String {
    format!(
        "[[bodies]]\ngenerator = \"grid\"\nsize = {size:?}\ncells = {cells:?}\n\
         density = {density:?}\nspring_stiffness = {stiffness:?}\n"
    )
}

/// A 2D scene: a 3×2-cell grid near a slanted wall and the ground, with options spliced in.
pub fn grid_scene(barrier: &str, integrator: &str, extra_body: &str) -> Scene {
    let body = grid_body([0.9, 0.6], [3, 2], 100.0, 500.0);
    contact_scene(
        2,
        &format!("integrator = \"{integrator}\"\n"),
        barrier,
        &format!(
            r#"[[walls]]
type = "plane"
point = [0.0, -0.6]
normal = [0.0, 1.0]
[[walls]]
type = "plane"
point = [-0.8, 0.0]
normal = [1.0, 0.3]
{body}{extra_body}
"#
        ),
    )
}

/// A 3D scene: a 2×1×2 lattice above the ground and beside a slanted wall.
pub fn lattice_scene(barrier: &str) -> Scene {
    contact_scene(
        3,
        "",
        barrier,
        r#"[[walls]]
type = "plane"
point = [0.0, -0.4, 0.0]
normal = [0.0, 1.0, 0.0]
[[walls]]
type = "plane"
point = [-0.6, 0.0, 0.0]
normal = [1.0, 0.2, 0.1]
[[bodies]]
generator = "lattice"
size = [0.6, 0.4, 0.5]
cells = [2, 1, 2]
density = 100.0
spring_stiffness = 500.0
"#,
    )
}

/// A random model with `n` nodes in `dim` dimensions, for kernel-against-twin tests:
/// nodes scattered above a ground and beside a slanted wall (some within d̂ of them),
/// springs between index neighbours at ±20 % of their rest length, random masses,
/// areas and velocities, every 7th node fixed.
pub fn random_model(n: usize, dim: usize, barrier: &str, seed: u64) -> springsim::model::Model {
    use springsim::energy::barrier::{BarrierKind, BarrierParams};
    use springsim::model::{BodyInfo, Model, SolverParams, Spring};
    use springsim::wall::PlaneWall;
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let dhat = 0.05;
    let mut x0 = Vec::with_capacity(n * dim);
    for i in 0..n {
        for k in 0..dim {
            // Height above the ground (y = -1): every 5th node within d̂.
            let c = if k == 1 {
                if i % 5 == 0 {
                    -1.0 + dhat * (0.1 + 0.8 * (rng.next() * 0.5 + 0.5))
                } else {
                    -0.5 + 0.5 * rng.next()
                }
            } else {
                0.5 * rng.next()
            };
            x0.push(c);
        }
    }
    let mut springs = Vec::new();
    for i in 0..n {
        for off in [1usize, 3, 17] {
            let j = i + off;
            if j < n {
                let d2: f64 = (0..dim)
                    .map(|k| (x0[i * dim + k] - x0[j * dim + k]).powi(2))
                    .sum();
                let scale = 1.0 + 0.2 * rng.next();
                springs.push(Spring {
                    a: i as u32,
                    b: j as u32,
                    rest_length_sq: d2 * scale * scale + 1e-4,
                    stiffness: 100.0 * (1.5 + rng.next()),
                });
            }
        }
    }
    let mut ground = vec![0.0; dim];
    ground[1] = 1.0;
    let mut o = vec![0.0; dim];
    o[1] = -1.0;
    let mut slant = vec![0.0; dim];
    slant[0] = 1.0;
    slant[1] = 0.3;
    let mut so = vec![0.0; dim];
    so[0] = -3.0;
    let mut gravity = vec![0.0; dim];
    gravity[1] = -9.81;
    Model {
        dim,
        v0: (0..n * dim).map(|_| rng.next()).collect(),
        x0,
        mass: (0..n).map(|_| 0.1 * (1.5 + rng.next())).collect(),
        contact_area: (0..n).map(|_| 0.1 * (1.5 + rng.next())).collect(),
        fixed: (0..n).map(|i| i % 7 == 3).collect(),
        springs,
        walls: vec![
            PlaneWall::new(&o, &ground).unwrap(),
            PlaneWall::new(&so, &slant).unwrap(),
        ],
        implicit_walls: vec![],
        gravity,
        barrier: BarrierParams {
            kind: if barrier == "ipc" {
                BarrierKind::Ipc
            } else {
                BarrierKind::Book
            },
            dhat,
            kappa: 1e3,
        },
        friction: Default::default(),
        solver: SolverParams {
            max_newton_iterations: 50,
            cg_max_iterations: 2000,
            ..Default::default()
        },
        bodies: vec![BodyInfo {
            name: "random".into(),
            first_node: 0,
            nodes: n,
            springs: 0,
        }],
        triangles: vec![],
        tetrahedra: vec![],
        collision: springsim::collision::CollisionMesh::new(dim),
        self_contact: Default::default(),
        restitution: None,
        drives: vec![],
        moving_walls: vec![],
    }
}

/// Largest absolute entry.
pub fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, c| m.max(c.abs()))
}

/// Largest absolute difference of two equally long vectors.
pub fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

/// The same iterate and prediction for a CPU/GPU kernel comparison: `x0` rounded to
/// f32 (so both backends start from identical values) and a prediction up to 1 cm off
/// it, drawn from `rng`.
pub fn shared_state(x0: &[f64], rng: &mut Rng) -> (Vec<f64>, Vec<f64>) {
    let x: Vec<f64> = x0.iter().map(|c| (*c as f32) as f64).collect();
    let xp = x
        .iter()
        .map(|c| ((c + 0.01 * rng.next()) as f32) as f64)
        .collect();
    (x, xp)
}

/// Asserts that within each solve of a step (the first, and one per friction lagging
/// update) no accepted Newton iterate raised the incremental potential.
pub fn assert_energy_never_rises(stats: &springsim::newton::NewtonStats, label: &str) {
    for run in stats.solves() {
        for w in run.windows(2) {
            assert!(
                w[1] <= w[0],
                "{label}: accepted iterate raised E from {} to {}",
                w[0],
                w[1]
            );
        }
    }
}

/// Asserts that a step made progress: it did not stall and did not stop at the Newton
/// iteration cap.
pub fn assert_progress(rec: &springsim::sim::StepRecord, label: &str) {
    assert!(
        rec.stall.is_none() && !rec.newton_capped,
        "{label} step {}: stalled ({:?}) or at the Newton cap ({}), {} iterations, alpha_min {}, ccd_alpha_min {}",
        rec.step,
        rec.stall,
        rec.newton_capped,
        rec.newton_iterations,
        rec.alpha_min,
        rec.ccd_alpha_min
    );
}

/// Runs the `springsim` binary with `args` and returns its output.
pub fn springsim(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_springsim"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs the springsim binary with `args` and the environment variables `env` set.
pub fn springsim_env(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_springsim"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("the binary runs")
}

/// Runs `springsim sweep ARGS` with Slurm's array variables cleared (a test may run
/// inside an array job), then the variables of `env` set.
pub fn sweep(args: &[&str], env: &[(&str, String)]) -> std::process::Output {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_springsim"));
    c.arg("sweep").args(args);
    for k in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_COUNT",
    ] {
        c.env_remove(k);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("the binary runs")
}

/// A fresh (emptied) folder for one test's files: `springsim_NAME_PID` in the temp dir.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("springsim_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// [`temp_dir`], created: an empty folder for one test's files.
pub fn new_temp_dir(name: &str) -> std::path::PathBuf {
    let d = temp_dir(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Asserts `|a − b| ≤ rel·max(|a|, |b|) + abs`, naming `what`.
pub fn assert_close(a: f64, b: f64, rel: f64, abs: f64, what: &str) {
    assert!(
        (a - b).abs() <= rel * a.abs().max(b.abs()) + abs,
        "{what}: {a} vs {b}"
    );
}

/// The Python with numpy and meshio that consumer tests run (`SPRINGSIM_PYTHON`, set by
/// `scripts/test.sh`, or its venv `target/pyenv`). `None` outside CI when there is
/// none (the test says so and passes); under `CI` a missing Python fails the test.
pub fn python() -> Option<std::path::PathBuf> {
    let candidates = [
        std::env::var_os("SPRINGSIM_PYTHON").map(std::path::PathBuf::from),
        Some(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/pyenv/bin/python")),
    ];
    for p in candidates.into_iter().flatten() {
        let ok = std::process::Command::new(&p)
            .args(["-c", "import numpy, meshio"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(p);
        }
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but no Python with numpy and meshio was found: run scripts/test.sh"
    );
    eprintln!("no Python with numpy and meshio (run scripts/test.sh): consumer check skipped");
    None
}

/// Runs `script` with [`python`]'s interpreter and `args`; panics with its stderr if
/// it fails; returns its stdout. `None` where [`python`] gives none.
pub fn run_python(script: &str, args: &[&str]) -> Option<String> {
    let py = python()?;
    let out = std::process::Command::new(py)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "python failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).expect("utf-8 output"))
}
