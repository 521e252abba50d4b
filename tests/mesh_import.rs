//! Mesh bodies read from files: meshes written by an independent library (meshio)
//! in MSH 4.1 ASCII, MSH 4.1 binary and OBJ load with their node positions, their
//! unique edges as springs and density × measure as mass (numpy's numbers); the
//! committed Gmsh meshes measure what their geometry says; placement keys and
//! `fixed_where` select and move what they say.

mod common;
use springsim::scene::{self, Scene};
use std::path::Path;

/// Writes the test meshes with meshio into the folder argv[1] and prints, per file,
/// the points, the unique edges (quads split by the diagonal 0–2, as springsim does)
/// and the measure, computed by numpy from the same cells.
const WRITE_MESHES: &str = r#"
import json, sys
import numpy as np
import meshio

out = sys.argv[1]
rng = np.random.default_rng(7)

def grid(nx, ny, nz):
    g = np.stack(np.meshgrid(np.arange(nx + 1), np.arange(ny + 1), np.arange(nz + 1), indexing="ij"), -1)
    return g.reshape(-1, 3).astype(float)

# Tetrahedra: a 3 x 2 x 2 block of 0.2 m cubes, six tetrahedra each, jittered.
nx, ny, nz = 3, 2, 2
pts = grid(nx, ny, nz) * 0.2
pts += rng.uniform(-0.03, 0.03, pts.shape)
idx = lambda i, j, k: (i * (ny + 1) + j) * (nz + 1) + k
tets = []
for i in range(nx):
    for j in range(ny):
        for k in range(nz):
            c = [idx(i + a, j + b, k + d) for a in (0, 1) for b in (0, 1) for d in (0, 1)]
            # in path order, as many tools write them: half of them with negative volume
            for path in [(0, 4, 6, 7), (0, 4, 5, 7), (0, 1, 5, 7), (0, 1, 3, 7), (0, 2, 3, 7), (0, 2, 6, 7)]:
                tets.append([c[p] for p in path])
tets = np.array(tets)
vol = sum(abs(np.linalg.det(pts[t[1:]] - pts[t[0]])) / 6 for t in tets)
negative = sum(1 for t in tets if np.linalg.det(pts[t[1:]] - pts[t[0]]) < 0)
edges = {tuple(sorted((t[a], t[b]))) for t in tets for a in range(4) for b in range(a + 1, 4)}
tet_mesh = meshio.Mesh(pts, [("tetra", tets)])
meshio.write(f"{out}/tets_ascii.msh", tet_mesh, file_format="gmsh", binary=False)
meshio.write(f"{out}/tets_binary.msh", tet_mesh, file_format="gmsh", binary=True)
result = {"tets": {"points": pts.tolist(), "edges": len(edges), "measure": vol, "cells": len(tets), "negative": negative}}

# Triangles in the plane z = 0: a jittered 4 x 3 grid, two triangles per cell.
p2 = grid(4, 3, 0)[:, :] * 0.25
p2[:, :2] += rng.uniform(-0.05, 0.05, (len(p2), 2))
tris = []
for i in range(4):
    for j in range(3):
        a, b, c, d = i * 4 + j, (i + 1) * 4 + j, (i + 1) * 4 + j + 1, i * 4 + j + 1
        tris += [[a, b, c], [a, c, d]]
tris = np.array(tris)
area = lambda p, t: 0.5 * np.linalg.norm(np.cross(p[t[1]] - p[t[0]], p[t[2]] - p[t[0]]))
edges = {tuple(sorted((t[a], t[b]))) for t in tris for a in range(3) for b in range(a + 1, 3)}
meshio.write(f"{out}/tris2d.msh", meshio.Mesh(p2, [("triangle", tris)]), file_format="gmsh", binary=False)
result["tris2d"] = {"points": p2.tolist(), "edges": len(edges), "measure": sum(area(p2, t) for t in tris), "cells": len(tris)}

