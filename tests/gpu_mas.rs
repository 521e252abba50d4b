//! The GPU's multilevel additive Schwarz preconditioner (`shaders/kernels/mas.wgsl`)
//! against its CPU twin (`src/mas/`) on identical states: `z = M⁻¹ r` on 2D and 3D
//! meshes, random spring graphs with fixed nodes and a dispatch on a second grid
//! dimension; then PCG with it, and a run through the first contacts. Runs on
//! lavapipe in CI; fails there if no adapter is found.

mod common;
use common::{gpu_backend, max_abs, random_model, scene, Rng};
use springsim::backend::cpu::CpuBackend;
use springsim::backend::gpu::GpuOptions;
use springsim::backend::Probe;
use springsim::linear_solver::PreconditionerKind;
use springsim::model::Model;
use springsim::newton::NewtonSystem;

/// A stiff body on the ground: a 2D grid or a 3D lattice of `cells` per side, with
/// its bottom-left node fixed, without contact within itself: its cells (0.5 d̂ in
/// 2D) put boundary nodes a few cells apart within reach of each other, and the
/// comparisons here are about the preconditioner on walls and springs (the pairs'
/// blocks are compared in the gpu_self_contact tests).
fn body(dim: usize, cells: usize) -> Model {
    let (gen, size, cell, point, normal) = if dim == 2 {
        (
            "grid",
            "[1.0, 1.0]",
            format!("[{cells}, {cells}]"),
            "[0, -0.6]",
            "[0, 1]",
        )
    } else {
        (
            "lattice",
            "[1.0, 1.0, 1.0]",
            format!("[{cells}, {cells}, {cells}]"),
            "[0, -0.6, 0]",
            "[0, 1, 0]",
        )
    };
    let mut m = scene(&format!(
        "dimension = {dim}\n[solver]\ndt = 0.01\npreconditioner = \"mas\"\n[contact]\ndhat = 0.05\nkappa = 1e4\nself_contact = false\n\
         [[walls]]\ntype = \"plane\"\npoint = {point}\nnormal = {normal}\n\
         [[bodies]]\ngenerator = \"{gen}\"\nsize = {size}\ncells = {cell}\ndensity = 100\n\
         material_stiffness = 1e6\nfixed = [0]\n"
    ))
    .model;
    m.solver.preconditioner = PreconditionerKind::Mas;
    m
}

/// `‖z_gpu − z_cpu‖ / ‖z_cpu‖` for a random r at a perturbed state of `model`.
fn twin_error(model: Model, opts: GpuOptions, label: &str) -> Option<f64> {
    let mut gpu = gpu_backend(model.clone(), opts)?;
    let mut cpu = CpuBackend::new(model.clone());
    let mut rng = Rng(model.num_nodes() as u64);
    let (x, xp) = common::shared_state(&model.x0, &mut rng);
    for b in [&mut cpu as &mut dyn Probe, &mut gpu] {
        b.set_positions(&x);
        b.set_prediction(&xp);
    }
    let r: Vec<f64> = (0..x.len())
        .map(|k| {
            let i = k / model.dim;
            if model.fixed[i] {
                0.0
            } else {
                (rng.next() as f32) as f64
            }
        })
        .collect();
    let zc = cpu.precondition(&r);
    let zg = gpu.precondition(&r);
    assert!(
        zg.iter().all(|c| c.is_finite()),
        "{label}: GPU z not finite"
    );
    for (i, f) in model.fixed.iter().enumerate() {
        if *f {
            let zi = &zg[i * model.dim..(i + 1) * model.dim];
            assert!(
                zi.iter().all(|c| *c == 0.0),
                "{label}: fixed node {i} moved"
            );
        }
    }
    let norm = |v: &[f64]| v.iter().map(|c| c * c).sum::<f64>().sqrt();
    let diff: Vec<f64> = zc.iter().zip(&zg).map(|(a, b)| a - b).collect();
    let rel = norm(&diff) / norm(&zc);
    // The preconditioner is positive definite: rᵀz > 0 on both.
    let rz: f64 = r.iter().zip(&zg).map(|(a, b)| a * b).sum();
    assert!(rz > 0.0, "{label}: rᵀz = {rz}");
    eprintln!(
        "{label}: |z_gpu - z_cpu| / |z_cpu| = {rel:.2e} (max |z| {:.3e})",
        max_abs(&zc)
    );
    Some(rel)
}

