//! Contact between and within bodies in a batch (2D point–edge): every pair a variant
//! may ever need, listed once on the host, so that the batch's kernel never drops a
//! pair. The kernel (`shaders/ensemble/pairs.wgsl`) goes over all of them at every
//! evaluation: a pair beyond d̂ adds nothing, so the sums equal those over the GPU
//! backend's broad-phase list.

use crate::collision::ccd::PairKind;
use crate::collision::pairs::Pair;
use crate::model::Model;

/// Most point–edge pairs one variant may list: past this, brute force over every pair
/// at every evaluation costs more than the variant's own work, and the variant runs
/// alone on the GPU backend (with its broad phase).
pub const MAX_PAIRS: usize = 65_536;

/// Reals per pair in the batch's `state`: 1 where the pair has terms (within d̂ at the
/// last assembly, or with friction), else 0; its weighted barrier and friction gradient
/// (3 nodes × 2); its weighted PSD-projected Hessian (6 × 6, row-major); its friction
/// lag (β, unit normal xy, λ).
pub const PAIR_REALS: usize = 49;

/// Whether the batch lists pairs for `model`: contact between or within bodies is on
/// and the model has collision primitives.
pub fn has_pairs(model: &Model) -> bool {
    model.self_contact.enabled && !model.collision.is_empty()
}

/// How many point–edge pairs [`pairs_of`] would list, without listing them (2D).
pub fn pair_count(model: &Model) -> usize {
    if !has_pairs(model) || model.dim != 2 {
        return 0;
    }
    let mesh = &model.collision;
    mesh.vertices.len() * mesh.edges.len()
}

/// Every point–edge pair of a 2D `model` that may ever touch, as its nodes (point,
/// edge's first end, edge's second end): the point is no end of the edge, their bodies
/// may collide, and they are not mesh neighbours closer than `REST_EXCLUSION` d̂ at
/// rest (the filters of `collision::pairs::candidates`, with no distance cut). In the
/// order of the CPU's sorted lists (vertex node, then edge).
pub fn pairs_of(model: &Model) -> Vec<[u32; 3]> {
    if !has_pairs(model) || model.dim != 2 {
        return Vec::new();
    }
    let mesh = &model.collision;
    let excluded = model.rest_exclusions();
    let mut out = Vec::new();
    let mut vertices = mesh.vertices.clone();
    vertices.sort_unstable();
    for &p in &vertices {
        for (e, ends) in mesh.edges.iter().enumerate() {
            if ends.contains(&p) || !mesh.bodies_may_collide(p, ends[0]) {
                continue;
            }
            let pair = Pair {
                kind: PairKind::PointEdge,
                prims: [p, e as u32],
            };
            if excluded.binary_search(&pair).is_ok() {
                continue;
            }
            out.push([p, ends[0], ends[1]]);
        }
    }
    out
}

/// Each node's pairs as a CSR over `n` nodes: offsets (n + 1) into the entries, and
/// the entries `pair × 4 + slot` (slot 0 the point, 1 and 2 the edge's ends), each
/// node's in pair order.
pub fn incidence(pairs: &[[u32; 3]], n: usize) -> (Vec<u32>, Vec<u32>) {
    let mut count = vec![0u32; n + 1];
    for p in pairs {
        for &i in p {
            count[i as usize + 1] += 1;
        }
    }
    for i in 0..n {
        count[i + 1] += count[i];
    }
    let mut fill = count.clone();
    let mut entries = vec![0u32; count[n] as usize];
    for (t, p) in pairs.iter().enumerate() {
        for (slot, &i) in p.iter().enumerate() {
            entries[fill[i as usize] as usize] = (t * 4 + slot) as u32;
            fill[i as usize] += 1;
        }
    }
    (count, entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::pairs::{candidates, Motion};

    fn model(name: &str) -> Model {
        crate::scene::load(name).unwrap().model
    }

    /// The list holds every pair the CPU's broad phase can find, at any reach: the
    /// candidates at x⁰ with a reach past the scene's size, and no other.
    #[test]
    fn the_list_is_every_candidate_the_broad_phase_may_find() {
        for name in ["two_squares", "square_drop", "disk_drop"] {
            let m = model(name);
            let mesh = &m.collision;
            let excluded = m.rest_exclusions();
            let motion = Motion {
                x: &m.x0,
                sweep: None,
            };
            let all: Vec<[u32; 3]> = candidates(mesh, motion, 1e3, &excluded)
                .into_iter()
                .map(|p| {
                    let e = mesh.edges[p.prims[1] as usize];
                    [p.prims[0], e[0], e[1]]
                })
                .collect();
            let mine = pairs_of(&m);
            assert!(!mine.is_empty(), "{name}");
            assert_eq!(mine, all, "{name}");
            assert!(mine.len() <= pair_count(&m));
        }
    }

    #[test]
    fn each_node_lists_its_pairs_in_order() {
        let pairs = [[0, 1, 2], [3, 1, 2], [1, 0, 3]];
        let (off, entries) = incidence(&pairs, 4);
        assert_eq!(off, vec![0, 2, 5, 7, 9]);
        assert_eq!(entries, vec![0, 9, 1, 5, 8, 2, 6, 4, 10]);
    }
}
