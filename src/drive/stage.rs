//! The drive stage of one step and its bookkeeping after the solve.

use super::{bound, DriveStep, Driver};
use crate::backend::Backend;
use crate::energy::barrier::barrier_gradient;
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
        let nodes_move = moving;
        // Each moving wall's move towards its point at t_next.
        let mut shift = vec![0.0; self.planes.len() * dim];
        let mut wall_targets = Vec::with_capacity(model.moving_walls.len());
        for mw in &model.moving_walls {
            let o = &self.planes[mw.wall].origin;
            let target = mw.origin_at(t_next).unwrap_or_else(|| o.clone());
            for c in 0..dim {
                shift[mw.wall * dim + c] = target[c] - o[c];
                moving |= target[c] != o[c];
            }
            wall_targets.push(target);
        }
        self.step_shift.iter_mut().for_each(|c| *c = 0.0);
        if moving {
            let planes = bound::Planes {
                walls: &self.planes,
                shift: &shift,
            };
            let excluded = self.reactions.excluded();
            let alpha = bound::move_bound(model, planes, &x, &p, &self.nodes, excluded);
            for (k, &i) in self.nodes.iter().enumerate() {
                for c in 0..dim {
                    let n = i as usize * dim + c;
                    x[n] = match alpha >= 1.0 {
                        true => self.targets[k * dim + c],
                        false => x[n] + alpha * p[n],
                    };
                }
            }
            for (mw, target) in model.moving_walls.iter().zip(&wall_targets) {
                for c in 0..dim {
                    let o = &mut self.planes[mw.wall].origin[c];
                    let moved = match alpha >= 1.0 {
                        true => target[c] - *o,
                        false => alpha * shift[mw.wall * dim + c],
                    };
                    *o += moved;
                    self.step_shift[mw.wall * dim + c] = moved;
                }
            }
            if nodes_move {
                backend.set_iterate(&start, &x)?;
            }
        }
        if !model.moving_walls.is_empty() {
            // Every step: a wall that stopped must not leave last step's shift.
            backend.set_walls(&self.planes, &self.step_shift)?;
        }
        self.lags.iter_mut().for_each(|l| *l = 0.0);
        for (k, &i) in self.nodes.iter().enumerate() {
            let r = i as usize * dim..(i as usize + 1) * dim;
            let t = &self.targets[k * dim..(k + 1) * dim];
            let d2: f64 = x[r].iter().zip(t).map(|(a, b)| (a - b) * (a - b)).sum();
            let set = self.set_of[k];
            self.lags[set] = self.lags[set].max(d2.sqrt());
        }
        for ((mw, target), &set) in model
            .moving_walls
            .iter()
            .zip(&wall_targets)
            .zip(&self.wall_sets)
        {
            let o = &self.planes[mw.wall].origin;
            let d2: f64 = o.iter().zip(target).map(|(a, b)| (a - b) * (a - b)).sum();
            self.lags[set] = d2.sqrt();
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
        // A moving wall's work: what its barriers resist its move with,
        // Σ_i −b′(d_i) n·Δo, at the step's end.
        for (mw, &set) in model.moving_walls.iter().zip(&self.wall_sets) {
            let wall = &self.planes[mw.wall];
            let moved: f64 = (0..dim)
                .map(|c| wall.normal[c] * self.step_shift[mw.wall * dim + c])
                .sum();
            if moved != 0.0 {
                let push: f64 = (0..model.num_nodes())
                    .map(|i| {
                        let d = wall.distance(&x[i * dim..(i + 1) * dim]);
                        -barrier_gradient(&model.barrier, model.contact_area[i], d)
                    })
                    .sum();
                works[set] += push * moved;
            }
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
