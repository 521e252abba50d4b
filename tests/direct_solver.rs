//! `--linear-solver direct`: the sparse Cholesky direction equals the PCG direction,
//! the square drop matches its PCG run, and the GPU refuses it; `auto` weighs the
//! factorisation by its estimated cost.

mod common;
use common::cli::{assert_ok, springsim_out};
use springsim::backend::cpu::{CpuBackend, LinearSolver};
use springsim::newton::NewtonSystem;

#[test]
fn direct_and_pcg_directions_agree_in_2d_and_3d_with_fixed_nodes() {
    for (dim, seed) in [(2, 3), (3, 5)] {
        for barrier in ["book", "ipc"] {
            let mut model = common::random_model(300, dim, barrier, seed);
            model.solver.cg_tolerance = 1e-13;
            model.solver.cg_max_iterations = 20_000;
            assert!(model.fixed.iter().any(|f| *f));
            let mut pcg = CpuBackend::new(model.clone());
            let mut direct = CpuBackend::new(model).with_linear_solver(LinearSolver::Direct);
            let (dp, dd) = (
                pcg.compute_direction(1e-13.into()),
                direct.compute_direction(1e-13.into()),
            );
            assert!(dp.cg_converged && dp.cg_iterations > 0);
            assert_eq!(dd.cg_iterations, 0);
            let (p, q) = (pcg.direction(), direct.direction());
            let err = common::max_diff(p, q);
            let scale = common::max_abs(p);
            assert!(
                scale > 0.0 && err < 1e-9 * scale,
                "{dim}D {barrier}: |Δp| {err} vs |p| {scale}"
            );
            assert!((dp.norm - dd.norm).abs() < 1e-9 * dp.norm);
        }
    }
}

fn trajectory(dir: &std::path::Path) -> Vec<f64> {
    std::fs::read_to_string(dir.join("trajectory.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .flat_map(|l| {
            l.split(',')
                .skip(2)
                .map(|v| v.parse::<f64>().unwrap())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn square_drop_with_the_direct_solver_follows_the_pcg_run() {
    let base = std::env::temp_dir().join(format!("springsim-direct-{}", std::process::id()));
    let mut runs = Vec::new();
    for solver in ["pcg", "direct"] {
        let out = base.join(solver);
        let args = format!(
            "run scenes/square_drop.toml --backend cpu --linear-solver {solver} \
             --steps 500 --trajectory --quiet"
        );
        assert_ok(&springsim_out(&args, &out));
        runs.push(trajectory(&out));
    }
    assert_eq!(runs[0].len(), 501 * 25 * 2);
    // PCG stops at a relative residual of 1e-6; the two runs stay within 1e-5 m.
    let diff = common::max_diff(&runs[0], &runs[1]);
    assert!(diff < 1e-5, "largest position difference {diff} m");
    let summary = std::fs::read_to_string(base.join("direct/summary.json")).unwrap();
    assert!(summary.contains("\"cg_iterations\": 0"), "{summary}");
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn the_gpu_backend_refuses_the_direct_solver_and_bad_names_are_errors() {
    let o = springsim_out(
        "run square_drop --backend gpu --linear-solver direct --steps 1 --quiet",
        std::path::Path::new("/tmp/springsim-never"),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("direct linear solver runs on the CPU backend only"));
    let text = std::fs::read_to_string("scenes/square_drop.toml").unwrap();
    let bad = text.replace(
        "tolerance = 1e-2",
        "tolerance = 1e-2\nlinear_solver = \"cholmod\"",
    );
    let e = springsim::scene::parse(&bad, "bad.toml", "bad")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("solver.linear_solver") && e.contains("cholmod"),
        "{e}"
    );
    let good = text.replace(
        "tolerance = 1e-2",
        "tolerance = 1e-2\nlinear_solver = \"direct\"",
    );
    let s = springsim::scene::parse(&good, "ok.toml", "ok").unwrap();
    assert_eq!(s.linear_solver, LinearSolver::Direct);
}

#[test]
fn auto_switches_by_the_factorisations_estimated_cost() {
    use springsim::backend::cpu::auto_solver::{resolve, AutoChoice};
    use springsim::linear_solver::PreconditionerKind;
    assert_eq!(LinearSolver::default(), LinearSolver::Auto);
    let load = |name: &str, cells: &str| {
        let o = springsim::scene::Override::parse(&format!("bodies[0].cells={cells}")).unwrap();
        springsim::scene::load_with(name, &[o]).unwrap().model
    };
    let flops = |m: &springsim::model::Model| match resolve(LinearSolver::Auto, m, false) {
        AutoChoice::Switching { factor } => factor.flops_per_node,
        other => panic!("{other:?}"),
    };
    // A 2D grid factors with little fill-in, a 3D lattice with much more: per node
    // (2×2 or 3×3 blocks) ~5·10⁴ operations for the 66k-node square, ~4·10⁵ for the
    // 1,331-node lattice.
    let square = load("square_64", "[256, 256]");
    let lattice = load("lattice_drop", "[10, 10, 10]");
    let (fs, fl) = (flops(&square), flops(&lattice));
    assert!((2e4..1e5).contains(&fs), "{fs}");
    assert!((2e5..1e6).contains(&fl), "{fl}");
    assert!(flops(&load("lattice_drop", "[4, 4, 4]")) < fl / 10.0);
    let gpu = resolve(LinearSolver::Auto, &square, true);
    assert_eq!(gpu, AutoChoice::Pcg, "GPU");
    assert_eq!(resolve(LinearSolver::Pcg, &square, false), AutoChoice::Pcg);
    let mut named = square.clone();
    named.solver.preconditioner = PreconditionerKind::Mas;
    let auto_named = resolve(LinearSolver::Auto, &named, false);
    assert_eq!(auto_named, AutoChoice::Pcg, "MAS named");
    let direct = resolve(LinearSolver::Direct, &named, false);
    assert_eq!(direct, AutoChoice::Direct);
}
