//! Every GPU kernel against its CPU twin on identical inputs, through the backends'
//! shared [`Probe`] (ARCHITECTURE.md, tier B of the tests):
//! sizes 1, a workgroup ± 1, primes, and a dispatch forced onto a second grid
//! dimension; reductions against f64 sums with a relative bound; in every precision
//! mode, f64 to about 1e-12. Runs on lavapipe (which has f64) in CI; fails there if
//! no adapter is found.

mod common;
use common::{gpu_backend, max_abs, max_diff, random_model, Rng};
use springsim::backend::cpu::CpuBackend;
use springsim::backend::gpu::{GpuBackend, GpuOptions};
use springsim::backend::{Backend, Probe};
use springsim::energy::friction::FrictionParams;
use springsim::model::Model;
use springsim::newton::NewtonSystem;
use springsim::precision::{GpuPrecision, PrecisionChoice};

/// Relative bounds of the kernels against their f64 twins in one precision mode.
#[derive(Clone, Copy, Debug)]
struct Tol {
    /// Quantities of the state's precision (energies, their changes, CCD, λ).
    state: f64,
    /// Quantities stored as CG data (the gradient in r, H u in q).
    linear: f64,
    /// The preconditioner's inverted blocks (their error is the stored Newton
    /// block's times the block's condition number, up to ~4e4 here).
    block: f64,
}

fn tol(precision: GpuPrecision) -> Tol {
    match precision {
        // f32 arithmetic throughout
        GpuPrecision::F32 => Tol {
            state: 2e-5,
            linear: 2e-5,
            block: 1e-3,
        },
        // f64 arithmetic, CG data rounded to f32 once on store
        GpuPrecision::Mixed => Tol {
            state: 1e-12,
            linear: 2e-7,
            block: 1e-3,
        },
        GpuPrecision::F64 => Tol {
            state: 1e-12,
            linear: 1e-12,
            block: 1e-9,
        },
    }
}

/// `v` as the inputs of a test in `precision`: rounded to f32 in the f32 mode only.
fn inputs(v: &[f64], precision: GpuPrecision) -> Vec<f64> {
    match precision {
        GpuPrecision::F32 => v.iter().map(|c| (*c as f32) as f64).collect(),
        _ => v.to_vec(),
    }
}

struct Pair {
    cpu: CpuBackend,
    gpu: GpuBackend,
    model: Model,
}

/// The random model, with friction on both walls (μ 0.4 and 0.2, slip scale
/// ε_v h = 5e-4 m) when `friction` is set.
fn model(n: usize, dim: usize, barrier: &str, friction: bool) -> Model {
    let mut model = random_model(n, dim, barrier, n as u64 * 31 + dim as u64);
    if friction {
        model.friction = FrictionParams {
            eps_v: 0.05,
            plane_mu: vec![0.4, 0.2],
            implicit_mu: vec![],
        };
    }
    model
}

fn pair(
    n: usize,
    dim: usize,
    barrier: &str,
    opts: GpuOptions,
    friction: bool,
    precision: GpuPrecision,
) -> Option<Pair> {
    let mut model = model(n, dim, barrier, friction);
    model.solver.precision = PrecisionChoice::of(precision);
    if precision == GpuPrecision::Mixed {
        // mixed stores the springs in f32: the CPU gets the same rounded model
        for sp in &mut model.springs {
            sp.rest_length_sq = (sp.rest_length_sq as f32) as f64;
            sp.stiffness = (sp.stiffness as f32) as f64;
        }
    }
    let gpu = gpu_backend(model.clone(), opts)?;
    assert_eq!(gpu.precision(), precision);
    let mut cpu = CpuBackend::new(model.clone());
    let mut gpu = gpu;
    // The same iterate and prediction on both (f32-representable in the f32 mode).
    let mut rng = Rng(n as u64 + 7);
    let (x, xp) = if precision == GpuPrecision::F32 {
        common::shared_state(&model.x0, &mut rng)
    } else {
        let x = model.x0.clone();
        let xp = x.iter().map(|c| c + 0.01 * rng.next()).collect();
        (x, xp)
    };
    cpu.set_positions(&x);
    cpu.set_prediction(&xp);
    gpu.set_positions(&x);
    gpu.set_prediction(&xp);
    if friction {
        // A step start up to 1 mm away: slips on both sides of ε_v h, contacts
        // lagged there.
        let xn = x.iter().map(|c| c - 1e-3 * rng.next()).collect::<Vec<_>>();
        let xn = inputs(&xn, precision);
        cpu.set_step_start(&xn);
        gpu.set_step_start(&xn);
    }
    Some(Pair { cpu, gpu, model })
}

