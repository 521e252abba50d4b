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
//! - within a body that collides with itself: a shape of the body (x⁰, or the
//!   variant's reference, below; whichever gives the larger bound), about its
//!   centre, mapped by M(t) = R₀ + t (R₁ − R₀) and moved with the body's centre,
//!   lies within δ of the body at x + t p, where R₀ and R₁ are the best-fitting
//!   rotations at x and at x + p (polar decompositions) and δ the larger of the
//!   deviations at the two ends (the deviation is affine in t). M(t) shrinks no
//!   distance by more than its smallest singular value, at least 1 less the
//!   rotations' orthogonality defect and half of ‖R₁ − R₀‖; so a pair's distance is
//!   at least the body's clearance in that shape ([`WatchedBody::clearance`], the
//!   smallest over its pairs that can ever form a contact:
//!   `collision::pairs::candidates`' filters) times that, less 2 δ.
//! - between two bodies: a pair's distance is at least the gap between the bodies'
//!   boxes over x and x + p, or at least their distance at the reference
//!   ([`WatchedBody::apart`]) less how far their centres' shifts since the
//!   reference part (convex in t: the ends bound it) and the largest deviation of
//!   each body's nodes from its shift (affine in t: the ends bound it; a point of a
//!   primitive is a convex combination of its nodes and keeps the bound).
//! - the gap kept: along the segment a pair's distance changes by at most 2 W, W the
//!   largest |p_i − c'| (within a body; the variant's between bodies), so a pair with
//!   d₀ ≥ 2 W / 0.9 keeps a tenth of it, and one with a smaller d₀ does where the
//!   bound above is at least W / 4 (> 0.1 × 2 W / 0.9).
//!
//! The reference is x⁰ at first, then the iterate where the proof last failed
//! ([`Watched::take_reference`]: the host measures the bodies there,
//! [`watched_bodies_at`], and the kernel tries once more before the variant
//! leaves). It takes away the deformation and the motion since x⁰, not the
//! deformation along p: a body that deforms by about half its clearance within one
//! Newton direction (a lattice slamming into its bowl) still leaves. x⁰ stays in
//! the proof within a body because a reference where the body is compressed
//! towards itself has a smaller clearance than x⁰.

use super::slots::NodeState;
use crate::backend::Handover;
use crate::collision::mesh::Collide;
use crate::collision::pairs::{candidates, pair_distance_sq, pair_nodes, Motion, Pair};
use crate::model::Model;
use std::sync::{Condvar, Mutex, PoisonError};

/// Most bodies with collision primitives a watched variant may have (`WATCH_BODIES`
/// in the kernel, which keeps their boxes in workgroup memory).
pub const MAX_WATCH_BODIES: usize = 16;

/// How far (in d̂) the host looks for a body's closest pair at a reference: a body
/// whose pairs are all farther apart gets this clearance, a lower bound.
const CLEARANCE_REACH: f64 = 16.0;

/// The clearance (m) of a body that never collides with itself: past any scene, and
/// finite in f32.
pub const NO_SELF_CONTACT: f64 = 1e30;

/// Why a variant's step stops where its surfaces may come within d̂ of each other
/// (the variant then goes on alone).
pub const COME_NEAR: &str = "two surfaces of this variant may come within d̂ of each other";

/// A body the kernel watches: its nodes (model indices), its clearance and its
/// distances to the variant's other bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WatchedBody {
    /// First node and node count.
    pub first: u32,
    pub count: u32,
    /// The smallest distance (m) at the positions measured (x⁰ for the batch's
    /// layout) between two of its primitives that may ever form a contact, or a
    /// lower bound on it (the reach the host searched); [`NO_SELF_CONTACT`] where
    /// the body does not collide with itself.
    pub clearance: f64,
    /// The smallest distance (m) at the positions measured between its primitives
    /// and those of the variant's watched body k, or a lower bound on it, for k <
    /// the number of bodies (the rest unused).
    pub apart: [f64; MAX_WATCH_BODIES],
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
/// the batch does not watch it), with their clearances and distances at x⁰, or why
/// it cannot be watched ([`cannot_watch`]).
pub fn watched_bodies(model: &Model) -> Result<Vec<WatchedBody>, String> {
    let runs = body_runs(model);
    if let Some(why) = too_many_bodies(runs.len()) {
        return Err(why);
    }
    if runs.is_empty() {
        return Ok(Vec::new());
    }
    Ok(watched_bodies_at(
        model,
        &model.x0,
        &model.rest_exclusions(),
    ))
}

