//! 3D contact between and within bodies in a batch, watched (src/ensemble/watch.rs,
//! shaders/ensemble/watch.wgsl): a variant steps in the batch as it does alone on
//! the CPU backend while no two of its surfaces may come within d̂, and leaves the
//! batch before they may, going on alone from that step through its contacts.

mod common;

use common::ensemble::*;
use springsim::ensemble::watch::COME_NEAR;
use springsim::precision::PrecisionChoice;
use springsim::run::HANDED_OVER;
use springsim::scene::{load_with, overrides::Override, Scene};

/// Steps of each tet_drop variant: its first pairs within d̂ come at step 12 on the
/// CPU alone (κ = 1e3 and 1e4), so the horizon reaches them.
const STEPS: u64 = 14;

fn tet_drops() -> Vec<Scene> {
    ["1e3", "1e4"]
        .iter()
        .map(|kappa| {
            let sets = [format!("contact.kappa={kappa}")];
            load_with("tet_drop", &Override::parse_all(&sets).unwrap()).unwrap()
        })
        .collect()
}

fn column(rows: &[Vec<String>], name: &str) -> usize {
    rows[0].iter().position(|c| c == name).unwrap()
}

/// The step a variant's `device` says it went on alone from, if it did.
fn handed_over_at(device: &str) -> Option<usize> {
    let (_, rest) = device.split_once(HANDED_OVER)?;
    rest.split(' ').next()?.parse().ok()
}

/// In a batch, each tet_drop variant leaves at a step k > 1, no later than the CPU
/// alone first finds a pair within d̂, and goes on alone from there: its steps before
/// k take the CPU's Newton iterations and hold no pair, and all its steps take the
/// Newton iterations of the variant run alone on the GPU backend from the start.
#[test]
fn a_variant_leaves_its_batch_before_its_surfaces_may_come_near_and_goes_on_alone() {
    let root = common::new_temp_dir("ensemble_watch");
    let jobs = jobs_of(&root, "batch", tet_drops(), STEPS);
    let Some(report) = batch_or_skip(&jobs, PrecisionChoice::F64) else {
        return;
    };
    for (v, (out, job)) in report.outcomes.iter().zip(&jobs).enumerate() {
        let s = out.as_ref().unwrap_or_else(|e| panic!("variant {v}: {e}"));
        assert_eq!(s.status, "completed", "variant {v}");
        assert!(s.device.contains("batch of 2"), "variant {v}: {}", s.device);
        assert!(s.device.contains(COME_NEAR), "variant {v}: {}", s.device);
        let k = handed_over_at(&s.device).unwrap_or_else(|| panic!("variant {v}: {}", s.device));
        let cpu_dir = root.join(format!("cpu/{v}"));
        cpu_alone(job, &cpu_dir);
        let (a, b) = (steps_csv(&job.opts.out_dir), steps_csv(&cpu_dir));
        let (pairs, newton) = (column(&b, "contact_pairs"), column(&b, "newton_iterations"));
        let first_pair = b
            .iter()
            .skip(1)
            .position(|r| r[pairs] != "0")
            .map(|i| i + 1)
            .unwrap_or_else(|| panic!("variant {v}: the CPU alone met no pair"));
        eprintln!("variant {v}: left at step {k}; first pair alone at step {first_pair}");
        assert!(
            k > 1 && k <= first_pair,
            "variant {v}: step {k}, {first_pair}"
        );
        assert_eq!(a.len() as u64, STEPS + 1, "variant {v}: every step written");
        for (ra, rb) in a.iter().zip(&b).skip(1).take(k - 1) {
            assert_eq!(ra[newton], rb[newton], "variant {v} step {}", ra[0]);
            assert_eq!(ra[pairs], "0", "variant {v} step {}", ra[0]);
        }
        assert!(
            a.iter().skip(k).any(|r| r[pairs] != "0"),
            "variant {v}: alone, the tetrahedra meet"
        );
        if v == 0 {
            // the same variant on the GPU backend from the start
            let dir = root.join("gpu/0");
            let gpu = springsim::backend::gpu::GpuBackend::new(job.scene.model.clone()).unwrap();
            let opts = springsim::run::RunOptions {
                out_dir: dir.clone(),
                ..job.opts.clone()
            };
            springsim::run::run(&job.scene, Some(Box::new(gpu)), &opts).unwrap();
            let g = steps_csv(&dir);
            let counts = |rows: &[Vec<String>]| -> Vec<String> {
                rows.iter().map(|r| r[newton].clone()).collect()
            };
            assert_eq!(counts(&a), counts(&g), "Newton iterations per step");
        }
    }
}