#[test]
fn mas_kernels_match_the_cpu_twin() {
    twins_match(PreconditionerKind::Mas);
}

/// The V-cycle (`preconditioner = "multigrid"`, kernels/mas_cycle.wgsl) against the
/// CPU's `mas::VCycle` on the same states: its coarse Galerkin matrices, residuals
/// and smoothing on every level.
#[test]
fn vcycle_kernels_match_the_cpu_twin() {
    twins_match(PreconditionerKind::Multigrid);
}

fn twins_match(kind: PreconditionerKind) {
    let with = |mut m: Model| {
        m.solver.preconditioner = kind;
        m
    };
    let cases = [
        (
            body(2, 3),
            GpuOptions::default(),
            "2D grid, 16 nodes, 1 level",
        ),
        (
            body(2, 24),
            GpuOptions::default(),
            "2D grid, 625 nodes, 3 levels",
        ),
        (
            body(3, 7),
            GpuOptions::default(),
            "3D lattice, 512 nodes, 3 levels",
        ),
        (
            body(3, 16),
            GpuOptions::default(),
            "3D lattice, 4913 nodes, 4 levels",
        ),
        (
            body(2, 70),
            GpuOptions {
                max_groups_x: 3,
                ..GpuOptions::default()
            },
            "2D grid, 5041 nodes, 4 levels, two-dimensional dispatch",
        ),
    ];
    for (model, opts, label) in cases {
        let Some(rel) = twin_error(with(model), opts, label) else {
            return;
        };
        assert!(
            rel < 1e-4,
            "{label}: GPU and CPU preconditioners differ by {rel:.2e}"
        );
    }
    for (n, dim) in [(300usize, 2usize), (700, 3)] {
        let mut model = random_model(n, dim, "ipc", n as u64 + 3);
        model.solver.preconditioner = kind;
        let label = format!("random {dim}D graph of {n} nodes, every 7th fixed");
        let Some(rel) = twin_error(model, GpuOptions::default(), &label) else {
            return;
        };
        assert!(rel < 1e-4, "{label}: differ by {rel:.2e}");
    }
}

#[test]
fn gpu_pcg_with_mas_converges_like_the_cpu_and_beats_block_jacobi() {
    for dim in [2, 3] {
        let model = if dim == 2 { body(2, 40) } else { body(3, 10) };
        let mut rng = Rng(5);
        let (x, xp) = common::shared_state(&model.x0, &mut rng);
        let mut iterations = Vec::new();
        for pre in [
            PreconditionerKind::Mas,
            PreconditionerKind::BlockJacobi,
            PreconditionerKind::Multigrid,
        ] {
            let mut m = model.clone();
            m.solver.preconditioner = pre;
            m.solver.cg_tolerance = 1e-5;
            m.solver.cg_max_iterations = 5000;
            let Some(mut gpu) = gpu_backend(m.clone(), GpuOptions::default()) else {
                return;
            };
            let mut cpu = CpuBackend::new(m.clone());
            for b in [&mut cpu as &mut dyn Probe, &mut gpu] {
                b.set_positions(&x);
                b.set_prediction(&xp);
            }
            let tol = springsim::newton::CgTolerance::Fixed(m.solver.cg_tolerance);
            let dc = cpu.compute_direction(tol);
            let dg = gpu.compute_direction(tol);
            assert!(
                dc.cg_converged && dg.cg_converged,
                "{dim}D {pre:?}: {dc:?} {dg:?}"
            );
            let (pc, pg) = (cpu.direction().to_vec(), gpu.direction_vector());
            let err = common::max_diff(&pc, &pg);
            assert!(
                err <= 1e-3 * max_abs(&pc),
                "{dim}D {pre:?}: directions differ by {err} (scale {})",
                max_abs(&pc)
            );
            eprintln!(
                "{dim}D {} nodes {pre:?}: CG iterations CPU {} GPU {}",
                m.num_nodes(),
                dc.cg_iterations,
                dg.cg_iterations
            );
            assert!(
                (dg.cg_iterations as f64) <= 1.5 * dc.cg_iterations as f64 + 5.0,
                "{dim}D {pre:?}: GPU {} CPU {}",
                dg.cg_iterations,
                dc.cg_iterations
            );
            iterations.push(dg.cg_iterations);
        }
        // Measured on lavapipe: 57 against 236 (2D, 1681 nodes), 24 against 47 (3D,
        // 1331 nodes), the same counts as on the CPU.
        assert!(
            5 * iterations[0] < 3 * iterations[1],
            "{dim}D: MAS {} vs block-Jacobi {} CG iterations on the GPU",
            iterations[0],
            iterations[1]
        );
        // The V-cycle needs fewer than the additive form.
        assert!(
            iterations[2] < iterations[0],
            "{dim}D: V-cycle {} vs MAS {} CG iterations on the GPU",
            iterations[2],
            iterations[0]
        );
    }
}

