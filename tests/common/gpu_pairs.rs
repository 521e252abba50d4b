//! Contact between and within bodies on the GPU against the CPU reference, kernel by
//! kernel (the helpers of `tests/gpu_self_contact*.rs`).

use super::{max_abs, max_diff, Rng};
use springsim::backend::cpu::CpuBackend;
use springsim::backend::gpu::{GpuBackend, GpuOptions};
use springsim::backend::Probe;
use springsim::collision::pairs::{near_candidates, rest_neighbours, Motion};
use springsim::collision::REST_EXCLUSION;
use springsim::model::Model;
use springsim::newton::NewtonSystem;

/// The GPU backend on `model` (with self-contact), or `None` without an adapter
/// outside CI.
pub fn gpu(model: &Model, opts: GpuOptions) -> Option<GpuBackend> {
    match GpuBackend::with_options(model.clone(), opts) {
        Ok(g) => Some(g),
        Err(e) if std::env::var_os("CI").is_none() && e.contains("adapter") => {
            eprintln!("skipping GPU test (no adapter): {e}");
            None
        }
        Err(e) => panic!("the GPU backend cannot start: {e}"),
    }
}

/// The largest difference of `a` from `b`, relative to the largest entry of `b`.
pub fn rel(a: &[f64], b: &[f64]) -> f64 {
    max_diff(a, b) / max_abs(b).max(1e-300)
}

/// Compares the GPU with the CPU at one state, kernel by kernel through [`Probe`]:
/// −∇E, E, H u and uᵀHu, the block-Jacobi blocks (to 1000 `tol`), the CCD bound
/// along `p` (which must meet a contact), the swept broad phase's list (equal to the
/// CPU's `near_candidates`, in order) and the line search's ΔE at half the bound. The step
/// start is the rest state, the prediction 1 cm below it (y). Returns the GPU's
/// pair count.
pub fn compare(model: &Model, gpu: &mut GpuBackend, x: &[f64], p: &[f64], tol: f64) -> usize {
    let mut cpu = CpuBackend::new(model.clone());
    // the same step start and prediction (x̃ 1 cm below xⁿ), then the iterate
    let dim = model.dim;
    let xp: Vec<f64> = model
        .x0
        .iter()
        .enumerate()
        .map(|(i, c)| c - if i % dim == 1 { 0.01 } else { 0.0 })
        .collect();
    for b in [&mut cpu as &mut dyn Probe, gpu as &mut dyn Probe] {
        b.set_step_start(&model.x0);
        b.set_prediction(&xp);
        b.set_positions(x);
    }
    let ec = same_system(&mut cpu, gpu, tol);
    let (jc, jg) = (cpu.jacobi_blocks(), gpu.jacobi_blocks());
    assert!(
        rel(&jg, &jc) < 1e3 * tol,
        "blocks differ by {:.2e}",
        rel(&jg, &jc)
    );
    // the direction: CCD bound, then the swept list and the line search's change
    cpu.set_direction(p);
    gpu.set_direction(p);
    let ((_, bc), (_, bg)) = (cpu.direction_summary(), gpu.direction_summary());
    assert!(bc < 1.0, "the direction must meet a contact (bound {bc})");
    assert!((bc - bg).abs() <= tol * bc, "CCD bound: cpu {bc} gpu {bg}");
    let excluded = rest_neighbours(
        &model.collision,
        &model.x0,
        REST_EXCLUSION * model.barrier.dhat,
    );
    let motion = Motion {
        x,
        sweep: Some((p, 1.0)),
    };
    let expected = near_candidates(&model.collision, motion, model.barrier.dhat, &excluded);
    let found = gpu.contact_pair_list();
    assert_eq!(
        found, expected,
        "the swept broad phase's pairs, in list order"
    );
    // the GPU sums the change per element; the CPU's E at both ends gives it too
    same_energy_change(&mut cpu, gpu, x, p, 0.5 * bc, ec, tol);
    found.len()
}

