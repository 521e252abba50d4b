//! Contact between and within bodies in a batch (2D point–edge pairs,
//! src/ensemble/pairs.rs and shaders/ensemble/pairs.wgsl): each variant takes the
//! Newton iterations and finds the contact pairs it does alone on the CPU backend.

mod common;

use common::ensemble::*;
use springsim::ensemble::{why_alone, Job};
use springsim::precision::PrecisionChoice;
use springsim::run::RunOptions;
use springsim::scene::{load_with, overrides::Override, Scene};

fn scene(name: &str, sets: &[String]) -> Scene {
    let o = Override::parse_all(sets).unwrap();
    load_with(name, &o).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Two squares stacked and dropped, over κ, the upper square's speed and the barrier,
/// with friction between the squares in the odd variants (μ = 0.5, the scene's) and
/// none in the even ones, each variant through the upper square's landing on the
/// lower one (step 10) and its second bounce (step 26); variants 4 to 7 land sliding,
/// 4 and 5 with two lagging updates of the friction per step.
fn two_squares_sets(k: usize) -> Vec<Vec<String>> {
    (0..k)
        .map(|v| {
            vec![
                format!("contact.self_friction={}", [0.0, 0.5][v % 2]),
                format!("contact.kappa={}", [1e5, 1e4, 3e5, 1e6][v % 4]),
                format!(
                    "bodies[1].velocity=[{}, {}]",
                    0.2 * (v / 4) as f64,
                    -2.0 - 0.5 * (v / 4) as f64
                ),
                format!("contact.barrier={}", ["book", "ipc"][(v / 2) % 2]),
                // (friction's stiffness μ λ 2 / (ε_v h) makes CG's rounding grow: its
                // variants solve tight, so that the CPU's PCG and the batch's agree)
                format!("solver.cg_tolerance={}", [1e-6, 1e-10][v % 2]),
                // two lagging updates of the friction (on the ground, and between
                // the squares in variant 5) in variants 4 and 5, which land sliding.
                // (Not in 7: at its step 32, three solves with 40 halvings among
                // sliding contacts, the CPU alone takes 17, 18 or 21 Newton
                // iterations as κ moves by 1e-10 relative; the batch took 25.)
                format!(
                    "solver.friction_updates={}",
                    if v == 4 || v == 5 { 2 } else { 0 }
                ),
            ]
        })
        .collect()
}

/// Largest relative differences (E, pair distance, friction dissipation, the barrier
/// and total energies of the diagnostics) between every variant of the batch and its
/// job alone on the CPU backend; asserts equal Newton iterations, line-search
/// halvings, contact pairs and sticking and sliding contacts at every step, and that
/// the bodies met.
fn pairs_match_the_cpu_alone(
    root: &std::path::Path,
    jobs: &[Job],
    outcomes: &[Result<springsim::run::Summary, String>],
) -> [f64; 4] {
    let mut worst = [0.0f64; 4];
    for (v, (out, job)) in outcomes.iter().zip(jobs).enumerate() {
        let s = out.as_ref().unwrap_or_else(|e| panic!("variant {v}: {e}"));
        assert_eq!(s.status, "completed", "variant {v}");
        let cpu_dir = root.join(format!("cpu/{v}"));
        cpu_alone(job, &cpu_dir);
        let (a, b) = (steps_csv(&job.opts.out_dir), steps_csv(&cpu_dir));
        assert_eq!(a.len(), b.len(), "variant {v}: rows");
        let col = |name: &str| a[0].iter().position(|c| c == name).unwrap();
        let (newton, ip, pairs, dmin) = (
            col("newton_iterations"),
            col("incremental_potential"),
            col("contact_pairs"),
            col("min_pair_distance"),
        );
        let (barrier, total) = (col("barrier"), col("total"));
        let lambda_change = col("friction_lambda_change");
        let halvings = col("line_search_halvings");
        let (stick, slide, diss) = (col("sticking"), col("sliding"), col("friction_dissipation"));
        let mut met = 0;
        for (ra, rb) in a.iter().zip(&b).skip(1) {
            let step = &ra[0];
            assert_eq!(
                ra[newton], rb[newton],
                "variant {v} step {step}: Newton iterations"
            );
            assert_eq!(
                ra[pairs], rb[pairs],
                "variant {v} step {step}: contact pairs"
            );
            assert_eq!(
                ra[halvings], rb[halvings],
                "variant {v} step {step}: line-search halvings"
            );
            assert_eq!(
                [&ra[stick], &ra[slide]],
                [&rb[stick], &rb[slide]],
                "variant {v} step {step}: sticking and sliding contacts"
            );
            let rel = |c: usize, floor: f64| {
                let (x, y): (f64, f64) = (ra[c].parse().unwrap(), rb[c].parse().unwrap());
                if x == y {
                    0.0
                } else {
                    (x - y).abs() / y.abs().max(floor)
                }
            };
            worst[0] = worst[0].max(rel(ip, 1.0));
            worst[1] = worst[1].max(rel(dmin, 1e-3));
            worst[2] = worst[2].max(rel(diss, 1e-6)).max(rel(lambda_change, 1e-3));
            worst[3] = worst[3].max(rel(barrier, 1.0)).max(rel(total, 1.0));
            met += usize::from(ra[pairs] != "0");
        }
        assert!(met > 0, "variant {v}: the bodies never came within d̂");
    }
    eprintln!(
        "largest relative differences: E {:.2e}, pair distance {:.2e}, friction (dissipation, λ change) {:.2e}, \
         barrier and total energy {:.2e}",
        worst[0], worst[1], worst[2], worst[3]
    );
    worst
}

#[test]
fn contact_between_bodies_in_a_batch_steps_as_the_cpu_does_alone() {
    let root = common::new_temp_dir("ensemble_pairs");
    let scenes: Vec<Scene> = two_squares_sets(8)
        .iter()
        .map(|s| scene("two_squares", s))
        .collect();
    for s in &scenes {
        let job = Job {
            scene: s.clone(),
            opts: RunOptions::default(),
        };
        assert_eq!(why_alone(&job), None, "two_squares batches");
    }
    let jobs = jobs_of(&root, "batch", scenes, 40);
    let Some(report) = batch_or_skip(&jobs, PrecisionChoice::F64) else {
        return;
    };
    let worst = pairs_match_the_cpu_alone(&root, &jobs, &report.outcomes);
    // (the friction follows contacts that change between sticking and sliding, where
    // its Hessian jumps: measured 2026-11-27, dissipation and λ changes within 2.5e-5,
    // E within 3.6e-10)
    assert!(
        worst[0] < 1e-9 && worst[1] < 1e-6 && worst[2] < 1e-4 && worst[3] < 1e-6,
        "{worst:?}"
    );
}

/// Every pair's stored gradient and projected Hessian equal the CPU's
/// (`collision::barrier::pair_barrier`) at the same positions: the upper square pushed
/// down into the lower one's d̂ (point–line and point–point cases), and a crowded
/// configuration where every node sits within d̂ of the origin's neighbourhood.
#[test]
fn each_pair_s_stored_terms_match_the_cpu_s() {
    use springsim::collision::barrier::pair_barrier;
    use springsim::collision::ccd::PairKind;
    use springsim::ensemble::device::EnsembleDevice;
    use springsim::ensemble::layout::{friction_slots, BLOCK_REALS, LAG_REALS, NV};
    use springsim::ensemble::pairs::{pairs_of, PAIR_REALS};
    let base = scene("two_squares", &two_squares_sets(1)[0]);
    let lowered = |dy: f64, squeeze: f64| {
        let mut m = base.model.clone();
        let n = m.num_nodes();
        for i in 0..n {
            if i >= n / 2 {
                m.x0[2 * i + 1] -= dy;
            }
            m.x0[2 * i] *= squeeze;
            m.x0[2 * i + 1] *= squeeze;
        }
        m
    };
    // The upper square's bottom 5 mm above the lower one's top; everything squeezed
    // into a 2 cm box (many pairs within d̂ = 1 cm, in every distance case).
    let gap = {
        let m = &base.model;
        let n = m.num_nodes();
        let top = (0..n / 2).map(|i| m.x0[2 * i + 1]).fold(f64::MIN, f64::max);
        let bottom = (n / 2..n).map(|i| m.x0[2 * i + 1]).fold(f64::MAX, f64::min);
        bottom - top
    };
    let mut rough = lowered(gap - 5e-3, 1.0);
    rough.self_contact.friction = 0.5;
    for (label, model) in [
        ("stacked", lowered(gap - 5e-3, 1.0)),
        ("crowded", lowered(gap - 0.1, 0.02)),
        // at the lag point the friction's gradient is 0 and its Hessian μ λ (2/ε) ββᵀ ⊗ T:
        // checked through the solve alone
        ("stacked with friction", rough),
    ] {
        let Ok(mut dev) = EnsembleDevice::new(&[&model], PrecisionChoice::F64) else {
            assert!(std::env::var_os("CI").is_none(), "no adapter");
            return;
        };
        // begin the step and assemble (the direction's first action)
        dev.round(&[8 | 32], &[0.0; springsim::ensemble::device::NA]);
        let state = dev.read_state();
        let n = model.num_nodes();
        let terms_at = n * (3 * NV + BLOCK_REALS) + LAG_REALS * n * friction_slots(&model);
        let pairs = pairs_of(&model);
        let w = model.solver.potential_weight();
        let (mut active, mut worst) = (0, 0.0f64);

        for (t, p) in pairs.iter().enumerate() {
            if model.self_contact.friction > 0.0 {
                break;
            }
            let at = terms_at + PAIR_REALS * t;
            let s: Vec<f64> = p
                .iter()
                .flat_map(|&i| [model.x0[2 * i as usize], model.x0[2 * i as usize + 1]])
                .collect();
            let cpu = pair_barrier(
                PairKind::PointEdge,
                2,
                &s,
                &model.barrier,
                model.contact_area[p[0] as usize],
                0.0,
                true,
            );
            let Some(cpu) = cpu else {
                assert_eq!(
                    state[at], 0.0,
                    "{label} pair {t} {p:?}: inactive on the CPU"
                );
                continue;
            };
            assert_eq!(state[at], 1.0, "{label} pair {t} {p:?}: active on the CPU");
            active += 1;
            // relative to the block's largest entry (on either side; a block projected to
            // zero on the CPU must be zero here)
            let gpu_max = state[at + 7..at + 43]
                .iter()
                .fold(0.0f64, |a, v| a.max(v.abs()));
            let scale = (cpu.hessian[..36].iter().fold(0.0f64, |a, v| a.max(v.abs())) * w)
                .max(gpu_max)
                .max(f64::MIN_POSITIVE);
            for r in 0..6 {
                let g = state[at + 1 + r];
                assert!(
                    (g - w * cpu.gradient[r]).abs()
                        <= 1e-10 * (w * cpu.gradient[r]).abs().max(1e-300) + 1e-12,
                    "{label} pair {t} gradient {r}: {g} against {}",
                    w * cpu.gradient[r]
                );
                for c in 0..6 {
                    let h = state[at + 7 + 6 * r + c];
                    let e = (h - w * cpu.hessian[6 * r + c]).abs() / scale;
                    worst = worst.max(e);
                    assert!(
                        e < 1e-9,
                        "{label} pair {t} {p:?} Hessian ({r}, {c}): {h} against {}",
                        w * cpu.hessian[6 * r + c]
                    );
                }
            }
        }
        eprintln!("{label}: {active} active pairs of {}, largest Hessian difference {worst:.1e} of the block's largest entry", pairs.len());
        assert!(
            active >= 8 || model.self_contact.friction > 0.0,
            "{label}: {active} active pairs"
        );
        // The Newton direction solved tight (the gather and the couplings in the
        // operator): x + p equals the CPU backend's.
        use springsim::backend::Backend;
        use springsim::newton::{CgTolerance, NewtonSystem};
        let mut cpu = springsim::backend::cpu::CpuBackend::new(model.clone())
            .with_linear_solver(springsim::linear_solver::LinearSolver::Pcg);
        cpu.begin_step();
        cpu.compute_direction(CgTolerance::Fixed(1e-10));
        cpu.advance(1.0);
        let want = cpu.positions();
        let mut args = [0.0; springsim::ensemble::device::NA];
        args[3] = 1e-10;
        let mut dev = EnsembleDevice::new(&[&model], PrecisionChoice::F64).unwrap();
        let r = dev.round(&[8 | 32], &args);
        eprintln!("{label}: {} CG iterations, converged {}", r[8], r[9]);
        args[0] = 1.0;
        dev.round(&[1], &args);
        let (x, _, _) = dev.read_nodes(1);
        let mut far = 0.0f64;
        for i in 0..model.num_nodes() {
            for c in 0..2 {
                far = far.max((x[3 * i + c] - want[2 * i + c]).abs());
            }
        }
        eprintln!("{label}: x + p within {far:.1e} m of the CPU's");
        assert!(far < 1e-9, "{label}: x + p {far:.1e} m from the CPU's");
    }
}

/// A CG loop that the device stops before it converges or reaches its cap (found by
/// the round's closing test of the loop budget, `loops_were_cut`)
/// (llvmpipe caps the loop iterations of one shader invocation) fails its variant in
/// the batch with one line that says so, where it used to hand Newton a direction it
/// had not finished with a count of 10,000 CG iterations; `run_jobs` then runs the
/// variant alone. On hardware the variant completes in the batch with the CPU's CG
/// iterations.
#[test]
fn a_cg_loop_the_device_cuts_short_fails_its_variant_with_the_reason() {
    let root = common::new_temp_dir("ensemble_loop_cut");
    // 1,681 nodes: 53 per thread, about 580 loop iterations per CG iteration, and
    // 132 CG iterations in the first step's direction (fixed forcing).
    let sets: Vec<String> = [
        "bodies[0].cells=[60, 60]",
        "contact.self_contact=false",
        "solver.forcing=fixed",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let jobs = jobs_of(&root, "batch", vec![scene("square_drop", &sets)], 2);
    let Some(report) = batch_or_skip(&jobs, PrecisionChoice::F64) else {
        return;
    };
    if report.device.contains("llvmpipe") {
        let err = report.outcomes[0]
            .as_ref()
            .expect_err("llvmpipe cuts the loop");
        assert!(
            err.contains(springsim::ensemble::member::LOOP_CUT)
                && err.contains("(a round of direction)")
                && err.contains("--batch 1"),
            "{err}"
        );
        // run_jobs runs it again alone, where it completes
        let mut outs = Vec::new();
        let totals = springsim::ensemble::run_jobs(&jobs, 16, |_, out| outs.push(out.clone()));
        assert_eq!(totals.alone, 1);
        let s = outs[0].as_ref().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.status, "completed");
        assert!(!s.device.contains("batch"), "{}", s.device);
    } else {
        let s = report.outcomes[0].as_ref().unwrap();
        let cpu = cpu_alone(&jobs[0], &root.join("cpu"));
        assert_eq!(s.cg_iterations, cpu.cg_iterations, "{}", report.device);
    }
}

/// In f32 the batch's pairs, without friction between the squares and with it, take
/// the GPU backend's Newton iterations and contact pairs alone, at every step through
/// both landings.
#[test]
fn contact_between_bodies_in_an_f32_batch_steps_as_the_gpu_backend_does_alone() {
    let root = common::new_temp_dir("ensemble_pairs_f32");
    let scenes: Vec<Scene> = two_squares_sets(2)
        .into_iter()
        .map(|s| {
            // the scene's own CG tolerance (1e-6)
            let mut s: Vec<String> = s
                .into_iter()
                .filter(|k| !k.starts_with("solver.cg_tolerance"))
                .collect();
            s.push("solver.precision=f32".into());
            s.push("solver.preconditioner=block_jacobi".into());
            scene("two_squares", &s)
        })
        .collect();
    let jobs = jobs_of(&root, "batch", scenes, 40);
    let Some(report) = batch_or_skip(&jobs, PrecisionChoice::F32) else {
        return;
    };
    for (v, (out, job)) in report.outcomes.iter().zip(&jobs).enumerate() {
        let s = out.as_ref().unwrap_or_else(|e| panic!("variant {v}: {e}"));
        assert_eq!(s.status, "completed", "variant {v}");
        // (not common::gpu_backend, which turns contact between bodies off)
        let gpu = springsim::backend::gpu::GpuBackend::new(job.scene.model.clone())
            .unwrap_or_else(|e| panic!("the batch ran, the backend must open: {e}"));
        let alone = root.join(format!("alone/{v}"));
        let opts = RunOptions {
            out_dir: alone.clone(),
            ..job.opts.clone()
        };
        springsim::run::run(&job.scene, Some(Box::new(gpu)), &opts).unwrap();
        let (a, b) = (steps_csv(&job.opts.out_dir), steps_csv(&alone));
        let col = |name: &str| a[0].iter().position(|c| c == name).unwrap();
        let (newton, pairs) = (col("newton_iterations"), col("contact_pairs"));
        let (stick, slide) = (col("sticking"), col("sliding"));
        let mut met = 0;
        for (ra, rb) in a.iter().zip(&b).skip(1) {
            assert_eq!(ra[newton], rb[newton], "variant {v} step {}: Newton", ra[0]);
            assert_eq!(ra[pairs], rb[pairs], "variant {v} step {}: pairs", ra[0]);
            assert_eq!(
                [&ra[stick], &ra[slide]],
                [&rb[stick], &rb[slide]],
                "variant {v} step {}: sticking and sliding",
                ra[0]
            );
            met += usize::from(ra[pairs] != "0");
        }
        assert!(met > 0, "variant {v}: the bodies never came within d̂");
    }
}
