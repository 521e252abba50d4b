//! Inexact Newton (`solver.forcing = "eisenstat_walker"`): on the ladder's stiff
//! square through its first contacts it needs far fewer CG iterations than
//! fixed-tolerance Newton and ends within the Newton tolerance of it; seed 003's
//! square drop keeps its course figures within the tolerance-implied bound; the GPU
//! honours a per-solve CG tolerance; the scene keys are checked.

mod common;
use common::bad_scene::{expect, GOOD};
use common::{assert_progress, gpu_backend, max_diff, random_model};
use springsim::backend::cpu::CpuBackend;
use springsim::backend::gpu::GpuOptions;
use springsim::bench::ladder::{Entry, Family};
use springsim::newton::{Forcing, NewtonSystem};
use springsim::sim::Simulation;

/// The ladder's `cells`-per-side square with `forcing`.
fn square(cells: usize, forcing: Forcing) -> springsim::scene::Scene {
    let entry = Entry {
        family: Family::Square,
        cells,
    };
    let mut s = entry.scene().unwrap_or_else(|e| panic!("{e}"));
    s.model.solver.forcing = forcing;
    s
}

/// Steps `scene` `steps` times on the CPU; returns the final positions, the CG and
/// Newton iterations and the first step within d̂ of the ground.
fn run(
    scene: &springsim::scene::Scene,
    steps: u32,
    label: &str,
) -> (Vec<f64>, u64, u64, Option<u64>) {
    let backend = CpuBackend::new(scene.model.clone());
    let mut sim = Simulation::new(Box::new(backend), &scene.model);
    let (mut cg, mut newton, mut contact) = (0, 0, None);
    for _ in 0..steps {
        let r = sim.step().unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_progress(&r, label);
        assert!(r.converged, "{label}: step {} did not converge", r.step);
        cg += r.cg_iterations;
        newton += r.newton_iterations as u64;
        if contact.is_none() && r.min_wall_distance < scene.model.barrier.dhat {
            contact = Some(r.step);
        }
    }
    (sim.backend().positions(), cg, newton, contact)
}

#[test]
fn eisenstat_walker_cuts_cg_on_the_stiff_square_and_ends_within_the_newton_tolerance() {
    let fixed = square(32, Forcing::Fixed);
    let inexact = square(32, Forcing::EisenstatWalker);
    let steps = 40;
    let (xf, cg_f, newton_f, contact_f) = run(&fixed, steps, "fixed");
    let (xi, cg_i, newton_i, contact_i) = run(&inexact, steps, "Eisenstat-Walker");
    assert!(
        contact_f.is_some(),
        "the horizon includes the first contact"
    );
    assert_eq!(contact_f, contact_i, "first contact step");
    let diff = max_diff(&xf, &xi);
    eprintln!(
        "40 steps: CG fixed {cg_f}, EW {cg_i}; Newton fixed {newton_f}, EW {newton_i}; \
         max node distance {diff:.3e} m"
    );
    // Each step ends where |p| / h < tol: within tol · h = 1e-4 m of its minimiser.
    // Measured: 4.4e-6 m after 40 steps, through the contact.
    let h = fixed.model.solver.dt;
    let bound = fixed.model.solver.tolerance * h;
    assert!(
        diff < bound,
        "end positions differ by {diff} m (bound {bound} m)"
    );
    // Measured: 3325 against 9650 (2.9×), with 47 against 45 Newton iterations.
    assert!(2 * cg_i < cg_f, "EW {cg_i} vs fixed {cg_f} CG iterations");
}

#[test]
fn seed_003_square_drop_keeps_its_course_figures_with_eisenstat_walker() {
    let mut scene =
        springsim::scene::load("scenes/square_drop.toml").unwrap_or_else(|e| panic!("{e}"));
    scene.model.solver.forcing = Forcing::EisenstatWalker;
    let backend = CpuBackend::new(scene.model.clone());
    let mut sim = Simulation::new(Box::new(backend), &scene.model);
    let mut centroids = vec![];
    let mut first_contact = None;
    for _ in 0..500 {
        let r = sim.step().unwrap_or_else(|e| panic!("{e}"));
        assert_progress(&r, "square_drop EW");
        if first_contact.is_none() && r.min_wall_distance < scene.model.barrier.dhat {
            first_contact = Some(r.step);
        }
        let x = sim.backend().positions();
        centroids.push(x.iter().skip(1).step_by(2).sum::<f64>() / 25.0);
    }
    assert_eq!(first_contact, Some(32), "course: 32");
    // The course's centroid heights (tests/reference_square_drop.rs); fixed forcing
    // meets them to 1e-3 m, inexact Newton within a few tol · h = 1e-4 m more.
    for (step, want) in [
        (50, -0.618102),
        (75, -0.357813),
        (100, -0.574023),
        (500, -0.510917),
    ] {
        let got = centroids[step - 1];
        assert!(
            (got - want).abs() <= 2e-3,
            "centroid y at step {step}: {got}, course: {want}"
        );
    }
}