/// `sweep --backend gpu` (its child calls `run_jobs`): the variants go on alone and
/// complete through their contacts, and the user is told once why they left their
/// batch.
#[test]
fn a_sweep_says_why_variants_left_their_batch() {
    let out = common::temp_dir("ensemble_watch_sweep").join("o");
    let steps = STEPS.to_string();
    let o = common::sweep(
        &[
            "tet_drop",
            "--vary",
            "contact.kappa=1e3,1e4",
            "--backend",
            "gpu",
            "--steps",
            &steps,
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    if stderr.contains("no GPU adapter") && std::env::var_os("CI").is_none() {
        eprintln!("skipping: no GPU adapter here");
        return;
    }
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "sweep: 2 of 2 variant(s) left their batch and went on alone: {COME_NEAR}"
        )),
        "{stderr}"
    );
    for dir in ["000-kappa=1e3", "001-kappa=1e4"] {
        let d = out.join(dir);
        let s = common::cli::read_summary(&d);
        assert_eq!(s["status"], "completed", "{dir}");
        let device = s["device"].as_str().unwrap();
        assert!(handed_over_at(device).is_some(), "{dir}: {device}");
        let rows = steps_csv(&d);
        assert_eq!(rows.len() as u64, STEPS + 1, "{dir}");
        let pairs = column(&rows, "contact_pairs");
        assert!(
            rows.iter().skip(1).any(|r| r[pairs] != "0"),
            "{dir}: alone, the tetrahedra meet"
        );
    }
}

/// Steps of the cloth pile in its batch: past the landing of its lower edge (step
/// 5) and to the step where the watch lets it go (76 on lavapipe).
const PILE_STEPS: u64 = 90;

/// An upright cloth dropped onto the ground (cloth_pile, κ = 1e4): its lower edge
/// lands at step 5 and it folds onto itself; on the CPU alone its layers first come
/// within d̂ of each other at step 108. Measured from its flat rest shape alone, the
/// watch let it go at step 7 (the cloth bends away from that shape). With the
/// reference the host measures where that proof fails, the variant stays in its
/// batch well past the landing, takes the CPU's Newton iterations at every step
/// there, and leaves no later than the CPU's first pair.
#[test]
fn a_folding_cloth_stays_in_its_batch_until_its_layers_may_meet() {
    let root = common::new_temp_dir("ensemble_watch_pile");
    let sets = ["contact.kappa=1e4".to_string()];
    let pile = load_with("cloth_pile", &Override::parse_all(&sets).unwrap()).unwrap();
    let jobs = jobs_of(&root, "batch", vec![pile], PILE_STEPS);
    let Some(report) = batch_or_skip(&jobs, PrecisionChoice::F64) else {
        return;
    };
    let s = report.outcomes[0]
        .as_ref()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.status, "completed");
    // the CPU alone, on to its first pair
    let longer = springsim::ensemble::Job {
        scene: jobs[0].scene.clone(),
        opts: springsim::run::RunOptions {
            steps: 120,
            ..jobs[0].opts.clone()
        },
    };
    let cpu_dir = root.join("cpu");
    cpu_alone(&longer, &cpu_dir);
    let (a, b) = (steps_csv(&jobs[0].opts.out_dir), steps_csv(&cpu_dir));
    let (pairs, newton) = (column(&b, "contact_pairs"), column(&b, "newton_iterations"));
    let wall = column(&b, "min_wall_distance");
    let first = |f: &dyn Fn(&Vec<String>) -> bool| b.iter().skip(1).position(f).map(|i| i + 1);
    let first_pair = first(&|r| r[pairs] != "0").expect("the layers meet on the CPU alone");
    let dhat = jobs[0].scene.model.barrier.dhat;
    let landing = first(&|r| r[wall].parse::<f64>().unwrap() < dhat).expect("the cloth lands");
    let k = handed_over_at(&s.device).unwrap_or(PILE_STEPS as usize + 1);
    eprintln!("cloth_pile: lands at step {landing}, left at step {k}, first pair alone at step {first_pair}");
    assert!(
        k > landing + 10 && k <= first_pair,
        "step {k}: landing {landing}, first pair {first_pair}"
    );
    for (ra, rb) in a.iter().zip(&b).skip(1).take(k - 1) {
        assert_eq!(ra[newton], rb[newton], "step {}", ra[0]);
    }
}
