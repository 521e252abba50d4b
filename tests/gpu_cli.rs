//! The GPU-facing commands end to end: `devices`, `run --backend gpu`, `compare`.

mod common;
use common::cli::{assert_ok, read_summary, springsim_out};
use common::springsim;
use std::path::Path;

/// Runs `springsim WORDS --quiet --out DIR` (`words` split at white space), asserts
/// success, and returns the JSON file `json` it wrote in DIR.
fn run_quiet(words: &str, dir: &Path, json: &str) -> serde_json::Value {
    assert_ok(&springsim_out(&format!("{words} --quiet"), dir));
    serde_json::from_str(&std::fs::read_to_string(dir.join(json)).unwrap()).unwrap()
}

fn have_gpu() -> bool {
    common::gpu_backend(common::random_model(4, 2, "book", 3), Default::default()).is_some()
}

#[test]
fn devices_lists_the_adapter() {
    if !have_gpu() {
        return;
    }
    let out = springsim(&["devices"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.contains("Vulkan") || l.contains("Metal") || l.contains("Dx12")),
        "{text}"
    );
}

#[test]
fn gpu_run_names_its_adapter_and_counts_its_traffic() {
    if !have_gpu() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("springsim-gpu-run-{}", std::process::id()));
    let s = run_quiet(
        "run square_drop --backend gpu --steps 40 --set contact.self_contact=false",
        &dir,
        "summary.json",
    );
    assert_eq!(s["backend"], "gpu");
    // lavapipe and data-centre GPUs have f64: `auto` runs in it; others in f32
    let precision = s["precision"].as_str().unwrap();
    assert!(precision == "f64" || precision == "f32", "{s}");
    assert!(s["device"].as_str().unwrap().ends_with(precision));
    let newton = s["newton_iterations"].as_u64().unwrap();
    let subs = s["device_submissions"].as_u64().unwrap();
    let reads = s["device_readbacks"].as_u64().unwrap();
    assert!(newton >= 40, "{s}");
    // Per Newton iteration one read (CG flags, stopping measure, CCD bound and the
    // first line-search trial together); per step two more (the last direction solve,
    // the diagnostics at the end; the energy at the start rides with the first
    // direction), and a margin for CG batches that ran short.
    assert!(
        reads <= newton + 3 * 40 + 10,
        "{reads} reads for {newton} Newton iterations"
    );
    assert!(
        subs >= reads && subs <= 3 * newton + 5 * 40 + 10,
        "{subs} submissions"
    );
    assert!(s["device_memory_bytes"].as_u64().unwrap() > 0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn compare_reports_close_trajectories() {
    if !have_gpu() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("springsim-compare-{}", std::process::id()));
    for mode in ["f32", "mixed", "f64"] {
        let args =
            format!("compare scenes/square_drop.toml --steps 60 --set solver.precision={mode}");
        let r = run_quiet(&args, &dir, "compare.json");
        assert_eq!(r["steps"], 60);
        assert_eq!(r["precision"], mode);
        assert_eq!(r["within_tolerance"], true, "{r}");
        let max = r["max_position_difference"].as_f64().unwrap();
        let rms = r["rms_position_difference"].as_f64().unwrap();
        assert!(max < 5e-5 && rms <= max && rms >= 0.0, "{r}");
        assert_eq!(r["cpu"]["backend"], "cpu");
        assert_eq!(r["gpu"]["backend"], "gpu");
        let (nc, ng) = (
            r["cpu"]["newton_iterations"].as_i64().unwrap(),
            r["gpu"]["newton_iterations"].as_i64().unwrap(),
        );
        assert!((nc - ng).abs() <= 2, "Newton iterations cpu {nc} gpu {ng}");
        if mode == "f64" {
            // the same iterates as the CPU: rounding apart, and the same counts
            assert!(max < 1e-9, "{r}");
            assert_eq!(nc, ng);
            assert_eq!(r["cpu"]["cg_iterations"], r["gpu"]["cg_iterations"], "{r}");
        }
        assert!(r["wall_clock_ratio"].as_f64().unwrap() > 0.0);
        let csv = std::fs::read_to_string(dir.join("compare_steps.csv")).unwrap();
        assert_eq!(csv.lines().count(), 61);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn nonsmooth_scenes_refuse_the_gpu() {
    let out = springsim(&["run", "ball_bounce", "--backend", "gpu", "--quiet"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nonsmooth"));
}

#[test]
fn f64_modes_are_refused_without_f64_and_auto_falls_back_with_a_note() {
    if !have_gpu() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("springsim-gpu-hide-f64-{}", std::process::id()));
    let out_dir = dir.to_str().unwrap();
    let base = [
        "run",
        "square_drop",
        "--backend",
        "gpu",
        "--steps",
        "3",
        "--quiet",
        "--set",
        "contact.self_contact=false",
        "--out",
        out_dir,
    ];
    let hidden = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        common::springsim_env(&args, &[("SPRINGSIM_GPU_HIDE_F64", "1")])
    };
    for mode in ["f64", "mixed"] {
        let out = hidden(&["--precision", mode]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{mode}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(mode) && err.contains("SHADER_F64"), "{err}");
    }
    // auto (the default) falls back to f32 with one note; without --quiet it prints it
    let mut args = base.to_vec();
    args.retain(|a| *a != "--quiet");
    let out = common::springsim_env(&args, &[("SPRINGSIM_GPU_HIDE_F64", "1")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("note: the GPU runs in f32"), "{err}");
    assert_eq!(read_summary(&dir)["precision"], "f32");
    std::fs::remove_dir_all(&dir).ok();
}
