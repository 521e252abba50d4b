//! Contact between and within 3D bodies on the GPU (point–triangle and edge–edge
//! pairs, the edge–edge mollifier) against the CPU reference, kernel by kernel through
//! the shared [`Probe`] (`common::gpu_pairs::compare`): the swept broad phase's list
//! equal to `collision::pairs::near_candidates` in order, E, −∇E, H u, the block-Jacobi
//! blocks, the CCD bound and the line search's change; the overflow path; and a
//! whole 3D scene stepped on both backends through its first contacts. Runs on
//! lavapipe in CI (f64 there); fails there if no adapter is found.

mod common;
use common::gpu_pairs::{compare, compare_friction, gpu, step_beside_cpu};
use common::{max_diff, scene, Rng};
use springsim::backend::gpu::GpuOptions;
use springsim::collision::pairs::{near_candidates, Motion};
use springsim::collision::{PairKind, REST_EXCLUSION};
use springsim::model::Model;
use springsim::precision::GpuPrecision;

/// Two cloths 3 cm apart (d̂ 5 cm), the smaller one above, shifted sideways: its
/// vertices over the lower one's faces (point–triangle pairs in the interior, edge
/// and vertex cases), its edges over the lower one's, most of them parallel (the
/// mollifier below its threshold) and some crossing (line–line).
fn two_cloths(barrier: &str) -> Model {
    let body = |size: f64, cells: u32, center: [f64; 3]| {
        format!(
            "[[bodies]]\ngenerator = \"cloth\"\nsize = [{size}, {size}]\ncells = [{cells}, {cells}]\ncenter = {center:?}\ndensity = 1.0\nmaterial_stiffness = 100.0\n",
        )
    };
    let contact = format!("[contact]\ndhat = 0.05\nkappa = 1e3\nbarrier = \"{barrier}\"\n");
    let text = format!(
        "dimension = 3\n[solver]\ndt = 0.01\n{contact}{}{}",
        body(1.0, 4, [0.0, 0.0, 0.0]),
        body(0.5, 3, [0.13, 0.03, 0.07])
    );
    scene(&text).model
}

/// Positions 1 mm at most off the rest state, the upper cloth lowered by 1 cm (pairs
/// at 1–3 cm, all active), and a direction that brings it down 5 cm more with noise.
fn state(model: &Model, rng: &mut Rng) -> (Vec<f64>, Vec<f64>) {
    let upper = |i: usize| model.collision.node_body[i] == 1;
    let mut x = model.x0.clone();
    let mut p = vec![0.0; x.len()];
    for i in 0..model.num_nodes() {
        for k in 0..3 {
            x[3 * i + k] += 1e-3 * rng.next();
            p[3 * i + k] = 5e-3 * rng.next();
        }
        if upper(i) {
            x[3 * i + 1] -= 0.01;
            p[3 * i + 1] -= 0.05;
        }
    }
    (x, p)
}

/// How many pairs of each kind the CPU's swept broad phase finds at (x, p), and how
/// many edge–edge pairs are active with their mollifier below 1.
fn kinds(model: &Model, x: &[f64], p: &[f64]) -> (usize, usize, usize) {
    use springsim::collision::barrier::mollifier_value;
    use springsim::collision::pairs::stacked;
    let mesh = &model.collision;
    let excluded = springsim::collision::pairs::rest_neighbours(
        mesh,
        &model.x0,
        REST_EXCLUSION * model.barrier.dhat,
    );
    let motion = Motion {
        x,
        sweep: Some((p, 1.0)),
    };
    let list = near_candidates(mesh, motion, model.barrier.dhat, &excluded);
    let count = |k| list.iter().filter(|c| c.kind == k).count();
    let mollified = list
        .iter()
        .filter(|c| c.kind == PairKind::EdgeEdge)
        .filter(|&&c| {
            let (_, _, s) = stacked(mesh, x, c);
            let d = springsim::collision::pairs::pair_distance_sq(mesh, x, c).sqrt();
            d < model.barrier.dhat && mollifier_value(c.kind, &s, mesh.mollifier_threshold(c)) < 1.0
        })
        .count();
    (
        count(PairKind::PointTriangle),
        count(PairKind::EdgeEdge),
        mollified,
    )
}

