//! CI's shortened soak: every bundled scene on both backends (the GPU on lavapipe in
//! CI) until 300 steps past its first contact, through `springsim soak`. Every run
//! must complete with no stalled step and no step at the Newton cap, and reach a
//! contact: a frozen or wrong run fails here. The full-duration table is
//! docs/SOAK.md.

use std::process::Command;

/// Scenes allowed steps at the Newton cap, and why: the course's spring stiffness
/// k = 2e4 folds the 64×64-cell square on impact (scenes/README.md), and Newton on a
/// folded mesh runs to its cap on a few impact steps (3 of the first 100).
const CAPPED_ALLOWED: &[&str] = &["square_64"];

#[test]
fn every_bundled_scene_runs_through_its_first_contacts_on_both_backends() {
    let out = std::env::temp_dir().join(format!("springsim_soak_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mut backends = "cpu,gpu";
    if springsim::backend::gpu::context::list_adapters().is_empty() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but no GPU adapter was found (install mesa-vulkan-drivers)"
        );
        eprintln!("no GPU adapter: soaking the CPU backend only");
        backends = "cpu";
    }
    let o = Command::new(env!("CARGO_BIN_EXE_springsim"))
        .args([
            "soak",
            "--backends",
            backends,
            "--after-contact",
            "300",
            "--max-nodes",
            "cpu=5000",
            "--max-nodes",
            "gpu=500",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    eprintln!("{stdout}");
    assert!(
        o.status.success(),
        "soak: {stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let csv = std::fs::read_to_string(out.join("soak.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let mut runs = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let label = format!("{} on {}", f[col("scene")], f[col("backend")]);
        if f[col("status")] == "skipped" {
            continue;
        }
        runs += 1;
        assert_eq!(f[col("status")], "completed", "{label}: {line}");
        assert_eq!(f[col("stalled")], "0", "{label}");
        if !CAPPED_ALLOWED.contains(&f[col("scene")]) {
            assert_eq!(f[col("capped")], "0", "{label}");
        }
        assert!(
            !f[col("first_contact_step")].is_empty(),
            "{label}: no contact within the horizon"
        );
        let d: f64 = f[col("min_wall_distance")].parse().unwrap();
        assert!(
            d > 0.0 || f[col("scene")].ends_with("_impulse") || f[col("scene")] == "ball_bounce",
            "{label}: a node reached a wall ({d})"
        );
    }
    // Every bundled scene ran on the CPU at least.
    assert!(runs >= springsim::scene::BUNDLED.len() - 1, "{runs} runs");
}
