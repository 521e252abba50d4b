//! `springsim sweep` end to end (issue 16): grids and zips of scene keys, the table
//! and its figures, plots, resume after an interruption, failed variants recorded
//! without stopping the others, shards (by flag and by Slurm's array variables) that
//! `collect` merges into the table of a local sweep, and the emitted sbatch script run
//! by bash as Slurm would. Bad input: `tests/sweep_errors.rs`.

mod common;
use common::{sweep, temp_dir};
use std::path::Path;
use std::process::{Command, Output};

fn ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `sweep.csv` as (header, rows).
fn table(dir: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(dir.join("sweep.csv")).expect("sweep.csv");
    let header = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r
        .records()
        .map(|x| x.unwrap().iter().map(str::to_string).collect())
        .collect();
    (header, rows)
}

/// The table without its timing columns (the rest of a `--threads 1` CPU run is
/// deterministic).
fn figures(dir: &Path) -> Vec<Vec<String>> {
    let (h, rows) = table(dir);
    let keep: Vec<usize> = (0..h.len())
        .filter(|&j| !matches!(h[j].as_str(), "wall_clock_seconds" | "ms_per_step"))
        .collect();
    rows.iter()
        .map(|r| keep.iter().map(|&j| r[j].clone()).collect())
        .collect()
}

fn col(dir: &Path, name: &str) -> Vec<String> {
    let (h, rows) = table(dir);
    let j = h
        .iter()
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column {name}: {h:?}"));
    rows.iter().map(|r| r[j].clone()).collect()
}

const GRID: &[&str] = &[
    "square_drop",
    "--vary",
    "contact.kappa=1e4,1e5",
    "--vary",
    "bodies[0].cells=[4,4],[6, 6]",
    "--steps",
    "120",
    "--threads",
    "1",
    "--metric",
    "rebound_height",
    "--metric",
    "max:kinetic",
];

fn grid_args<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = GRID.to_vec();
    a.extend(["--out", out]);
    a.extend_from_slice(extra);
    a
}

#[test]
fn a_grid_sweep_tabulates_every_variant_and_plots() {
    let dir = temp_dir("sweep_grid");
    let out = dir.join("local");
    let o = sweep(
        &grid_args(
            out.to_str().unwrap(),
            &[
                "--jobs",
                "2",
                "--plot",
                "first_contact_time",
                "--plot",
                "steps",
                "--plot-x",
                "contact.kappa",
            ],
        ),
        &[],
    );
    ok(&o, "grid sweep");
    let (h, rows) = table(&out);
    assert_eq!(rows.len(), 4);
    assert_eq!(
        &h[..6],
        [
            "index",
            "dir",
            "contact.kappa",
            "bodies[0].cells",
            "status",
            "error"
        ]
    );
    assert_eq!(col(&out, "status"), vec!["completed"; 4]);
    // The first key varies slowest; the values reach the runs.
    assert_eq!(col(&out, "contact.kappa"), ["1e4", "1e4", "1e5", "1e5"]);
    assert_eq!(col(&out, "nodes"), ["25", "49", "25", "49"]);
    assert_eq!(col(&out, "dir")[3], "003-kappa=1e5-cells=6x6");
    let scene = std::fs::read_to_string(out.join("003-kappa=1e5-cells=6x6/scene.toml")).unwrap();
    assert!(
        scene.contains("kappa = 1e5") && scene.contains("cells = [6, 6]"),
        "{scene}"
    );
    // The horizon reaches the first contact and the rebound: figures, not blanks.
    for c in ["first_contact_time", "rebound_height", "max:kinetic"] {
        for v in col(&out, c) {
            let x: f64 = v.parse().unwrap_or_else(|_| panic!("{c}: `{v}`"));
            assert!(x > 0.0, "{c}: {x}");
        }
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(
        json["variants"][2]["values"]["contact.kappa"].as_f64(),
        Some(1e5)
    );
    assert_eq!(json["variants"][1]["metrics"]["nodes"].as_u64(), Some(49));
    for name in [
        "first_contact_time_vs_contact.kappa.png",
        "steps_vs_contact.kappa.png",
    ] {
        let png = std::fs::read(out.join(name)).unwrap();
        assert_eq!(&png[1..4], b"PNG", "{name}");
    }
    // A second sweep into the same folder must say what to do.
    let again = sweep(&grid_args(out.to_str().unwrap(), &[]), &[]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));

    // Shards by flag and by Slurm's variables, merged by collect: the same table.
    let sharded = dir.join("sharded");
    let s = sharded.to_str().unwrap();
    ok(&sweep(&grid_args(s, &["--shard", "0/3"]), &[]), "shard 0/3");
    let slurm = |id: usize| {
        vec![
            ("SLURM_ARRAY_TASK_ID", (10 + id).to_string()),
            ("SLURM_ARRAY_TASK_MIN", "10".to_string()),
            ("SLURM_ARRAY_TASK_COUNT", "3".to_string()),
        ]
    };
    ok(&sweep(&grid_args(s, &[]), &slurm(1)), "array task 1");
    // Before the last shard, collect reports the missing variant.
    let partial = sweep(&["collect", s], &[]);
    assert_eq!(partial.status.code(), Some(1), "variants missing");
    assert!(col(&sharded, "status").contains(&"missing".to_string()));
    ok(&sweep(&grid_args(s, &[]), &slurm(2)), "array task 2");
    ok(
        &sweep(&["collect", s, "--plot", "rebound_height"], &[]),
        "collect",
    );
    assert_eq!(figures(&sharded), figures(&out));
    assert!(sharded.join("rebound_height_vs_contact.kappa.png").exists());
    for i in 0..3 {
        assert!(sharded.join(format!("shards/shard-{i}-of-3.csv")).exists());
    }
}

