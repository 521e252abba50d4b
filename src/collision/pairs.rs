//! Primitive pairs: which primitives of the collision mesh may touch (the broad phase
//! over their boxes, inflated by d̂, static or swept along a Newton direction), their
//! nodes, and their squared distance.
//!
//! A pair is `(kind, [a, b])`: point–edge (2D) `[vertex node, edge index]`,
//! point–triangle (3D) `[vertex node, face index]`, edge–edge (3D)
//! `[edge index, edge index]` with `a < b`. Lists are sorted, so every evaluation
//! sums over pairs in one order (the energy at a point does not depend on which
//! candidate list found its pairs).

use super::broad_phase::{overlapping_pairs, self_overlapping_pairs, Aabb};
use super::ccd::PairKind;
use super::mesh::CollisionMesh;
pub use super::near::stacked_distance_sq;

/// One candidate pair of primitives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pair {
    /// Which kind of pair.
    pub kind: PairKind,
    /// The two primitives (see the module docs).
    pub prims: [u32; 2],
}

/// Nodes of a pair in the stacked order of the distance functions, and how many.
#[inline]
pub fn pair_nodes(mesh: &CollisionMesh, pair: Pair) -> ([u32; 4], usize) {
    let [a, b] = pair.prims;
    match pair.kind {
        PairKind::PointEdge => {
            let e = mesh.edges[b as usize];
            ([a, e[0], e[1], 0], 3)
        }
        PairKind::PointTriangle => {
            let f = mesh.faces[b as usize];
            ([a, f[0], f[1], f[2]], 4)
        }
        PairKind::EdgeEdge => {
            let (ea, eb) = (mesh.edges[a as usize], mesh.edges[b as usize]);
            ([ea[0], ea[1], eb[0], eb[1]], 4)
        }
    }
}

/// Copies the positions of `nodes[..k]` from `x` (`nodes × dim`) into `out[..k·dim]`.
#[inline]
pub fn gather(x: &[f64], dim: usize, nodes: &[u32; 4], k: usize, out: &mut [f64; 12]) {
    for (l, &i) in nodes[..k].iter().enumerate() {
        let i = i as usize;
        out[l * dim..(l + 1) * dim].copy_from_slice(&x[i * dim..(i + 1) * dim]);
    }
}

/// A pair's nodes, their count and their stacked coordinates (m) at `x`.
#[inline]
pub fn stacked(mesh: &CollisionMesh, x: &[f64], pair: Pair) -> ([u32; 4], usize, [f64; 12]) {
    let (nodes, k) = pair_nodes(mesh, pair);
    let mut s = [0.0; 12];
    gather(x, mesh.dim, &nodes, k, &mut s);
    (nodes, k, s)
}

/// Squared distance (m²) of `pair` at positions `x`.
#[inline]
pub fn pair_distance_sq(mesh: &CollisionMesh, x: &[f64], pair: Pair) -> f64 {
    let (_, _, s) = stacked(mesh, x, pair);
    stacked_distance_sq(pair.kind, mesh.dim, &s)
}

/// Whether two node lists share a node.
#[inline]
fn share(a: &[u32], b: &[u32]) -> bool {
    a.iter().any(|i| b.contains(i))
}

/// Where the primitives are during what the broad phase covers: at `x`, or swept
/// from `x` to `x + α p`.
#[derive(Clone, Copy)]
pub struct Motion<'a> {
    /// Positions (m), `nodes × dim`.
    pub x: &'a [f64],
    /// Direction (m) and the largest step fraction covered, or none (static).
    pub sweep: Option<(&'a [f64], f64)>,
}

impl Motion<'_> {
    fn aabb(&self, dim: usize, nodes: &[u32], inflate: f64) -> Aabb {
        match self.sweep {
            None => Aabb::of_points(dim, self.x, nodes),
            Some((p, alpha)) => Aabb::swept(dim, self.x, p, alpha, nodes),
        }
        .inflated(inflate)
    }
}