/// The watched bodies of `model` (at most [`MAX_WATCH_BODIES`]) with their clearances
/// and distances at positions `x` (`nodes × 3`), `excluded` from
/// `Model::rest_exclusions`: the reference the kernel measures a body's deformation from.
pub fn watched_bodies_at(model: &Model, x: &[f64], excluded: &[Pair]) -> Vec<WatchedBody> {
    let runs = body_runs(model);
    let mesh = &model.collision;
    let cap = CLEARANCE_REACH * model.barrier.dhat;
    let motion = Motion { x, sweep: None };
    // run index of each body
    let mut run_of = vec![usize::MAX; mesh.body_collide.len()];
    for (k, &(b, _, _)) in runs.iter().enumerate() {
        run_of[b] = k;
    }
    // The broad phase at a reach finds every pair closer than it: from 2 d̂, doubling
    // up to the cap while some body that collides with itself has none closer (a fine
    // mesh stops at the first, where a search at the cap would list millions). Pairs
    // of bodies with none closer than the last reach get that reach, a lower bound.
    let n = runs.len();
    let mut reach = 2.0 * model.barrier.dhat;
    let found = loop {
        reach = reach.min(cap);
        let mut found = Closest::new(n);
        for pair in candidates(mesh, motion, reach, excluded) {
            let (nodes, _) = pair_nodes(mesh, pair);
            let a = run_of[mesh.node_body[nodes[0] as usize] as usize];
            let b = run_of[mesh.node_body[nodes[2] as usize] as usize];
            if a != usize::MAX && b != usize::MAX {
                found.add(a, b, pair_distance_sq(mesh, x, pair).sqrt());
            }
        }
        let open = runs.iter().enumerate().any(|(k, &(b, _, _))| {
            mesh.body_collide[b] == Collide::All && found.within[k] >= reach
        });
        if !open || reach >= cap {
            break found;
        }
        reach *= 2.0;
    };
    runs.iter()
        .enumerate()
        .map(|(k, &(b, first, count))| {
            let mut row = [0.0; MAX_WATCH_BODIES];
            for (j, d) in row.iter_mut().enumerate().take(n) {
                *d = found.apart[k * n + j].min(reach);
            }
            WatchedBody {
                first: first as u32,
                count: count as u32,
                clearance: if mesh.body_collide[b] == Collide::All {
                    found.within[k].min(reach)
                } else {
                    NO_SELF_CONTACT
                },
                apart: row,
            }
        })
        .collect()
}

/// The closest pairs found so far (m): per body with itself, and per two bodies
/// (`n × n`, both ways).
pub(super) struct Closest {
    pub n: usize,
    pub within: Vec<f64>,
    pub apart: Vec<f64>,
}

impl Closest {
    pub fn new(n: usize) -> Self {
        Self {
            n,
            within: vec![f64::INFINITY; n],
            apart: vec![f64::INFINITY; n * n],
        }
    }

    /// A pair between bodies `a` and `b` (equal: within one) at distance `d`.
    pub fn add(&mut self, a: usize, b: usize, d: f64) {
        let n = self.n;
        if a == b {
            self.within[a] = self.within[a].min(d);
        } else {
            self.apart[a * n + b] = self.apart[a * n + b].min(d);
            self.apart[b * n + a] = self.apart[b * n + a].min(d);
        }
    }
}

/// Where a variant's reference lies in the batch's `reals` (indices): its nodes'
/// positions (3 per node), its bodies' distances ([`MAX_WATCH_BODIES`] each) and
/// their clearances (1 each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WatchPlace {
    pub reference: usize,
    pub apart: usize,
    pub clearances: usize,
}

/// The writes (first index in `reals`, values) that make `x` (`nodes × 3`, the
/// variant's own nodes) the reference of a variant at `place`: its positions, and
/// its bodies' distances and clearances there.
pub fn reference_writes(
    model: &Model,
    excluded: &[Pair],
    place: WatchPlace,
    x: &[f64],
) -> Vec<(usize, Vec<f64>)> {
    let bodies = watched_bodies_at(model, x, excluded);
    vec![
        (place.reference, x.to_vec()),
        (place.apart, bodies.iter().flat_map(|b| b.apart).collect()),
        (
            place.clearances,
            bodies.iter().map(|b| b.clearance).collect(),
        ),
    ]
}

/// What a watched variant's backend keeps: its model (to take new references, and
/// to go on alone), the pairs excluded at x⁰ (computed at the first new reference)
/// and where its watch data lie; whether its reference is the current iterate.
pub(super) struct Watched {
    pub model: Model,
    excluded: Option<Vec<Pair>>,
    place: WatchPlace,
    /// Whether the reference is the iterate the last direction started from (a new
    /// one there would change nothing).
    pub fresh: bool,
}

impl Watched {
    pub fn new(model: &Model, place: WatchPlace) -> Option<Self> {
        watches(model).then(|| Self {
            model: model.clone(),
            excluded: None,
            place,
            fresh: false,
        })
    }

    /// The writes that make `x` (the variant's positions, `nodes × 3`) its reference.
    pub fn take_reference(&mut self, x: &[f64]) -> Vec<(usize, Vec<f64>)> {
        let model = &self.model;
        let excluded = self.excluded.get_or_insert_with(|| model.rest_exclusions());
        self.fresh = true;
        reference_writes(model, excluded, self.place, x)
    }
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
#[path = "watch_tests.rs"]
mod tests;
