//! The collision mesh: the primitives through which bodies touch each other and
//! themselves, as flat index arrays over the model's nodes (the layout the GPU twin
//! uploads as is).
//!
//! What each body contributes ([`CollisionMesh::add_body`] with a [`BodyShape`]):
//! - 2D bodies (grids, triangle meshes): their boundary edges;
//! - polylines (2D or 3D): every segment;
//! - 3D volumes (lattices, tetrahedral meshes): their boundary triangles;
//! - 3D surfaces (cloth, triangle meshes): every triangle, two-sided (the distances
//!   are unsigned).
//!
//! Particles contribute nothing: they meet walls only. In 3D the edges are the unique
//! edges of the triangles plus the polyline segments; the vertices are every node of
//! a primitive. Pairs of primitives that share a node are never candidates.

use serde::{Deserialize, Serialize};

/// What a body collides with (`bodies.collide` in a scene).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Collide {
    /// Other bodies and itself (the default).
    #[default]
    All,
    /// Other bodies, never itself.
    Others,
    /// Walls only: the body has no collision primitives.
    Walls,
}

/// The primitives a body offers to the collision mesh, in model node indices.
#[derive(Clone, Debug, Default)]
pub struct BodyShape {
    /// Segments: 2D boundary edges, or polyline segments in 2D and 3D.
    pub segments: Vec<[u32; 2]>,
    /// Triangles (3D only): boundary faces of volumes, every face of surfaces.
    pub triangles: Vec<[u32; 3]>,
}

/// The collision primitives of a model (node indices) with the body of each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CollisionMesh {
    /// Spatial dimension (2 or 3).
    pub dim: usize,
    /// Nodes that are vertices of some primitive, ascending.
    pub vertices: Vec<u32>,
    /// Edges: in 2D the boundary segments; in 3D the unique triangle edges and the
    /// polyline segments (each `[lower, higher]`), sorted.
    pub edges: Vec<[u32; 2]>,
    /// Triangles (3D), in the order the bodies gave them.
    pub faces: Vec<[u32; 3]>,
    /// The body of each node (every model node, not only vertices).
    pub node_body: Vec<u32>,
    /// What each body collides with.
    pub body_collide: Vec<Collide>,
    /// Squared rest length of each edge (m²), for the edge–edge mollifier.
    pub edge_rest_length_sq: Vec<f64>,
}

impl CollisionMesh {
    /// An empty collision mesh of dimension `dim`.
    pub fn new(dim: usize) -> Self {
        Self {
            dim,
            ..Default::default()
        }
    }

    /// Whether there is nothing that could ever form a pair.
    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    /// Registers a body of `nodes` nodes (appended after the existing ones) with what
    /// it collides with and its primitives (model node indices); `x` holds the
    /// model's positions including this body's nodes (its rest state).
    pub fn add_body(&mut self, nodes: usize, collide: Collide, shape: BodyShape, x: &[f64]) {
        let body = self.body_collide.len() as u32;
        self.body_collide.push(collide);
        self.node_body.extend(std::iter::repeat_n(body, nodes));
        if collide == Collide::Walls {
            return;
        }
        let mut edges: Vec<[u32; 2]> = shape
            .segments
            .iter()
            .map(|&[a, b]| [a.min(b), a.max(b)])
            .collect();
        for t in &shape.triangles {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                edges.push([a.min(b), a.max(b)]);
            }
        }
        let mut verts: Vec<u32> = edges.iter().flatten().copied().collect();
        self.faces.extend_from_slice(&shape.triangles);
        self.edges.extend(edges);
        self.edges.sort_unstable();
        self.edges.dedup();
        self.vertices.append(&mut verts);
        self.vertices.sort_unstable();
        self.vertices.dedup();
        let dim = self.dim;
        self.edge_rest_length_sq = self
            .edges
            .iter()
            .map(|&[a, b]| {
                (0..dim)
                    .map(|k| (x[a as usize * dim + k] - x[b as usize * dim + k]).powi(2))
                    .sum()
            })
            .collect();
    }

    /// Whether primitives of the bodies of nodes `a` and `b` may collide.
    #[inline]
    pub fn bodies_may_collide(&self, a: u32, b: u32) -> bool {
        let (ba, bb) = (self.node_body[a as usize], self.node_body[b as usize]);
        ba != bb || self.body_collide[ba as usize] == Collide::All
    }

    /// The mollifier threshold ε× (m⁴) of an edge–edge pair from its edges' rest
    /// lengths; 0 for other kinds (no mollifier).
    pub fn mollifier_threshold(&self, pair: super::Pair) -> f64 {
        match pair.kind {
            super::PairKind::EdgeEdge => {
                let l = &self.edge_rest_length_sq;
                super::distance::mollifier_threshold_from_lengths(
                    l[pair.prims[0] as usize],
                    l[pair.prims[1] as usize],
                )
            }
            _ => 0.0,
        }
    }

    /// Bytes held (for the memory reports).
    pub fn memory_bytes(&self) -> usize {
        self.vertices.len() * 4
            + self.edges.len() * 8
            + self.faces.len() * 12
            + self.node_body.len() * 4
            + self.edge_rest_length_sq.len() * 8
    }
}

