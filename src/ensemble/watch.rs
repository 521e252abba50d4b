//! Contact between and within bodies in 3D, watched. A batch does not evaluate 3D
//! point–triangle and edge–edge pairs; instead, at each Newton direction p, the
//! kernel (`shaders/ensemble/watch.wgsl`) proves that no pair can add anything on
//! the segment from x to x + p, alone either: a pair adds a barrier, terms or
//! friction only within d̂, and a CCD bound below 1 only where it loses 90 % of its
//! gap d₀ (`CCD_KEEP`). So it suffices that every pair stays at least `NEAR_REACH` d̂
//! apart and keeps a tenth of d₀. While the kernel proves this, the batch computes
//! what the variant computes alone; once it cannot, the variant's step stops with
//! [`COME_NEAR`] before it moves, and the variant leaves the batch and goes on alone
//! from that step's start on the GPU backend, which has the 3D contact kernels
//! (`Backend::handover`, [`go_on_alone`]; where that fails, `run_jobs` runs it again
//! alone from the start).
//!
//! The proof, per body (a contiguous run of nodes), at x + t p for t in [0, 1]:
//! - within a body that collides with itself: the rest shape (about its centre),
//!   mapped by M(t) = R₀ + t (R₁ − R₀) and moved with the body's centre, lies
//!   within δ of the body at x + t p, where R₀ and R₁ are the best-fitting
//!   rotations at x and at x + p (polar decompositions) and δ the larger of the
//!   deviations at the two ends (the deviation is affine in t). M(t) shrinks no
//!   distance by more than its smallest singular value, at least 1 less the
//!   rotations' orthogonality defect and half of ‖R₁ − R₀‖; so a pair's distance is
//!   at least the body's clearance ([`WatchedBody::clearance`], the smallest at x⁰
//!   over its pairs that can ever form a contact: `collision::pairs::candidates`'
//!   filters) times that, less 2 δ.
//! - between two bodies: a pair's distance is at least the gap between the bodies'
//!   boxes over x and x + p.
//! - the gap kept: along the segment a pair's distance changes by at most 2 W, W the
//!   largest |p_i − c'| (within a body; the variant's between bodies), so a pair with
//!   d₀ ≥ 2 W / 0.9 keeps a tenth of it, and one with a smaller d₀ does where the
//!   bound above is at least W / 4 (> 0.1 × 2 W / 0.9).

use super::device::NodeState;
use crate::backend::Handover;
use crate::collision::mesh::Collide;
use crate::collision::pairs::{candidates, pair_distance_sq, pair_nodes, rest_neighbours, Motion};
use crate::collision::REST_EXCLUSION;
use crate::model::Model;
use std::sync::{Condvar, Mutex, PoisonError};

/// Most bodies with collision primitives a watched variant may have (`WATCH_BODIES`
/// in the kernel, which keeps their boxes in workgroup memory).
pub const MAX_WATCH_BODIES: usize = 16;

/// How far (in d̂) the host looks for a body's closest pair at x⁰: a body whose pairs
/// are all farther apart gets this clearance, a lower bound.
const CLEARANCE_REACH: f64 = 16.0;

/// The clearance (m) of a body that never collides with itself: past any scene, and
/// finite in f32.
pub const NO_SELF_CONTACT: f64 = 1e30;

/// Why a variant's step stops where its surfaces may come within d̂ of each other
/// (the variant then goes on alone).
pub const COME_NEAR: &str = "two surfaces of this variant may come within d̂ of each other";

/// A body the kernel watches: its nodes (model indices) and its clearance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WatchedBody {
    /// First node and node count.
    pub first: u32,
    pub count: u32,
    /// The smallest distance (m) at x⁰ between two of its primitives that may ever
    /// form a contact, or a lower bound on it ([`CLEARANCE_REACH`] d̂);
    /// [`NO_SELF_CONTACT`] where the body does not collide with itself.
    pub clearance: f64,
}

