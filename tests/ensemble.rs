//! Batched ensembles (src/ensemble/): each variant of a batch steps as it would
//! alone, and one variant's failure leaves the others untouched.

mod common;

use common::ensemble::*;
use springsim::ensemble::Job;
use springsim::precision::PrecisionChoice;
use springsim::run::RunOptions;
use springsim::scene::{load_with, overrides::Override, Scene};

#[test]
fn each_variant_of_a_batch_steps_as_the_cpu_does_alone() {
    let root = common::new_temp_dir("ensemble_batch");
    let scenes = variant_sets(16).iter().map(|s| square_drop(s)).collect();
    let jobs = jobs_of(&root, "batch", scenes, 250);
    let Some(report) = batch_or_skip(&jobs, PrecisionChoice::F64) else {
        return;
    };
    eprintln!(
        "{} rounds for {} variants on {}",
        report.submissions,
        jobs.len(),
        report.device
    );
    let worst = matches_the_cpu_alone(&root, &jobs, &report, 1e-3);
    assert!(
        worst[0] < 1e-9 && worst[1] < 1e-6 && worst[2] < 1e-6,
        "{worst:?}"
    );
}

/// Seed 004's containers (implicit walls: a circle, a diamond and a sextic, and a
/// circle of another radius) over ball speed and κ, in one batch with a square drop
/// on a plane: every variant takes the CPU's Newton iterations at every step through
/// its balls' first bounces.
#[test]
fn implicit_wall_variants_step_in_a_batch_as_the_cpu_does_alone() {
    let root = common::new_temp_dir("ensemble_implicit");
    let mut scenes: Vec<Scene> = (0..8)
        .map(|v| {
            let name = [
                "circle_balls",
                "diamond_balls",
                "sextic_balls",
                "circle_balls",
            ][v % 4];
            let mut sets = vec![
                "solver.dt=5e-3".to_string(),
                format!("bodies[0].speed={}", [5.0, 8.0][v / 4]),
                format!("contact.kappa={}", [1e4, 1e5][v / 4]),
            ];
            if v % 4 == 3 {
                sets.push("walls[0].radius=10.0".into());
            }
            let o = Override::parse_all(&sets).unwrap();
            load_with(name, &o).unwrap_or_else(|e| panic!("{name}: {e}"))
        })
        .collect();
    scenes.push(square_drop(&variant_sets(1)[0]));
    let walls: Vec<usize> = scenes
        .iter()
        .map(|s| s.model.implicit_walls.len())
        .collect();
    assert!(
        walls[..8].iter().all(|&w| w >= 1) && walls[8] == 0,
        "{walls:?}"
    );
    let alone = springsim::ensemble::why_alone(&Job {
        scene: scenes[0].clone(),
        opts: RunOptions::default(),
    });
    assert_eq!(alone, None);
    let jobs = jobs_of(&root, "batch", scenes, 400);
    let Some(report) = batch_or_skip(&jobs, PrecisionChoice::F64) else {
        return;
    };
    // Relative to at least 1 J or 1 m: the balls' bounces off a stiff barrier
    // amplify the last bits (the WGSL and Rust f64 arithmetic of W differ in
    // rounding): measured 2026-11-27, every variant within 1e-9 relative through
    // step 360, the radius-10 circle's balls then drift to 1.5e-8 J and 2.2e-7 m by
    // step 400 after their third bounce, with the same Newton count at every step
    // (the total energy, the potentials unscaled by h²: 2.8e-6).
    let worst = matches_the_cpu_alone(&root, &jobs, &report, 1.0);
    assert!(
        worst[0] < 1e-6 && worst[1] < 1e-5 && worst[2] < 1e-5,
        "{worst:?}"
    );
}

/// Every column of `steps.csv` but the wall-clock one.
fn without_clock(rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    let clock = rows[0].iter().position(|c| c == "wall_ms").unwrap();
    rows.into_iter()
        .map(|mut r| {
            r.remove(clock);
            r
        })
        .collect()
}