/// A sorted exclusion list indexed by kind and first primitive: the broad phase asks
/// it once per pair of overlapping boxes (a million times a call on a 128 × 128
/// cloth), where a binary search over the whole list cost a fifth of the call.
struct ExcludedIndex<'a> {
    /// The list, sorted by kind, then primitives.
    list: &'a [Pair],
    /// Per kind (in [`PairKind`] order), `start[a]..start[a + 1]` is the range of
    /// `list` whose first primitive is `a` (the vector ends at the largest such `a`).
    start: [Vec<u32>; 3],
}

impl<'a> ExcludedIndex<'a> {
    /// Indexes `list` (sorted, as [`rest_neighbours`] returns it).
    fn new(list: &'a [Pair]) -> Self {
        let kinds = [
            PairKind::PointEdge,
            PairKind::PointTriangle,
            PairKind::EdgeEdge,
        ];
        let start = kinds.map(|kind| {
            let lo = list.partition_point(|p| p.kind < kind);
            let hi = list.partition_point(|p| p.kind <= kind);
            let top = list[lo..hi].last().map_or(0, |p| p.prims[0] as usize + 1);
            let mut start = Vec::with_capacity(top + 1);
            let mut at = lo;
            for a in 0..=top {
                while at < hi && (list[at].prims[0] as usize) < a {
                    at += 1;
                }
                start.push(at as u32);
            }
            start
        });
        ExcludedIndex { list, start }
    }

    /// Whether `pair` is in the list.
    #[inline]
    fn contains(&self, pair: Pair) -> bool {
        let start = &self.start[pair.kind as usize];
        let a = pair.prims[0] as usize;
        if a + 1 >= start.len() {
            return false;
        }
        let run = &self.list[start[a] as usize..start[a + 1] as usize];
        run.binary_search_by_key(&pair.prims[1], |p| p.prims[1])
            .is_ok()
    }
}

/// Every pair whose primitives may come within `reach` (m) of each other during
/// `motion`, that shares no node, whose bodies may collide and that is not in
/// `excluded` (sorted): the broad phase. Sorted by kind, then primitives.
pub fn candidates(
    mesh: &CollisionMesh,
    motion: Motion<'_>,
    reach: f64,
    excluded: &[Pair],
) -> Vec<Pair> {
    let dim = mesh.dim;
    let r = 0.5 * reach;
    let excluded = ExcludedIndex::new(excluded);
    let keep = |pair: Pair, a: &[u32], b: &[u32]| {
        !share(a, b) && mesh.bodies_may_collide(a[0], b[0]) && !excluded.contains(pair)
    };
    let vboxes: Vec<Aabb> = mesh
        .vertices
        .iter()
        .map(|v| motion.aabb(dim, std::slice::from_ref(v), r))
        .collect();
    let eboxes: Vec<Aabb> = mesh.edges.iter().map(|e| motion.aabb(dim, e, r)).collect();
    // Point–edge (2D) or point–triangle (3D): each vertex against each edge or face.
    let (kind, second, targets): (PairKind, Vec<Aabb>, Vec<&[u32]>) = if dim == 2 {
        let e = mesh.edges.iter().map(|e| &e[..]).collect();
        (PairKind::PointEdge, eboxes.clone(), e)
    } else {
        let f: Vec<&[u32]> = mesh.faces.iter().map(|f| &f[..]).collect();
        let boxes = f.iter().map(|f| motion.aabb(dim, f, r)).collect();
        (PairKind::PointTriangle, boxes, f)
    };
    let point_pair = |vi: u32, t: u32| Pair {
        kind,
        prims: [mesh.vertices[vi as usize], t],
    };
    let mut out: Vec<Pair> = overlapping_pairs(&vboxes, &second, |vi, t| {
        let pair = point_pair(vi, t);
        keep(pair, &[pair.prims[0]], targets[t as usize])
    })
    .into_iter()
    .map(|[vi, t]| point_pair(vi, t))
    .collect();
    if dim == 3 {
        let edge_pair = |a: u32, b: u32| Pair {
            kind: PairKind::EdgeEdge,
            prims: [a, b],
        };
        let ee = self_overlapping_pairs(&eboxes, |a, b| {
            let (ea, eb) = (&mesh.edges[a as usize], &mesh.edges[b as usize]);
            keep(edge_pair(a, b), ea, eb)
        });
        out.extend(ee.into_iter().map(|[a, b]| edge_pair(a, b)));
    }
    out.sort_unstable();
    out
}