#[test]
fn point_triangle_and_edge_edge_contact_match_the_cpu_kernel_by_kernel() {
    for barrier in ["book", "ipc"] {
        let model = two_cloths(barrier);
        let Some(mut g) = gpu(&model, GpuOptions::default()) else {
            return;
        };
        if g.precision() != GpuPrecision::F64 {
            eprintln!("skipping the f64 comparison: the adapter has no f64");
            return;
        }
        let mut rng = Rng(5);
        for _ in 0..3 {
            let (x, p) = state(&model, &mut rng);
            let (pt, ee, mollified) = kinds(&model, &x, &p);
            assert!(pt >= 16 && ee >= 16, "{barrier}: {pt} PT and {ee} EE pairs");
            assert!(mollified >= 4, "{barrier}: {mollified} mollified EE pairs");
            let pairs = compare(&model, &mut g, &x, &p, 1e-9);
            assert_eq!(pairs, pt + ee);
        }
        assert_eq!(g.pair_buffer_growths(), 0, "the default capacity fits");
    }
}

/// Pair by pair, the terms the GPU's assembly stores (weighted gradient and
/// PSD-projected Hessian) equal the CPU's `pair_barrier` times c h², to 1e-9 of each
/// pair's largest entry: a wrong block cannot hide in a sum.
#[test]
fn each_pair_s_terms_match_the_cpu_s() {
    use springsim::backend::Probe;
    use springsim::collision::barrier::{pair_barrier, pair_weight};
    use springsim::collision::pairs::stacked;
    let model = two_cloths("ipc");
    let Some(mut g) = gpu(&model, GpuOptions::default()) else {
        return;
    };
    if g.precision() != GpuPrecision::F64 {
        return;
    }
    let (x, _) = state(&model, &mut Rng(21));
    g.set_positions(&x);
    g.potential_gradient();
    let (list, terms) = (g.contact_pair_list(), g.contact_pair_terms());
    let w = model.solver.potential_weight();
    let mut active = 0;
    for (pair, t) in list.iter().zip(&terms) {
        let (nodes, k, s) = stacked(&model.collision, &x, *pair);
        let area = pair_weight(pair.kind, &nodes, &model.contact_area);
        let eps = model.collision.mollifier_threshold(*pair);
        let n = 3 * k;
        let (grad, hess) = match pair_barrier(pair.kind, 3, &s, &model.barrier, area, eps, true) {
            Some(b) => {
                active += 1;
                (b.gradient[..n].to_vec(), b.hessian[..n * n].to_vec())
            }
            None => (vec![0.0; n], vec![0.0; n * n]),
        };
        for (cpu, gpu) in [(&grad, &t[..n]), (&hess, &t[12..12 + n * n])] {
            let scale = cpu.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let d = max_diff(gpu, &cpu.iter().map(|v| w * v).collect::<Vec<_>>());
            assert!(
                d <= 1e-9 * w * scale,
                "{pair:?}: {d:.2e} of {:.2e}",
                w * scale
            );
        }
    }
    assert!(active >= 100, "only {active} active pairs");
}

#[test]
fn a_3d_pair_list_that_overflows_grows_and_gives_the_same_results() {
    let model = two_cloths("ipc");
    let opts = GpuOptions {
        pair_capacity: Some(1),
        ..GpuOptions::default()
    };
    let Some(mut g) = gpu(&model, opts) else {
        return;
    };
    if g.precision() != GpuPrecision::F64 {
        return;
    }
    let (x, p) = state(&model, &mut Rng(3));
    assert!(compare(&model, &mut g, &x, &p, 1e-9) > 1);
    assert!(g.pair_buffer_growths() >= 1, "the list never grew");
}

