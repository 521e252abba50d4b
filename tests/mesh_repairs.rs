//! Meshes as users have them (issue 26): what the mesh reader fixes with one warning
//! line each, and the overlaps it refuses naming the element.

mod common;
use common::mesh_files::{has, load, msh, Dir, TET};
use springsim::scene;

/// Meshes as users have them: unused nodes, nodes written twice at one position
/// (an OBJ seam), an element written twice, a non-manifold surface edge and several
/// pieces load, each with one warning line that names the file and counts what was
/// done; overlapping elements are refused naming one.
#[test]
fn real_mesh_problems_are_fixed_with_a_warning_or_refused_by_name() {
    let d = Dir::new("mesh_repairs");
    let one = |sc: &scene::Scene, parts: &[&str]| {
        assert_eq!(sc.warnings.len(), 1, "{:?}", sc.warnings);
        has(&sc.warnings[0], &["s.toml", "bodies[0].file"]);
        has(&sc.warnings[0], parts);
        assert!(!sc.warnings[0].contains('\n'));
    };
    // a unit square of two triangles, with an unused fifth vertex
    let sq = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n";
    let sc = load(
        &d,
        2,
        "unused.obj",
        &format!("{sq}v 5 5 0\nf 1 2 3\nf 1 3 4\n"),
    )
    .unwrap();
    one(&sc, &["unused.obj", "1 of 5 nodes belong to no element"]);
    assert_eq!(sc.model.num_nodes(), 4);
    // the same square written as two triangles of their own (a seam: 6 vertices)
    let seam = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 4 5 6\n";
    let sc = load(&d, 2, "seam.obj", seam).unwrap();
    one(&sc, &["seam.obj", "2 nodes at the same position"]);
    assert_eq!(sc.model.num_nodes(), 4);
    // one connected piece after the merge: the diagonal spring is shared, 5 springs
    assert_eq!(sc.model.springs.len(), 5);
    // a triangle written twice (once in the other orientation)
    let sc = load(
        &d,
        2,
        "twice.obj",
        &format!("{sq}f 1 2 3\nf 1 3 4\nf 3 2 1\n"),
    )
    .unwrap();
    one(&sc, &["twice.obj", "1 elements repeated"]);
    assert_eq!(sc.model.springs.len(), 5);
    // two squares apart: two pieces of 4 nodes
    let two =
        format!("{sq}v 3 0 0\nv 4 0 0\nv 4 1 0\nv 3 1 0\nf 1 2 3\nf 1 3 4\nf 5 6 7\nf 5 7 8\n");
    let sc = load(&d, 2, "two.obj", &two).unwrap();
    one(
        &sc,
        &["two.obj", "2 disconnected pieces (of 4 and 4 nodes)"],
    );
    // three flaps on one edge in 3D: a non-manifold surface, loaded with a note
    let flaps = "v 0 0 0\nv 0 0 1\nv 1 0 0\nv -1 0.5 0\nv 0 -1 0.2\nf 1 2 3\nf 1 2 4\nf 1 2 5\n";
    let sc = load(&d, 3, "flaps.obj", flaps).unwrap();
    one(
        &sc,
        &["flaps.obj", "1 edges are shared by more than two triangles"],
    );
    // the same in the plane: triangles overlap, refused naming the third
    let planar = "v 0 0 0\nv 0 1 0\nv 1 0 0\nv -1 0.5 0\nv 0.5 0.7 0\nf 1 2 3\nf 1 2 4\nf 1 2 5\n";
    let e = load(&d, 2, "overlap.obj", planar).unwrap_err();
    has(
        &e,
        &[
            "overlap.obj",
            "element 3 (triangle)",
            "overlapping elements",
        ],
    );
    // tetrahedra: three on one face overlap
    let nodes: Vec<(usize, [f64; 3])> =
        TET.iter().copied().chain([(6, [0.2, 0.2, -1.0])]).collect();
    let tets = vec![
        (1, vec![1, 2, 3, 4]),
        (2, vec![1, 2, 3, 5]),
        (3, vec![1, 2, 3, 6]),
    ];
    let e = load(&d, 3, "tets.msh", &msh(&nodes, &[(4, tets)])).unwrap_err();
    has(
        &e,
        &[
            "tets.msh",
            "element 3 (tetrahedron)",
            "overlapping elements",
        ],
    );
}