# A 3D sheet of quads and triangles (OBJ): a bent 3 x 2 grid.
p3 = grid(3, 2, 0) * 0.3
p3[:, 2] = 0.2 * np.sin(p3[:, 0] * 3) + rng.uniform(-0.02, 0.02, len(p3))
quads = np.array([[i * 3 + j, (i + 1) * 3 + j, (i + 1) * 3 + j + 1, i * 3 + j + 1] for i in range(2) for j in range(2)])
tri3 = np.array([[6, 9, 10], [6, 10, 7], [7, 10, 11], [7, 11, 8]])
split = [[q[0], q[1], q[2]] for q in quads] + [[q[0], q[2], q[3]] for q in quads] + tri3.tolist()
edges = {tuple(sorted((t[a], t[b]))) for t in split for a in range(3) for b in range(a + 1, 3)}
meshio.write(f"{out}/sheet.obj", meshio.Mesh(p3, [("quad", quads), ("triangle", tri3)]))
result["sheet"] = {"points": p3.tolist(), "edges": len(edges), "measure": sum(area(p3, t) for t in split), "cells": len(split)}
print(json.dumps(result))
"#;

/// The scene `dimension` with one mesh body from `file` (in `dir`) of `density`
/// and any `extra` keys, loaded as if it were `dir/s.toml`.
fn mesh_scene(dir: &Path, dim: usize, file: &str, extra: &str) -> Scene {
    let text = format!(
        "dimension = {dim}\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n\
         [[bodies]]\ngenerator = \"mesh\"\nfile = \"{file}\"\ndensity = 700.0\nspring_stiffness = 1e3\n{extra}"
    );
    let path = dir.join("s.toml");
    scene::parse(&text, path.to_str().unwrap(), "s").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn meshes_written_by_meshio_load_with_their_nodes_edges_and_mass() {
    let dir = common::new_temp_dir("mesh_import");
    let Some(out) = common::run_python(WRITE_MESHES, &[dir.to_str().unwrap()]) else {
        return;
    };
    let expect: serde_json::Value = serde_json::from_str(&out).unwrap();
    for (file, key, dim) in [
        ("tets_ascii.msh", "tets", 3),
        ("tets_binary.msh", "tets", 3),
        ("tris2d.msh", "tris2d", 2),
        ("sheet.obj", "sheet", 3),
    ] {
        let e = &expect[key];
        let s = mesh_scene(&dir, dim, file, "");
        let m = &s.model;
        let points: Vec<f64> = e["points"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|p| (0..dim).map(|k| p[k].as_f64().unwrap()).collect::<Vec<_>>())
            .collect();
        assert_eq!(m.x0.len(), points.len(), "{file}: node count");
        let worst = common::max_diff(&m.x0, &points);
        // ASCII files carry 16 significant digits, binary and OBJ the doubles.
        assert!(worst <= 1e-15, "{file}: positions differ by {worst} m");
        assert_eq!(
            m.springs.len() as u64,
            e["edges"].as_u64().unwrap(),
            "{file}: springs"
        );
        let mass: f64 = m.mass.iter().sum();
        let measure = e["measure"].as_f64().unwrap();
        common::assert_close(mass, 700.0 * measure, 1e-12, 0.0, &format!("{file}: mass"));
        let cells = e["cells"].as_u64().unwrap() as usize;
        if key == "tets" {
            assert_eq!(m.tetrahedra.len(), cells, "{file}: tetrahedra");
            assert!(!m.triangles.is_empty());
            // meshio keeps the mixed orientation: one warning counts the turned ones
            let negative = e["negative"].as_u64().unwrap();
            assert!(
                negative > 0 && negative < cells as u64,
                "{negative} of {cells}"
            );
            assert_eq!(s.warnings.len(), 1, "{file}: {:?}", s.warnings);
            let count = format!("{negative} of {cells} tetrahedra");
            assert!(s.warnings[0].contains(&count), "{file}: {}", s.warnings[0]);
        } else {
            assert!(s.warnings.is_empty(), "{file}: {:?}", s.warnings);
            assert_eq!(m.triangles.len(), cells, "{file}: triangles");
        }
        assert!(m
            .springs
            .iter()
            .all(|sp| sp.rest_length_sq > 0.0 && sp.stiffness == 1e3));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn scenes_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes"))
}

fn triangle_area(x: &[f64], t: [u32; 3]) -> f64 {
    let p = |i: u32| &x[i as usize * 3..i as usize * 3 + 3];
    let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    0.5 * (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt()
}

#[test]
fn the_committed_gmsh_meshes_measure_their_geometry() {
    // The unit cube: volume 1 (mass = density), boundary faces of area 6.
    let s = mesh_scene(scenes_dir(), 3, "meshes/box3d.msh", "");
    let m = &s.model;
    common::assert_close(m.mass.iter().sum(), 700.0, 1e-12, 0.0, "box mass");
    let area: f64 = m.triangles.iter().map(|&t| triangle_area(&m.x0, t)).sum();
    common::assert_close(area, 6.0, 1e-12, 0.0, "box surface");
    assert!(
        m.num_nodes() > 50 && m.num_nodes() < 2000,
        "{}",
        m.num_nodes()
    );
    // The disk of radius 0.5 m: a polygon inscribed in it, within 1 % of π/4.
    let s = mesh_scene(scenes_dir(), 2, "meshes/disk2d.msh", "");
    let area = s.model.mass.iter().sum::<f64>() / 700.0;
    assert!(
        (area / (std::f64::consts::PI * 0.25) - 1.0).abs() < 0.01,
        "{area}"
    );
    // The cloth: 1 m², 17 × 17 nodes, two triangles per quad.
    let s = mesh_scene(scenes_dir(), 3, "meshes/cloth.obj", "bending = true\n");
    assert_eq!(s.model.num_nodes(), 289);
    assert_eq!(s.model.triangles.len(), 512);
    common::assert_close(s.model.mass.iter().sum(), 700.0, 1e-12, 0.0, "cloth mass");
    // Edges: 2·16·17 grid edges and 256 diagonals; bending springs: one per interior edge.
    let edges = 2 * 16 * 17 + 256;
    let interior = edges - 4 * 16;
    assert_eq!(s.model.springs.len(), edges + interior);
}

#[test]
fn scale_rotate_center_and_translate_place_the_mesh() {
    let bbox = |x: &[f64], dim: usize| {
        let mut lo = vec![f64::INFINITY; dim];
        let mut hi = vec![f64::NEG_INFINITY; dim];
        for p in x.chunks(dim) {
            for k in 0..dim {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        (lo, hi)
    };
    // The unit cube scaled to (0.5, 0.2, 0.1), turned 90° about z: x ← −y, y ← x.
    let s = mesh_scene(
        scenes_dir(),
        3,
        "meshes/box3d.msh",
        "scale = [0.5, 0.2, 0.1]\nrotate = [0.0, 0.0, 90.0]\ncenter = [1.0, 2.0, 3.0]\n",
    );
    let (lo, hi) = bbox(&s.model.x0, 3);
    for (k, half) in [0.1, 0.25, 0.05].iter().enumerate() {
        common::assert_close(lo[k], [1.0, 2.0, 3.0][k] - half, 0.0, 1e-12, "lower corner");
        common::assert_close(hi[k], [1.0, 2.0, 3.0][k] + half, 0.0, 1e-12, "upper corner");
    }
    // Mass scales with the volume.
    common::assert_close(
        s.model.mass.iter().sum(),
        700.0 * 0.01,
        1e-12,
        0.0,
        "scaled mass",
    );
    // 2D: the disk translated; a rotation keeps its radius.
    let s = mesh_scene(
        scenes_dir(),
        2,
        "meshes/disk2d.msh",
        "rotate = 33.0\ntranslate = [2.0, -1.0]\n",
    );
    let r_max = s
        .model
        .x0
        .chunks(2)
        .map(|p| ((p[0] - 2.0).powi(2) + (p[1] + 1.0).powi(2)).sqrt())
        .fold(0.0, f64::max);
    common::assert_close(r_max, 0.5, 0.0, 1e-12, "disk radius after rotate");
}

/// A scene of `dimension` with one body `body` (TOML keys) that has `fixed_where`.
fn fixed_count(dim: usize, body: &str, cond: &str) -> (usize, Scene) {
    let text = format!(
        "dimension = {dim}\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n\
         [[bodies]]\n{body}\nfixed_where = \"{cond}\"\n"
    );
    let path = scenes_dir().join("s.toml");
    let s = scene::parse(&text, path.to_str().unwrap(), "s").unwrap_or_else(|e| panic!("{e}"));
    (s.model.fixed.iter().filter(|&&f| f).count(), s)
}

#[test]
fn fixed_where_selects_nodes_of_every_body_kind() {
    let grid = "generator = \"grid\"\nsize = [1.0, 1.0]\ncells = [4, 4]\ndensity = 1.0\nspring_stiffness = 1.0";
    assert_eq!(fixed_count(2, grid, "y > 0.49").0, 5);
    assert_eq!(
        fixed_count(2, &format!("{grid}\nfixed = [0]"), "y > 0.49 and x < 0").0,
        3
    );
    let lattice = "generator = \"lattice\"\nsize = [1.0, 1.0, 1.0]\ncells = [2, 2, 2]\ndensity = 1.0\nspring_stiffness = 1.0";
    assert_eq!(fixed_count(3, lattice, "y >= 0.5 or y <= -0.5").0, 18);
    let cloth = "generator = \"cloth\"\nsize = [1.0, 1.0]\ncells = [4, 4]\ndensity = 1.0\nspring_stiffness = 1.0";
    assert_eq!(
        fixed_count(3, cloth, "abs(x) > 0.49 and abs(z) > 0.49").0,
        4
    );
    let particle = "generator = \"particle\"\nmass = 1.0\ncenter = [0.0, 2.0]";
    assert_eq!(fixed_count(2, particle, "y > 1").0, 1);
    let mesh =
        "generator = \"mesh\"\nfile = \"meshes/cloth.obj\"\ndensity = 1.0\nspring_stiffness = 1.0";
    let (n, s) = fixed_count(3, mesh, "x < -0.49 and z < -0.49 or x > 0.49 and z < -0.49");
    assert_eq!(n, 2);
    for (i, p) in s.model.x0.chunks(3).enumerate() {
        assert_eq!(
            s.model.fixed[i],
            p[2] < -0.49 && p[0].abs() > 0.49,
            "node {i}"
        );
    }
}

#[test]
fn obj_polylines_become_ropes_and_need_a_contact_area_in_3d() {
    let dir = common::new_temp_dir("mesh_rope");
    // A rope of four segments (one `l` statement of five vertices) in the plane z = 0.
    let rope = "v 0 0 0\nv 0.1 0 0\nv 0.2 0.1 0\nv 0.3 0.1 0\nv 0.3 0.3 0\nl 1 2 3 4 5\n";
    std::fs::write(dir.join("rope.obj"), rope).unwrap();
    let s = mesh_scene(&dir, 2, "rope.obj", "fixed_where = \"x < 0.05\"\n");
    let m = &s.model;
    assert_eq!((m.num_nodes(), m.springs.len()), (5, 4));
    let length = 0.1 + 2f64.sqrt() * 0.1 + 0.1 + 0.2;
    common::assert_close(m.mass.iter().sum(), 700.0 * length, 1e-12, 0.0, "rope mass");
    // The end nodes carry half a segment, the inner ones half of each neighbour.
    common::assert_close(m.mass[0], 700.0 * 0.05, 1e-12, 0.0, "end node mass");
    common::assert_close(m.contact_area[0], length / 5.0, 1e-12, 0.0, "rope contact");
    assert_eq!(m.fixed, vec![true, false, false, false, false]);
    // In 3D a rope has no contact surface of its own: contact_area must be a number.
    let text = "dimension = 3\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n\
         [[bodies]]\ngenerator = \"mesh\"\nfile = \"rope.obj\"\ndensity = 1.0\nspring_stiffness = 1.0\n";
    let path = dir.join("s.toml");
    let e = scene::parse(text, path.to_str().unwrap(), "s").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("bodies[0].contact_area"), "{e}");
    let ok = scene::parse(
        &format!("{text}contact_area = 0.01\n"),
        path.to_str().unwrap(),
        "s",
    )
    .unwrap();
    assert_eq!(ok.model.contact_area, vec![0.01; 5]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn velocity_where_gives_the_velocity_to_the_selected_nodes_only() {
    let grid = "generator = \"grid\"\nsize = [1.0, 1.0]\ncells = [2, 2]\ndensity = 1.0\n\
                spring_stiffness = 1.0\nvelocity = [1.0, -2.0]\nvelocity_where = \"x > 0.1\"";
    let text = format!(
        "dimension = 2\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n[[bodies]]\n{grid}\n"
    );
    let s = scene::parse(&text, "s.toml", "s").unwrap();
    for (p, v) in s.model.x0.chunks(2).zip(s.model.v0.chunks(2)) {
        let expect: &[f64] = if p[0] > 0.1 {
            &[1.0, -2.0]
        } else {
            &[0.0, 0.0]
        };
        assert_eq!(v, expect, "node at {p:?}");
    }
    let e = scene::parse(&text.replace("velocity = [1.0, -2.0]\n", ""), "s.toml", "s").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("bodies[0].velocity_where"), "{e}");
    let e = scene::parse(&text.replace("x > 0.1", "x > 1"), "s.toml", "s").unwrap_err();
    assert!(
        e.reason.contains("holds at none of this body's 9 nodes"),
        "{e}"
    );
}
