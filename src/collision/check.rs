//! "Intersection-free", verified: the exact intersection checker ([`super::intersect`])
//! over a model's collision mesh, with primitives named for messages. The scene
//! builder refuses a start that fails it; tests run it after every accepted step;
//! `springsim check` runs it over a finished run's frames.

use super::intersect::{edge_triangle_intersections_3d, segment_intersections_2d};
use super::mesh::CollisionMesh;
use super::pairs::{candidates, pair_distance_sq, pair_nodes, Motion};
use super::PairKind;

/// A collision primitive named for a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Primitive {
    /// `vertex`, `edge` or `triangle`.
    pub kind: &'static str,
    /// Its model nodes.
    pub nodes: Vec<u32>,
}

impl std::fmt::Display for Primitive {
    /// `edge (nodes [3, 4])`: its kind and model nodes, for messages.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (nodes {:?})", self.kind, self.nodes)
    }
}

/// Two primitives that cross, or touch.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    /// The first primitive.
    pub a: Primitive,
    /// The second primitive.
    pub b: Primitive,
    /// Their distance (m): 0 where they cross or touch.
    pub distance: f64,
    /// Whether they cross (exact predicates) rather than only come to d ≤ 0.
    pub crossing: bool,
}

fn edge(mesh: &CollisionMesh, e: u32) -> Primitive {
    Primitive {
        kind: "edge",
        nodes: mesh.edges[e as usize].to_vec(),
    }
}

fn face(mesh: &CollisionMesh, f: u32) -> Primitive {
    Primitive {
        kind: "triangle",
        nodes: mesh.faces[f as usize].to_vec(),
    }
}

/// Every crossing of two primitives at `x` (`nodes × dim`, m) whose bodies may
/// collide and that share no node, by exact predicates: crossing boundary edges in
/// 2D, an edge through a triangle in 3D (touching counts).
pub fn intersections(mesh: &CollisionMesh, x: &[f64]) -> Vec<(Primitive, Primitive)> {
    let keep_edges = |a: u32, b: u32| {
        let (ea, eb) = (mesh.edges[a as usize], mesh.edges[b as usize]);
        mesh.bodies_may_collide(ea[0], eb[0])
    };
    if mesh.dim == 2 {
        segment_intersections_2d(x, &mesh.edges, keep_edges)
            .into_iter()
            .map(|[a, b]| (edge(mesh, a), edge(mesh, b)))
            .collect()
    } else {
        let keep = |e: u32, f: u32| {
            mesh.bodies_may_collide(mesh.edges[e as usize][0], mesh.faces[f as usize][0])
        };
        edge_triangle_intersections_3d(x, &mesh.edges, &mesh.faces, keep)
            .into_iter()
            .map(|[e, f]| (edge(mesh, e), face(mesh, f)))
            .collect()
    }
}

/// The first reason a start is not admissible: two primitives that cross, or a pair
/// at distance 0; `None` for an admissible start.
pub fn start_violation(mesh: &CollisionMesh, x: &[f64]) -> Option<Violation> {
    if mesh.is_empty() {
        return None;
    }
    if let Some((a, b)) = intersections(mesh, x).into_iter().next() {
        return Some(Violation {
            a,
            b,
            distance: 0.0,
            crossing: true,
        });
    }
    let near = candidates(mesh, Motion { x, sweep: None }, 0.0, &[]);
    near.into_iter().find_map(|pair| {
        let dsq = pair_distance_sq(mesh, x, pair);
        if dsq > 0.0 {
            return None;
        }
        let (nodes, _) = pair_nodes(mesh, pair);
        let vertex = |v: u32| Primitive {
            kind: "vertex",
            nodes: vec![v],
        };
        let (a, b) = match pair.kind {
            PairKind::PointEdge => (vertex(nodes[0]), edge(mesh, pair.prims[1])),
            PairKind::PointTriangle => (vertex(nodes[0]), face(mesh, pair.prims[1])),
            PairKind::EdgeEdge => (edge(mesh, pair.prims[0]), edge(mesh, pair.prims[1])),
        };
        Some(Violation {
            a,
            b,
            distance: dsq.max(0.0).sqrt(),
            crossing: false,
        })
    })
}