#[test]
fn a_failing_variant_leaves_the_others_of_its_batch_untouched() {
    let root = common::new_temp_dir("ensemble_isolation");
    let sets = variant_sets(4);
    let jobs = |dir: &str, poison: Option<usize>| -> Vec<Job> {
        let scenes = sets.iter().enumerate().map(|(v, s)| {
            let mut scene = square_drop(s);
            if poison == Some(v) {
                scene.model.v0[1] = f64::NAN;
            }
            scene
        });
        jobs_of(&root, dir, scenes.collect(), 120)
    };
    let clean = jobs("clean", None);
    let poisoned = jobs("poisoned", Some(2));
    let Some(a) = batch_or_skip(&clean, PrecisionChoice::F32) else {
        return;
    };
    let b = batch_or_skip(&poisoned, PrecisionChoice::F32).expect("the device opened once");
    let err = b.outcomes[2].as_ref().expect_err("the NaN variant fails");
    assert!(err.contains("not finite"), "{err}");
    let summary = std::fs::read_to_string(poisoned[2].opts.out_dir.join("summary.json")).unwrap();
    assert!(summary.contains("\"status\": \"failed\""), "{summary}");
    for v in [0, 1, 3] {
        let s = b.outcomes[v].as_ref().unwrap();
        assert_eq!(s.status, "completed");
        assert_eq!(s.steps, 120);
        assert_eq!(
            without_clock(steps_csv(&clean[v].opts.out_dir)),
            without_clock(steps_csv(&poisoned[v].opts.out_dir)),
            "variant {v}: its steps differ from the batch without the failing variant"
        );
    }
    assert!(b.submissions >= a.submissions);
}

/// A batch large enough that several threads hand out a round's answers
/// (`lockstep::SEATS_PER_WAKER`): 600 variants cycling through four scenes (three
/// meshes) each write exactly the steps the same scene writes in a batch of four, so
/// no answer reached the wrong variant.
#[test]
fn every_variant_of_a_large_batch_gets_its_own_answers() {
    let root = common::new_temp_dir("ensemble_large");
    let sets = variant_sets(4);
    let scenes = |k: usize| (0..k).map(|v| square_drop(&sets[v % 4])).collect();
    let small = jobs_of(&root, "small", scenes(4), 25);
    let large = jobs_of(&root, "large", scenes(600), 25);
    let Some(_) = batch_or_skip(&small, PrecisionChoice::F32) else {
        return;
    };
    let report = batch_or_skip(&large, PrecisionChoice::F32).expect("the device opened once");
    for (v, out) in report.outcomes.iter().enumerate() {
        let s = out.as_ref().unwrap_or_else(|e| panic!("variant {v}: {e}"));
        assert_eq!(s.steps, 25, "variant {v}");
        assert_eq!(
            without_clock(steps_csv(&large[v].opts.out_dir)),
            without_clock(steps_csv(&small[v % 4].opts.out_dir)),
            "variant {v} of 600 differs from the same scene in a batch of 4"
        );
    }
}

#[test]
fn each_variant_of_an_f32_batch_steps_as_the_gpu_backend_does_alone() {
    let root = common::new_temp_dir("ensemble_f32");
    let sets: Vec<Vec<String>> = variant_sets(4)
        .into_iter()
        .map(|mut s| {
            s.push("solver.precision=f32".into());
            s.push("solver.preconditioner=block_jacobi".into());
            s
        })
        .collect();
    let jobs = jobs_of(
        &root,
        "batch",
        sets.iter().map(|s| square_drop(s)).collect(),
        250,
    );
    let Some(report) = batch_or_skip(&jobs, PrecisionChoice::F32) else {
        return;
    };
    let mut worst = [0.0f64; 3];
    let mut newton = [0u64; 2];
    for (v, (out, job)) in report.outcomes.iter().zip(&jobs).enumerate() {
        let s = out.as_ref().unwrap_or_else(|e| panic!("variant {v}: {e}"));
        assert_eq!(s.status, "completed", "variant {v}");
        let Some(gpu) = common::gpu_backend(job.scene.model.clone(), Default::default()) else {
            return;
        };
        let alone = root.join(format!("alone/{v}"));
        let opts = RunOptions {
            out_dir: alone.clone(),
            ..job.opts.clone()
        };
        let t = springsim::run::run(&job.scene, Some(Box::new(gpu)), &opts).unwrap();
        newton[0] += s.newton_iterations;
        newton[1] += t.newton_iterations;
        assert_eq!(
            s.cg_iterations, t.cg_iterations,
            "variant {v}: CG iterations"
        );
        assert_eq!(
            s.first_contact_step, t.first_contact_step,
            "variant {v}: first contact"
        );
        let (a, b) = (steps_csv(&job.opts.out_dir), steps_csv(&alone));
        let col = |name: &str| a[0].iter().position(|c| c == name).unwrap();
        for (k, name) in ["total", "min_wall_distance", "kinetic"].iter().enumerate() {
            let c = col(name);
            for (ra, rb) in a.iter().zip(&b).skip(1) {
                let (x, y): (f64, f64) = (ra[c].parse().unwrap(), rb[c].parse().unwrap());
                worst[k] = worst[k].max((x - y).abs() / y.abs().max(1.0));
            }
        }
    }
    eprintln!("Newton iterations batched {} alone {}; largest differences (relative, at least 1 J or 1 m): total {:.2e}, wall distance {:.2e}, kinetic {:.2e}", newton[0], newton[1], worst[0], worst[1], worst[2]);
    // The batch's reductions pair the terms in another order than the GPU
    // backend's (a 32-thread tree per variant against 256-thread workgroups), so the
    // two agree within f32 rounding of the energies (9.5e-7 measured on lavapipe).
    assert_eq!(newton[0], newton[1], "Newton iterations");
    assert!(worst.iter().all(|&w| w <= 1e-5), "{worst:?}");
}

