//! 3D contact between and within bodies in a batch, watched (src/ensemble/watch.rs,
//! shaders/ensemble/watch.wgsl): a variant steps in the batch as it does alone on
//! the CPU backend while no two of its surfaces may come within d̂, stops before they
//! may, and `run_jobs` then runs it again alone, through its contacts.

mod common;

use common::ensemble::*;
use springsim::ensemble::watch::COME_NEAR;
use springsim::precision::PrecisionChoice;
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

/// In a batch, each tet_drop variant stops at a step k > 1 with the watch's error,
/// no later than the CPU alone first finds a pair within d̂; its steps before k take
/// the CPU's Newton iterations and hold no pair.
#[test]
fn a_batch_stops_a_variant_before_its_surfaces_may_come_near() {
    let root = common::new_temp_dir("ensemble_watch");
    let jobs = jobs_of(&root, "batch", tet_drops(), STEPS);
    let Some(report) = batch_or_skip(&jobs, PrecisionChoice::F64) else {
        return;
    };
    for (v, (out, job)) in report.outcomes.iter().zip(&jobs).enumerate() {
        let err = out.as_ref().expect_err("the watch stops the variant");
        assert!(err.contains(COME_NEAR), "variant {v}: {err}");
        let k: usize = err
            .strip_prefix("step ")
            .and_then(|s| s.split(':').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("variant {v}: no step in `{err}`"));
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
        eprintln!("variant {v}: stopped at step {k}; first pair alone at step {first_pair}");
        assert!(
            k > 1 && k <= first_pair,
            "variant {v}: step {k}, {first_pair}"
        );
        assert_eq!(a.len(), k, "variant {v}: the steps before k are written");
        for (ra, rb) in a.iter().zip(&b).skip(1) {
            assert_eq!(ra[newton], rb[newton], "variant {v} step {}", ra[0]);
            assert_eq!(ra[pairs], "0", "variant {v} step {}", ra[0]);
        }
    }
}

/// `sweep --backend gpu` (its child calls `run_jobs`): the stopped variants run
/// again alone and complete through their contacts, each folder holding the run
/// alone's steps only, and the user is told once why they left their batch.
#[test]
fn a_sweep_runs_stopped_variants_again_alone_and_says_why() {
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
            "sweep: 2 of 2 variant(s) left their batch and ran again alone: {COME_NEAR}"
        )),
        "{stderr}"
    );
    for dir in ["000-kappa=1e3", "001-kappa=1e4"] {
        let d = out.join(dir);
        let s = common::cli::read_summary(&d);
        assert_eq!(s["status"], "completed", "{dir}");
        let device = s["device"].as_str().unwrap();
        assert!(!device.contains("batch"), "{dir}: {device}");
        let rows = steps_csv(&d);
        assert_eq!(rows.len() as u64, STEPS + 1, "{dir}");
        let pairs = column(&rows, "contact_pairs");
        assert!(
            rows.iter().skip(1).any(|r| r[pairs] != "0"),
            "{dir}: alone, the tetrahedra meet"
        );
    }
}
