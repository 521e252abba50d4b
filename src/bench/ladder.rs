//! The benchmark ladder: the same physical square, lattice and cloth drops at
//! growing resolution, generated as scene files so they pass the scene checks.
//! Every body uses a material stiffness, so refining a body does not soften it.

use crate::scene::{self, Scene};

/// Which body an entry drops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// A 1 m 2D square (grid) dropped on the ground.
    Square,
    /// A 1 m 3D lattice cube dropped on the ground.
    Lattice,
    /// A 1 m × 1 m cloth sheet (with bending springs) dropped into a V-shaped valley
    /// of two planes: its edges land first, then it drapes.
    Cloth,
}

impl Family {
    /// The name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Family::Square => "square2d",
            Family::Lattice => "lattice3d",
            Family::Cloth => "cloth3d",
        }
    }
}

/// One rung of the ladder: a family at a resolution (cells per side).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The body.
    pub family: Family,
    /// Cells along every side.
    pub cells: usize,
}

impl Entry {
    /// Nodes of the entry's mesh.
    pub fn nodes(&self) -> usize {
        let n = self.cells + 1;
        match self.family {
            Family::Square | Family::Cloth => n * n,
            Family::Lattice => n * n * n,
        }
    }

    /// The entry's name, e.g. `square2d_64`.
    pub fn name(&self) -> String {
        format!("{}_{}", self.family.name(), self.cells)
    }

    /// The scene file of the entry (TOML). The body starts 4–6 cm from the nearest
    /// wall moving down at 1 m/s, so contact begins within the first ten steps. The
    /// ladder times the wall-contact solve on both backends, so contact between and
    /// within bodies is off (these single bodies never fold in the horizons timed).
    pub fn scene_text(&self) -> String {
        let c = self.cells;
        let (dim, walls, body) = match self.family {
            Family::Square => (
                2,
                "point = [0.0, -1.0]\nnormal = [0.0, 1.0]",
                format!(
                    "generator = \"grid\"\nsize = [1.0, 1.0]\ncells = [{c}, {c}]\ncenter = [0.0, -0.44]\n\
                     velocity = [0.0, -1.0]\ndensity = 1000.0\nmaterial_stiffness = 3.2e6\n"
                ),
            ),
            Family::Lattice => (
                3,
                "point = [0.0, -1.0, 0.0]\nnormal = [0.0, 1.0, 0.0]",
                format!(
                    "generator = \"lattice\"\nsize = [1.0, 1.0, 1.0]\ncells = [{c}, {c}, {c}]\n\
                     center = [0.0, -0.44, 0.0]\nvelocity = [0.0, -1.0, 0.0]\ndensity = 1000.0\n\
                     material_stiffness = 1e7\n"
                ),
            ),
            Family::Cloth => (
                3,
                "point = [0.0, -0.5, 0.0]\nnormal = [0.4, 1.0, 0.0]\n\n[[walls]]\ntype = \"plane\"\n\
                 point = [0.0, -0.5, 0.0]\nnormal = [-0.4, 1.0, 0.0]",
                format!(
                    "generator = \"cloth\"\nsize = [1.0, 1.0]\ncells = [{c}, {c}]\n\
                     center = [0.0, -0.25, 0.0]\nvelocity = [0.0, -1.0, 0.0]\ndensity = 0.5\n\
                     material_stiffness = 2.4e4\nbending = true\n"
                ),
            ),
        };
        let barrier = match self.family {
            Family::Cloth => "ipc",
            _ => "book",
        };
        format!(
            "name = \"{name}\"\ndimension = {dim}\n\n[solver]\ndt = 0.01\ntolerance = 1e-2\n\n\
             [contact]\ndhat = 0.01\nkappa = 1e5\nbarrier = \"{barrier}\"\nself_contact = false\n\n\
             [[walls]]\ntype = \"plane\"\n{walls}\n\n[[bodies]]\nname = \"body\"\n{body}",
            name = self.name()
        )
    }

    /// The entry's scene, parsed and checked like any scene file.
    pub fn scene(&self) -> Result<Scene, String> {
        let name = self.name();
        scene::parse(&self.scene_text(), &format!("bench:{name}"), &name).map_err(|e| e.to_string())
    }
}

/// The ladder: `quick` is the short one CI runs; the full one reaches about a
/// million nodes in each family (1 050 625 square, 1 030 301 lattice, 1 048 576 cloth).
pub fn ladder(quick: bool) -> Vec<Entry> {
    let (square, lattice, cloth): (&[usize], &[usize], &[usize]) = match quick {
        true => (&[4, 16, 64], &[4, 10], &[16, 64]),
        false => (
            &[4, 16, 64, 256, 1024],
            &[4, 10, 20, 46, 100],
            &[16, 64, 256, 1023],
        ),
    };
    let mut out: Vec<Entry> = square
        .iter()
        .map(|&cells| Entry {
            family: Family::Square,
            cells,
        })
        .chain(lattice.iter().map(|&cells| Entry {
            family: Family::Lattice,
            cells,
        }))
        .chain(cloth.iter().map(|&cells| Entry {
            family: Family::Cloth,
            cells,
        }))
        .collect();
    out.sort_by_key(|e| (e.family as u8, e.nodes()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rung_is_a_valid_scene_with_the_nodes_it_claims() {
        for e in ladder(true) {
            let s = e.scene().unwrap();
            assert_eq!(s.model.num_nodes(), e.nodes(), "{}", e.name());
        }
        let full = ladder(false);
        let largest = |f: Family| {
            full.iter()
                .filter(|e| e.family == f)
                .map(|e| e.nodes())
                .max()
        };
        for f in [Family::Square, Family::Lattice, Family::Cloth] {
            assert!(largest(f).unwrap() >= 1_000_000, "{f:?}");
        }
    }
}
