//! `springsim run --set KEY=VALUE` (issue 16): overrides are validated like the file,
//! their errors name the `--set` and the field, and every run's `scene.toml` is the
//! scene as run, loadable on its own from any folder.

mod common;
use common::cli::{read_summary as summary, springsim_out};
use common::{springsim, temp_dir};
use std::path::Path;

/// `springsim run SCENE --backend cpu --steps STEPS -q --set … --out OUT`, which
/// must succeed.
fn run_cpu(scene: &str, steps: &str, sets: &[&str], out: &Path) {
    let mut args = vec!["run", scene, "--backend", "cpu", "--steps", steps, "-q"];
    for s in sets {
        args.extend(["--set", s]);
    }
    args.extend(["--out", out.to_str().unwrap()]);
    let out = springsim(&args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn overrides_change_the_run_and_scene_toml_reproduces_it() {
    let dir = temp_dir("set_run");
    let a = dir.join("a");
    let sets = [
        "solver.dt=0.02",
        "bodies[0].cells=[2, 3]",
        "contact.kappa=2e5",
    ];
    run_cpu("square_drop", "40", &sets, &a);
    let s = summary(&a);
    assert_eq!(s["dt"].as_f64(), Some(0.02));
    assert_eq!(s["nodes"].as_u64(), Some(12), "3 × 4 nodes");
    let toml = std::fs::read_to_string(a.join("scene.toml")).unwrap();
    assert!(toml.contains("kappa = 2e5"), "{toml}");
    assert!(toml.contains("name = \"square_drop\""), "{toml}");

    // The written scene.toml, run from another folder, gives the same run.
    let b = dir.join("b");
    let scene = a.join("scene.toml");
    run_cpu(scene.to_str().unwrap(), "40", &[], &b);
    let t = summary(&b);
    for key in [
        "nodes",
        "newton_iterations",
        "cg_iterations",
        "min_wall_distance",
        "final_centroid",
        "first_contact_step",
    ] {
        assert_eq!(s[key], t[key], "{key}");
    }
    assert!(
        s["first_contact_step"].as_u64().is_some(),
        "the horizon reaches contact"
    );
}

#[test]
fn a_mesh_scene_toml_loads_from_anywhere() {
    let dir = temp_dir("set_mesh");
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("m")).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(root.join("scenes/meshes/disk2d.msh"), src.join("m/d.msh")).unwrap();
    let text = std::fs::read_to_string(root.join("scenes/disk_drop.toml"))
        .unwrap()
        .replace("meshes/disk2d.msh", "m/d.msh");
    std::fs::write(src.join("disk.toml"), text).unwrap();
    let a = dir.join("a");
    let scene = src.join("disk.toml");
    run_cpu(scene.to_str().unwrap(), "2", &["solver.dt=0.005"], &a);
    // Beside the written file there is no `m/d.msh`: it names the mesh by its
    // absolute path.
    let b = dir.join("b");
    let written = a.join("scene.toml");
    run_cpu(written.to_str().unwrap(), "2", &[], &b);
    assert_eq!(summary(&a)["final_centroid"], summary(&b)["final_centroid"]);
    assert_eq!(summary(&b)["dt"].as_f64(), Some(0.005));
}

#[test]
fn bad_overrides_get_one_line_naming_the_set_and_field() {
    let dir = temp_dir("set_bad");
    let out = dir.join("o");
    let cases = [
        ("solver.dt=-1", "field `solver.dt`"),
        ("solver.dtt=1", "unknown field `dtt`"),
        ("solver.dt=fast", "expected f64"),
        ("bodies[0].cells=[4]", "field `bodies[0].cells`"),
        ("bodies[3].cells=[4, 4]", "index 3 is out of range"),
        ("solver.dt", "expected KEY=VALUE"),
        ("solver.dt=1e3x", "is not a TOML value"),
        ("solver..dt=1", "empty part"),
    ];
    for (set, want) in cases {
        let o = springsim(&[
            "run",
            "square_drop",
            "--backend",
            "cpu",
            "--steps",
            "1",
            "--set",
            set,
            "--out",
            out.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{set}: {err}");
        assert_eq!(err.lines().count(), 1, "{set}: {err}");
        assert!(err.contains(&format!("--set {set}")), "{set}: {err}");
        assert!(err.contains(want), "{set}: {err}");
        assert!(!out.exists(), "{set}: nothing is written for a refused run");
    }
}

#[test]
fn compare_takes_overrides_too() {
    let dir = temp_dir("set_compare");
    let bad = springsim_out("compare square_drop --set contact.kappa=-1", &dir);
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--set contact.kappa=-1") && err.contains("field `contact.kappa`"),
        "{err}"
    );
    assert!(!dir.exists());
    let out = springsim(&[
        "compare",
        "square_drop",
        "--set",
        "contact.self_contact=false",
        "--set",
        "bodies[0].cells=[2, 2]",
        "--steps",
        "5",
        "-q",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("no GPU adapter") {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI has no GPU adapter: {err}"
        );
        return;
    }
    assert!(out.status.success(), "{err}");
    let c: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("compare.json")).unwrap()).unwrap();
    assert_eq!(
        c["nodes"].as_u64(),
        Some(9),
        "the override reached both backends"
    );
    assert!(c["max_position_difference"].as_f64().unwrap() < 1e-5);
}