/// Whether the batch watches 3D pairs of `model`: contact between or within bodies is
/// on, the model is 3D and has collision primitives.
pub fn watches(model: &Model) -> bool {
    model.dim == 3 && super::pairs::has_pairs(model)
}

/// The bodies of `model` that own collision primitives, as (body, first node, node
/// count), in node order; none where the batch does not watch it.
fn body_runs(model: &Model) -> Vec<(usize, usize, usize)> {
    if !watches(model) {
        return Vec::new();
    }
    let mesh = &model.collision;
    let mut out = Vec::new();
    let mut first = 0usize;
    for (b, &collide) in mesh.body_collide.iter().enumerate() {
        let count = mesh.node_body[first..]
            .iter()
            .take_while(|&&k| k as usize == b)
            .count();
        if collide != Collide::Walls && count > 0 {
            out.push((b, first, count));
        }
        first += count;
    }
    out
}

/// Why the batch cannot watch `model`, or `None` (cheap: no clearance is computed).
pub fn cannot_watch(model: &Model) -> Option<String> {
    too_many_bodies(body_runs(model).len())
}

/// Why `n` watched bodies are too many for one variant, or `None`.
fn too_many_bodies(n: usize) -> Option<String> {
    (n > MAX_WATCH_BODIES).then(|| {
        format!("contact in 3D between more than {MAX_WATCH_BODIES} bodies (this scene has {n})")
    })
}

/// The bodies of `model` that own collision primitives, in node order (none where
/// the batch does not watch it), or why it cannot be watched ([`cannot_watch`]).
pub fn watched_bodies(model: &Model) -> Result<Vec<WatchedBody>, String> {
    let runs = body_runs(model);
    if let Some(why) = too_many_bodies(runs.len()) {
        return Err(why);
    }
    if runs.is_empty() {
        return Ok(Vec::new());
    }
    let mesh = &model.collision;
    let excluded = rest_neighbours(mesh, &model.x0, REST_EXCLUSION * model.barrier.dhat);
    let cap = CLEARANCE_REACH * model.barrier.dhat;
    let motion = Motion {
        x: &model.x0,
        sweep: None,
    };
    // The broad phase at a reach finds every pair closer than it: from 2 d̂, doubling
    // up to the cap while some body that collides with itself has none closer (a fine
    // mesh stops at the first, where a search at the cap would list millions).
    let mut closest = vec![cap; mesh.body_collide.len()];
    let mut reach = 2.0 * model.barrier.dhat;
    loop {
        reach = reach.min(cap);
        for pair in candidates(mesh, motion, reach, &excluded) {
            let (nodes, _) = pair_nodes(mesh, pair);
            let (a, b) = (
                mesh.node_body[nodes[0] as usize],
                mesh.node_body[nodes[2] as usize],
            );
            if a == b {
                let d = pair_distance_sq(mesh, &model.x0, pair).sqrt();
                closest[a as usize] = closest[a as usize].min(d);
            }
        }
        let open =
            (0..closest.len()).any(|b| mesh.body_collide[b] == Collide::All && closest[b] >= reach);
        if !open || reach >= cap {
            break;
        }
        reach *= 2.0;
    }
    Ok(runs
        .into_iter()
        .map(|(b, first, count)| WatchedBody {
            first: first as u32,
            count: count as u32,
            clearance: if mesh.body_collide[b] == Collide::All {
                closest[b]
            } else {
                NO_SELF_CONTACT
            },
        })
        .collect())
}

/// One variant at a time goes on alone after leaving its batch (each opens a device
/// of its own): whether one is, and the wake-up of those waiting.
static ALONE: (Mutex<bool>, Condvar) = (Mutex::new(false), Condvar::new());

/// The turn to run alone, held by the variant's backend until it is dropped.
struct AloneTurn;

impl AloneTurn {
    fn take() -> Self {
        let mut busy = ALONE.0.lock().unwrap_or_else(PoisonError::into_inner);
        while *busy {
            busy = ALONE.1.wait(busy).unwrap_or_else(PoisonError::into_inner);
        }
        *busy = true;
        AloneTurn
    }
}