/// Steps `model` on both backends (the GPU `g`, the CPU) for `steps` steps and checks
/// after every GPU step that IPC's promise held: progress, accepted iterates never
/// raising E, no NaN, no crossing primitives (the CPU's exact checker on the GPU's
/// positions), no pair at d = 0. `agree(step, gpu record, cpu record, max position
/// difference in m, f64 mode)` adds the test's own checks of the backends'
/// agreement. Returns the most contact pairs the GPU saw in a step.
pub fn step_beside_cpu(
    model: &Model,
    g: GpuBackend,
    steps: u64,
    name: &str,
    agree: impl FnMut(u64, &springsim::sim::StepRecord, &springsim::sim::StepRecord, f64, bool),
) -> u64 {
    step_beside_cpu_with_stats(model, g, steps, name, agree).0
}

/// [`step_beside_cpu`], also returning the GPU's contact statistics at the end.
pub fn step_beside_cpu_with_stats(
    model: &Model,
    g: GpuBackend,
    steps: u64,
    name: &str,
    mut agree: impl FnMut(u64, &springsim::sim::StepRecord, &springsim::sim::StepRecord, f64, bool),
) -> (u64, springsim::backend::ContactStats) {
    use super::{assert_energy_never_rises, assert_progress};
    use springsim::collision::check::intersections;
    use springsim::sim::Simulation;
    let f64_mode = g.precision() == springsim::precision::GpuPrecision::F64;
    let mut gpu = Simulation::new(Box::new(g), model);
    let mut cpu = Simulation::new(Box::new(CpuBackend::new(model.clone())), model);
    let mut pairs_seen = 0;
    for step in 1..=steps {
        let rc = cpu.step().unwrap();
        let rg = gpu.step().unwrap();
        let label = format!("{name} GPU step {step}");
        assert_progress(&rg, &label);
        assert_energy_never_rises(&gpu.last_newton, &label);
        let xg = gpu.backend().positions();
        assert!(xg.iter().all(|c| c.is_finite()), "{label}: NaN");
        let crossings = intersections(&model.collision, &xg);
        assert!(crossings.is_empty(), "{label}: {crossings:?}");
        assert!(rg.min_pair_distance > 0.0, "{label}: a pair at d = 0");
        pairs_seen = pairs_seen.max(rg.contact_pairs);
        let d = max_diff(&xg, &cpu.backend().positions());
        agree(step, &rg, &rc, d, f64_mode);
    }
    (pairs_seen, gpu.backend().contact_stats())
}