#[test]
fn jobs_are_split_into_batches_and_what_a_batch_cannot_hold_runs_alone() {
    let root = common::new_temp_dir("ensemble_split");
    let scenes = variant_sets(5).iter().map(|s| square_drop(s)).collect();
    let mut jobs = jobs_of(&root, "jobs", scenes, 5);
    // MAS: not in a batch yet, so it runs alone.
    jobs[3].scene.model.solver.preconditioner = springsim::linear_solver::PreconditionerKind::Mas;
    let mut seen = vec![None; jobs.len()];
    let totals = springsim::ensemble::run_jobs(&jobs, 2, |i, out| {
        seen[i] = Some(
            out.as_ref()
                .map(|s| (s.status.clone(), s.device.clone()))
                .map_err(String::clone),
        )
    });
    if totals.batches == 0 && std::env::var_os("CI").is_none() {
        eprintln!("skipping: no batch ran (no adapter?): {seen:?}");
        return;
    }
    // 4 batchable variants in batches of at most 2, one alone.
    assert_eq!((totals.batches, totals.alone), (2, 1), "{seen:?}");
    for (i, s) in seen.iter().enumerate() {
        let (status, device) = s.clone().unwrap().unwrap();
        assert_eq!(status, "completed", "job {i}");
        assert_eq!(device.contains("batch of 2"), i != 3, "job {i}: {device}");
    }
}

/// 3D variants in one batch (a lattice with either integrator, a pinned cloth, a
/// cube sliding on a slope with friction) take the CPU's Newton iterations, with
/// contact within the lattices and the cube on (watched: src/ensemble/watch.rs).
#[test]
fn three_dimensional_newmark_pinned_and_friction_variants_step_as_the_cpu_does_alone() {
    let root = common::new_temp_dir("ensemble_3d");
    let load = |scene: &str, extra: &[&str]| {
        let sets: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        load_with(scene, &Override::parse_all(&sets).unwrap()).unwrap_or_else(|e| panic!("{e}"))
    };
    let scenes = [
        load("lattice_drop", &[]),
        load("lattice_drop", &["solver.integrator=newmark"]),
        // (a cloth swinging from its pins bends far past what the watch can prove
        // from its rest shape: with contact within it, it would run alone)
        load(
            "cloth_drop",
            &[
                "contact.self_contact=false",
                "bodies[0].fixed_where=\"x < -0.4\"",
            ],
        ),
        // wall friction in 3D, with lagging updates
        load("cube_on_slope", &["solver.friction_updates=2"]),
    ];
    assert!(
        scenes[2].model.fixed.iter().any(|&f| f),
        "the cloth has pinned nodes"
    );
    let jobs = jobs_of(&root, "batch", scenes.into(), 60);
    let Some(report) = batch_or_skip(&jobs, PrecisionChoice::F64) else {
        return;
    };
    for (v, (out, job)) in report.outcomes.iter().zip(&jobs).enumerate() {
        let s = out.as_ref().unwrap_or_else(|e| panic!("variant {v}: {e}"));
        let cpu_dir = root.join(format!("cpu/{v}"));
        let c = cpu_alone(job, &cpu_dir);
        eprintln!(
            "variant {v}: Newton {} / {}, CG {} / {}, first contact {:?} / {:?}",
            s.newton_iterations,
            c.newton_iterations,
            s.cg_iterations,
            c.cg_iterations,
            s.first_contact_step,
            c.first_contact_step
        );
        assert_eq!(s.status, c.status, "variant {v}");
        assert_eq!(s.newton_iterations, c.newton_iterations, "variant {v}");
        assert_eq!(s.first_contact_step, c.first_contact_step, "variant {v}");
        let (a, b) = (steps_csv(&job.opts.out_dir), steps_csv(&cpu_dir));
        let col = a[0].iter().position(|c| c == "total").unwrap();
        for (ra, rb) in a.iter().zip(&b).skip(1) {
            let (x, y): (f64, f64) = (ra[col].parse().unwrap(), rb[col].parse().unwrap());
            assert!(
                (x - y).abs() <= 1e-8 * y.abs().max(1.0),
                "variant {v} step {}: {x} against {y}",
                ra[0]
            );
        }
    }
}

