//! `material_stiffness`: the same physical body sags the same at any resolution,
//! where the course's per-spring k makes a refined lattice stiffer; and its scene errors.

mod common;
use springsim::backend::cpu::CpuBackend;
use springsim::sim::Simulation;

/// A body hanging from its top face, solved to rest by one implicit-Euler step of
/// 10 s (the inertia term is then negligible): the mean drop of the bottom nodes (m).
fn sag(generator: &str, cells: usize, stiffness_key: &str) -> f64 {
    let (dim, size, cells_list, top) = match generator {
        "grid" => (2, "[1.0, 1.0]", format!("[{cells}, {cells}]"), {
            // Node (i, j) is i (n + 1) + j; the top row is j = n.
            (0..=cells)
                .map(|i| i * (cells + 1) + cells)
                .collect::<Vec<_>>()
        }),
        _ => (
            3,
            "[1.0, 1.0, 1.0]",
            format!("[{cells}, {cells}, {cells}]"),
            {
                // Node (i, j, k) is (i (n + 1) + j)(n + 1) + k; the top face is j = n.
                let n = cells + 1;
                (0..n)
                    .flat_map(|i| (0..n).map(move |k| (i * n + cells) * n + k))
                    .collect()
            },
        ),
    };
    let top: Vec<String> = top.iter().map(|i| i.to_string()).collect();
    let scene = common::scene(&format!(
        "dimension = {dim}\n[solver]\ndt = 10.0\ntolerance = 1e-7\ncg_tolerance = 1e-10\n\
         [contact]\ndhat = 0.01\nkappa = 1e5\n[[bodies]]\ngenerator = \"{generator}\"\n\
         size = {size}\ncells = {cells_list}\ndensity = 1000.0\n{stiffness_key}\nfixed = [{}]\n",
        top.join(", ")
    ));
    // The bottom nodes: the lowest y of the undeformed body.
    let x0 = &scene.model.x0;
    let y_min = x0.chunks(dim).map(|p| p[1]).fold(f64::INFINITY, f64::min);
    let bottom: Vec<usize> = (0..x0.len() / dim)
        .filter(|&i| x0[i * dim + 1] == y_min)
        .collect();
    let centroid_y =
        |x: &[f64]| bottom.iter().map(|&i| x[i * dim + 1]).sum::<f64>() / bottom.len() as f64;
    let y0 = centroid_y(&scene.model.x0);
    let mut sim = Simulation::new(Box::new(CpuBackend::new(scene.model.clone())), &scene.model);
    let rec = sim.step().unwrap();
    assert!(
        rec.converged,
        "{generator} {cells}: Newton did not converge"
    );
    y0 - centroid_y(&sim.backend().positions())
}

#[test]
fn a_hanging_square_sags_the_same_at_4_and_32_cells() {
    let key = "material_stiffness = 3.2e6";
    let (coarse, fine) = (sag("grid", 4, key), sag("grid", 32, key));
    // Gravity on 1000 kg against E ~ 3e6 N/m: a sag of centimetres, not a collapse.
    assert!(fine > 1e-3 && fine < 0.1, "{fine}");
    let rel = (coarse - fine).abs() / fine;
    assert!(
        rel < 0.1,
        "sag {coarse} m at 4x4 vs {fine} m at 32x32 ({rel:.3})"
    );
}

#[test]
fn a_hanging_lattice_sags_the_same_when_refined_but_not_with_a_per_spring_k() {
    let (coarse, fine) = (
        sag("lattice", 2, "material_stiffness = 1e8"),
        sag("lattice", 8, "material_stiffness = 1e8"),
    );
    assert!(fine > 1e-4 && fine < 0.1, "{fine}");
    let rel = (coarse - fine).abs() / fine;
    assert!(
        rel < 0.15,
        "sag {coarse} m at 2³ vs {fine} m at 8³ ({rel:.3})"
    );
    // The same k on every spring: four times the cells per side put sixteen times as
    // many springs side by side in chains four times as long, so the cube gets about
    // four times stiffer (2.7 times here, with the clamped face).
    let (kc, kf) = (
        sag("lattice", 2, "spring_stiffness = 1e6"),
        sag("lattice", 8, "spring_stiffness = 1e6"),
    );
    assert!(
        kc / kf > 2.0,
        "per-spring k: sag {kc} m at 2³ vs {kf} m at 8³"
    );
}