impl Drop for AloneTurn {
    fn drop(&mut self) {
        *ALONE.0.lock().unwrap_or_else(PoisonError::into_inner) = false;
        ALONE.1.notify_one();
    }
}

/// The GPU backend of `model` at `state` (positions, velocities, accelerations at the
/// step's start), once it is this variant's turn to run alone; and why it runs alone.
pub(super) fn go_on_alone(model: Model, state: NodeState) -> Result<Handover, String> {
    let turn = AloneTurn::take();
    let mut gpu = crate::backend::gpu::GpuBackend::new(model)?;
    let (x, v, a) = state;
    gpu.set_state(&x, &v, &a);
    Ok((Box::new(gpu.holding(Box::new(turn))), COME_NEAR.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::load;

    /// Each body's clearance is the smallest distance at x⁰ over every pair of its
    /// own the broad phase can find at any reach (brute force), capped at the reach
    /// the host looks; the bodies cover the model's nodes in order.
    #[test]
    fn a_clearance_is_the_closest_pair_of_the_body_at_rest() {
        for name in ["tet_drop", "tet_stack", "ropes_parallel", "lattice_drop"] {
            let m = load(name).unwrap().model;
            let mesh = &m.collision;
            let bodies = watched_bodies(&m).unwrap();
            assert_eq!(bodies.len(), mesh.body_collide.len(), "{name}");
            let excluded = rest_neighbours(mesh, &m.x0, REST_EXCLUSION * m.barrier.dhat);
            let motion = Motion {
                x: &m.x0,
                sweep: None,
            };
            let mut closest = vec![f64::INFINITY; bodies.len()];
            for pair in candidates(mesh, motion, 1e3, &excluded) {
                let (n, _) = pair_nodes(mesh, pair);
                let (a, b) = (mesh.node_body[n[0] as usize], mesh.node_body[n[2] as usize]);
                if a == b {
                    let d = pair_distance_sq(mesh, &m.x0, pair).sqrt();
                    closest[a as usize] = closest[a as usize].min(d);
                }
            }
            let mut next = 0;
            for (k, b) in bodies.iter().enumerate() {
                assert_eq!(b.first, next, "{name}: body {k} starts where the last ends");
                next += b.count;
                let cap = CLEARANCE_REACH * m.barrier.dhat;
                assert_eq!(b.clearance, closest[k].min(cap), "{name}: body {k}");
                assert!(
                    b.clearance >= m.barrier.dhat,
                    "{name}: excluded pairs are out"
                );
            }
            assert_eq!(next as usize, m.num_nodes(), "{name}");
        }
        assert!(
            watched_bodies(&load("two_squares").unwrap().model)
                .unwrap()
                .is_empty(),
            "2D"
        );
    }

    /// A 3D scene of more bodies than the kernel keeps boxes for runs alone, and says
    /// why; one without contact between bodies has nothing to watch.
    #[test]
    fn too_many_bodies_run_alone_and_say_why() {
        let mut m = load("tet_stack").unwrap().model;
        assert_eq!(watched_bodies(&m).unwrap().len(), 3);
        assert_eq!(crate::ensemble::device::unsupported(&m), None);
        let n = m.num_nodes();
        let many = MAX_WATCH_BODIES + 1;
        m.collision.node_body = (0..n).map(|i| (i * many / n) as u32).collect();
        m.collision.body_collide = vec![Collide::All; many];
        let why = watched_bodies(&m).unwrap_err();
        assert!(
            why.contains("more than 16 bodies (this scene has 17)"),
            "{why}"
        );
        let why = crate::ensemble::device::unsupported(&m).expect("alone");
        assert!(why.contains("more than 16 bodies"), "{why}");
        m.self_contact.enabled = false;
        assert!(watched_bodies(&m).unwrap().is_empty());
        assert_eq!(crate::ensemble::device::unsupported(&m), None);
    }
}