/// The boundary segments of a `nx × ny`-cell grid whose node `(i, j)` is
/// `first + i (ny + 1) + j` (the grid generator's numbering), counter-clockwise.
pub fn grid_boundary(first: u32, nx: usize, ny: usize) -> Vec<[u32; 2]> {
    let id = |i: usize, j: usize| first + (i * (ny + 1) + j) as u32;
    let mut out = Vec::with_capacity(2 * (nx + ny));
    out.extend((0..nx).map(|i| [id(i, 0), id(i + 1, 0)]));
    out.extend((0..ny).map(|j| [id(nx, j), id(nx, j + 1)]));
    out.extend((0..nx).rev().map(|i| [id(i + 1, ny), id(i, ny)]));
    out.extend((0..ny).rev().map(|j| [id(0, j + 1), id(0, j)]));
    out
}

/// The boundary triangles of a lattice box with `cells` whose node `(i, j, k)` is
/// `first + (i (ny + 1) + j)(nz + 1) + k`: two per boundary square.
pub fn lattice_boundary(first: u32, cells: [usize; 3]) -> Vec<[u32; 3]> {
    let [_, ny, nz] = cells;
    let id = |c: [usize; 3]| first + ((c[0] * (ny + 1) + c[1]) * (nz + 1) + c[2]) as u32;
    let mut out = Vec::new();
    // The two faces normal to each axis, each a grid of squares over the other two.
    for axis in 0..3 {
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        for side in [0, cells[axis]] {
            for i in 0..cells[u] {
                for j in 0..cells[v] {
                    let at = |di: usize, dj: usize| {
                        let mut c = [0; 3];
                        c[axis] = side;
                        c[u] = i + di;
                        c[v] = j + dj;
                        id(c)
                    };
                    let (a, b, c, d) = (at(0, 0), at(1, 0), at(1, 1), at(0, 1));
                    out.push([a, b, c]);
                    out.push([a, c, d]);
                }
            }
        }
    }
    out
}

/// The triangles of a cloth sheet with `cells` whose node `(i, k)` is
/// `first + i (nz + 1) + k`: two per cell.
pub fn cloth_triangles(first: u32, cells: [usize; 2]) -> Vec<[u32; 3]> {
    let [nx, nz] = cells;
    let id = |i: usize, k: usize| first + (i * (nz + 1) + k) as u32;
    let mut out = Vec::with_capacity(2 * nx * nz);
    for i in 0..nx {
        for k in 0..nz {
            out.push([id(i, k), id(i + 1, k), id(i + 1, k + 1)]);
            out.push([id(i, k), id(i + 1, k + 1), id(i, k + 1)]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_boundary_is_a_closed_loop_of_the_perimeter() {
        let b = grid_boundary(10, 3, 2);
        assert_eq!(b.len(), 10);
        for w in b.windows(2) {
            assert_eq!(w[0][1], w[1][0]);
        }
        assert_eq!(b.last().unwrap()[1], b[0][0]);
        assert_eq!(b[0][0], 10);
    }

    #[test]
    fn lattice_boundary_is_closed_and_counts_match() {
        let cells = [2, 3, 4];
        let t = lattice_boundary(0, cells);
        assert_eq!(t.len(), 4 * (2 * 3 + 3 * 4 + 2 * 4));
        // Closed surface: every edge is used by exactly two triangles.
        let mut count = std::collections::HashMap::new();
        for f in &t {
            for k in 0..3 {
                let (a, b) = (f[k], f[(k + 1) % 3]);
                *count.entry([a.min(b), a.max(b)]).or_insert(0) += 1;
            }
        }
        assert!(count.values().all(|&c| c == 2));
    }

    #[test]
    fn collide_modes_filter_pairs() {
        let x = vec![0.0; 2 * 8];
        let mut m = CollisionMesh::new(2);
        m.add_body(
            4,
            Collide::All,
            BodyShape {
                segments: grid_boundary(0, 1, 1),
                triangles: vec![],
            },
            &x,
        );
        m.add_body(
            4,
            Collide::Others,
            BodyShape {
                segments: grid_boundary(4, 1, 1),
                triangles: vec![],
            },
            &x,
        );
        assert_eq!(m.edges.len(), 8);
        assert_eq!(m.vertices.len(), 8);
        assert!(m.bodies_may_collide(0, 1));
        assert!(!m.bodies_may_collide(4, 5));
        assert!(m.bodies_may_collide(0, 5));
        let mut w = CollisionMesh::new(2);
        w.add_body(
            4,
            Collide::Walls,
            BodyShape {
                segments: grid_boundary(0, 1, 1),
                triangles: vec![],
            },
            &x,
        );
        assert!(w.is_empty());
    }
}
