//! The multilevel additive Schwarz preconditioner (`solver.preconditioner = "mas"`)
//! and its V-cycle (`"multigrid"`) in whole runs on the CPU backend: the ladder's
//! square dropped through its first contacts ends where block-Jacobi PCG ends (within
//! the CG tolerance) in fewer CG iterations (the V-cycle in fewer again), with every step making progress; the scene key is checked (the GPU
//! twin is tested in tests/gpu_mas.rs).

mod common;
use common::bad_scene::{expect, GOOD};
use common::cli::run_summary;
use common::{assert_progress, max_diff};
use springsim::backend::cpu::CpuBackend;
use springsim::bench::ladder::{Entry, Family};
use springsim::linear_solver::PreconditionerKind;
use springsim::sim::Simulation;

/// The ladder's 32 × 32-cell square (1089 nodes, falling onto the ground within a
/// few steps), every direction solved to a CG tolerance of 1e-8 with `preconditioner`.
fn square(preconditioner: PreconditionerKind) -> springsim::scene::Scene {
    let entry = Entry {
        family: Family::Square,
        cells: 32,
    };
    let mut s = entry.scene().unwrap_or_else(|e| panic!("{e}"));
    s.model.solver.cg_tolerance = 1e-8;
    // Exact Newton directions (the size would pick inexact ones): the two
    // preconditioners then solve the same systems to the same tolerance.
    s.model.solver.forcing = springsim::model::Forcing::Fixed;
    s.model.solver.preconditioner = preconditioner;
    s
}

