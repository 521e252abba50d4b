//! Bad mesh bodies are refused with one line naming the scene file, the field, the
//! mesh file, the element (as the file numbers it) and the reason: unreadable,
//! empty, degenerate (zero-length edge, zero-area triangle, zero-volume
//! tetrahedron), mixed-dimension and unsupported meshes, and bad `fixed_where`.
//! Tetrahedra of mixed orientation, as many tools write them, are turned over with
//! one warning line instead; triangles of mixed orientation need nothing.

mod common;
use common::bad_scene::{expect_each, run_refused};
use common::mesh_files::{has, msh, Dir, TET};
use springsim::scene;

#[test]
fn bad_mesh_files_name_the_file_the_element_and_the_reason() {
    let d = Dir::new("mesh_errors");
    let field = "bad.toml:9: field `bodies[0].file`";
    let e = d.error(3, "a.msh", "", "");
    std::fs::remove_file(d.0.join("a.msh")).unwrap();
    has(&e, &[field, "a.msh", "not a Gmsh MSH file"]);
    let e = scene::parse(
        &std::fs::read_to_string(d.0.join("bad.toml")).unwrap(),
        d.0.join("bad.toml").to_str().unwrap(),
        "bad",
    )
    .unwrap_err()
    .to_string();
    has(&e, &[field, "a.msh", "cannot read the mesh file"]);
    has(
        &d.error(3, "e.msh", &msh(&[], &[]), ""),
        &[field, "e.msh", "empty"],
    );
    has(
        &d.error(3, "e.obj", "# nothing\n", ""),
        &[field, "e.obj", "empty"],
    );
    has(
        &d.error(3, "m.stl", "solid\n", ""),
        &[field, "m.stl", "unknown mesh format"],
    );
    let tet = |t: Vec<usize>| msh(&TET, &[(4, vec![(7, t)])]);
    let mut flat = TET;
    flat[3].1 = [0.5, 0.5, 0.0];
    let flat = msh(&flat, &[(4, vec![(3, vec![1, 2, 3, 4])])]);
    has(
        &d.error(3, "flat.msh", &flat, ""),
        &["element 3 (tetrahedron)", "zero volume"],
    );
    let mut twin = TET;
    twin[4].1 = [1.0, 0.0, 0.0];
    let twin = msh(&twin, &[(2, vec![(12, vec![1, 2, 5])])]);
    has(
        &d.error(3, "twin.msh", &twin, ""),
        &["element 12 (triangle)", "zero-length edge"],
    );
    let mut col = TET;
    col[4].1 = [0.5, 0.0, 0.0];
    let col = msh(&col, &[(2, vec![(4, vec![1, 2, 5])])]);
    has(
        &d.error(3, "col.msh", &col, ""),
        &["element 4 (triangle)", "zero area"],
    );
    // Mixed dimensions: a triangle off the tetrahedron, tetrahedra in 2D, z ≠ 0 in 2D.
    let mixed = msh(
        &TET,
        &[
            (4, vec![(1, vec![1, 2, 3, 4])]),
            (2, vec![(9, vec![1, 2, 5])]),
        ],
    );
    has(
        &d.error(3, "mixed.msh", &mixed, ""),
        &["element 9 (triangle)", "mixed dimensions"],
    );
    has(
        &d.error(2, "t2.msh", &tet(vec![1, 2, 3, 4]), ""),
        &["t2.msh", "mixed dimensions", "dimension 2"],
    );
    let tilted = msh(&TET, &[(2, vec![(1, vec![1, 2, 4])])]);
    has(
        &d.error(2, "z.msh", &tilted, ""),
        &["z.msh", "the node at (0, 0, 1) has z = 1"],
    );
    // Element types springsim does not read, and nodes missing from $Nodes.
    let quad = msh(&TET, &[(3, vec![(5, vec![1, 2, 5, 3])])]);
    has(
        &d.error(3, "q.msh", &quad, ""),
        &["element 5", "unsupported element type 3"],
    );
    let missing = msh(&TET, &[(2, vec![(6, vec![1, 2, 9])])]);
    has(
        &d.error(3, "n.msh", &missing, ""),
        &["element 6 (triangle)", "node tag 9"],
    );
    let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 7\n";
    has(
        &d.error(3, "o.obj", obj, ""),
        &["o.obj", "not a readable Wavefront OBJ"],
    );
    let obj = "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n";
    has(
        &d.error(3, "c.obj", obj, ""),
        &["c.obj", "element 1 (triangle)", "zero area"],
    );
    // fixed_where: malformed, or selecting nothing.
    let good = tet(vec![1, 2, 3, 4]);
    has(
        &d.error(3, "g.msh", &good, "fixed_where = \"y >> 1\"\n"),
        &[
            "bad.toml:12: field `bodies[0].fixed_where`",
            "at character 4",
        ],
    );
    has(
        &d.error(3, "g.msh", &good, "fixed_where = \"y > 2\"\n"),
        &[
            "field `bodies[0].fixed_where`",
            "holds at none of this body's 4 nodes",
        ],
    );
    has(
        &d.error(3, "g.msh", &good, "bending = true\n"),
        &["bodies[0].bending", "triangle"],
    );
    has(
        &d.error(
            3,
            "g.msh",
            &good,
            "center = [0, 0, 0]\ntranslate = [1, 0, 0]\n",
        ),
        &["bodies[0].translate", "not both"],
    );
    has(
        &d.error(3, "g.msh", &good, "scale = [1, 0, 1]\n"),
        &["bodies[0].scale[1]", "positive"],
    );
    has(
        &d.error(3, "g.msh", &good, "rotate = 10\n"),
        &["bodies[0].rotate", "3 numbers"],
    );
    has(
        &d.error(3, "g.msh", &good, "cells = [2, 2]\n"),
        &["bodies[0].cells", "mesh bodies"],
    );
    // The command line prints the same one line and exits with status 2.
    let mut flat = TET;
    flat[3].1 = [0.5, 0.5, 0.0];
    d.error(
        3,
        "flat.msh",
        &msh(&flat, &[(4, vec![(7, vec![1, 2, 3, 4])])]),
        "",
    );
    let stderr = run_refused(&d.0.join("bad.toml"), &d.0.join("out"));
    has(
        &stderr,
        &["bodies[0].file", "element 7 (tetrahedron)", "zero volume"],
    );
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

#[test]
fn mesh_keys_on_other_bodies_and_bad_conditions_are_refused() {
    expect_each(&[
        (
            "fixed = [0, 24]",
            "file = \"x.msh\"",
            "bodies[0].file",
            17,
            "only mesh bodies",
        ),
        (
            "fixed = [0, 24]",
            "rotate = 3.0",
            "bodies[0].rotate",
            17,
            "only mesh bodies",
        ),
        (
            "fixed = [0, 24]",
            "fixed_where = \"x <\"",
            "bodies[0].fixed_where",
            17,
            "at character 4",
        ),
        (
            "fixed = [0, 24]",
            "fixed_where = \"x + 1\"",
            "bodies[0].fixed_where",
            17,
            "needs a comparison",
        ),
        (
            "fixed = [0, 24]",
            "fixed_where = \"w > 1\"",
            "bodies[0].fixed_where",
            17,
            "at character 1",
        ),
        (
            "fixed = [0, 24]",
            "fixed_where = \"x > 9\"",
            "bodies[0].fixed_where",
            17,
            "holds at none",
        ),
    ]);
}

/// A unit cube cut into the six tetrahedra around its diagonal, half of them
/// written with negative volume (as meshio and many tools write them), loads: the
/// scene warns once, naming the file, field and mesh and counting the 3 turned over;
/// every tetrahedron then has a positive volume and every boundary triangle faces
/// outwards; `springsim run` prints that one warning line and completes. A 2D mesh
/// of triangles of both orientations loads without a warning.
#[test]
fn mixed_orientation_tetrahedra_are_turned_over_with_one_warning() {
    let d = Dir::new("mesh_orientation");
    let corner = |i: usize| [(i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64];
    let nodes: Vec<(usize, [f64; 3])> = (0..8).map(|i| (i + 1, corner(i))).collect();
    // the six paths 0 → 7 along the cube's edges, one tetrahedron each; written in
    // path order their orientations follow the parity of the axis order: 3 negative
    let paths = [[1, 3], [1, 5], [2, 3], [2, 6], [4, 5], [4, 6]];
    let tets: Vec<(usize, Vec<usize>)> = paths
        .iter()
        .enumerate()
        .map(|(e, &[a, b])| (e + 1, [0, a, b, 7].map(|n| n + 1).to_vec()))
        .collect();
    std::fs::write(d.0.join("cube.msh"), msh(&nodes, &[(4, tets)])).unwrap();
    let text = "dimension = 3\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n\
        [[bodies]]\ngenerator = \"mesh\"\nfile = \"cube.msh\"\ndensity = 1.0\nspring_stiffness = 1.0\n";
    let path = d.0.join("cube.toml");
    std::fs::write(&path, text).unwrap();
    let sc = scene::parse(text, path.to_str().unwrap(), "cube").unwrap();
    assert_eq!(sc.warnings.len(), 1, "{:?}", sc.warnings);
    has(
        &sc.warnings[0],
        &[
            "cube.toml",
            "bodies[0].file",
            "cube.msh",
            "3 of 6 tetrahedra",
        ],
    );
    let m = &sc.model;
    let x = |i: u32| [0, 1, 2].map(|k| m.x0[3 * i as usize + k]);
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    assert_eq!(m.tetrahedra.len(), 6);
    for t in &m.tetrahedra {
        let v = dot(
            cross(sub(x(t[1]), x(t[0])), sub(x(t[2]), x(t[0]))),
            sub(x(t[3]), x(t[0])),
        );
        assert!(v > 0.0, "{t:?}: volume {v}");
    }
    assert_eq!(
        m.triangles.len(),
        12,
        "the cube's boundary: two triangles a side"
    );
    let centre = (0..8).map(x).fold([0.0; 3], |c, p| {
        [c[0] + p[0] / 8.0, c[1] + p[1] / 8.0, c[2] + p[2] / 8.0]
    });
    for f in &m.triangles {
        let n = cross(sub(x(f[1]), x(f[0])), sub(x(f[2]), x(f[0])));
        assert!(dot(n, sub(x(f[0]), centre)) > 0.0, "{f:?} faces inwards");
    }
    let o = common::springsim(&[
        "run",
        path.to_str().unwrap(),
        "--steps",
        "1",
        "--backend",
        "cpu",
        "-q",
        "--out",
        d.0.join("out").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        err.lines().filter(|l| l.starts_with("warning:")).count(),
        1,
        "{err}"
    );
    // 2D: two triangles of a square, one clockwise
    let square = [
        (1, [0.0, 0.0, 0.0]),
        (2, [1.0, 0.0, 0.0]),
        (3, [1.0, 1.0, 0.0]),
        (4, [0.0, 1.0, 0.0]),
    ];
    std::fs::write(
        d.0.join("sq.msh"),
        msh(
            &square,
            &[(2, vec![(1, vec![1, 2, 3]), (2, vec![1, 4, 3])])],
        ),
    )
    .unwrap();
    let text = text
        .replace("dimension = 3", "dimension = 2")
        .replace("cube.msh", "sq.msh");
    let sc = scene::parse(&text, path.to_str().unwrap(), "sq").unwrap();
    assert!(sc.warnings.is_empty(), "{:?}", sc.warnings);
    assert_eq!(sc.model.num_nodes(), 4);
}
