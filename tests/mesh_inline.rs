//! Mesh bodies given inline (`nodes` with `segments`, `triangles` or `tetrahedra`,
//! what the Python package writes for a body built from arrays) are the same bodies
//! as the same mesh read from a file, and are refused with one line naming the key
//! and the reason where they are bad.

mod common;
use common::mesh_files::{has, load, msh, Dir, TET};
use springsim::scene;

const HEAD: &str = "dimension = 3\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n\
    [[bodies]]\ngenerator = \"mesh\"\ndensity = 1.0\nspring_stiffness = 1.0\n";

/// The TET nodes (0-based) and its two tetrahedra.
fn inline(extra: &str) -> Result<scene::Scene, String> {
    let nodes: Vec<String> = TET
        .iter()
        .map(|(_, p)| format!("[{}, {}, {}]", p[0], p[1], p[2]))
        .collect();
    let text = format!(
        "{HEAD}nodes = [{}]\ntetrahedra = [[0, 1, 2, 3], [1, 2, 3, 4]]\n{extra}",
        nodes.join(", ")
    );
    scene::parse(&text, "inline.toml", "inline").map_err(|e| e.to_string())
}

#[test]
fn an_inline_mesh_is_the_body_its_file_would_be() {
    let d = Dir::new("mesh_inline");
    let file = msh(
        &TET,
        &[(4, vec![(1, vec![1, 2, 3, 4]), (2, vec![2, 3, 4, 5])])],
    );
    let a = load(&d, 3, "two.msh", &file).unwrap().model;
    let b = inline("").unwrap().model;
    assert_eq!(a.x0, b.x0);
    assert_eq!(a.mass, b.mass);
    assert_eq!(a.tetrahedra, b.tetrahedra);
    assert_eq!(a.contact_area, b.contact_area);
    let ends = |m: &springsim::model::Model| -> Vec<(u32, u32, f64, f64)> {
        let s = &m.springs;
        s.iter()
            .map(|s| (s.a, s.b, s.rest_length_sq, s.stiffness))
            .collect()
    };
    assert_eq!(ends(&a), ends(&b));
    assert_eq!(a.collision.faces, b.collision.faces);
    assert_eq!(a.collision.edges, b.collision.edges);
}

#[test]
fn inline_triangles_and_segments_make_surfaces_and_polylines() {
    let tri = "dimension = 3\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n\
        [[bodies]]\ngenerator = \"mesh\"\ndensity = 1.0\nspring_stiffness = 1.0\n\
        nodes = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]\ntriangles = [[0, 1, 2], [1, 3, 2]]\n";
    let s = scene::parse(tri, "t.toml", "t").unwrap();
    assert_eq!((s.model.num_nodes(), s.model.springs.len()), (4, 5));
    let seg = "dimension = 2\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n\
        [[bodies]]\ngenerator = \"mesh\"\ndensity = 1.0\nspring_stiffness = 1.0\n\
        nodes = [[0, 0], [1, 0], [2, 0.5]]\nsegments = [[0, 1], [1, 2]]\n";
    let s = scene::parse(seg, "s.toml", "s").unwrap();
    assert_eq!((s.model.num_nodes(), s.model.springs.len()), (3, 2));
}

#[test]
fn bad_inline_meshes_name_the_key_and_the_reason() {
    let cases: &[(&str, &[&str])] = &[
        ("file = \"x.msh\"", &["bodies[0].nodes", "not both"]),
        (
            "triangles = [[0, 1, 2]]",
            &[
                "bodies[0].tetrahedra",
                "one kind of element",
                "triangles or tetrahedra",
            ],
        ),
    ];
    for (extra, parts) in cases {
        has(&inline(extra).unwrap_err(), parts);
    }
    let bad = |body: &str| -> String {
        let e = scene::parse(&format!("{HEAD}{body}"), "bad.toml", "bad")
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\n'), "{e}");
        e
    };
    has(&bad(""), &["bodies[0]", "need `file`, or `nodes`"]);
    has(
        &bad("nodes = [[0, 0, 0]]\n"),
        &["bodies[0].nodes", "needs its elements"],
    );
    let four = "nodes = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]\n";
    has(
        &bad(&format!("{four}tetrahedra = [[0, 1, 2, 9]]\n")),
        &[
            "bodies[0].tetrahedra",
            "element 0 (tetrahedron)",
            "node 9 does not exist",
            "4 nodes",
        ],
    );
    has(
        &bad(&format!("{four}tetrahedra = [[0, 1, 2]]\n")),
        &["bodies[0].tetrahedra[0]", "4 node indices"],
    );
    has(
        &bad(&format!("{four}tetrahedra = [[0, 1, 2, -3]]\n")),
        &["bodies[0].tetrahedra[0]", "-3"],
    );
    has(
        &bad("nodes = [[0, 0, 0], [1, 0], [0, 1, 0], [0, 0, 1]]\ntetrahedra = [[0, 1, 2, 3]]\n"),
        &["bodies[0].nodes[1]", "3 coordinates"],
    );
    has(
        &bad("nodes = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0.5, 0.5, 0]]\ntetrahedra = [[0, 1, 2, 3]]\n"),
        &["bodies[0].tetrahedra", "inline mesh", "element 0 (tetrahedron)", "zero volume"],
    );
    // other bodies take no inline mesh
    let grid = "dimension = 2\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n\
        [[bodies]]\ngenerator = \"grid\"\nsize = [1, 1]\ncells = [2, 2]\ndensity = 1.0\n\
        spring_stiffness = 1.0\nnodes = [[0, 0]]\n";
    has(
        &scene::parse(grid, "g.toml", "g").unwrap_err().to_string(),
        &["bodies[0].nodes", "only mesh bodies"],
    );
}