#[test]
fn a_square_falls_through_its_first_contacts_with_mas_on_the_gpu() {
    use springsim::bench::ladder::{Entry, Family};
    let entry = Entry {
        family: Family::Square,
        cells: 16,
    };
    let mut s = entry.scene().unwrap_or_else(|e| panic!("{e}"));
    s.model.solver.preconditioner = PreconditionerKind::Mas;
    // gpu_follows_cpu asserts progress, no node behind a wall and non-rising energy
    // on every step of both backends (both with MAS).
    let Some(worst) = common::side_by_side::gpu_follows_cpu("square2d_16 with MAS", s, 40) else {
        return;
    };
    assert!(worst < 1e-3, "GPU and CPU {worst} m apart");
}

#[test]
fn springsim_run_takes_mas_on_the_gpu() {
    if gpu_backend(random_model(4, 2, "book", 3), GpuOptions::default()).is_none() {
        return;
    }
    let dir = common::temp_dir("gpu_mas_run");
    let s = common::cli::run_summary(
        "run square_drop --backend gpu --set contact.self_contact=false \
         --preconditioner mas --steps 400 --quiet",
        &dir,
    );
    // The square lands (about step 300) and comes to rest on the ground.
    assert_eq!(s["status"], "completed", "{s}");
    assert_eq!(s["backend"], "gpu");
    assert_eq!(s["linear_solver"], "pcg, mas, fixed");
    std::fs::remove_dir_all(&dir).ok();
}