/// How many d̂ a pair of the GPU's list may come within and be kept
/// ([`near_candidates`]; `NEAR_REACH` in `shaders/pair_distance.wgsl`): 1 % more
/// than needed, so that no pair near the threshold is lost to rounding.
pub const NEAR_REACH: f64 = 1.01;

/// [`candidates`] of `motion` at the contact distance `dhat` (m), less those that
/// cannot come within [`NEAR_REACH`] `dhat` at `motion.x` or anywhere on its sweep
/// ([`super::near::may_come_within`]): the GPU broad phase's list (its twin, in
/// list order). A dropped pair stays at least d̂ apart on the whole segment, so it
/// has no barrier, CCD bound or terms there.
pub fn near_candidates(
    mesh: &CollisionMesh,
    motion: Motion<'_>,
    dhat: f64,
    excluded: &[Pair],
) -> Vec<Pair> {
    let dim = mesh.dim;
    let mut list = candidates(mesh, motion, dhat, excluded);
    list.retain(|&pair| {
        let (nodes, k, s) = stacked(mesh, motion.x, pair);
        let q = motion.sweep.map(|(p, alpha)| {
            let mut q = [0.0; 12];
            gather(p, dim, &nodes, k, &mut q);
            q.iter_mut().for_each(|v| *v *= alpha);
            q
        });
        super::near::may_come_within(
            pair.kind,
            dim,
            &s,
            q.as_ref().map(|q| &q[..]),
            NEAR_REACH * dhat,
        )
    });
    list
}

/// The pairs of one body closer than `reach` (m) at `x` (the rest state): mesh
/// neighbours at a scale below the contact distance, which never form contacts.
/// Sorted, for [`candidates`]' `excluded`.
pub fn rest_neighbours(mesh: &CollisionMesh, x: &[f64], reach: f64) -> Vec<Pair> {
    let near = candidates(mesh, Motion { x, sweep: None }, reach, &[]);
    near.into_iter()
        .filter(|&pair| {
            let (nodes, _) = pair_nodes(mesh, pair);
            mesh.node_body[nodes[0] as usize] == mesh.node_body[nodes[2] as usize]
                && pair_distance_sq(mesh, x, pair) < reach * reach
        })
        .collect()
}

/// Each node's smallest distance (m) to a primitive it may collide with, among the
/// pairs closer than `reach` at `x` that are not `excluded`; `+∞` for the others (the
/// frames' `pair_distance`).
pub fn node_pair_distances(
    mesh: &CollisionMesh,
    x: &[f64],
    reach: f64,
    excluded: &[Pair],
) -> Vec<f64> {
    let mut out = vec![f64::INFINITY; x.len() / mesh.dim.max(1)];
    if mesh.is_empty() {
        return out;
    }
    for pair in candidates(mesh, Motion { x, sweep: None }, reach, excluded) {
        let d = pair_distance_sq(mesh, x, pair).max(0.0).sqrt();
        if d >= reach {
            continue;
        }
        let (nodes, k) = pair_nodes(mesh, pair);
        for &i in &nodes[..k] {
            let o = &mut out[i as usize];
            *o = o.min(d);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index answers exactly as a binary search of the sorted list, for pairs
    /// of every kind, in and out of the list, below and beyond its largest index.
    #[test]
    fn excluded_index_agrees_with_the_list() {
        let kinds = [
            PairKind::PointEdge,
            PairKind::PointTriangle,
            PairKind::EdgeEdge,
        ];
        let mut state = 12345u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % m) as u32
        };
        let mut list: Vec<Pair> = (0..300)
            .map(|i| Pair {
                kind: kinds[(i % 2) as usize * 2],
                prims: [next(40), next(40)],
            })
            .collect();
        list.sort_unstable();
        list.dedup();
        let index = ExcludedIndex::new(&list);
        for kind in kinds {
            for a in 0..45 {
                for b in 0..45 {
                    let pair = Pair {
                        kind,
                        prims: [a, b],
                    };
                    assert_eq!(index.contains(pair), list.binary_search(&pair).is_ok());
                }
            }
        }
        assert!(!ExcludedIndex::new(&[]).contains(list[0]));
    }
}