/// Wall friction in a batch: seed 003's square on a slope over μ (one variant
/// frictionless, one with lagging updates) and seed 004's ball sliding in a friction
/// bowl, against the CPU alone: the same Newton iterations and friction statistics
/// at every step through landing and sliding.
#[test]
fn friction_variants_step_in_a_batch_as_the_cpu_does_alone() {
    let root = common::new_temp_dir("ensemble_friction");
    let load = |name: &str, sets: &[String]| {
        load_with(name, &Override::parse_all(sets).unwrap()).unwrap_or_else(|e| panic!("{e}"))
    };
    // (μ, lagging updates per step): the updates recompute the contacts at the
    // iterate and solve again (`solver.friction_updates`).
    let mut scenes: Vec<Scene> = [(0.0, 0), (0.05, 0), (0.11, 0), (0.3, 0), (0.11, 3)]
        .iter()
        .map(|(mu, updates)| {
            load(
                "square_on_slope",
                &[
                    "contact.self_contact=false".into(),
                    format!("walls[0].friction={mu}"),
                    format!("solver.friction_updates={updates}"),
                ],
            )
        })
        .collect();
    for (mu, updates) in [(0.1, 0), (0.4, 2)] {
        scenes.push(load(
            "ball_in_bowl_friction",
            &[
                format!("walls[0].friction={mu}"),
                format!("solver.friction_updates={updates}"),
                "solver.dt=5e-3".into(),
            ],
        ));
    }
    let jobs = jobs_of(&root, "batch", scenes, 150);
    let Some(report) = batch_or_skip(&jobs, PrecisionChoice::F64) else {
        return;
    };
    let worst = matches_the_cpu_alone(&root, &jobs, &report, 1e-3);
    assert!(
        worst[0] < 1e-9 && worst[1] < 1e-6 && worst[2] < 1e-6,
        "{worst:?}"
    );
    for (v, job) in jobs.iter().enumerate() {
        let (a, b) = (
            steps_csv(&job.opts.out_dir),
            steps_csv(&root.join(format!("cpu/{v}"))),
        );
        let col = |name: &str| a[0].iter().position(|c| c == name);
        let (Some(stick), Some(slide), Some(diss)) =
            (col("sticking"), col("sliding"), col("friction_dissipation"))
        else {
            panic!("variant {v}: no friction columns in {:?}", a[0]);
        };
        let mut contacts = 0u64;
        for (ra, rb) in a.iter().zip(&b).skip(1) {
            assert_eq!(
                (&ra[stick], &ra[slide]),
                (&rb[stick], &rb[slide]),
                "variant {v} step {}: sticking and sliding contacts",
                ra[0]
            );
            let (x, y): (f64, f64) = (ra[diss].parse().unwrap(), rb[diss].parse().unwrap());
            assert!(
                (x - y).abs() <= 1e-9 * y.abs().max(1e-6),
                "variant {v} step {}: dissipation {x} against {y}",
                ra[0]
            );
            contacts += ra[stick].parse::<u64>().unwrap() + ra[slide].parse::<u64>().unwrap();
        }
        assert_eq!(contacts > 0, v != 0, "variant {v}: friction contacts");
    }
}
