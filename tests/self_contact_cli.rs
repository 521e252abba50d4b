//! Self-contact from the command line: a run's summary and steps.csv report the pairs,
//! `springsim check` verifies a finished run (and catches one without self-contact),
//! VTU frames carry each node's pair distance, the GPU backend runs such a scene with
//! friction between the bodies, and bad keys are refused.

mod common;
use common::cli::{read_summary, springsim_out};
use common::{springsim, temp_dir};

fn text(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs `two_squares` for 60 steps with a trajectory into `dir`, with the `extra`
/// arguments (split at white space).
fn run_two_squares(dir: &std::path::Path, extra: &str) {
    let args = format!("run two_squares --steps 60 --trajectory --quiet {extra}");
    let o = springsim_out(&args, dir);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn a_run_reports_its_pairs_and_check_verifies_it() {
    let dir = temp_dir("sc_run");
    let d = dir.to_str().unwrap();
    run_two_squares(&dir, "--frames 30 --frame-format vtu");
    let s = read_summary(&dir);
    assert_eq!(s["status"], "completed");
    assert_eq!(s["self_contact"], true);
    assert_eq!(s["intersection_checked_steps"], 60);
    assert!(s["max_contact_pairs"].as_u64().unwrap() > 0, "{s}");
    let dmin = s["min_pair_distance"].as_f64().unwrap();
    assert!(dmin > 0.0 && dmin < 0.01, "{dmin}");
    let c = &s["contact_costs"];
    // At most one broad phase per evaluation: per assembly, plus one per step.
    let broad = c["broad_phases"].as_u64().unwrap();
    assert!(
        broad >= 1 && broad <= c["assemblies"].as_u64().unwrap() + 60,
        "{c}"
    );
    assert!(c["active_pairs"].as_u64().unwrap() > 0, "{c}");
    let csv = std::fs::read_to_string(dir.join("steps.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "contact_pairs").unwrap();
    let pairs: u64 = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(col).unwrap().parse::<u64>().unwrap())
        .max()
        .unwrap();
    assert_eq!(Some(pairs), s["max_contact_pairs"].as_u64());
    let o = springsim(&["check", d]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("61 states checked, intersection-free"),
        "{}",
        text(&o)
    );
    // The frames carry each node's distance to the primitives it touches.
    let out = common::run_python(
        "import meshio, numpy as np, sys\n\
         m = meshio.read(sys.argv[1])\n\
         d = m.point_data['pair_distance']\n\
         f = d[np.isfinite(d)]\n\
         print(len(f), f.min() if len(f) else -1)",
        &[dir.join("frames/frame_000030.vtu").to_str().unwrap()],
    );
    if let Some(out) = out {
        let v: Vec<f64> = out.split_whitespace().map(|t| t.parse().unwrap()).collect();
        assert!(v[0] > 0.0 && v[1] > 0.0 && v[1] < 0.01, "{out}");
    }
}

/// At rest the candidate lists are reused (Verlet lists): far fewer broad phases than
/// Newton iterations.
#[test]
fn resting_contact_reuses_its_candidate_lists() {
    let dir = temp_dir("sc_reuse");
    let o = springsim_out("run ropes_parallel --steps 200 -q", &dir);
    assert!(o.status.success(), "{}", text(&o));
    let s = read_summary(&dir);
    let newton = s["newton_iterations"].as_u64().unwrap();
    let broad = s["contact_costs"]["broad_phases"].as_u64().unwrap();
    assert!(
        3 * broad < newton,
        "{broad} broad phases for {newton} Newton iterations"
    );
    assert!(s["max_contact_pairs"].as_u64().unwrap() >= 30, "{s}");
}

#[test]
fn check_finds_the_crossings_of_a_run_without_self_contact() {
    let dir = temp_dir("sc_off");
    let d = dir.to_str().unwrap();
    run_two_squares(&dir, "--set contact.self_contact=false");
    let o = springsim(&["check", d]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("with crossing primitives"), "{t}");
    assert!(
        t.contains("of 'lower' crosses") || t.contains("of 'upper' crosses"),
        "{t}"
    );
    // A folder that is not a run: one line, exit 2.
    let o = springsim(&["check", dir.join("nope").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).lines().count(),
        1,
        "{}",
        text(&o)
    );
}

/// Friction between bodies runs on the GPU too: `--backend gpu` runs the bundled
/// `two_squares` (μ = 0.5 between the squares) and summary.json names the backend.
#[test]
fn friction_between_bodies_runs_on_the_gpu_backend() {
    let dir = temp_dir("sc_gpu");
    let o = springsim_out("run two_squares --backend gpu --steps 2 -q", &dir);
    if std::env::var_os("CI").is_none() && text(&o).contains("adapter") {
        return; // no GPU adapter here (CI has lavapipe)
    }
    assert!(o.status.success(), "{}", text(&o));
    let s = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    assert!(s.contains("\"backend\": \"gpu\""), "{s}");
}

#[test]
fn bad_self_contact_keys_are_refused() {
    for (set, want) in [
        ("contact.self_friction=-1", "contact.self_friction"),
        ("contact.self_contact=3", "contact.self_contact"),
        ("bodies[0].collide=\"nobody\"", "collide"),
    ] {
        let o = springsim(&["run", "two_squares", "--steps", "1", "--set", set]);
        assert_eq!(o.status.code(), Some(2), "{set}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(want), "{set}: {err}");
    }
    let o = springsim(&[
        "run",
        "ball_bounce",
        "--steps",
        "1",
        "--set",
        "bodies[0].collide=\"all\"",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("particles collide with walls only"));
}
