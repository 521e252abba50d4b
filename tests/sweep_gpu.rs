//! A sweep on the GPU backend (issue 16): its variants run one at a time by default,
//! each on the device, through the square's first contact (lavapipe in CI).

mod common;
use common::{sweep, temp_dir};

#[test]
fn gpu_variants_run_one_at_a_time_on_the_device() {
    let out = temp_dir("sweep_gpu").join("o");
    let o = sweep(
        &[
            "square_drop",
            "--vary",
            "contact.kappa=1e4,1e5",
            "--set",
            "contact.self_contact=false",
            "--backend",
            "gpu",
            "--steps",
            "40",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    if stderr.contains("no GPU adapter") || stderr.contains("No suitable") {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI has no GPU adapter: {stderr}"
        );
        eprintln!("skipping: no GPU adapter here");
        return;
    }
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("1 at a time"), "{stderr}");
    for dir in ["000-kappa=1e4", "001-kappa=1e5"] {
        let s = common::cli::read_summary(&out.join(dir));
        assert_eq!(s["backend"], "gpu", "{dir}");
        assert_eq!(s["status"], "completed", "{dir}");
        assert_eq!(s["steps"], 40, "{dir}");
        // Step 32 is the first contact (seed 003): the horizon includes it.
        assert!(
            s["first_contact_step"].as_u64().is_some_and(|c| c <= 40),
            "{dir}: {s}"
        );
        assert!(s["min_wall_distance"].as_f64().unwrap() > 0.0, "{dir}");
    }
}
