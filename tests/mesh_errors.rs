//! Bad mesh bodies are refused with one line naming the scene file, the field, the
//! mesh file, the element (as the file numbers it) and the reason: unreadable,
//! empty, degenerate (zero-length edge, zero-area triangle, inverted or zero-volume
//! tetrahedron), mixed-dimension and unsupported meshes, and bad `fixed_where`.

mod common;
use common::bad_scene::{expect_each, run_refused};
use springsim::scene;
use std::path::PathBuf;

/// An element block: the Gmsh element type and its elements (tag, node tags).
type Block = (u32, Vec<(usize, Vec<usize>)>);

/// An MSH 4.1 ASCII file with `nodes` (tag, x, y, z) in one block and element
/// blocks of (type, [(tag, node tags)]).
fn msh(nodes: &[(usize, [f64; 3])], blocks: &[Block]) -> String {
    let mut s = String::from("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n");
    let n = nodes.len();
    s += &format!("1 {n} 1 {n}\n3 1 0 {n}\n");
    for (tag, _) in nodes {
        s += &format!("{tag}\n");
    }
    for (_, p) in nodes {
        s += &format!("{} {} {}\n", p[0], p[1], p[2]);
    }
    let total: usize = blocks.iter().map(|b| b.1.len()).sum();
    s += &format!("$EndNodes\n$Elements\n{} {total} 1 {total}\n", blocks.len());
    for (ty, els) in blocks {
        s += &format!("3 1 {ty} {}\n", els.len());
        for (tag, ns) in els {
            let ns: Vec<String> = ns.iter().map(|n| n.to_string()).collect();
            s += &format!("{tag} {}\n", ns.join(" "));
        }
    }
    s + "$EndElements\n"
}

const TET: [(usize, [f64; 3]); 5] = [
    (1, [0.0, 0.0, 0.0]),
    (2, [1.0, 0.0, 0.0]),
    (3, [0.0, 1.0, 0.0]),
    (4, [0.0, 0.0, 1.0]),
    (5, [1.0, 1.0, 1.0]),
];

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = common::temp_dir(name);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }

    /// The error of a scene of `dim` whose body reads `text` as `file`, with `extra`
    /// keys; the scene is `DIR/bad.toml`.
    fn error(&self, dim: usize, file: &str, text: &str, extra: &str) -> String {
        std::fs::write(self.0.join(file), text).unwrap();
        let scene = format!(
            "dimension = {dim}\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n\
             [[bodies]]\ngenerator = \"mesh\"\nfile = \"{file}\"\ndensity = 1.0\nspring_stiffness = 1.0\n{extra}"
        );
        let path = self.0.join("bad.toml");
        std::fs::write(&path, &scene).unwrap();
        let e = scene::parse(&scene, path.to_str().unwrap(), "bad")
            .err()
            .unwrap_or_else(|| panic!("{file} should be refused"))
            .to_string();
        assert!(!e.contains('\n'), "one line: {e}");
        e
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn has(e: &str, parts: &[&str]) {
    for p in parts {
        assert!(e.contains(p), "`{e}` lacks `{p}`");
    }
}

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
    has(
        &d.error(3, "inv.msh", &tet(vec![1, 3, 2, 4]), ""),
        &[field, "inv.msh", "element 7 (tetrahedron)", "inverted"],
    );
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
    d.error(3, "inv.msh", &tet(vec![1, 3, 2, 4]), "");
    let stderr = run_refused(&d.0.join("bad.toml"), &d.0.join("out"));
    has(
        &stderr,
        &["bodies[0].file", "element 7 (tetrahedron)", "inverted"],
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