/// Steps `scene` `steps` steps, checking each makes progress; returns the final
/// positions, the CG iterations and the first step within d̂ of the ground.
fn run(scene: &springsim::scene::Scene, steps: u64, label: &str) -> (Vec<f64>, u64, Option<u64>) {
    let backend = CpuBackend::new(scene.model.clone());
    let mut sim = Simulation::new(Box::new(backend), &scene.model);
    let (mut cg, mut contact) = (0, None);
    for _ in 0..steps {
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
    let jacobi = square(PreconditionerKind::BlockJacobi);
    let mas = square(PreconditionerKind::Mas);
    let (xj, cg_j, contact_j) = run(&jacobi, 40, "block-Jacobi");
    let (xm, cg_m, contact_m) = run(&mas, 40, "MAS");
    assert!(
        contact_j.is_some(),
        "the horizon includes the first contact"
    );
    assert_eq!(contact_j, contact_m, "first contact step");
    let diff = max_diff(&xj, &xm);
    assert!(diff < 1e-6, "final positions differ by {diff} m");
    let (xv, cg_v, contact_v) = run(&square(PreconditionerKind::Multigrid), 40, "V-cycle");
    assert_eq!(contact_j, contact_v, "first contact step (V-cycle)");
    let diff_v = max_diff(&xj, &xv);
    assert!(
        diff_v < 1e-6,
        "V-cycle: final positions differ by {diff_v} m"
    );
    eprintln!("CG iterations over 40 steps: block-Jacobi {cg_j}, MAS {cg_m}, V-cycle {cg_v}");
    // Measured: 5300 against 12118 (2.3×).
    assert!(2 * cg_m < cg_j, "MAS {cg_m} vs block-Jacobi {cg_j}");
    assert!(2 * cg_v < cg_m, "V-cycle {cg_v} vs MAS {cg_m}");
}

#[test]
fn the_scene_key_is_checked() {
    let with = |v: &str| GOOD.replace("dt = 0.01", &format!("dt = 0.01\npreconditioner = \"{v}\""));
    let s = springsim::scene::parse(&with("mas"), "good.toml", "good").unwrap();
    assert_eq!(s.model.solver.preconditioner, PreconditionerKind::Mas);
    let s = springsim::scene::parse(&with("multigrid"), "good.toml", "good").unwrap();
    assert_eq!(s.model.solver.preconditioner, PreconditionerKind::Multigrid);
    expect(&with("ilu"), "solver.preconditioner", 4, "unknown variant");
}

#[test]
fn auto_gives_the_larger_bundled_squares_the_vcycle_on_the_cpu() {
    use springsim::backend::Backend;
    let big = springsim::scene::load("square_256").unwrap();
    assert_eq!(big.model.solver.preconditioner, PreconditionerKind::Auto);
    let n = big.model.num_nodes();
    let per_node = |model: springsim::model::Model| {
        let nodes = model.num_nodes() as u64;
        CpuBackend::new(model).preconditioner_stats().memory_bytes / nodes
    };
    // The levels hold hundreds of bytes per node, block-Jacobi 32 (2 × 2 f64 per node).
    let auto_bytes = per_node(big.model.clone());
    assert!(auto_bytes > 200, "{n} nodes: {auto_bytes} B/node");
    let middle = springsim::scene::load("square_64").unwrap();
    assert!(per_node(middle.model) > 200, "square_64");
    let small = springsim::scene::load("square_drop").unwrap();
    assert_eq!(per_node(small.model), 32);
    // What auto picked is named in the summary.
    let dir = common::temp_dir("auto_vcycle");
    let s = run_summary("run square_64 --backend cpu --steps 1 -q", &dir);
    // The default linear solver switches between PCG (with the V-cycle auto picks at
    // this size) and the factorisation.
    assert_eq!(
        s["linear_solver"],
        "auto: pcg, block_jacobi | multigrid, eisenstat_walker / direct"
    );
    let args = "run square_64 --backend cpu --linear-solver pcg --steps 1 -q";
    let s = run_summary(args, &dir);
    assert_eq!(s["linear_solver"], "pcg, multigrid, eisenstat_walker");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn summary_json_names_the_direction_solver_as_run() {
    let dir = common::temp_dir("linear_solver_label");
    for (extra, label) in [
        ("", "auto: pcg, block_jacobi, fixed / direct"),
        ("--linear-solver pcg", "pcg, block_jacobi, fixed"),
        ("--preconditioner mas", "pcg, mas, fixed"),
        ("--preconditioner multigrid", "pcg, multigrid, fixed"),
        ("--linear-solver direct", "direct"),
    ] {
        let args = format!("run square_drop --backend cpu --steps 2 -q {extra}");
        let s = run_summary(&args, &dir);
        assert_eq!(s["linear_solver"], label, "{args}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_vcycle_takes_a_3d_lattice_through_its_contact_where_block_jacobi_does() {
    // lattice_drop: 245 nodes thrown onto the ground, first contact at step 25.
    let scene = |pre: PreconditionerKind| {
        let mut s = springsim::scene::load("lattice_drop").unwrap();
        s.model.solver.cg_tolerance = 1e-8;
        s.model.solver.forcing = springsim::model::Forcing::Fixed;
        s.model.solver.preconditioner = pre;
        s
    };
    let (xj, cg_j, contact_j) = run(&scene(PreconditionerKind::BlockJacobi), 60, "block-Jacobi");
    let (xv, cg_v, contact_v) = run(&scene(PreconditionerKind::Multigrid), 60, "V-cycle");
    assert!(
        contact_j.is_some(),
        "the horizon includes the first contact"
    );
    assert_eq!(contact_j, contact_v);
    let diff = max_diff(&xj, &xv);
    assert!(diff < 1e-6, "final positions differ by {diff} m");
    eprintln!("CG iterations over 60 steps: block-Jacobi {cg_j}, V-cycle {cg_v}");
    // Measured: 3897 against 1886.
    assert!(cg_v < cg_j, "V-cycle {cg_v} vs block-Jacobi {cg_j}");
}

/// `--preconditioner multigrid` runs on the GPU backend too (its kernels are
/// twinned in tests/gpu_mas.rs); `--backend auto` on a software adapter takes the
/// CPU, with the same label.
#[test]
fn the_vcycle_runs_on_the_gpu_and_auto_runs_it_on_the_cpu() {
    let dir = common::temp_dir("vcycle_gpu");
    let base = "run square_drop --steps 2 -q --preconditioner multigrid";
    if common::gpu_backend(
        common::random_model(4, 2, "book", 3),
        springsim::backend::gpu::GpuOptions::default(),
    )
    .is_some()
    {
        let s = run_summary(&format!("{base} --backend gpu"), &dir);
        assert_eq!(s["backend"], "gpu");
        assert_eq!(s["status"], "completed", "{s}");
        assert_eq!(s["linear_solver"], "pcg, multigrid, fixed");
    }
    let s = run_summary(&format!("{base} --backend auto"), &dir);
    assert_eq!(s["linear_solver"], "pcg, multigrid, fixed");
    std::fs::remove_dir_all(&dir).ok();
}
