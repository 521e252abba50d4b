//! A run says whether it can be trusted: stalled steps, frozen runs, interruptions
//! and a body at rest that must fall, through the `springsim run` binary and its
//! `summary.json`.

mod common;
use common::cli::read_summary as summary;
use common::{new_temp_dir as temp, springsim};
use std::path::Path;
use std::process::{Child, Command};

/// Starts a long CPU run of `circle_balls` into `out` in the background.
fn spawn_long_run(out: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_springsim"))
        .args([
            "run",
            "circle_balls",
            "--backend",
            "cpu",
            "--steps",
            "10000000",
        ])
        .args(["--out", out.to_str().unwrap()])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Polls `done` every `poll_ms` milliseconds until it holds; fails after 60 s (the
/// run did not start).
fn wait_until(poll_ms: u64, done: impl Fn() -> bool) {
    let t0 = std::time::Instant::now();
    while !done() {
        assert!(t0.elapsed().as_secs() < 60, "the run did not start");
        std::thread::sleep(std::time::Duration::from_millis(poll_ms));
    }
}

/// A particle pulled sideways (gravity along x) near a wall whose CCD bound cannot be
/// resolved:
/// `1 + √(x − x + 1e-20)` is 1 at every point, but over any box of positive width the
/// square root's argument reaches below 0, so neither the interval nor the slope of W
/// bounds it and every step's CCD bound is 0.
const UNBOUNDABLE_WALL: &str = r#"
name = "unboundable"
dimension = 2
[solver]
dt = 0.01
gravity = [-9.81, 0.0]
[contact]
dhat = 0.01
kappa = 1e4
[[walls]]
type = "implicit"
expression = "1 + sqrt(x - x + 1e-20)"
inside = "positive"
[[bodies]]
generator = "particle"
mass = 1.0
center = [0.0, 0.0]
"#;

fn write_scene(dir: &Path, text: &str) -> String {
    let path = dir.join("scene.toml");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// `springsim run SCENE --backend cpu --steps STEPS --out OUT EXTRA…`.
fn run_cpu(scene: &str, steps: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["run", scene, "--backend", "cpu", "--steps", steps];
    args.extend(["--out", out.to_str().unwrap()]);
    args.extend_from_slice(extra);
    springsim(&args)
}

#[test]
fn a_run_with_stalled_steps_says_so_and_exits_3() {
    let dir = temp("stalled");
    let scene = write_scene(&dir, UNBOUNDABLE_WALL);
    let out_dir = dir.join("out");
    let o = run_cpu(&scene, "5", &out_dir, &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("stalled") && stderr.contains("ccd_zero"),
        "{stderr}"
    );
    let s = summary(&out_dir);
    assert_eq!(s["status"], "stalled");
    assert_eq!(s["stalled_steps"], 5);
    assert_eq!(s["first_stalled_step"], 1);
    assert!(s["first_stall"].as_str().unwrap().starts_with("ccd_zero"));
    // Each stalled step ended at once: no Newton iteration was taken.
    assert_eq!(s["newton_iterations"], 0);
    let steps = std::fs::read_to_string(out_dir.join("steps.csv")).unwrap();
    assert_eq!(
        steps.lines().filter(|l| l.contains(",ccd_zero,")).count(),
        5
    );

    // --allow-stalled exits 0, and the summary still says stalled.
    let o = run_cpu(&scene, "5", &out_dir, &["--allow-stalled"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(summary(&out_dir)["status"], "stalled");
}

#[test]
fn a_frozen_run_stops_after_100_stalled_steps() {
    let dir = temp("frozen");
    let scene = write_scene(&dir, UNBOUNDABLE_WALL);
    let out = dir.join("out");
    let o = run_cpu(&scene, "1000", &out, &[]);
    assert_eq!(o.status.code(), Some(1));
    let s = summary(&out);
    assert_eq!(s["status"], "failed");
    assert_eq!(s["steps"], 100);
    assert!(s["error"].as_str().unwrap().contains("frozen"), "{s}");
}

#[test]
fn ctrl_c_stops_the_run_and_keeps_its_summary() {
    let dir = temp("interrupt");
    let out = dir.join("out");
    let mut child = spawn_long_run(&out);
    // Wait until it has taken some steps.
    wait_until(50, || {
        std::fs::read_to_string(out.join("steps.csv")).is_ok_and(|t| t.lines().count() > 50)
    });
    // The summary exists while it runs.
    assert_eq!(summary(&out)["status"], "running");
    // SAFETY: sending a signal to our own child process.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let s = summary(&out);
    assert_eq!(s["status"], "interrupted");
    let steps = std::fs::read_to_string(out.join("steps.csv")).unwrap();
    assert_eq!(
        steps.lines().count() as u64 - 1,
        s["steps"].as_u64().unwrap()
    );
}

#[test]
fn a_killed_run_leaves_a_header_and_a_summary() {
    // Killed (SIGKILL, no handler) as soon as its summary appears, before or just after
    // its first steps: steps.csv already holds its header (it was once left empty).
    let dir = temp("early");
    let out = dir.join("out");
    let mut child = spawn_long_run(&out);
    wait_until(5, || out.join("summary.json").exists());
    child.kill().unwrap();
    child.wait().unwrap();
    let steps = std::fs::read_to_string(out.join("steps.csv")).unwrap();
    assert!(steps.starts_with("step,time,"), "{steps:?}");
    assert!(summary(&out)["status"].is_string());
}

/// Issue 12, defect 2: with dt = 1e-3 the square's first direction meets the tolerance
/// (|g| h = 9.8e-3 m/s < 1e-2 m/s); the course's rule never applies it, so the square
/// floats, while the default applies it and the square falls as ½ g t².
#[test]
fn a_body_at_rest_falls_with_a_small_time_step() {
    let base = springsim::scene::BUNDLED
        .iter()
        .find(|(n, _)| *n == "square_drop")
        .unwrap()
        .1
        .replace("dt = 0.01", "dt = 0.001");
    // The mean height of the 25 nodes (m).
    let mean_y = |sim: &mut springsim::sim::Simulation| {
        sim.backend()
            .positions()
            .chunks(2)
            .map(|p| p[1])
            .sum::<f64>()
            / 25.0
    };
    for (rule, expect_fall) in [("min_newton_iterations = 0", false), ("", true)] {
        let text = base.replace("min_newton_iterations = 0", rule);
        let sc = springsim::scene::parse(&text, "square.toml", "square").unwrap();
        let model = sc.model.clone();
        let mut sim = springsim::sim::Simulation::new(
            Box::new(springsim::backend::cpu::CpuBackend::new(model.clone())),
            &model,
        );
        let y0 = mean_y(&mut sim);
        for _ in 0..100 {
            let rec = sim.step().unwrap();
            assert!(rec.stall.is_none());
        }
        let y = mean_y(&mut sim);
        let fall = y0 - y;
        // ½ g t² at t = 0.1 s is 4.9 cm; implicit Euler lags by about g h t.
        if expect_fall {
            assert!((fall - 0.049).abs() < 0.002, "default rule: fell {fall} m");
        } else {
            assert!(fall.abs() < 1e-12, "course rule: moved {fall} m");
        }
    }
}

/// A direction whose CG stops at `solver.cg_max_iterations` is counted per step
/// (`cg_unconverged`), summed in `summary.json` and named on stderr; a run whose
/// every CG reached its tolerance counts none and says nothing.
#[test]
fn directions_whose_cg_stops_short_are_counted_and_said() {
    let dir = temp("cg_short");
    // (newton_iterations, cg_unconverged) per step, through the plot command's reader.
    let steps_of = |out: &Path| -> Vec<(u64, u64)> {
        let path = out.join("steps.csv");
        let c = springsim::run::plots::read_csv(&path).unwrap();
        let newton = c.get(&path, "newton_iterations").unwrap();
        let short = c.get(&path, "cg_unconverged").unwrap();
        newton
            .iter()
            .zip(short)
            .map(|(&n, &s)| (n as u64, s as u64))
            .collect()
    };
    let pcg = ["--linear-solver", "pcg", "--preconditioner", "block-jacobi"];
    let fixed = ["--set", "solver.forcing=fixed"];

    let healthy = dir.join("healthy");
    let o = run_cpu(
        "square_drop",
        "40",
        &healthy,
        &[&pcg[..], &fixed[..]].concat(),
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(steps_of(&healthy).iter().all(|&(_, short)| short == 0));
    assert_eq!(summary(&healthy)["cg_unconverged_directions"], 0);
    assert!(!stderr.contains("cg_unconverged"), "{stderr}");

    // Two CG iterations cannot solve the square's systems (block-Jacobi needs about
    // 15): every direction, applied or final, stops at the cap.
    let capped = dir.join("capped");
    let cap = ["--set", "solver.cg_max_iterations=2"];
    let o = run_cpu(
        "square_drop",
        "40",
        &capped,
        &[&pcg[..], &fixed[..], &cap[..]].concat(),
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    let rows = steps_of(&capped);
    assert_eq!(rows.len(), 40, "{stderr}");
    for (k, &(newton, short)) in rows.iter().enumerate() {
        assert!(
            short > newton,
            "step {}: {short} short of {newton} applied",
            k + 1
        );
    }
    let total: u64 = rows.iter().map(|r| r.1).sum();
    assert_eq!(summary(&capped)["cg_unconverged_directions"], total);
    assert!(
        stderr.contains(&format!("note: {total} Newton directions stopped short"))
            && stderr.contains("cg_max_iterations = 2"),
        "{stderr}"
    );
}
