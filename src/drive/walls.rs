//! The moving walls of the drive stage: where each one is, where its script wants it
//! at the step's end, how far it moved this step (what friction's slip and the
//! script's work are measured against) and how far it lags.
//!
//! A plane wall translates: its point moves by a shift. An implicit wall moves
//! rigidly: its pose (translation and rotation about its centre) gives it a
//! [`Frame`]; a fraction α of a move interpolates the pose (linearly, the rotation
//! along its shortest arc) and the points fixed to it move by a [`Carry`].

// Index loops over the d components, as in the rest of the drive stage.
#![allow(clippy::needless_range_loop)]

use crate::backend::WallState;
use crate::energy::barrier::barrier_gradient;
use crate::implicit::{Carry, Frame, ImplicitWall};
use crate::model::Model;
use crate::script::{Pose, WallParts};
use crate::wall::PlaneWall;

/// Where a moving wall's script wants it at the step's end.
#[derive(Clone, Debug)]
pub enum Goal {
    /// A plane wall's point (m).
    Plane(Vec<f64>),
    /// An implicit wall's pose.
    Implicit(Pose),
}

/// The walls as the drive stage moved them.
#[derive(Debug)]
pub struct Walls {
    dim: usize,
    /// The plane walls, moving ones where they got to.
    pub planes: Vec<PlaneWall>,
    /// How far (m) each plane wall moved in the current step, `planes × dim`.
    pub shift: Vec<f64>,
    /// The implicit walls, each with its frame where it moved.
    pub implicit: Vec<ImplicitWall>,
    /// Each implicit wall's frame.
    pub frames: Vec<Frame>,
    /// How each implicit wall's points moved in the current step.
    pub carry: Vec<Carry>,
    /// Per moving wall (`Model::moving_walls`), the pose it got to (implicit walls).
    poses: Vec<Pose>,
}

impl Walls {
    /// The walls of `model` where the scene puts them.
    pub fn new(model: &Model) -> Self {
        Self {
            dim: model.dim,
            planes: model.walls.clone(),
            shift: vec![0.0; model.walls.len() * model.dim],
            implicit: model.implicit_walls.clone(),
            frames: vec![Frame::IDENTITY; model.implicit_walls.len()],
            carry: vec![Carry::NONE; model.implicit_walls.len()],
            poses: vec![Pose::identity(); model.moving_walls.len()],
        }
    }