fn check_all(n: usize, dim: usize, barrier: &str, opts: GpuOptions, friction: bool) {
    for precision in GpuPrecision::ALL {
        check_in(n, dim, barrier, opts, friction, precision);
    }
}

fn check_in(
    n: usize,
    dim: usize,
    barrier: &str,
    opts: GpuOptions,
    friction: bool,
    precision: GpuPrecision,
) {
    let Some(mut p) = pair(n, dim, barrier, opts, friction, precision) else {
        return;
    };
    let t = tol(precision);
    let label = format!(
        "{} n={n} dim={dim} {barrier} max_groups_x={} friction={friction}",
        precision.name(),
        opts.max_groups_x
    );

    // friction_lag_start: the lagged normal forces.
    let (lc, lg) = (p.cpu.lagged_normal_forces(), p.gpu.lagged_normal_forces());
    assert_eq!(lc.len(), lg.len(), "{label}: friction slots");
    assert_eq!(lc.len(), if friction { 2 * n } else { 0 }, "{label}: slots");
    let err = max_diff(&lc, &lg);
    assert!(
        err <= t.state * max_abs(&lc) + 1e-9 * t.state / 2e-5,
        "{label}: λ differs by {err} (scale {})",
        max_abs(&lc)
    );
    if friction && n > 5 {
        assert!(lc.iter().any(|l| *l > 0.0), "{label}: no friction contact");
    }

    // assemble: gradient and Jacobi diagonal.
    let gc = p.cpu.potential_gradient();
    let gg = p.gpu.potential_gradient();
    let err = max_diff(&gc, &gg);
    assert!(
        err <= t.linear * max_abs(&gc) + 1e-7 * t.linear / 2e-5,
        "{label}: gradient differs by {err} (scale {})",
        max_abs(&gc)
    );
    let dc = p.cpu.jacobi_blocks();
    let dg = p.gpu.jacobi_blocks();
    assert_eq!(dc.len(), n * dim * dim, "{label}: preconditioner size");
    assert_eq!(dc.len(), dg.len(), "{label}: preconditioner sizes");
    for (i, (a, b)) in dc.chunks(dim * dim).zip(dg.chunks(dim * dim)).enumerate() {
        // Relative to the block (an off-diagonal entry may be a small difference), and
        // looser than the rest: inverting a block multiplies the stored block's error
        // by its condition number (up to ~4e4 here, with barrier and friction
        // stiffness along one direction); the preconditioner only steers CG, it does
        // not change the answer.
        assert!(
            max_diff(a, b) <= t.block * max_abs(a) + 1e-12,
            "{label}: preconditioner block {i}: cpu {a:?} gpu {b:?}"
        );
    }

    // newton_matvec and its d·q reduction.
    let mut rng = Rng(n as u64 * 3 + 1);
    // (a CG vector: f32-representable where it is stored in f32)
    let u: Vec<f64> = (0..n * dim).map(|_| rng.next()).collect();
    let u = inputs(
        &u,
        if t.linear > 1e-9 {
            GpuPrecision::F32
        } else {
            precision
        },
    );
    let (hc, _) = p.cpu.hessian_product(&u);
    let (hg, uhu_gpu) = p.gpu.hessian_product(&u);
    let err = max_diff(&hc, &hg);
    assert!(
        err <= t.linear * max_abs(&hc) + 1e-9 * t.linear / 2e-5,
        "{label}: H u differs by {err} (scale {})",
        max_abs(&hc)
    );
    let uhu: f64 = u.iter().zip(&hc).map(|(a, b)| a * b).sum();
    let abs: f64 = u.iter().zip(&hc).map(|(a, b)| (a * b).abs()).sum();
    assert!(
        (uhu - uhu_gpu).abs() <= t.linear * abs + 1e-9 * t.linear / 2e-5,
        "{label}: uᵀHu cpu {uhu} gpu {uhu_gpu}"
    );

    // energy_total: the incremental potential.
    let ec = p.cpu.incremental_potential(&inputs(&p.model.x0, precision));
    let eg = p.gpu.potential();
    assert!(
        (ec - eg).abs() <= t.state * ec.abs().max(1e-3),
        "{label}: E cpu {ec} gpu {eg}"
    );

    // direction_stats: the stopping measure and the CCD bound, for a direction that
    // drives the near-ground nodes towards the ground.
    // (stored as a CG vector: f32-representable where that is f32)
    let pdir: Vec<f64> = (0..n * dim)
        .map(|c| 0.02 * rng.next() - if c % dim == 1 { 0.02 } else { 0.0 })
        .collect();
    let pdir = inputs(
        &pdir,
        if t.linear > 1e-9 {
            GpuPrecision::F32
        } else {
            precision
        },
    );
    let x = p.cpu.positions();
    let (norm_c, ccd_c) = {
        Probe::set_direction(&mut p.cpu, &pdir);
        p.cpu.direction_summary()
    };
    p.gpu.set_direction(&pdir);
    let (norm_g, ccd_g) = p.gpu.direction_summary();
    assert!(
        (norm_c - norm_g).abs() <= (1e-6f64).min(t.state) * norm_c,
        "{label}: |p| cpu {norm_c} gpu {norm_g}"
    );
    assert!(
        (ccd_c - ccd_g).abs() <= (1e-4f64).min(100.0 * t.state) * ccd_c,
        "{label}: CCD cpu {ccd_c} gpu {ccd_g}"
    );

    // energy_change at a few step fractions below the CCD bound, against the f64
    // difference of two f64 energies.
    p.gpu.energy();
    for frac in [1.0, 0.5, 1e-3] {
        let alpha = frac * ccd_c;
        let xt: Vec<f64> = x.iter().zip(&pdir).map(|(a, b)| a + alpha * b).collect();
        let de_c = p.cpu.incremental_potential(&xt) - p.cpu.incremental_potential(&x);
        let de_g = p.gpu.energy_change(alpha);
        assert!(
            // (the CPU's ΔE is a difference of two sums of about E: its own rounding
            // is some 1e-13 E, far below the f32 mode's bound)
            (de_c - de_g).abs()
                <= (1e-4f64).min(100.0 * t.state) * de_c.abs()
                    + 1e-6 * ec.abs() * frac * t.state / 2e-5
                    + 1e-12 * ec.abs(),
            "{label}: ΔE({alpha}) cpu {de_c} gpu {de_g}"
        );
    }
    // A step through the ground is inadmissible on both.
    let through: Vec<f64> = (0..n * dim)
        .map(|c| if c % dim == 1 { -1.0 } else { 0.0 })
        .collect();
    p.gpu.set_direction(&through);
    if (0..n).any(|i| !p.model.fixed[i]) {
        assert_eq!(
            p.gpu.energy_change(1.0),
            f64::INFINITY,
            "{label}: step through the ground"
        );
    }
}

