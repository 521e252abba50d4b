//! The run outputs read back by their real consumers (issue 15): numpy loads
//! `trajectory.npy` (memory-mapped) and finds the positions of `trajectory.csv`;
//! meshio reads every `.vtu` frame and the PLY frames; the `.pvd` lists each frame
//! at step × dt; an interrupted `.npy` still loads; `render` draws the same GIF from
//! an npy run as from a csv run. Without a Python holding numpy and meshio the
//! consumer checks are skipped (see `common::python`), except under CI.

mod common;
use common::{new_temp_dir, run_python, springsim, temp_dir};
use std::path::Path;

/// Runs `springsim run SCENE --backend cpu --steps STEPS --quiet --out DIR EXTRA…`
/// and asserts that it succeeds.
fn run(scene: &str, steps: u64, dir: &Path, extra: &[&str]) {
    let steps = steps.to_string();
    let mut args = vec![
        "run",
        scene,
        "--backend",
        "cpu",
        "--steps",
        &steps,
        "--quiet",
    ];
    args.extend_from_slice(&["--out", dir.to_str().unwrap()]);
    args.extend_from_slice(extra);
    let out = springsim(&args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `script` with [`run_python`] and `args`; where a Python ran it, asserts that it
/// printed `ok`.
fn python_ok(script: &str, args: &[&str]) {
    if let Some(out) = run_python(script, args) {
        assert_eq!(out.trim(), "ok");
    }
}

/// Python helpers shared by the checks: the CSV trajectory as [frames, nodes, dim].
const PRELUDE: &str = r#"
import json, sys, os
import numpy as np
def csv_traj(d, dim):
    a = np.loadtxt(os.path.join(d, "trajectory.csv"), delimiter=",", skiprows=1)
    steps = np.unique(a[:, 0]).astype(int)
    return steps, a[:, 2:].reshape(len(steps), -1, dim)
"#;

#[test]
fn npy_trajectories_hold_the_csv_positions_in_2d_and_3d() {
    for (scene, dim) in [("square_drop", 2), ("lattice_drop", 3)] {
        let base = temp_dir(&format!("npy_{scene}"));
        let csv = base.join("csv");
        let f64d = base.join("f64");
        let f32d = base.join("f32");
        let strided = base.join("stride");
        run(scene, 20, &csv, &["--trajectory"]);
        let npy = ["--trajectory", "--trajectory-format", "npy"];
        run(
            scene,
            20,
            &f64d,
            &[&npy[..], &["--trajectory-precision", "f64"]].concat(),
        );
        run(scene, 20, &f32d, &npy);
        run(
            scene,
            20,
            &strided,
            &[&npy[..], &["--trajectory-stride", "5"]].concat(),
        );
        let script = format!(
            "{PRELUDE}{}",
            r#"
csv, f64d, f32d, strided, dim = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
steps, ref = csv_traj(csv, dim)
assert list(steps) == list(range(21)), steps
meta = json.load(open(os.path.join(f64d, "bodies.json")))
a = np.load(os.path.join(f64d, "trajectory.npy"), mmap_mode="r")
assert a.dtype == np.float64 and a.shape == (21, meta["nodes"], dim), (a.dtype, a.shape)
assert np.array_equal(a, ref), abs(a - ref).max()
t = np.load(os.path.join(f64d, "times.npy"))
assert np.allclose(t, steps * meta["dt"], rtol=0, atol=1e-12), t
assert sum(b["nodes"] for b in meta["bodies"]) == meta["nodes"]
s = np.load(os.path.join(f64d, "springs.npy"))
assert s.dtype == np.int32 and s.ndim == 2 and s.shape[1] == 2 and len(s) > 0
assert s.min() >= 0 and s.max() < meta["nodes"]
b = np.load(os.path.join(f32d, "trajectory.npy"), mmap_mode="r")
assert b.dtype == np.float32 and b.shape == a.shape
assert np.array_equal(b, ref.astype(np.float32))
c = np.load(os.path.join(strided, "trajectory.npy"), mmap_mode="r")
assert np.array_equal(c, ref[::5].astype(np.float32)), c.shape
assert np.allclose(np.load(os.path.join(strided, "times.npy")), steps[::5] * meta["dt"], atol=1e-12)
print("ok", a.shape)
"#
        );
        let dim = dim.to_string();
        let args = [&csv, &f64d, &f32d, &strided].map(|p| p.to_str().unwrap());
        if let Some(out) = run_python(&script, &[args[0], args[1], args[2], args[3], &dim]) {
            assert!(out.starts_with("ok"), "{out}");
        }
        std::fs::remove_dir_all(&base).ok();
    }
}

#[test]
fn vtu_frames_and_their_pvd_read_back_with_meshio() {
    for (scene, dim) in [("square_drop", 2), ("lattice_drop", 3)] {
        let dir = temp_dir(&format!("vtu_{scene}"));
        run(
            scene,
            20,
            &dir,
            &[
                "--trajectory",
                "--trajectory-format",
                "npy",
                "--trajectory-precision",
                "f64",
                "--frames",
                "5",
                "--frame-format",
                "vtu",
            ],
        );
        let script = format!(
            "{PRELUDE}{}",
            r#"
import meshio, csv
import xml.etree.ElementTree as ET
d, dim = sys.argv[1], int(sys.argv[2])
meta = json.load(open(os.path.join(d, "bodies.json")))
n = meta["nodes"]
x = np.load(os.path.join(d, "trajectory.npy"), mmap_mode="r")
springs = np.load(os.path.join(d, "springs.npy"))
rows = list(csv.DictReader(open(os.path.join(d, "steps.csv"))))
dmin = {int(r["step"]): float(r["min_wall_distance"]) for r in rows}
sets = ET.parse(os.path.join(d, "frames.pvd")).getroot().findall("./Collection/DataSet")
assert len(sets) == 5, len(sets)
for k, ds in enumerate(sets):
    step = 5 * k
    assert abs(float(ds.get("timestep")) - step * meta["dt"]) < 1e-12, ds.attrib
    m = meshio.read(os.path.join(d, ds.get("file")))
    assert m.points.shape == (n, 3)
    assert np.array_equal(m.points[:, :dim], x[step])
    if dim == 2:
        assert not m.points[:, 2].any()
    pd = m.point_data
    assert pd["velocity"].shape == (n, 3), pd["velocity"].shape
    assert np.isfinite(pd["velocity"]).all()
    if step > 0:
        assert pd["velocity"][:, 1].mean() < 0, "the body falls"
    assert len(pd["body"]) == n and (pd["body"].ravel() == 0).all()
    assert len(pd["fixed"]) == n
    wd = pd["wall_distance"].ravel()
    assert len(wd) == n
    if step > 0:
        assert abs(wd.min() - dmin[step]) <= 1e-9 * abs(dmin[step]) + 1e-12, (wd.min(), dmin[step])
    blocks = {c.type: c.data for c in m.cells}
    assert set(blocks) == {"line"}, set(blocks)
    assert np.array_equal(blocks["line"], springs)
print("ok")
"#
        );
        python_ok(&script, &[dir.to_str().unwrap(), &dim.to_string()]);
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// A PLY frame's vertices read with numpy alone: meshio 5.3 refuses the `edge`
/// element that carries the springs (Blender reads it), so spring scenes are read
/// here; a scene without springs is read by meshio too.
const PLY_READER: &str = r#"
def read_ply(path):
    raw = open(path, "rb").read()
    end = raw.index(b"end_header\n") + len(b"end_header\n")
    head = raw[:end].decode().split("\n")
    assert head[0] == "ply" and head[1] == "format binary_little_endian 1.0", head[:2]
    counts = {l.split()[1]: int(l.split()[2]) for l in head if l.startswith("element ")}
    nv = counts["vertex"]
    v = np.frombuffer(raw, dtype="<f4", count=3 * nv, offset=end).reshape(nv, 3)
    at = end + 12 * nv
    faces = np.zeros((0, 3), int)
    if "face" in counts:
        rec = np.dtype([("n", "u1"), ("i", "<i4", 3)])
        f = np.frombuffer(raw, dtype=rec, count=counts["face"], offset=at)
        assert (f["n"] == 3).all()
        faces, at = f["i"], at + 13 * counts["face"]
    edges = np.zeros((0, 2), int)
    if "edge" in counts:
        edges = np.frombuffer(raw, dtype="<i4", count=2 * counts["edge"], offset=at).reshape(-1, 2)
        at += 8 * counts["edge"]
    assert at == len(raw), (at, len(raw))
    return v, faces, edges
"#;

#[test]
fn ply_frames_hold_the_positions_and_springs() {
    let runs = [("square_drop", 2, true), ("ball_bounce", 2, false)];
    for (scene, dim, springs) in runs {
        let dir = temp_dir(&format!("ply_{scene}"));
        let mut extra = vec!["--trajectory", "--trajectory-format", "npy"];
        extra.extend(["--frames", "10", "--frame-format", "ply"]);
        run(scene, 20, &dir, &extra);
        let script = format!(
            "{PRELUDE}{PLY_READER}{}",
            r#"
import meshio
d, dim, has_springs = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
x = np.load(os.path.join(d, "trajectory.npy"), mmap_mode="r")
springs = np.load(os.path.join(d, "springs.npy"))
for step in (0, 10, 20):
    path = os.path.join(d, "frames", "frame_%06d.ply" % step)
    v, faces, edges = read_ply(path)
    assert np.array_equal(v[:, :dim], x[step]), abs(v[:, :dim] - x[step]).max()
    assert np.array_equal(edges, springs) and (len(edges) > 0) == has_springs
    if not has_springs:
        m = meshio.read(path)
        assert np.array_equal(m.points[:, :dim], x[step])
print("ok")
"#
        );
        let flag = if springs { "1" } else { "0" };
        let args = [dir.to_str().unwrap(), &dim.to_string(), flag];
        python_ok(&script, &args);
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
fn triangle_and_tetrahedron_cells_reach_vtu_and_ply() {
    use springsim::output::frames::wall_distances;
    use springsim::output::ply::write_ply_frame;
    use springsim::output::vtu::{write_vtu_frame, PointData};
    let dir = new_temp_dir("cells");
    let mut model = springsim::scene::load("lattice_drop").unwrap().model;
    let n = model.num_nodes() as u32;
    model.triangles = (0..n - 2).map(|i| [i, i + 1, i + 2]).collect();
    model.tetrahedra = (0..n - 3)
        .step_by(2)
        .map(|i| [i, i + 1, i + 2, i + 3])
        .collect();
    let x: Vec<f64> = model.x0.iter().map(|c| c + 0.25).collect();
    let v = vec![0.5; x.len()];
    let wd = wall_distances(&model, &x);
    let pd = vec![f64::INFINITY; model.num_nodes()];
    let point = PointData {
        velocity: &v,
        wall_distance: &wd,
        pair_distance: &pd,
    };
    write_vtu_frame(&dir.join("f.vtu"), &model, &x, &point).unwrap();
    write_ply_frame(&dir.join("f.ply"), &model, &x, 0.0).unwrap();
    let xs: Vec<String> = x.iter().map(|c| format!("{c:?}")).collect();
    std::fs::write(dir.join("x.txt"), xs.join("\n")).unwrap();
    let script = format!(
        "{PRELUDE}{PLY_READER}{}",
        r#"
import meshio
d, ns, nt, nk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
x = np.loadtxt(os.path.join(d, "x.txt")).reshape(-1, 3)
m = meshio.read(os.path.join(d, "f.vtu"))
assert np.array_equal(m.points, x)
counts = {c.type: len(c.data) for c in m.cells}
assert counts == {"line": ns, "triangle": nt, "tetra": nk}, counts
tri = [c.data for c in m.cells if c.type == "triangle"][0]
assert np.array_equal(tri[5], [5, 6, 7])
assert np.allclose(m.point_data["velocity"], 0.5)
v, faces, edges = read_ply(os.path.join(d, "f.ply"))
assert np.array_equal(v, x.astype(np.float32)) and len(faces) == nt and len(edges) == ns
assert np.array_equal(faces, tri)
print("ok")
"#
    );
    let counts = [
        model.springs.len(),
        model.triangles.len(),
        model.tetrahedra.len(),
    ]
    .map(|c| c.to_string());
    let args = [dir.to_str().unwrap(), &counts[0], &counts[1], &counts[2]];
    python_ok(&script, &args);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_interrupted_npy_still_loads() {
    use springsim::output::npy::{NpyWriter, Precision};
    let dir = new_temp_dir("npy_cut");
    let path = dir.join("t.npy");
    let mut w = NpyWriter::create(path.clone(), &[4, 3], Precision::F64).unwrap();
    for k in 0..3 {
        let row: Vec<f64> = (0..12).map(|i| (10 * k + i) as f64 / 7.0).collect();
        w.append(&row).unwrap();
    }
    // Dropped without any close, then half a row more on disk (a kill mid-write).
    drop(w);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(&[0u8; 40]);
    std::fs::write(&path, bytes).unwrap();
    let script = r#"
import sys, numpy as np
for mode in ("r", None):
    a = np.load(sys.argv[1], mmap_mode=mode)
    want = (np.arange(3)[:, None] * 10 + np.arange(12)[None, :]) / 7.0
    assert a.shape == (3, 4, 3) and np.array_equal(a.reshape(3, 12), want), a
print("ok")
"#;
    python_ok(script, &[path.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn render_draws_the_same_gif_from_npy_as_from_csv() {
    let base = temp_dir("render_npy");
    let (csv, npy) = (base.join("csv"), base.join("npy"));
    run("square_drop", 20, &csv, &["--trajectory"]);
    let f64 = ["--trajectory-precision", "f64"];
    run(
        "square_drop",
        20,
        &npy,
        &[&["--trajectory", "--trajectory-format", "npy"][..], &f64].concat(),
    );
    for d in [&csv, &npy] {
        let out = springsim(&["render", d.to_str().unwrap(), "--size", "64", "--quiet"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let a = std::fs::read(csv.join("animation.gif")).unwrap();
    let b = std::fs::read(npy.join("animation.gif")).unwrap();
    assert!(a.starts_with(b"GIF89a") && a.len() > 100);
    assert_eq!(a, b, "the npy run renders as the csv run does");
    std::fs::remove_dir_all(&base).ok();
}

/// Bad values and flags without the one they refine are refused by clap, exit 2,
/// naming the flag. (clap's message spans several lines: `src/main.rs` prints it as
/// clap formats it, for every flag alike.)
#[test]
fn new_output_flags_refuse_bad_values() {
    for (args, named) in [
        (
            vec!["--trajectory", "--trajectory-format", "parquet"],
            "parquet",
        ),
        (
            vec!["--trajectory", "--trajectory-stride", "0"],
            "--trajectory-stride",
        ),
        (vec!["--frames", "2", "--frame-format", "obj"], "obj"),
        (vec!["--trajectory-format", "npy"], "--trajectory"),
        (vec!["--frame-format", "vtu"], "--frames"),
    ] {
        let mut all = vec!["run", "square_drop", "--backend", "cpu", "--steps", "1"];
        all.extend(&args);
        let out = springsim(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(named),
            "{stderr}"
        );
    }
}