    /// What the backend is told.
    pub fn state(&self) -> WallState<'_> {
        WallState {
            planes: &self.planes,
            shift: &self.shift,
            frames: &self.frames,
            carry: &self.carry,
        }
    }

    /// Each moving wall's goal at time `t` (s): where it is for a motion set from outside.
    pub fn goals(&self, model: &Model, t: f64) -> Vec<Goal> {
        let mw = model.moving_walls.iter().zip(&self.poses);
        mw.map(|(m, pose)| match &m.parts {
            WallParts::Plane(w) => Goal::Plane(
                m.origin_at(t)
                    .unwrap_or_else(|| self.planes[*w].origin.clone()),
            ),
            WallParts::Implicit(_) => Goal::Implicit(m.motion.pose(t).unwrap_or(pose.clone())),
        })
        .collect()
    }

    /// Each plane wall's whole move towards `goals` (m, `planes × dim`).
    pub fn plane_moves(&self, model: &Model, goals: &[Goal]) -> Vec<f64> {
        let dim = self.dim;
        let mut shift = vec![0.0; self.shift.len()];
        for (m, g) in model.moving_walls.iter().zip(goals) {
            if let (WallParts::Plane(w), Goal::Plane(target)) = (&m.parts, g) {
                for c in 0..dim {
                    shift[w * dim + c] = target[c] - self.planes[*w].origin[c];
                }
            }
        }
        shift
    }

    /// Per implicit wall, whether it moves on the way to `goals`.
    pub fn turning(&self, model: &Model, goals: &[Goal]) -> Vec<bool> {
        let mut out = vec![false; self.implicit.len()];
        let mw = model.moving_walls.iter().zip(goals).zip(&self.poses);
        for ((m, g), pose) in mw {
            if let (WallParts::Implicit(r), Goal::Implicit(target)) = (&m.parts, g) {
                if target != pose {
                    out[r.clone()].iter_mut().for_each(|t| *t = true);
                }
            }
        }
        out
    }

    /// The implicit walls' frames a fraction `alpha` of the way to `goals`.
    pub fn frames_at(&self, model: &Model, goals: &[Goal], alpha: f64) -> Vec<Frame> {
        let mut frames = self.frames.clone();
        let mw = model.moving_walls.iter().zip(goals).zip(&self.poses);
        for ((m, g), pose) in mw {
            if let (WallParts::Implicit(r), Goal::Implicit(target)) = (&m.parts, g) {
                let to = match alpha >= 1.0 {
                    true => target.clone(),
                    false => pose.lerp(target, alpha),
                };
                frames[r.clone()].fill(Frame::of_pose(&to, &m.origin));
            }
        }
        frames
    }

    /// Moves every wall a fraction `alpha` of the way to `goals` (all of it at 1) and
    /// records how far each moved.
    pub fn move_to(&mut self, model: &Model, goals: &[Goal], alpha: f64) {
        let dim = self.dim;
        self.shift.fill(0.0);
        let frames = self.frames_at(model, goals, alpha);
        for (k, f) in frames.iter().enumerate() {
            self.carry[k] = self.frames[k].carry_to(f);
            self.implicit[k].frame = (*f != Frame::IDENTITY).then_some(*f);
        }
        self.frames = frames;
        let mw = model.moving_walls.iter().zip(goals).zip(&mut self.poses);
        for ((m, g), pose) in mw {
            match (&m.parts, g) {
                (WallParts::Plane(w), Goal::Plane(target)) => {
                    for c in 0..dim {
                        let o = &mut self.planes[*w].origin[c];
                        let moved = match alpha >= 1.0 {
                            true => target[c] - *o,
                            false => alpha * (target[c] - *o),
                        };
                        *o += moved;
                        self.shift[w * dim + c] = moved;
                    }
                }
                (WallParts::Implicit(_), Goal::Implicit(target)) => {
                    *pose = match alpha >= 1.0 {
                        true => target.clone(),
                        false => pose.lerp(target, alpha),
                    };
                }
                _ => {}
            }
        }
    }

    /// Where the walls' moves towards `goals` would carry the free nodes at `x` that
    /// they can reach this step: adds to `p` (m, `nodes × dim`) the move of each free
    /// node within `d̂ + 2 |move|` of a moving wall, the move being that of the
    /// implicit wall's point where the node is (it rides along rigidly) or a plane
    /// wall's shift along its normal where that closes the gap. The solve starts from
    /// there, so a wall that moves faster than its gap per step pushes what it
    /// meets instead of stopping short of it; the stage's bound covers these moves
    /// as it covers the driven nodes'. Returns whether any node moves.
    /// `shift` and `turning` are [`Walls::plane_moves`] and [`Walls::turning`] of `goals`.
    pub fn carry_nodes(
        &self,
        model: &Model,
        goals: &[Goal],
        (shift, turning): (&[f64], &[bool]),
        x: &[f64],
        p: &mut [f64],
    ) -> bool {
        let (dim, dhat) = (self.dim, model.barrier.dhat);
        let to = self.frames_at(model, goals, 1.0);
        let carries: Vec<(usize, Carry)> = (0..self.implicit.len())
            .filter(|&k| turning[k])
            .map(|k| (k, self.frames[k].carry_to(&to[k])))
            .collect();
        let mut any = false;
        let norm = |v: &[f64]| v.iter().map(|c| c * c).sum::<f64>().sqrt();
        for (i, xi) in x.chunks_exact(dim).enumerate() {
            if model.fixed[i] {
                continue;
            }
            let mut best: Option<(f64, [f64; 3])> = None;
            for (k, c) in &carries {
                let mut m = [0.0; 3];
                c.at(xi, &mut m[..dim]);
                let d = self.implicit[*k].distance(xi);
                if d < dhat + 2.0 * norm(&m[..dim]) && best.is_none_or(|b| d < b.0) {
                    best = Some((d, m));
                }
            }
            for (w, wall) in self.planes.iter().enumerate() {
                let s = &shift[w * dim..(w + 1) * dim];
                let closing: f64 = (0..dim).map(|c| wall.normal[c] * s[c]).sum();
                let d = wall.distance(xi);
                if closing > 0.0 && d < dhat + 2.0 * closing && best.is_none_or(|b| d < b.0) {
                    let mut m = [0.0; 3];
                    for c in 0..dim {
                        m[c] = closing * wall.normal[c];
                    }
                    best = Some((d, m));
                }
            }
            if let Some((_, m)) = best {
                for c in 0..dim {
                    p[i * dim + c] += m[c];
                }
                any = true;
            }
        }
        any
    }

    /// A step in which nothing moves: no shift, no carry.
    pub fn stay(&mut self) {
        self.shift.fill(0.0);
        self.carry.fill(Carry::NONE);
    }

    /// Each moving wall's lag (m) behind `goals`: a plane wall's distance from its
    /// target point; an implicit wall's largest move, over the nodes at `x`, that
    /// would still take its points there.
    pub fn lags(&self, model: &Model, goals: &[Goal], x: &[f64]) -> Vec<f64> {
        let dim = self.dim;
        let mw = model.moving_walls.iter().zip(goals).zip(&self.poses);
        mw.map(|((m, g), pose)| match (&m.parts, g) {
            (WallParts::Plane(w), Goal::Plane(target)) => {
                let o = &self.planes[*w].origin;
                o.iter()
                    .zip(target)
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum::<f64>()
                    .sqrt()
            }
            (WallParts::Implicit(_), Goal::Implicit(target)) if target == pose => 0.0,
            (WallParts::Implicit(r), Goal::Implicit(target)) => {
                let to = Frame::of_pose(target, &m.origin);
                let c = self.frames[r.start].carry_to(&to);
                let mut d = [0.0; 3];
                x.chunks_exact(dim)
                    .map(|xi| {
                        c.at(xi, &mut d[..dim]);
                        d[..dim].iter().map(|v| v * v).sum::<f64>().sqrt()
                    })
                    .fold(0.0, f64::max)
            }
            _ => 0.0,
        })
        .collect()
    }

    /// Each moving wall's work (J) this step on the nodes at `x` (the step's end):
    /// the barrier force on each node near it, `−b′(d) ∇d`, times how far the wall's
    /// point there moved ([`Carry::through`] for an implicit wall).
    pub fn works(&self, model: &Model, x: &[f64]) -> Vec<f64> {
        let (dim, b) = (self.dim, &model.barrier);
        let force = |i: usize, d: f64| -barrier_gradient(b, model.contact_area[i], d);
        model
            .moving_walls
            .iter()
            .map(|m| match &m.parts {
                WallParts::Plane(w) => {
                    let wall = &self.planes[*w];
                    let moved: f64 = (0..dim)
                        .map(|c| wall.normal[c] * self.shift[w * dim + c])
                        .sum();
                    if moved == 0.0 {
                        return 0.0;
                    }
                    let push: f64 = (0..model.num_nodes())
                        .map(|i| force(i, wall.distance(&x[i * dim..(i + 1) * dim])))
                        .sum();
                    push * moved
                }
                WallParts::Implicit(r) => {
                    let mut work = 0.0;
                    for k in r.clone() {
                        if self.carry[k] == Carry::NONE {
                            continue;
                        }
                        let wall = &self.implicit[k];
                        for (i, xi) in x.chunks_exact(dim).enumerate() {
                            let d = wall.distance(xi);
                            if d <= 0.0 || d >= b.dhat {
                                continue;
                            }
                            let g = wall.dual(xi).g;
                            let mut moved = [0.0; 3];
                            self.carry[k].through(xi, &mut moved[..dim]);
                            let along: f64 = (0..dim).map(|c| g[c] * moved[c]).sum();
                            work += force(i, d) * along;
                        }
                    }
                    work
                }
            })
            .collect()
    }
}
