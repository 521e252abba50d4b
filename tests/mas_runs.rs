//! The multilevel additive Schwarz preconditioner (`solver.preconditioner = "mas"`)
//! in whole runs on the CPU backend: a stiff square dropped through its first
//! contacts ends where block-Jacobi PCG ends (within the CG tolerance) in fewer CG
//! iterations, with every step making progress; the scene key and the GPU's refusal
//! are clear.

mod common;
use common::{assert_progress, scene, springsim, temp_dir};
use springsim::backend::cpu::CpuBackend;
use springsim::linear_solver::PreconditionerKind;
use springsim::sim::Simulation;

/// A 32 × 32-cell square (1089 nodes) 5 cm above the ground, falling into it.
fn square(preconditioner: &str) -> springsim::scene::Scene {
    scene(&format!(
        r#"
dimension = 2
[solver]
dt = 0.01
cg_tolerance = 1e-8
preconditioner = "{preconditioner}"
[contact]
dhat = 0.01
kappa = 1e5
[[walls]]
type = "plane"
point = [0.0, -0.55]
normal = [0.0, 1.0]
[[bodies]]
generator = "grid"
size = [1.0, 1.0]
cells = [32, 32]
density = 1000.0
spring_stiffness = 2e4
"#
    ))
}

/// Steps `scene` 40 steps (through the first contacts); returns the final positions,
/// the CG iterations and the first step within d̂ of the ground.
fn run(scene: &springsim::scene::Scene, label: &str) -> (Vec<f64>, u64, Option<u64>) {
    let backend = CpuBackend::new(scene.model.clone());
    let mut sim = Simulation::new(Box::new(backend), scene.model.solver.clone());
    let (mut cg, mut contact) = (0, None);
    for _ in 0..40 {
        let r = sim.step().unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_progress(&r, label);
        cg += r.cg_iterations;
        if contact.is_none() && r.min_wall_distance < scene.model.barrier.dhat {
            contact = Some(r.step);
        }
    }
    (sim.backend().positions(), cg, contact)
}

#[test]
fn mas_ends_where_block_jacobi_ends_with_fewer_cg_iterations() {
    let jacobi = square("block_jacobi");
    let mas = square("mas");
    assert_eq!(mas.model.solver.preconditioner, PreconditionerKind::Mas);
    let (xj, cg_j, contact_j) = run(&jacobi, "block-Jacobi");
    let (xm, cg_m, contact_m) = run(&mas, "MAS");
    assert!(
        contact_j.is_some(),
        "the horizon includes the first contact"
    );
    assert_eq!(contact_j, contact_m, "first contact step");
    let diff = xj
        .iter()
        .zip(&xm)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(diff < 1e-6, "final positions differ by {diff} m");
    eprintln!("CG iterations over 40 steps: block-Jacobi {cg_j}, MAS {cg_m}");
    // Measured: 3694 against 5945. This square is mass-dominated (k h² / m ≈ 2), where
    // block-Jacobi is already fair; the stiff grid of the unit tests gains 5×.
    assert!(10 * cg_m < 8 * cg_j, "MAS {cg_m} vs block-Jacobi {cg_j}");
}

#[test]
fn a_bad_preconditioner_names_the_field_and_the_gpu_refuses_mas() {
    let bad = springsim::scene::parse(
        "dimension = 2\n[solver]\ndt = 0.01\npreconditioner = \"ilu\"\n[[bodies]]\ngenerator = \"grid\"\nsize = [1.0, 1.0]\ncells = [2, 2]\ndensity = 1.0\nspring_stiffness = 1.0\n",
        "bad.toml",
        "bad",
    )
    .expect_err("an unknown preconditioner is refused")
    .to_string();
    assert!(
        bad.contains("preconditioner") && bad.contains("bad.toml"),
        "{bad}"
    );
    let out = temp_dir("mas_gpu");
    let o = springsim(&[
        "run",
        "square_drop",
        "--backend",
        "gpu",
        "--preconditioner",
        "mas",
        "--steps",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("mas") && err.contains("CPU backend only"),
        "{err}"
    );
    assert!(!out.exists(), "nothing is written");
}