/// Two cloths dropped one onto the other, frictionless between them, stepped on both
/// backends through the first pair contacts: on the GPU after every step no crossing
/// primitives (the CPU's exact checker on the GPU's positions), no pair at d = 0, no
/// NaN, accepted iterates never raising E; in f64 the same Newton and CG counts and
/// positions (to 1e-9 m) as the CPU on every step, contact included. (Until the
/// swept broad phase held its list while a CG solve ran, the first contact step
/// took 5 Newton iterations on the GPU against 3: a check between CG batches had
/// rebuilt the list under the running solve's mat-vec.)
#[test]
fn two_cloths_stay_apart_on_the_gpu_and_follow_the_cpu() {
    two_cloths_drop(GpuOptions::default(), 20, 0.0);
}

/// The same drop with friction between the cloths (μ = 0.5): the same Newton, pair
/// and sticking/sliding counts as the CPU on every step, CG counts within 0.5 % + 1,
/// positions to 1e-9 m.
#[test]
fn two_cloths_with_friction_between_them_follow_the_cpu() {
    two_cloths_drop(GpuOptions::default(), 20, 0.5);
}

/// The same drop with the CG flags checked after every CG iteration, so that a
/// direction check (and its swept broad phase) runs between the iterations of every
/// solve: the list the running solve's mat-vec reads must stay as its assembly left
/// it, and the figures stay the CPU's through the first contacts (step 11).
#[test]
fn a_direction_check_inside_a_cg_solve_leaves_its_pairs_alone() {
    let opts = GpuOptions {
        cg_batch: Some(1),
        ..GpuOptions::default()
    };
    two_cloths_drop(opts, 13, 0.0);
}

fn two_cloths_drop(opts: GpuOptions, steps: u64, mu: f64) {
    let text = "dimension = 3\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e3\nbarrier = \"ipc\"\n\
        [[walls]]\ntype = \"plane\"\npoint = [0.0, -0.1, 0.0]\nnormal = [0.0, 1.0, 0.0]\n\
        [[bodies]]\ngenerator = \"cloth\"\nsize = [0.6, 0.6]\ncells = [6, 6]\ncenter = [0.0, -0.09, 0.0]\ndensity = 1.0\nmaterial_stiffness = 100.0\n\
        [[bodies]]\ngenerator = \"cloth\"\nsize = [0.4, 0.4]\ncells = [5, 5]\ncenter = [0.03, -0.03, 0.02]\ndensity = 1.0\nmaterial_stiffness = 100.0\n";
    let mut model = scene(text).model;
    model.self_contact.friction = mu;
    let Some(g) = gpu(&model, opts) else {
        return;
    };
    let mut friction_seen = 0;
    let pairs_seen = step_beside_cpu(
        &model,
        g,
        steps,
        "two cloths",
        |step, rg, rc, d, f64_mode| {
            let label = format!("two cloths GPU step {step}");
            friction_seen = friction_seen.max(rg.sticking + rg.sliding);
            if f64_mode {
                assert_eq!(
                    (rg.newton_iterations, rg.contact_pairs),
                    (rc.newton_iterations, rc.contact_pairs),
                    "{label}: Newton, pairs"
                );
                // Sticking pairs (stiffness μλ/ε) make the CG solves long (~175
                // iterations): there the rounding of the two backends' sums may
                // move a stop by an iteration.
                let slack = if mu > 0.0 {
                    1 + rc.cg_iterations / 200
                } else {
                    0
                };
                assert!(
                    rg.cg_iterations.abs_diff(rc.cg_iterations) <= slack,
                    "{label}: CG {} against {}",
                    rg.cg_iterations,
                    rc.cg_iterations
                );
                assert_eq!(
                    (rg.sticking, rg.sliding),
                    (rc.sticking, rc.sliding),
                    "{label}: sticking, sliding"
                );
                assert!(d < 1e-9, "{label}: {d:.2e} m from the CPU");
            }
        },
    );
    assert!(pairs_seen > 0, "the cloths never touched");
    assert_eq!(
        friction_seen > 0,
        mu > 0.0,
        "friction contacts: {friction_seen}"
    );
}