/// The V-cycle on the GPU runs a square drop through its landing as the CPU's does:
/// the same Newton iterations, CG iterations within 2 % (f64 on both), a
/// factorisation for every solve (its factors are never kept), and far fewer CG
/// iterations than block-Jacobi on the same run.
#[test]
fn a_square_lands_with_the_vcycle_on_the_gpu_as_on_the_cpu() {
    if gpu_backend(random_model(4, 2, "book", 3), GpuOptions::default()).is_none() {
        return;
    }
    let dir = common::temp_dir("gpu_mg_run");
    let run = |backend: &str, pre: &str| {
        common::cli::run_summary(
            &format!(
                "run square_drop --backend {backend} --set contact.self_contact=false \
                 --set solver.precision=f64 --preconditioner {pre} --steps 400 --quiet"
            ),
            &dir,
        )
    };
    let count =
        |s: &serde_json::Value, k: &str| s[k].as_u64().unwrap_or_else(|| panic!("{k}: {s}"));
    let gpu = run("gpu", "multigrid");
    let cpu = run("cpu", "multigrid");
    let jacobi = run("gpu", "block-jacobi");
    for (label, s) in [("gpu", &gpu), ("cpu", &cpu), ("gpu, block-Jacobi", &jacobi)] {
        assert_eq!(s["status"], "completed", "{label}: {s}");
    }
    assert_eq!(gpu["linear_solver"], "pcg, multigrid, fixed", "{gpu}");
    let (newton, cg) = (
        count(&gpu, "newton_iterations"),
        count(&gpu, "cg_iterations"),
    );
    let landed = gpu["first_contact_step"].as_u64();
    eprintln!(
        "square_drop, 400 steps, V-cycle: GPU {newton} Newton, {cg} CG; CPU {} Newton, {} CG; \
         GPU block-Jacobi {} CG; first contact at step {landed:?}",
        count(&cpu, "newton_iterations"),
        count(&cpu, "cg_iterations"),
        count(&jacobi, "cg_iterations"),
    );
    assert!(landed.is_some(), "the square never landed: {gpu}");
    assert_eq!(newton, count(&cpu, "newton_iterations"));
    let cpu_cg = count(&cpu, "cg_iterations") as f64;
    assert!(
        (cg as f64 - cpu_cg).abs() <= 0.02 * cpu_cg + 2.0,
        "CG iterations: GPU {cg}, CPU {cpu_cg}"
    );
    // Every direction factors, on both backends alike.
    let factored = count(&gpu, "preconditioner_factorisations");
    assert_eq!(factored, count(&cpu, "preconditioner_factorisations"));
    assert!(
        factored > newton,
        "{factored} factorisations, {newton} Newton iterations"
    );
    assert!(
        2 * cg < count(&jacobi, "cg_iterations"),
        "V-cycle {cg} against block-Jacobi {} CG iterations",
        count(&jacobi, "cg_iterations")
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `solver.mas_reuse` (the default) factors MAS once at each step's first direction
/// and keeps the factors while CG keeps its pace: both backends count the same
/// factorisations (the same rule from the same CG counts), at least one per step and
/// fewer than the directions solved; with `mas_reuse = false` every direction
/// factors. square_drop lands about step 300, so the horizon covers its contacts.
#[test]
fn mas_keeps_its_factors_through_a_step_on_both_backends() {
    if gpu_backend(random_model(4, 2, "book", 3), GpuOptions::default()).is_none() {
        return;
    }
    let dir = common::temp_dir("gpu_mas_reuse");
    let run = |backend: &str, extra: &str| {
        common::cli::run_summary(
            &format!(
                "run square_drop --backend {backend} --set contact.self_contact=false \
                 --preconditioner mas --steps 400 --quiet {extra}"
            ),
            &dir,
        )
    };
    let count =
        |s: &serde_json::Value, k: &str| s[k].as_u64().unwrap_or_else(|| panic!("{k}: {s}"));
    let gpu = run("gpu", "");
    let cpu = run("cpu", "");
    let every = run("gpu", "--set solver.mas_reuse=false");
    for (label, s) in [("gpu", &gpu), ("cpu", &cpu), ("gpu, every", &every)] {
        assert_eq!(s["status"], "completed", "{label}: {s}");
    }
    let (steps, newton) = (count(&gpu, "steps"), count(&gpu, "newton_iterations"));
    let factored = count(&gpu, "preconditioner_factorisations");
    eprintln!(
        "square_drop, 400 steps: {newton} Newton; MAS factored {factored} times on the GPU, \
         {} on the CPU, {} without reuse",
        count(&cpu, "preconditioner_factorisations"),
        count(&every, "preconditioner_factorisations")
    );
    assert!(
        factored >= steps && factored < steps + newton,
        "GPU: {factored} factorisations in {steps} steps of {newton} Newton iterations"
    );
    let cpu_factored = count(&cpu, "preconditioner_factorisations") as f64;
    assert!(
        (cpu_factored - factored as f64).abs() <= 0.02 * factored as f64,
        "CPU {cpu_factored} against GPU {factored} factorisations"
    );
    assert!(
        count(&every, "preconditioner_factorisations")
            >= count(&every, "steps") + count(&every, "newton_iterations"),
        "without reuse every direction factors: {every}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
