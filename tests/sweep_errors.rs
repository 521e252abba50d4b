//! Bad `springsim sweep` input (issue 16) is refused before anything runs: one error
//! line, exit status 2, nothing written.

mod common;
use common::{sweep, temp_dir};
use std::path::PathBuf;

#[test]
fn bad_sweep_input_gets_one_line_and_status_2() {
    let dir = temp_dir("sweep_bad");
    let out: PathBuf = dir.join("o");
    let o = out.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--vary", "solver.dtt=1,2"], "unknown field `dtt`"),
        (&["--vary", "solver.dt=0.01,fast"], "expected f64"),
        (&["--vary", "solver.dt="], "the list of values is empty"),
        (&["--vary", "solver.dt=0.01,,0.02"], "value 2 is empty"),
        (
            &["--vary", "solver.dt=0.01", "--shard", "3/3"],
            "out of range",
        ),
        (
            &["--vary", "solver.dt=0.01", "--metric", "nope"],
            "--metric nope",
        ),
        (
            &["--vary", "a=1,2", "--vary", "b=1", "--zip"],
            "equally long",
        ),
        (
            &["--vary", "solver.dt=0.01", "--set", "solver.dt=0.02"],
            "also given by --set",
        ),
        (
            &["--vary", "solver.dt=0.01", "--", "--frames", "0"],
            "--frames",
        ),
        (
            &["--vary", "solver.dt=0.01", "--", "--out", "x"],
            "sets this run option itself",
        ),
        (
            &[
                "--vary",
                "solver.dt=0.01",
                "--plot",
                "steps",
                "--plot-x",
                "contact.kappa",
            ],
            "not a varied key",
        ),
        (
            &["--vary", "solver.integrator=newmark", "--plot", "steps"],
            "no varied key takes only numbers",
        ),
    ];
    for (extra, want) in cases {
        let mut a = vec!["square_drop", "--out", o];
        a.extend_from_slice(extra);
        let r = sweep(&a, &[]);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{extra:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
        assert!(!out.exists(), "{extra:?}: nothing is written");
    }
    // More threads per variant than `springsim run` allows (4 × the cores).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if 4 * cores < 1024 {
        let n = (4 * cores + 1).to_string();
        let r = sweep(
            &[
                "square_drop",
                "--out",
                o,
                "--vary",
                "solver.dt=0.01",
                "--threads",
                &n,
            ],
            &[],
        );
        assert_eq!(r.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&r.stderr).contains("must be at most"));
        assert!(!out.exists());
    }
    let env = [
        ("SLURM_ARRAY_TASK_ID", "4".to_string()),
        ("SLURM_ARRAY_TASK_COUNT", "2".to_string()),
    ];
    let r = sweep(
        &["square_drop", "--vary", "solver.dt=0.01", "--out", o],
        &env,
    );
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("SLURM_ARRAY_TASK_ID=4"));
    let r = sweep(&["collect", dir.to_str().unwrap()], &[]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("sweep-plan.json"));
}
