//! How far the drive stage may move the driven nodes and the moving plane walls: the
//! same continuous collision detection as the Newton line search's, over their move
//! alone, with a floor under each gap. Pushed into something that cannot give way (a
//! fixed block), the line search's bound alone would let the gap shrink tenfold at
//! every step, to nothing in a few hundred steps; the drive keeps [`MIN_GAP_DHAT`] d̂
//! (or half the gap, where one starts below half of that).

use super::walls::Goal;
use crate::backend::cpu::{CCD_KEEP, CCD_MAX_ITERATIONS};
use crate::collision::ccd::{additive_ccd, CcdParams};
use crate::collision::near::stacked_distance_sq;
use crate::collision::pairs::{candidates, stacked, Motion, Pair};
use crate::implicit::ImplicitWall;
use crate::model::Model;
use crate::parallel;
use crate::wall::{plane_ccd_bound, PlaneWall};

/// Halvings of the fraction before [`turn_bound`] gives up (and moves nothing).
pub const TURN_HALVINGS: u32 = 40;

/// The gap (in d̂) the drive stage leaves between a driven node and a plane wall or
/// between two primitives, where they start farther apart.
pub const MIN_GAP_DHAT: f64 = 1e-3;

/// The separation (m) a gap of `d` (m) keeps: [`MIN_GAP_DHAT`] `dhat` (so a gap at
/// the floor, or a rounding below it, does not close further), or half of a gap that
/// starts below half the floor.
fn floor(d: f64, dhat: f64) -> f64 {
    let min = MIN_GAP_DHAT * dhat;
    if d > 0.5 * min {
        min
    } else {
        0.5 * d.max(0.0)
    }
}

/// The walls where the drive stage finds them: the plane walls as they are now
/// (moving ones where they got to) and each one's move this step (m, `walls × dim`,
/// zero for a wall that stays), the implicit walls as they are now and which of
/// them move this step (those [`turn_bound`] checks).
pub struct Walls<'a> {
    /// The plane walls, in the model's order.
    pub planes: &'a [PlaneWall],
    /// Each one's move.
    pub shift: &'a [f64],
    /// The implicit walls, in the model's order, with their frames.
    pub implicit: &'a [ImplicitWall],
    /// Per implicit wall, whether it moves this step.
    pub turning: &'a [bool],
}

/// The largest fraction α ∈ [0, 1] of the move `p` (m, `nodes × dim`, zero but at the
/// driven `nodes`) from `x` (m), with the plane walls moving by α times their shift,
/// that keeps every node clear of every wall and every pair of collision primitives
/// apart: the walls' CCD bound per node along its motion relative to each wall (every
/// node where a wall moves, else the driven ones) and additive CCD over the swept
/// broad phase (pairs not in `excluded`), each with the safety of the Newton line
/// search's bound and the gaps' floors ([`floor`]; an implicit wall's measure W is
/// not a distance, and it keeps the line search's bound). Implicit walls that move
/// this step are left to [`turn_bound`].
pub fn move_bound(
    model: &Model,
    planes: Walls<'_>,
    x: &[f64],
    p: &[f64],
    nodes: &[u32],
    excluded: &[Pair],
) -> f64 {
    let (dim, dhat) = (model.dim, model.barrier.dhat);
    // Where a wall moves, free nodes may move too (carried along by it).
    let walls_move = planes.shift.iter().any(|c| *c != 0.0) || planes.turning.contains(&true);
    let node_bound = |i: usize| {
        let r = i * dim..(i + 1) * dim;
        let (xi, pi) = (&x[r.clone()], &p[r]);
        let mut bound = 1.0f64;
        for (w, wall) in planes.planes.iter().enumerate() {
            let mut rel = [0.0; 3];
            for k in 0..dim {
                rel[k] = pi[k] - planes.shift[w * dim + k];
            }
            let d = wall.distance(xi);
            bound = bound.min(plane_ccd_bound(
                &wall.normal,
                d - floor(d, dhat),
                &rel[..dim],
            ));
        }
        for (wall, _) in planes.implicit.iter().zip(planes.turning).filter(|w| !w.1) {
            bound = bound.min(wall.ccd_bound(xi, pi));
        }
        bound
    };
    let walls = match walls_move {
        true => parallel::min(model.num_nodes(), node_bound),
        false => nodes
            .iter()
            .map(|&i| node_bound(i as usize))
            .fold(1.0, f64::min),
    }
    .min(1.0);
    let mesh = &model.collision;
    if !model.self_contact.enabled || mesh.is_empty() || !p.iter().any(|c| *c != 0.0) {
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

/// The largest fraction α ≤ `alpha` (halving from it) of the move that keeps every
/// node clear of every implicit wall that moves this step: each node goes from `x` to
/// `x + α p` while the walls go from where they are to α of the way to `goals`, and
/// [`ImplicitWall::path_clear`] checks the straight path between the node's two
/// points as each wall sees them (a continuous motion with the step's end points, the
/// one the stage certifies; the line search's 0.1 W floor holds on it). 0 after
/// [`TURN_HALVINGS`] halvings. `turning` is [`super::walls::Walls::turning`] of `goals`.
pub fn turn_bound(
    walls: &super::walls::Walls,
    model: &Model,
    (goals, turning): (&[Goal], &[bool]),
    x: &[f64],
    p: &[f64],
    alpha: f64,
) -> f64 {
    let dim = model.dim;
    let moving: Vec<usize> = (0..walls.implicit.len()).filter(|&k| turning[k]).collect();
    let mut alpha = alpha;
    for _ in 0..=TURN_HALVINGS {
        let to = walls.frames_at(model, goals, alpha);
        let clear = parallel::min(model.num_nodes(), |i| {
            let r = i * dim..(i + 1) * dim;
            let x0 = &x[r.clone()];
            let mut x1 = [0.0; 3];
            for c in 0..dim {
                x1[c] = x0[c] + alpha * p[i * dim + c];
            }
            let ok = moving
                .iter()
                .all(|&k| walls.implicit[k].path_clear(&walls.frames[k], x0, &to[k], &x1[..dim]));
            if ok {
                1.0
            } else {
                0.0
            }
        });
        if clear >= 1.0 {
            return alpha;
        }
        alpha *= 0.5;
    }
    0.0
}