#[test]
fn kernels_match_cpu_twins_in_2d() {
    for n in [1, 255, 256, 257, 1021] {
        check_all(n, 2, "book", GpuOptions::default(), false);
    }
}

#[test]
fn kernels_match_cpu_twins_in_3d() {
    for n in [1, 257, 1031] {
        check_all(n, 3, "ipc", GpuOptions::default(), false);
    }
}

#[test]
fn kernels_match_cpu_twins_with_friction() {
    for n in [1, 257, 1031] {
        check_all(n, 2, "ipc", GpuOptions::default(), true);
        check_all(n, 3, "book", GpuOptions::default(), true);
    }
    check_all(
        4099,
        3,
        "ipc",
        GpuOptions {
            max_groups_x: 5,
            ..GpuOptions::default()
        },
        true,
    );
}

#[test]
fn kernels_match_on_a_two_dimensional_dispatch_grid() {
    // 17 workgroups of nodes (29 of elements) laid out 3 wide: a second grid
    // dimension and idle trailing workgroups, as beyond 65535 workgroups.
    let groups = |max_groups_x| GpuOptions {
        max_groups_x,
        ..GpuOptions::default()
    };
    check_all(4099, 2, "ipc", groups(3), false);
    check_all(4099, 3, "book", groups(5), false);
}

