//! Contact between and within bodies on the GPU (2D point–edge) against the CPU
//! reference, kernel by kernel through the shared [`Probe`]: the broad phase's pair
//! list against `collision::pairs::near_candidates` (in order), the energy with
//! its pairs, −∇E, the operator with its pair couplings, the block-Jacobi blocks,
//! the CCD bound and the line-search change; the overflow path (a list that starts
//! with room for one pair grows and gives the same results). Runs on lavapipe in CI
//! (f64 there, so to about 1e-10); fails there if no adapter is found.

mod common;
use common::gpu_pairs::{
    compare, compare_friction, gpu, rel, step_beside_cpu, step_beside_cpu_with_stats,
};
use common::{scene, Rng};
use springsim::backend::cpu::CpuBackend;
use springsim::backend::gpu::GpuOptions;
use springsim::backend::Probe;
use springsim::model::Model;

/// Two grids 0.03 m apart (d̂ 0.05 m): the upper one's bottom edge over the lower
/// one's top edge, offset sideways so that point–edge pairs of every case (interior,
/// either endpoint) are active.
fn two_grids(barrier: &str) -> Model {
    let body = |size: f64, cells: u32, y: f64| {
        format!(
            "[[bodies]]\ngenerator = \"grid\"\nsize = [{size}, {size}]\ncells = [{cells}, {cells}]\ncenter = [{x}, {y}]\ndensity = 100.0\nmaterial_stiffness = 1e4\n",
            x = if y > 0.0 { 0.13 } else { 0.0 },
        )
    };
    let contact = format!("[contact]\ndhat = 0.05\nkappa = 1e4\nbarrier = \"{barrier}\"\n");
    let text = format!(
        "dimension = 2\n[solver]\ndt = 0.01\n{contact}{}{}",
        body(1.0, 4, 0.0),
        body(0.5, 3, 0.78)
    );
    scene(&text).model
}

/// Positions 1 mm at most off the rest state, the upper grid lowered by 1 cm (pairs
/// at 1–3 cm, all active), and a direction that brings it down 5 cm more with noise.
fn state(model: &Model, rng: &mut Rng) -> (Vec<f64>, Vec<f64>) {
    let n = model.num_nodes();
    let upper = |i: usize| model.collision.node_body[i] == 1;
    let mut x = model.x0.clone();
    let mut p = vec![0.0; x.len()];
    for i in 0..n {
        for k in 0..2 {
            x[2 * i + k] += 1e-3 * rng.next();
            p[2 * i + k] = 5e-3 * rng.next();
        }
        if upper(i) {
            x[2 * i + 1] -= 0.01;
            p[2 * i + 1] -= 0.05;
        }
    }
    (x, p)
}

#[test]
fn point_edge_contact_matches_the_cpu_kernel_by_kernel() {
    for barrier in ["book", "ipc"] {
        let model = two_grids(barrier);
        let Some(mut g) = gpu(&model, GpuOptions::default()) else {
            return;
        };
        if g.precision() != springsim::precision::GpuPrecision::F64 {
            eprintln!("skipping the f64 comparison: the adapter has no f64");
            return;
        }
        let mut rng = Rng(7);
        for _ in 0..3 {
            let (x, p) = state(&model, &mut rng);
            let pairs = compare(&model, &mut g, &x, &p, 1e-9);
            assert!(pairs >= 8, "{barrier}: only {pairs} pairs");
        }
        assert_eq!(g.pair_buffer_growths(), 0, "the default capacity fits");
    }
}

#[test]
fn a_pair_list_that_overflows_grows_and_gives_the_same_results() {
    let model = two_grids("ipc");
    let opts = GpuOptions {
        pair_capacity: Some(1),
        ..GpuOptions::default()
    };
    let Some(mut g) = gpu(&model, opts) else {
        return;
    };
    let tol = match g.precision() {
        springsim::precision::GpuPrecision::F64 => 1e-9,
        _ => return,
    };
    let (x, p) = state(&model, &mut Rng(3));
    let pairs = compare(&model, &mut g, &x, &p, tol);
    assert!(pairs > 1);
    assert!(g.pair_buffer_growths() >= 1, "the list never grew");
    let stats = springsim::backend::Backend::contact_stats(&g);
    assert!(
        stats.term_growths >= 1,
        "the term slots never grew: {stats:?}"
    );
    assert!(
        stats.term_slots > 1 && stats.term_slots <= stats.list_capacity,
        "{stats:?}"
    );
}

