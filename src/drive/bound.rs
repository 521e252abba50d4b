//! How far the drive stage may move the driven nodes: the same continuous collision
//! detection as the Newton line search's, over the driven nodes' move alone, with a
//! floor under each gap. Pushed into something that cannot give way (a fixed block),
//! the line search's bound alone would let the gap shrink tenfold at every step, to
//! nothing in a few hundred steps; the drive keeps [`MIN_GAP_DHAT`] d̂ (or half the
//! gap, where a pair starts closer).

use crate::backend::cpu::{CCD_KEEP, CCD_MAX_ITERATIONS};
use crate::collision::ccd::{additive_ccd, CcdParams};
use crate::collision::near::stacked_distance_sq;
use crate::collision::pairs::{candidates, stacked, Motion, Pair};
use crate::contact::{self, Wall};
use crate::model::Model;
use crate::parallel;
use crate::wall::plane_ccd_bound;

/// The gap (in d̂) the drive stage leaves between a driven node and a plane wall or
/// between two primitives, where they start farther apart.
pub const MIN_GAP_DHAT: f64 = 1e-3;

/// The separation (m) a gap of `d` (m) keeps: [`MIN_GAP_DHAT`] `dhat`, or half of a
/// gap that starts smaller.
fn floor(d: f64, dhat: f64) -> f64 {
    let min = MIN_GAP_DHAT * dhat;
    if d > min {
        min
    } else {
        0.5 * d.max(0.0)
    }
}

/// The largest fraction α ∈ [0, 1] of the move `p` (m, `nodes × dim`, zero but at the
/// driven `nodes`) from `x` (m) that keeps every driven node clear of every wall and
/// every pair of collision primitives apart: the walls' CCD bound per driven node and
/// additive CCD over the swept broad phase (pairs not in `excluded`), each with the
/// safety of the Newton line search's bound and the gaps' floors ([`floor`]; an
/// implicit wall's measure W is not a distance, and it keeps the line search's bound).
pub fn move_bound(model: &Model, x: &[f64], p: &[f64], nodes: &[u32], excluded: &[Pair]) -> f64 {
    let (dim, dhat) = (model.dim, model.barrier.dhat);
    let walls = nodes
        .iter()
        .flat_map(|&i| {
            let r = i as usize * dim..(i as usize + 1) * dim;
            let (xi, pi) = (&x[r.clone()], &p[r]);
            contact::walls(model).map(move |w| match w {
                Wall::Plane(w) => {
                    let d = w.distance(xi);
                    plane_ccd_bound(&w.normal, d - floor(d, dhat), pi)
                }
                Wall::Implicit(w) => w.ccd_bound(xi, pi),
            })
        })
        .fold(1.0, f64::min);
    let mesh = &model.collision;
    if !model.self_contact.enabled || mesh.is_empty() {
        return walls;
    }
    let sweep = Motion {
        x,
        sweep: Some((p, 1.0)),
    };
    let list = candidates(mesh, sweep, model.barrier.dhat, excluded);
    let pairs = parallel::min(list.len(), |c| {
        let pair = list[c];
        let (_, k, q) = stacked(mesh, p, pair);
        if q[..k * dim].iter().all(|&c| c == 0.0) {
            return 1.0;
        }
        let (_, _, s) = stacked(mesh, x, pair);
        let d = stacked_distance_sq(pair.kind, dim, &s).sqrt();
        let params = CcdParams {
            min_separation: floor(d, dhat),
            keep: CCD_KEEP,
            t_max: 1.0,
            max_iterations: CCD_MAX_ITERATIONS,
        };
        additive_ccd(pair.kind, dim, &s[..k * dim], &q[..k * dim], &params)
    });
    walls.min(pairs).clamp(0.0, 1.0)
}