#[test]
fn gpu_pcg_direction_matches_the_cpu_solve() {
    let cases = [(300usize, 2usize, false), (500, 3, false), (500, 3, true)];
    for ((n, dim, friction), precision) in cases.into_iter().zip(GpuPrecision::ALL) {
        let opts = GpuOptions::default();
        let Some(mut p) = pair(n, dim, "book", opts, friction, precision) else {
            return;
        };
        let tol = p.cpu.model().solver.cg_tolerance.into();
        let dc = p.cpu.compute_direction(tol);
        let dg = p.gpu.compute_direction(tol);
        assert!(
            dc.cg_converged && dg.cg_converged,
            "CG converged: cpu {dc:?} gpu {dg:?}"
        );
        let pc = p.cpu.direction().to_vec();
        let pg = p.gpu.direction_vector();
        let err = max_diff(&pc, &pg);
        assert!(
            err <= 1e-3 * max_abs(&pc),
            "n={n} friction={friction}: direction differs by {err} (scale {})",
            max_abs(&pc)
        );
        assert!(
            (dc.norm - dg.norm).abs() <= 1e-3 * dc.norm,
            "norm cpu {} gpu {}",
            dc.norm,
            dg.norm
        );
        assert!(
            (dg.cg_iterations as f64) <= 2.0 * dc.cg_iterations as f64 + 10.0,
            "GPU CG took {} iterations, CPU {}",
            dg.cg_iterations,
            dc.cg_iterations
        );
    }
}

#[test]
fn step_updates_match_for_both_integrators() {
    for (integ, friction) in [
        (springsim::model::Integrator::ImplicitEuler, false),
        (springsim::model::Integrator::Newmark, false),
        (springsim::model::Integrator::ImplicitEuler, true),
    ] {
        let mut model = model(300, 3, "ipc", friction);
        model.solver.integrator = integ;
        let Some(gpu) = gpu_backend(model.clone(), GpuOptions::default()) else {
            return;
        };
        let mut sims: Vec<Box<dyn Backend>> =
            vec![Box::new(CpuBackend::new(model.clone())), Box::new(gpu)];
        let mut xs = Vec::new();
        for b in sims.iter_mut() {
            for _ in 0..3 {
                b.begin_step();
                springsim::newton::solve(b.as_mut(), &model.solver).unwrap();
                b.end_step();
            }
            xs.push((b.positions(), b.velocities()));
        }
        let (ex, ev) = (max_diff(&xs[0].0, &xs[1].0), max_diff(&xs[0].1, &xs[1].1));
        assert!(
            ex < 1e-4,
            "{integ:?} friction={friction}: positions differ by {ex}"
        );
        assert!(
            ev < 1e-2 * max_abs(&xs[0].1).max(1.0),
            "{integ:?}: velocities differ by {ev}"
        );
    }
}
