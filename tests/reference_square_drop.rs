//! Seed 003's square drop against the figures of the course's own Python code
//! (500 steps): `springsim run scenes/square_drop.toml --steps 500 --trajectory`.

mod common;
use std::collections::BTreeMap;
use std::process::Command;

#[test]
fn square_drop_reproduces_the_course_figures_on_the_cpu() {
    check("cpu", 5e-4);
}

#[test]
fn square_drop_reproduces_the_course_figures_on_the_gpu() {
    let probe = common::random_model(4, 2, "book", 1);
    if common::gpu_backend(probe, Default::default()).is_none() {
        return;
    }
    check("gpu", 1e-3);
}

/// Runs the CLI on `backend` and checks the course's figures: ±1 step, `tol` in y
/// (±2e-3 for centroids from step 100 on).
fn check(backend: &str, tol: f64) {
    let out = std::env::temp_dir().join(format!("springsim-ref-{backend}-{}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_springsim"))
        .args([
            "run",
            "scenes/square_drop.toml",
            // The course's figures are without contact between bodies; the square
            // never meets itself.
            "--set",
            "contact.self_contact=false",
            "--backend",
            backend,
            "--steps",
            "500",
            "--trajectory",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .status()
        .expect("run springsim");
    assert!(status.success());
    let text = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("step,node,x,y"));
    let mut ys: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        ys.entry(f[0].parse().unwrap())
            .or_default()
            .push(f[3].parse().unwrap());
    }
    assert_eq!(ys.len(), 501);
    assert!(ys.values().all(|v| v.len() == 25));
    let min_y = |s: u64| ys[&s].iter().cloned().fold(f64::INFINITY, f64::min);
    let centroid = |s: u64| ys[&s].iter().sum::<f64>() / 25.0;
    let (dhat, ground) = (0.01, -1.0);

    let first_contact = (0..=500).find(|&s| min_y(s) - ground < dhat).unwrap();
    assert!(
        (31..=33).contains(&first_contact),
        "first contact at step {first_contact}, course: 32"
    );
    let lowest_step = (0..=500)
        .min_by(|&a, &b| min_y(a).total_cmp(&min_y(b)))
        .unwrap();
    assert!(
        (31..=33).contains(&lowest_step),
        "lowest at step {lowest_step}, course: 32"
    );
    assert!(
        (min_y(lowest_step) - -0.993612).abs() <= tol,
        "lowest y {}",
        min_y(lowest_step)
    );
    for (step, want, tol) in [
        (50, -0.618102, tol),
        (75, -0.357813, tol),
        (100, -0.574023, 2e-3),
        (500, -0.510917, 2e-3),
    ] {
        let got = centroid(step);
        assert!(
            (got - want).abs() <= tol,
            "centroid y at step {step}: {got}, course: {want}"
        );
    }
    let bottom: Vec<f64> = ys[&500].iter().cloned().filter(|y| *y < -0.9).collect();
    assert_eq!(bottom.len(), 5, "five nodes form the bottom row");
    for y in bottom {
        assert!(
            (y - -0.990752).abs() <= tol,
            "resting bottom node at {y}, course: -0.990752"
        );
    }
    let summary = common::cli::read_summary(&out);
    assert_eq!(summary["first_contact_step"], 32);
    assert_eq!(summary["steps"], 500);
    assert!(summary["min_wall_distance"].as_f64().unwrap() > 0.0);
    std::fs::remove_dir_all(&out).ok();
}
