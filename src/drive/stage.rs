//! The drive stage of one step and its bookkeeping after the solve.

use super::friction::WallFriction;
use super::{bound, DriveStep, Driver};
use crate::backend::Backend;
use crate::integrator;
use crate::model::Model;

impl Driver {
    /// Moves the driven nodes towards their targets at `t_next` (s, the step's end),
    /// as far as CCD allows, on `backend` (which has begun the step). Returns the
    /// largest lag (m) of any driven node from its target.
    pub fn before_solve(
        &mut self,
        model: &Model,
        backend: &mut dyn Backend,
        t_next: f64,
    ) -> Result<f64, String> {
        let dim = self.dim;
        let s = &model.solver;
        let mut x = match self.x.take() {
            Some(x) => x,
            None => backend.positions(),
        };
        for (k, &i) in self.nodes.iter().enumerate() {
            for c in 0..dim {
                let (e, n) = (k * dim + c, i as usize * dim + c);
                self.xn[e] = x[n];
                self.pred[e] = integrator::predict(s.integrator, s.dt, x[n], self.v[e], self.a[e]);
            }
        }
        let mut buf = vec![];
        for drive in &model.drives {
            buf.resize(drive.rest.len(), 0.0);
            if drive.targets(dim, t_next, &mut buf) {
                for (j, i) in drive.nodes.iter().enumerate() {
                    let k = self.entry[i];
                    self.targets[k * dim..(k + 1) * dim]
                        .copy_from_slice(&buf[j * dim..(j + 1) * dim]);
                }
            }
        }
        for (i, t) in &self.external {
            let k = self.entry[i];
            self.targets[k * dim..(k + 1) * dim].copy_from_slice(t);
        }
        let start = x.clone();
        let mut p = vec![0.0; x.len()];
        let mut moving = false;
        for (k, &i) in self.nodes.iter().enumerate() {
            for c in 0..dim {
                let d = self.targets[k * dim + c] - x[i as usize * dim + c];
                p[i as usize * dim + c] = d;
                moving |= d != 0.0;
            }
        }
        let mut nodes_move = moving;
        // Each moving wall's move towards where its script puts it at t_next.
        let goals = self.walls.goals(model, t_next);
        if model.friction.any() && !model.moving_walls.is_empty() {
            self.wall_friction = WallFriction::lag(model, &self.walls, &x);
        }
        let shift = self.walls.plane_moves(model, &goals);
        let turning = self.walls.turning(model, &goals);
        moving |= shift.iter().any(|c| *c != 0.0) || turning.contains(&true);
        if moving && !model.moving_walls.is_empty() {
            nodes_move |= self
                .walls
                .carry_nodes(model, &goals, (&shift, &turning), &x, &mut p);
        }
        if moving {
            let walls = bound::Walls {
                planes: &self.walls.planes,
                shift: &shift,
                implicit: &self.walls.implicit,
                turning: &turning,
            };
            let excluded = self.reactions.excluded();
            let mut alpha = bound::move_bound(model, walls, &x, &p, &self.nodes, excluded);
            if turning.contains(&true) {
                alpha = bound::turn_bound(&self.walls, model, (&goals, &turning), &x, &p, alpha);
            }
            let fraction = alpha.min(1.0);
            for (xn, pn) in x.iter_mut().zip(&p) {
                *xn += fraction * pn;
            }
            if alpha >= 1.0 {
                for (k, &i) in self.nodes.iter().enumerate() {
                    let n = i as usize * dim;
                    x[n..n + dim].copy_from_slice(&self.targets[k * dim..(k + 1) * dim]);
                }
            }
            self.walls.move_to(model, &goals, alpha);
            if nodes_move {
                backend.set_iterate(&start, &x)?;
            }
        } else {
            self.walls.stay();
        }
        self.wall_friction.moved(model, &self.walls);
        if !model.moving_walls.is_empty() {
            // Every step: a wall that stopped must not leave last step's move.
            backend.set_walls(&self.walls.state())?;
        }
        self.lags.iter_mut().for_each(|l| *l = 0.0);
        for (k, &i) in self.nodes.iter().enumerate() {
            let r = i as usize * dim..(i as usize + 1) * dim;
            let t = &self.targets[k * dim..(k + 1) * dim];
            let d2: f64 = x[r].iter().zip(t).map(|(a, b)| (a - b) * (a - b)).sum();
            let set = self.set_of[k];
            self.lags[set] = self.lags[set].max(d2.sqrt());
        }
        let wall_lags = self.walls.lags(model, &goals, &x);
        for (&set, lag) in self.wall_sets.iter().zip(wall_lags) {
            self.lags[set] = lag;
        }
        Ok(self.lags.iter().copied().fold(0.0, f64::max))
    }

    /// After step `step`'s solve on `backend`: reads the positions (once; the next
    /// drive stage starts from them), measures each script's work and updates the
    /// driven nodes' velocities and accelerations as the integrator does.
    pub fn after_solve(
        &mut self,
        model: &Model,
        backend: &mut dyn Backend,
        step: u64,
    ) -> DriveStep {
        let dim = self.dim;
        let s = &model.solver;
        let x = backend.positions();
        let f = self.reactions.forces(model, &x, &self.nodes, &self.pred);
        let mut works = vec![0.0; self.summaries.len()];
        for (k, &i) in self.nodes.iter().enumerate() {
            for c in 0..dim {
                let (e, n) = (k * dim + c, i as usize * dim + c);
                works[self.set_of[k]] += f[e] * (x[n] - self.xn[e]);
                let (v, a) = integrator::update(
                    s.integrator,
                    s.dt,
                    self.xn[e],
                    x[n],
                    self.pred[e],
                    self.v[e],
                    self.a[e],
                );
                self.v[e] = v;
                self.a[e] = a;
            }
        }
        // A moving wall's work: what its barriers resist its move with, and what its
        // friction drags the nodes with.
        let barriers = self.walls.works(model, &x);
        let friction = self.wall_friction.works(model, &x);
        for ((&set, b), f) in self.wall_sets.iter().zip(barriers).zip(friction) {
            works[set] += b + f;
        }
        for ((sum, &lag), w) in self.summaries.iter_mut().zip(&self.lags).zip(&works) {
            sum.work += w;
            sum.final_lag = lag;
            if lag > sum.max_lag {
                sum.max_lag = lag;
                sum.max_lag_step = step;
            }
            if lag > self.lag_tolerance {
                sum.lagged_steps += 1;
                sum.first_lagged_step.get_or_insert(step);
            }
        }
        self.x = Some(x);
        DriveStep {
            lag: self.lags.iter().copied().fold(0.0, f64::max),
            work: works.iter().sum(),
        }
    }

    /// The positions (m) read after the last step's solve, where they were read.
    pub fn positions(&self) -> Option<&[f64]> {
        self.x.as_deref()
    }
}