/// Friction between the cloths (μ = 0.5), kernel by kernel against the CPU
/// (`compare_friction`), point–triangle and edge–edge pairs (mollified ones
/// included): lagged at a state with active pairs, then evaluated after the upper
/// cloth slipped sideways by up to 3e-5 m per node and axis (ε_v h = 1e-5 m).
#[test]
fn friction_between_cloths_matches_the_cpu_kernel_by_kernel() {
    friction_between_cloths(GpuOptions::default());
}

/// The same from a pair list of capacity 1: the list grows at the first broad
/// phase, and again when the lag's copies no longer fit beside the candidates;
/// the lagged pairs survive the growth.
#[test]
fn friction_between_cloths_survives_the_pair_buffers_growth() {
    let opts = GpuOptions {
        pair_capacity: Some(1),
        ..GpuOptions::default()
    };
    let growths = friction_between_cloths(opts);
    assert!(growths >= 2, "the list grew {growths} times");
}

/// Runs `compare_friction` on the two cloths; returns how often the list grew.
fn friction_between_cloths(opts: GpuOptions) -> u32 {
    let mut model = two_cloths("ipc");
    model.self_contact.friction = 0.5;
    let Some(mut g) = gpu(&model, opts) else {
        return u32::MAX;
    };
    if g.precision() != GpuPrecision::F64 {
        return u32::MAX;
    }
    let mut rng = Rng(8);
    let (x_lag, p) = state(&model, &mut rng);
    compare_friction(&model, &mut g, &x_lag, &p, &mut rng, 1e-9);
    g.pair_buffer_growths()
}

/// Where the device has no room for the pairs (here a lowered cap on a pair
/// buffer's bytes), the run ends with an error that says so, not a panic, and the
/// backend still reads back.
#[test]
fn a_pair_list_without_room_on_the_device_ends_the_run_with_an_error() {
    use springsim::sim::Simulation;
    let model = two_cloths("ipc");
    let opts = GpuOptions {
        pair_capacity: Some(1),
        max_pair_bytes: Some(16 << 10),
        ..GpuOptions::default()
    };
    let Some(g) = gpu(&model, opts) else {
        return;
    };
    let mut sim = Simulation::new(Box::new(g), &model);
    let err = (0..5)
        .find_map(|_| sim.step().err())
        .expect("the run went on without room for its pairs");
    assert!(
        err.0.contains("contact between bodies needs room for") && err.0.contains("--backend cpu"),
        "{}",
        err.0
    );
    assert!(sim.backend().positions().iter().all(|c| c.is_finite()));
}

/// The GPU list's CPU twin drops only pairs that stay beyond d̂: at random states of
/// the two cloths, every candidate that `near_candidates` leaves out keeps a distance
/// of at least d̂ at 50 points of the segment from x to x + p (ends included), and it
/// does leave some out (else the filter would be untested).
#[test]
fn near_candidates_drop_only_pairs_that_stay_beyond_dhat() {
    use springsim::collision::pairs::{candidates, pair_distance_sq, rest_neighbours};
    let model = two_cloths("ipc");
    let mesh = &model.collision;
    let dhat = model.barrier.dhat;
    let excluded = rest_neighbours(mesh, &model.x0, REST_EXCLUSION * dhat);
    let mut rng = Rng(17);
    let mut dropped = 0;
    for _ in 0..5 {
        let (x, p) = state(&model, &mut rng);
        let motion = Motion {
            x: &x,
            sweep: Some((&p, 1.0)),
        };
        let near = near_candidates(mesh, motion, dhat, &excluded);
        for pair in candidates(mesh, motion, dhat, &excluded) {
            if near.binary_search(&pair).is_ok() {
                continue;
            }
            dropped += 1;
            for k in 0..=49 {
                let t = k as f64 / 49.0;
                let xt: Vec<f64> = x.iter().zip(&p).map(|(a, b)| a + t * b).collect();
                let d = pair_distance_sq(mesh, &xt, pair).sqrt();
                assert!(d >= dhat, "{pair:?} dropped but {d:.3e} m apart at t = {t}");
            }
        }
    }
    assert!(dropped >= 10, "only {dropped} pairs dropped");
}
