//! Mesh files for the mesh tests: Gmsh MSH 4.1 text from nodes and element blocks,
//! a scratch folder, and the scene around one mesh body.

use springsim::scene;
use std::path::PathBuf;

/// An element block: the Gmsh element type and its elements (tag, node tags).
pub type Block = (u32, Vec<(usize, Vec<usize>)>);

/// An MSH 4.1 ASCII file with `nodes` (tag, x, y, z) in one block and element
/// blocks of (type, [(tag, node tags)]).
pub fn msh(nodes: &[(usize, [f64; 3])], blocks: &[Block]) -> String {
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

pub const TET: [(usize, [f64; 3]); 5] = [
    (1, [0.0, 0.0, 0.0]),
    (2, [1.0, 0.0, 0.0]),
    (3, [0.0, 1.0, 0.0]),
    (4, [0.0, 0.0, 1.0]),
    (5, [1.0, 1.0, 1.0]),
];

pub struct Dir(pub PathBuf);

impl Dir {
    pub fn new(name: &str) -> Dir {
        Dir(super::new_temp_dir(name))
    }

    /// The error of a scene of `dim` whose body reads `text` as `file`, with `extra`
    /// keys; the scene is `DIR/bad.toml`.
    pub fn error(&self, dim: usize, file: &str, text: &str, extra: &str) -> String {
        let e = self
            .parse(dim, file, text, extra, "bad")
            .err()
            .unwrap_or_else(|| panic!("{file} should be refused"));
        assert!(!e.contains('\n'), "one line: {e}");
        e
    }

    /// The scene `DIR/NAME.toml` of `dim` whose one mesh body reads `text` as
    /// `file`, with `extra` keys, parsed (or its error line).
    fn parse(
        &self,
        dim: usize,
        file: &str,
        text: &str,
        extra: &str,
        name: &str,
    ) -> Result<scene::Scene, String> {
        std::fs::write(self.0.join(file), text).unwrap();
        let scene = format!(
            "dimension = {dim}\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n\
             [[bodies]]\ngenerator = \"mesh\"\nfile = \"{file}\"\ndensity = 1.0\nspring_stiffness = 1.0\n{extra}"
        );
        let path = self.0.join(format!("{name}.toml"));
        std::fs::write(&path, &scene).unwrap();
        scene::parse(&scene, path.to_str().unwrap(), name).map_err(|e| e.to_string())
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn has(e: &str, parts: &[&str]) {
    for p in parts {
        assert!(e.contains(p), "`{e}` lacks `{p}`");
    }
}

/// The scene `s.toml` of `dim` whose one mesh body reads `text` as `file` (in `d`),
/// or its error line.
pub fn load(d: &Dir, dim: usize, file: &str, text: &str) -> Result<scene::Scene, String> {
    d.parse(dim, file, text, "", "s")
}
