//! A sweep on the GPU backend (issues 16 and 27): its variants run as batched
//! ensembles by default, those a batch cannot hold yet alone, and with `--batch 1`
//! each as its own run, all through the square's first contact (lavapipe in CI).

mod common;
use common::{sweep, temp_dir};

/// Runs the sweep; `None` (skip) where there is no adapter outside CI.
fn gpu_sweep(out: &std::path::Path, extra: &[&str]) -> Option<String> {
    let mut args = vec![
        "square_drop",
        "--vary",
        "contact.kappa=1e4,1e5",
        "--backend",
        "gpu",
        "--steps",
        "40",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = sweep(&args, &[]);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    if stderr.contains("no GPU adapter") || stderr.contains("No suitable") {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI has no GPU adapter: {stderr}"
        );
        eprintln!("skipping: no GPU adapter here");
        return None;
    }
    assert!(o.status.success(), "{stderr}");
    Some(stderr)
}

fn check_variant(dir: &std::path::Path) -> serde_json::Value {
    let s = common::cli::read_summary(dir);
    let name = dir.display();
    assert_eq!(s["backend"], "gpu", "{name}");
    assert_eq!(s["status"], "completed", "{name}");
    assert_eq!(s["steps"], 40, "{name}");
    // Step 32 is the first contact (seed 003): the horizon includes it.
    assert!(
        s["first_contact_step"].as_u64().is_some_and(|c| c <= 40),
        "{name}: {s}"
    );
    assert!(s["min_wall_distance"].as_f64().unwrap() > 0.0, "{name}");
    s
}

#[test]
fn gpu_sweeps_run_batched_and_alone_where_a_batch_cannot_hold_a_variant() {
    let out = temp_dir("sweep_gpu_batched").join("o");
    // Contact within the square (self_contact, on by default) batches; MAS does not.
    let Some(stderr) = gpu_sweep(&out, &["--vary", "solver.preconditioner=block_jacobi,mas"])
    else {
        return;
    };
    assert!(stderr.contains("in GPU batches of up to 1024"), "{stderr}");
    // The user is told which variants run one at a time, and why.
    assert!(
        stderr.contains("sweep: 2 of 4 variant(s) run one at a time on the GPU backend")
            && stderr.contains("multilevel preconditioners"),
        "{stderr}"
    );
    let mut steps = Vec::new();
    for (dir, batched) in [
        ("000-kappa=1e4-preconditioner=block_jacobi", true),
        ("001-kappa=1e4-preconditioner=mas", false),
        ("002-kappa=1e5-preconditioner=block_jacobi", true),
        ("003-kappa=1e5-preconditioner=mas", false),
    ] {
        let s = check_variant(&out.join(dir));
        let device = s["device"].as_str().unwrap();
        assert_eq!(device.contains("batch of 2"), batched, "{dir}: {device}");
        steps.push(std::fs::read_to_string(out.join(dir).join("steps.csv")).unwrap());
    }
    assert!(out.join("batches/batch-0000.log").exists());
    let table = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    assert_eq!(table.lines().count(), 5, "{table}");
    assert!(!table.contains("failed"), "{table}");
    // The batched runs match the same variants alone (`--batch 1`, one process each).
    let alone = temp_dir("sweep_gpu_alone").join("o");
    let Some(stderr) = gpu_sweep(
        &alone,
        &[
            "--set",
            "solver.preconditioner=block_jacobi",
            "--batch",
            "1",
        ],
    ) else {
        return;
    };
    assert!(stderr.contains("1 at a time"), "{stderr}");
    for (k, dir) in ["000-kappa=1e4", "001-kappa=1e5"].iter().enumerate() {
        let s = check_variant(&alone.join(dir));
        assert!(!s["device"].as_str().unwrap().contains("batch"), "{s}");
        let a = std::fs::read_to_string(alone.join(dir).join("steps.csv")).unwrap();
        let newton = |t: &str| -> Vec<String> {
            t.lines()
                .map(|l| l.split(',').nth(2).unwrap().to_string())
                .collect()
        };
        assert_eq!(
            newton(&a),
            newton(&steps[2 * k]),
            "{dir}: Newton iterations per step"
        );
    }
}

#[test]
fn batches_are_for_the_gpu() {
    let out = temp_dir("sweep_batch_cpu").join("o");
    let o = sweep(
        &[
            "square_drop",
            "--vary",
            "contact.kappa=1e4,1e5",
            "--batch",
            "8",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("--batch") && stderr.contains("--backend gpu"),
        "{stderr}"
    );
}