#[test]
fn the_gpu_honours_a_per_solve_cg_tolerance() {
    let model = random_model(300, 2, "book", 11);
    let Some(mut g) = gpu_backend(model.clone(), GpuOptions::default()) else {
        return;
    };
    let mut c = CpuBackend::new(model);
    let loose = g.compute_direction(1e-2.into());
    let tight = g.compute_direction(1e-6.into());
    let loose_again = g.compute_direction(1e-2.into());
    let cpu_loose = c.compute_direction(1e-2.into());
    eprintln!(
        "GPU CG iterations: η = 1e-2 {}, 1e-6 {}, 1e-2 again {}; CPU η = 1e-2 {}",
        loose.cg_iterations,
        tight.cg_iterations,
        loose_again.cg_iterations,
        cpu_loose.cg_iterations
    );
    assert!(loose.cg_converged && tight.cg_converged);
    assert!(loose.cg_tolerance == 1e-2 && tight.cg_tolerance == 1e-6);
    assert!(
        2 * loose.cg_iterations < tight.cg_iterations,
        "η = 1e-2: {} iterations, 1e-6: {}",
        loose.cg_iterations,
        tight.cg_iterations
    );
    assert_eq!(
        loose.cg_iterations, loose_again.cg_iterations,
        "the tolerance is set per solve"
    );
    assert!(loose.cg_iterations.abs_diff(cpu_loose.cg_iterations) <= 2);
    // A loose solve reports a finite error bound; the rhs norm matches the CPU's.
    assert!(loose.error_bound.is_finite() && loose.error_bound > 0.0);
    let rel = (loose.rhs_norm - cpu_loose.rhs_norm).abs() / cpu_loose.rhs_norm;
    assert!(
        rel < 1e-4,
        "‖b‖ GPU {} CPU {}",
        loose.rhs_norm,
        cpu_loose.rhs_norm
    );
}

#[test]
fn the_forcing_keys_are_parsed_and_checked() {
    let with = |v: &str| GOOD.replace("dt = 0.01", &format!("dt = 0.01\n{v}"));
    let s = springsim::scene::parse(
        &with("forcing = \"eisenstat_walker\"\nforcing_start = 0.05"),
        "good.toml",
        "good",
    )
    .unwrap();
    assert_eq!(s.model.solver.forcing, Forcing::EisenstatWalker);
    assert_eq!(s.model.solver.forcing_start, 0.05);
    let d = springsim::scene::parse(GOOD, "good.toml", "good").unwrap();
    assert_eq!(d.model.solver.forcing, Forcing::Fixed);
    expect(
        &with("forcing = \"loose\""),
        "solver.forcing",
        4,
        "unknown variant",
    );
    expect(
        &with("forcing_start = 1.5"),
        "solver.forcing_start",
        4,
        "below 1",
    );
    expect(&with("forcing_start = -0.1"), "solver.forcing_start", 4, "");
}

#[test]
fn auto_forcing_takes_eisenstat_walker_from_a_thousand_nodes() {
    use springsim::model::EW_AUTO_NODES;
    let load = |name: &str, sets: &[&str]| {
        let o: Vec<_> = sets
            .iter()
            .map(|a| springsim::scene::Override::parse(a).unwrap())
            .collect();
        springsim::scene::load_with(name, &o).unwrap()
    };
    // 25 nodes, and the 4225-node square: the default is auto.
    assert_eq!(
        load("square_drop", &[]).model.solver.forcing,
        Forcing::Fixed
    );
    let big = load("square_64", &[]);
    assert!(big.model.num_nodes() >= EW_AUTO_NODES);
    assert_eq!(big.model.solver.forcing, Forcing::EisenstatWalker);
    // At the threshold: 31 × 31 = 961 nodes stays fixed, 32 × 32 = 1024 is inexact.
    let below = load(
        "square_drop",
        &["solver.forcing=auto", "bodies[0].cells=[30, 30]"],
    );
    assert_eq!(below.model.solver.forcing, Forcing::Fixed);
    let above = load(
        "square_drop",
        &["solver.forcing=auto", "bodies[0].cells=[31, 31]"],
    );
    assert_eq!(above.model.num_nodes(), 1024);
    assert_eq!(above.model.solver.forcing, Forcing::EisenstatWalker);
    // A named rule is kept whatever the size.
    let fixed = load("square_64", &["solver.forcing=fixed"]);
    assert_eq!(fixed.model.solver.forcing, Forcing::Fixed);
}