/// Friction between bodies, kernel by kernel: both backends start a step at `x_lag`
/// and lag it there (the same largest change of λ, which for a first lag is the
/// largest λ), then at `x`, where body 1 has slipped sideways (across y) by up to
/// 3e-5 m per node and axis (ε_v h = 1e-5 m at the tests' h: some pairs stick, most
/// slide), agree on −∇E, E, H u and uᵀHu, the line search's
/// ΔE along `p` and the friction statistics, to `tol`; a second lag at `x` reports
/// the same change (pairs matched by their primitives). Returns the CPU's first
/// change (N).
pub fn compare_friction(
    model: &Model,
    gpu: &mut GpuBackend,
    x_lag: &[f64],
    p: &[f64],
    rng: &mut Rng,
    tol: f64,
) -> f64 {
    let dim = model.dim;
    let mut x = x_lag.to_vec();
    for (i, &body) in model.collision.node_body.iter().enumerate() {
        for k in (0..dim).filter(|&k| k != 1 && body == 1) {
            x[dim * i + k] += 3e-5 * rng.next();
        }
    }
    let x = &x[..];
    use springsim::backend::Backend;
    let mut cpu = CpuBackend::new(model.clone());
    for b in [&mut cpu as &mut dyn Probe, gpu as &mut dyn Probe] {
        b.set_step_start(x_lag);
        b.set_prediction(x_lag);
        b.set_positions(x_lag);
    }
    let (first, lg) = (cpu.update_friction_lag(), gpu.update_friction_lag());
    assert!(first > 0.0, "no friction pair was lagged");
    assert!(
        (first - lg).abs() <= tol * first,
        "lag: cpu {first} gpu {lg}"
    );
    for b in [&mut cpu as &mut dyn Probe, gpu as &mut dyn Probe] {
        b.set_positions(x);
    }
    let ec = same_system(&mut cpu, gpu, tol);
    cpu.set_direction(p);
    gpu.set_direction(p);
    let ((_, bc), (_, bg)) = (cpu.direction_summary(), gpu.direction_summary());
    assert!((bc - bg).abs() <= tol * bc, "CCD bound: cpu {bc} gpu {bg}");
    same_energy_change(&mut cpu, gpu, x, p, 0.5 * bc, ec, tol);
    cpu.set_positions(x);
    let (sc, sg) = (cpu.diagnostics(), gpu.diagnostics());
    assert_eq!(
        (sc.sticking, sc.sliding),
        (sg.sticking, sg.sliding),
        "stick/slide"
    );
    assert!(sc.sticking + sc.sliding > 0, "no friction contact");
    let (dc, dg) = (sc.dissipation, sg.dissipation);
    assert!(
        (dc - dg).abs() <= tol * dc.abs(),
        "dissipation: cpu {dc} gpu {dg}"
    );
    let (lc, lg) = (cpu.update_friction_lag(), gpu.update_friction_lag());
    assert!(
        (lc - lg).abs() <= tol * first,
        "second lag: cpu {lc} gpu {lg}"
    );
    assert!(lc > 0.0, "the second lag changed nothing");
    first
}

/// At the backends' common state: −∇E, E, H u and uᵀHu (u random) agree to `tol`.
/// The gradient goes first: the CPU's energy reads the pair list its assembly
/// builds. Returns the CPU's E (J).
fn same_system(cpu: &mut CpuBackend, gpu: &mut GpuBackend, tol: f64) -> f64 {
    let (gc, gg) = (cpu.potential_gradient(), gpu.potential_gradient());
    assert!(rel(&gg, &gc) < tol, "∇E differs by {:.2e}", rel(&gg, &gc));
    let (ec, eg) = (cpu.potential(), gpu.potential());
    assert!((ec - eg).abs() <= tol * ec.abs(), "E: cpu {ec} gpu {eg}");
    let mut rng = Rng(99);
    let u: Vec<f64> = (0..gc.len()).map(|_| rng.next()).collect();
    let ((hc, uc), (hg, ug)) = (cpu.hessian_product(&u), gpu.hessian_product(&u));
    assert!(rel(&hg, &hc) < tol, "H u differs by {:.2e}", rel(&hg, &hc));
    assert!((uc - ug).abs() <= tol * uc.abs(), "uᵀHu: cpu {uc} gpu {ug}");
    ec
}

/// The GPU's line-search change E(x + α p) − E(x) (summed per element) against the
/// CPU's E at both ends (`ec` at x), to `tol`; leaves the CPU at x + α p.
fn same_energy_change(
    cpu: &mut CpuBackend,
    gpu: &mut GpuBackend,
    x: &[f64],
    p: &[f64],
    alpha: f64,
    ec: f64,
    tol: f64,
) {
    let dg = gpu.energy_change(alpha);
    let xa: Vec<f64> = x.iter().zip(p).map(|(a, b)| a + alpha * b).collect();
    cpu.set_positions(&xa);
    cpu.potential_gradient();
    let dc = cpu.potential() - ec;
    assert!(
        (dc - dg).abs() <= tol * dc.abs().max(ec.abs() * 1e-6),
        "ΔE: cpu {dc} gpu {dg}"
    );
}
