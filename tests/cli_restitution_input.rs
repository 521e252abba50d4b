//! `springsim restitution` refuses studies that cannot measure a bounce (one error
//! line, exit status 2, nothing written) and reports runs without contact plainly,
//! never as a NaN coefficient of restitution.

mod common;
use common::cli::springsim_out;
use common::{springsim, temp_dir as temp};

/// Runs `restitution ARGS` and checks the refusal: status 2, one line naming `parts`.
fn refused(args: &[&str], parts: &[&str]) {
    let dir = temp("restitution_refused");
    let mut all = vec!["restitution", "--no-plots", "--out", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = springsim(&all);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    for p in parts {
        assert!(stderr.contains(p), "{args:?}: `{p}` missing from {stderr}");
    }
    assert!(
        !dir.exists(),
        "{args:?}: nothing is written for bad arguments"
    );
}

#[test]
fn a_barrier_zone_above_the_start_is_refused() {
    refused(
        &["--dhat", "20"],
        &["--dhat must be at most x0", "dhat = 20 m", "x0 = 10 m"],
    );
    refused(
        &["--sweep", "dhat=0.1,20"],
        &[
            "--sweep dhat=0.1,20: dhat=20:",
            "at most x0",
            "inside the barrier zone",
        ],
    );
    refused(
        &["--x0", "0.05", "--dhat", "0.1"],
        &["--dhat", "x0 = 0.05 m"],
    );
}

#[test]
fn non_positive_parameters_are_refused_by_name() {
    for name in ["h", "tol", "kappa", "dhat", "m"] {
        for value in ["0", "-1"] {
            let opt = format!("--{name}");
            refused(
                &[opt.as_str(), value],
                &[&format!(
                    "--{name} must be a positive finite number, got {value}"
                )],
            );
        }
    }
    refused(
        &["--sweep", "tol=1e-5,0"],
        &["--sweep tol=1e-5,0: tol=0:", "tol must be a positive"],
    );
}

#[test]
fn a_particle_that_never_reaches_the_ground_is_refused() {
    refused(
        &["--v0", "1"],
        &["--v0 1 m/s never brings the particle down", "g = 0"],
    );
    refused(&["--v0", "0"], &["--v0 0 m/s never brings"]);
    // Thrown up against an upward pull: it never comes down either.
    refused(&["--v0", "2", "--g", "1"], &["--v0 2 m/s never brings"]);
    refused(
        &["--duration", "0.5"],
        &[
            "--duration 0.5 s ends before the contact",
            "only at t = 0.9999 s",
        ],
    );
    refused(
        &["--sweep", "v0=-10,-2", "--duration", "2"],
        &[
            "--sweep v0=-10,-2: v0=-2: duration 2 s ends before the contact",
            "t = 5 s",
        ],
    );
    // Thrown up under gravity it comes down, but only after 2.03 s.
    refused(
        &["--v0", "5", "--g", "-9.81", "--duration", "1"],
        &["--duration 1 s ends before the contact", "t = 2.026 s"],
    );
}

#[test]
fn the_same_parameter_swept_twice_is_refused() {
    refused(
        &[
            "--sweep",
            "kappa=1,2",
            "--sweep",
            "h=0.01",
            "--sweep",
            "kappa=10",
        ],
        &[
            "--sweep kappa=10: kappa is already swept by --sweep kappa=1,2",
            "kappa_table.csv",
        ],
    );
}

#[test]
fn a_run_without_contact_is_reported_not_written_as_nan() {
    // Pulled up at 5 m/s², the particle at v0 = −10 m/s from 10 m turns around at the
    // ground in exact flight, which Newmark follows into the barrier; implicit Euler's
    // discrete flight turns 5 mm up and never touches.
    let dir = temp("restitution_no_contact");
    let out = springsim_out(
        "restitution --g 5 --integrator both --sweep kappa=10,100 --duration 3",
        &dir,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let table = std::fs::read_to_string(dir.join("kappa_table.csv")).unwrap();
    assert!(!table.to_lowercase().contains("nan"), "{table}");
    assert!(!stdout.to_lowercase().contains("nan"), "{stdout}");
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    assert_eq!(rows.len(), 4);
    for r in &rows {
        match r[col("integrator")].as_str() {
            "euler" => {
                assert_eq!(r[col("contact")], "none", "{r:?}");
                assert_eq!(r[col("cor")], "", "{r:?}");
                assert_eq!(r[col("v_in")], "", "{r:?}");
            }
            _ => {
                assert_eq!(r[col("contact")], "rebounded", "{r:?}");
                assert!(r[col("cor")].parse::<f64>().unwrap() > 0.0, "{r:?}");
            }
        }
    }
    assert_eq!(
        stderr.matches("no contact, so no COR").count(),
        2,
        "one note per run without contact: {stderr}"
    );
    assert!(
        stderr.contains("kappa=10 (euler) never came within dhat"),
        "{stderr}"
    );
    assert!(stdout.contains("none"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
