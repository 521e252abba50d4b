//! Bad command-line input to `springsim run` and `compare` is refused before anything
//! runs, with one error line and exit status 2 (issue 12, defect 11).

mod common;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn springsim(args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_springsim"))
        .args(args)
        .output()
        .expect("the binary runs");
    (out, start.elapsed())
}

/// A fresh folder `springsim_cli_NAME_PID` in the temp dir.
fn temp(name: &str) -> PathBuf {
    common::temp_dir(&format!("cli_{name}"))
}

/// `springsim run square_drop --backend cpu --steps 1` followed by `extra`.
fn one_step<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["run", "square_drop", "--backend", "cpu", "--steps", "1"];
    args.extend_from_slice(extra);
    args
}

/// Asserts exit status 2, a single `error:` line on stderr holding `message`, and a
/// quick answer.
fn refused(args: &[&str], message: &str) {
    let (out, took) = springsim(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    assert!(stderr.contains(message), "{args:?}: {stderr}");
    assert!(took < Duration::from_secs(20), "{args:?} took {took:?}");
}

#[test]
fn threads_out_of_bounds_are_refused() {
    let dir = temp("threads");
    let out = dir.to_str().unwrap();
    for t in ["100000", "0", "1025"] {
        refused(
            &one_step(&["--threads", t, "--out", out]),
            &format!("--threads {t}: must be between 1 and "),
        );
    }
    assert!(!dir.exists(), "nothing is written");
    // A sane count still runs, also where loading the scene works in parallel (a
    // mesh body's start check: `--threads` used to fail there, the pool being taken).
    for scene in ["square_drop", "lattice_drop"] {
        let mut args = one_step(&["--threads", "1", "--quiet", "--out", out]);
        args[1] = scene;
        let (ok, _) = springsim(&args);
        assert!(
            ok.status.success(),
            "{scene}: {}",
            String::from_utf8_lossy(&ok.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn out_that_is_a_file_is_refused_before_anything_runs() {
    let dir = common::new_temp_dir("cli_outfile");
    let file = dir.join("a_file");
    std::fs::write(&file, "keep me").unwrap();
    let f = file.to_str().unwrap();
    refused(
        &one_step(&["--out", f]),
        &format!("--out {f}: is a file, not a folder"),
    );
    let below = file.join("sub");
    refused(
        &one_step(&["--out", below.to_str().unwrap()]),
        &format!("{f} is a file, not a folder"),
    );
    refused(
        &["compare", "square_drop", "--steps", "1", "--out", f],
        &format!("--out {f}: is a file, not a folder"),
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn run_lengths_beyond_the_cap_are_refused_with_short_numbers() {
    let dir = temp("length");
    let out = dir.to_str().unwrap();
    let run = |extra: &[&str], message: &str| {
        let mut args = vec!["run", "square_drop", "--backend", "cpu", "--out", out];
        args.extend_from_slice(extra);
        refused(&args, message);
    };
    run(
        &["--duration", "1e300"],
        "--duration 1e300 s at solver.dt = 0.01 s is 1e302 steps, more than the 1000000000",
    );
    run(
        &["--duration", "inf"],
        "positive finite number of seconds, got inf",
    );
    run(
        &["--duration", "0"],
        "positive finite number of seconds, got 0",
    );
    run(
        &["--steps", "0"],
        "--steps must be between 1 and 1000000000, got 0",
    );
    run(
        &["--steps", "1000000001"],
        "--steps must be between 1 and 1000000000",
    );
    refused(
        &["compare", "square_drop", "--steps", "0", "--out", out],
        "--steps must be between 1 and",
    );
    assert!(!dir.exists(), "nothing is written");
}

#[test]
fn argument_errors_the_parser_finds_are_one_line_too() {
    refused(
        &one_step(&["--frame-format", "foo"]),
        "'--frame-format <FRAME_FORMAT>' [possible values: vtk, vtu, ply]",
    );
    refused(&["run"], "required arguments were not provided: <SCENE>");
    refused(&one_step(&["--trajectory-format", "npy"]), "--trajectory");
    refused(&one_step(&["--steps", "x"]), "--steps");
    refused(&["bogus"], "unrecognized subcommand 'bogus'");
    // Help still prints in full, with status 0.
    let (help, _) = springsim(&["run", "--help"]);
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).lines().count() > 10);
}