#[test]
fn the_emitted_sbatch_script_runs_each_shard() {
    let dir = temp_dir("sweep_sbatch");
    let out = dir.join("o");
    let file = dir.join("job.sbatch");
    let o = sweep(
        &grid_args(
            out.to_str().unwrap(),
            &[
                "--emit-slurm",
                file.to_str().unwrap(),
                "--slurm-tasks",
                "2",
                "--slurm-mem",
                "1G",
                "--slurm-gpu",
            ],
        ),
        &[],
    );
    ok(&o, "emit");
    let text = std::fs::read_to_string(&file).unwrap();
    for want in [
        "#SBATCH --array=0-1",
        "#SBATCH --mem=1G",
        "#SBATCH --gres=gpu:1",
        "--resume",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    assert!(
        out.join("slurm").is_dir(),
        "Slurm needs the log folder to exist"
    );
    assert!(
        !out.join("000-kappa=1e4-cells=4x4").exists(),
        "emitting runs nothing"
    );
    for id in 0..2 {
        let st = Command::new("bash")
            .arg(&file)
            .env("SLURM_ARRAY_TASK_ID", id.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "2")
            .env("SLURM_ARRAY_TASK_MIN", "0")
            .output()
            .unwrap();
        ok(&st, &format!("array task {id}"));
    }
    ok(&sweep(&["collect", out.to_str().unwrap()], &[]), "collect");
    assert_eq!(col(&out, "status"), vec!["completed"; 4]);
    assert_eq!(col(&out, "nodes"), ["25", "49", "25", "49"]);
}

#[test]
fn zipped_failed_and_interrupted_variants_are_recorded_and_resumed() {
    let dir = temp_dir("sweep_resume");
    // Every variant of a nonsmooth scene on the GPU backend fails at its start; each
    // failure is recorded and the others still run.
    let failed = dir.join("failed");
    let o = sweep(
        &[
            "ball_bounce",
            "--vary",
            "solver.dt=1e-3,2e-3",
            "--backend",
            "gpu",
            "--steps",
            "5",
            "--out",
            failed.to_str().unwrap(),
            "-q",
        ],
        &[],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(col(&failed, "status"), ["failed", "failed"]);
    assert!(
        col(&failed, "error")[1].contains("CPU only"),
        "{:?}",
        col(&failed, "error")
    );

    // Zipped lists; SIGTERM after the first variant ends; --resume completes the rest.
    let out = dir.join("zip");
    let args = [
        "square_drop",
        "--zip",
        "--vary",
        "bodies[0].cells=[10,10],[12,12],[14,14]",
        "--vary",
        "solver.dt=0.004,0.005,0.006",
        "--steps",
        "1500",
        "--threads",
        "1",
        "--jobs",
        "1",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_springsim"))
        .arg("sweep")
        .args(args)
        .spawn()
        .unwrap();
    let first = out.join("000-cells=10x10-dt=0.004/variant.json");
    let start = std::time::Instant::now();
    while !first.exists() {
        assert!(
            start.elapsed().as_secs() < 300,
            "the first variant never ended"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let st = col(&out, "status");
    assert_eq!(st[0], "completed");
    assert!(
        st[1..].iter().all(|s| s == "interrupted" || s == "missing"),
        "{st:?}"
    );
    let mut resume: Vec<&str> = args.to_vec();
    resume.push("--resume");
    ok(&sweep(&resume, &[]), "resume");
    assert_eq!(col(&out, "status"), vec!["completed"; 3]);
    assert_eq!(col(&out, "nodes"), ["121", "169", "225"]);
    assert_eq!(col(&out, "solver.dt"), ["0.004", "0.005", "0.006"]);
    // The completed variant was kept, not run again.
    let seconds: f64 =
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&first).unwrap())
            .unwrap()["seconds"]
            .as_f64()
            .unwrap();
    assert!(seconds > 0.0);
}