/// The bundled two squares, frictionless between them, from a pair list and term
/// slots with room for one pair: through the first pair contacts (step 10) and the
/// landing (step 21) the list grows, and the term slots grow as more pairs come
/// within d̂ (each growth computes that direction again); every step takes the CPU's
/// Newton iterations and contact pairs, within 1e-6 m of its positions in f64, with
/// IPC's promise checked after every step (`step_beside_cpu`).
#[test]
fn two_squares_from_room_for_one_pair_grow_and_follow_the_cpu() {
    let mut model = springsim::scene::load("two_squares").unwrap().model;
    model.self_contact.friction = 0.0;
    let opts = GpuOptions {
        pair_capacity: Some(1),
        ..GpuOptions::default()
    };
    let Some(g) = gpu(&model, opts) else {
        return;
    };
    let (pairs_seen, stats) =
        step_beside_cpu_with_stats(&model, g, 25, "two_squares", |step, rg, rc, d, f64_mode| {
            if f64_mode {
                let label = format!("two_squares from one pair, GPU step {step}");
                assert_eq!(
                    (rg.newton_iterations, rg.contact_pairs),
                    (rc.newton_iterations, rc.contact_pairs),
                    "{label}: Newton, contact pairs"
                );
                assert!(d < 1e-6, "{label}: {d:.2e} m from the CPU");
            }
        });
    assert!(pairs_seen > 1, "only {pairs_seen} pairs came within d̂");
    assert!(
        stats.list_growths >= 1 && stats.term_growths >= 1,
        "{stats:?}"
    );
    assert!(stats.term_slots >= pairs_seen, "{stats:?}");
}

/// The bundled two squares, frictionless between them, stepped on both backends
/// through the first pair contacts (step 10) and the landing on the ground (step
/// 21): on the GPU after every step no crossing primitives (the CPU's exact
/// checker on the GPU's positions), no pair at d = 0, no NaN, accepted iterates
/// never raising E; the same Newton count as the CPU at every step and the same
/// contact pair count; positions within 1e-6 m of the CPU's in f64.
#[test]
fn two_squares_stay_apart_on_the_gpu_and_follow_the_cpu() {
    let model = springsim::scene::load("two_squares").unwrap().model;
    assert!(
        model.self_contact.friction > 0.0,
        "two_squares has friction between bodies"
    );
    let Some(g) = gpu(&model, GpuOptions::default()) else {
        return;
    };
    let pairs_seen = step_beside_cpu(&model, g, 40, "two_squares", |step, rg, rc, d, f64_mode| {
        let label = format!("two_squares GPU step {step}");
        if f64_mode {
            assert_eq!(
                (rg.newton_iterations, rg.contact_pairs),
                (rc.newton_iterations, rc.contact_pairs),
                "{label}: Newton, contact pairs"
            );
            assert_eq!(
                (rg.sticking, rg.sliding),
                (rc.sticking, rc.sliding),
                "{label}: sticking, sliding"
            );
            assert!(d < 1e-6, "{label}: {d:.2e} m from the CPU");
        }
    });
    assert!(pairs_seen > 0, "the squares never touched");
}

/// In f32 and mixed precision the pairs' terms agree with the f64 CPU to the
/// precision of what the mode stores: E, −∇E and H u at a state with active pairs
/// (inputs rounded to f32 for both backends).
#[test]
fn point_edge_contact_in_f32_and_mixed_agrees_to_their_precision() {
    use springsim::precision::PrecisionChoice;
    for (mode, tol) in [(PrecisionChoice::Mixed, 1e-6), (PrecisionChoice::F32, 1e-5)] {
        let mut model = two_grids("ipc");
        model.solver.precision = mode;
        let Some(mut g) = gpu(&model, GpuOptions::default()) else {
            return;
        };
        let (x, _) = state(&model, &mut Rng(11));
        let x: Vec<f64> = x.iter().map(|c| (*c as f32) as f64).collect();
        let x0: Vec<f64> = model.x0.iter().map(|c| (*c as f32) as f64).collect();
        let mut cpu = CpuBackend::new(model.clone());
        for b in [&mut cpu as &mut dyn Probe, &mut g as &mut dyn Probe] {
            b.set_step_start(&x0);
            b.set_prediction(&x0);
            b.set_positions(&x);
        }
        let (gc, gg) = (cpu.potential_gradient(), g.potential_gradient());
        assert!(
            rel(&gg, &gc) < tol,
            "{mode:?}: ∇E differs by {:.2e}",
            rel(&gg, &gc)
        );
        let (ec, eg) = (cpu.potential(), g.potential());
        assert!(
            (ec - eg).abs() <= tol * ec.abs(),
            "{mode:?}: E cpu {ec} gpu {eg}"
        );
        let u: Vec<f64> = (0..x.len())
            .map(|i| ((i * 7919) % 13) as f64 - 6.0)
            .collect();
        let ((hc, _), (hg, _)) = (cpu.hessian_product(&u), g.hessian_product(&u));
        assert!(
            rel(&hg, &hc) < tol,
            "{mode:?}: H u differs by {:.2e}",
            rel(&hg, &hc)
        );
        assert!(g.contact_pair_list().len() >= 8, "{mode:?}: too few pairs");
    }
}

/// Friction between the bodies (μ = 0.5), kernel by kernel against the CPU
/// (`compare_friction`): lagged at a state with active pairs, then evaluated after
/// the upper grid slipped sideways by up to 3e-5 m per node (ε_v h = 1e-5 m: some
/// pairs stick, most slide).
#[test]
fn friction_between_bodies_matches_the_cpu_kernel_by_kernel() {
    let mut model = two_grids("ipc");
    model.self_contact.friction = 0.5;
    let Some(mut g) = gpu(&model, GpuOptions::default()) else {
        return;
    };
    if g.precision() != springsim::precision::GpuPrecision::F64 {
        return;
    }
    let mut rng = Rng(5);
    let (x_lag, p) = state(&model, &mut rng);
    compare_friction(&model, &mut g, &x_lag, &p, &mut rng, 1e-9);
}