fn expect_error(text: &str, field: &str, reason: &str) {
    let e = springsim::scene::parse(text, "bad.toml", "bad")
        .unwrap_err()
        .to_string();
    assert!(e.contains(field) && e.contains(reason), "{e}");
}

const BODY: &str = "dimension = 2\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n\
    [[bodies]]\ngenerator = \"grid\"\nsize = [1.0, 1.0]\ncells = [2, 2]\ndensity = 1.0\n";

#[test]
fn stiffness_keys_are_exclusive_and_checked() {
    expect_error(
        &format!("{BODY}spring_stiffness = 1.0\nmaterial_stiffness = 2.0\n"),
        "bodies[0].material_stiffness",
        "not both",
    );
    expect_error(
        &format!("{BODY}material_stiffness = -2.0\n"),
        "bodies[0].material_stiffness",
        "positive",
    );
    expect_error(
        BODY,
        "bodies[0]",
        "missing field `spring_stiffness` or `material_stiffness`",
    );
    let ok = springsim::scene::parse(
        &format!("{BODY}material_stiffness = 3.2e5\n"),
        "ok.toml",
        "ok",
    )
    .unwrap();
    let k: Vec<f64> = ok.model.springs.iter().map(|s| s.stiffness).collect();
    // 2×2 cells: S = 20 springs over 1 m²; edges of 0.5 m get 3.2e5 / (4·20·0.25) = 16 000 N/m.
    assert!((k[0] - 16_000.0).abs() < 1e-9, "{k:?}");
    assert!((k[19] - 8_000.0).abs() < 1e-9, "{k:?}");
}

/// Seed 003's square drop at `cells` cells with `stiffness_key`, 150 steps (1.5 s, the
/// square lands at about 0.3 s) on the direct solver: the final centroid height (m).
fn drop_centroid(cells: usize, stiffness_key: &str) -> f64 {
    let text = std::fs::read_to_string("scenes/square_drop.toml")
        .unwrap()
        .replace("cells = [4, 4]", &format!("cells = [{cells}, {cells}]"))
        .replace("spring_stiffness = 2e4", stiffness_key)
        .replace("contact_area = 0.25", "contact_area = \"boundary\"");
    let scene = common::scene(&text);
    let backend = CpuBackend::new(scene.model.clone())
        .with_linear_solver(springsim::linear_solver::LinearSolver::Direct);
    let mut sim = Simulation::new(Box::new(backend), &scene.model);
    for _ in 0..150 {
        sim.step().unwrap();
    }
    let x = sim.backend().positions();
    x.chunks(2).map(|p| p[1]).sum::<f64>() / (x.len() / 2) as f64
}

#[test]
fn a_stiff_enough_square_lands_the_same_at_8_and_32_cells_where_the_course_k_folds() {
    // E = 3.2e6 N/m: the impact strain v/c is about 9 %; the square comes to rest on
    // the ground (centroid 0.5 m above it, less a little sag) at either resolution.
    let (coarse, fine) = (
        drop_centroid(8, "material_stiffness = 3.2e6"),
        drop_centroid(32, "material_stiffness = 3.2e6"),
    );
    assert!((coarse - fine).abs() < 5e-3, "{coarse} vs {fine}");
    assert!(fine > -0.51 && fine < -0.48, "{fine}");
    // The course's k = 2e4 (about E = 3.2e5, impact strain about 28 %) folds at 32 cells.
    let folded = drop_centroid(32, "spring_stiffness = 2e4");
    assert!(folded < -0.6, "{folded}");
}
