//! Lagged friction contacts and friction statistics; CPU twin of
//! `shaders/kernels/friction.wgsl` (friction_lag_start, friction_lag_update,
//! friction_stats) and of `shaders/node_friction.wgsl` (the per-node loop over the
//! lagged contacts). The contacts themselves come from [`crate::contact::friction_lag`].

// Index loops over the d components mirror the WGSL kernels line for line.
#![allow(clippy::needless_range_loop)]

use super::CpuBackend;
use crate::contact;
use crate::energy::friction::tangent_displacement;
use crate::potential::MAX_DIM;

impl CpuBackend {
    /// Calls `f(μ, λ, n, x_i − xⁿ_i)` for every wall node `i` has lagged friction with.
    #[inline]
    pub(super) fn for_each_friction(
        &self,
        i: usize,
        yi: &[f64],
        mut f: impl FnMut(f64, f64, &[f64], &[f64]),
    ) {
        let nw = self.friction_slots;
        if nw == 0 {
            return;
        }
        let dim = self.model.dim;
        let planes = self.model.walls.len();
        let mut dx = [0.0; MAX_DIM];
        for k in 0..dim {
            dx[k] = yi[k] - self.xn[i * dim + k];
        }
        for w in 0..nw {
            let lam = self.friction_lambda[i * nw + w];
            let mu = self.model.friction.mu(w, planes);
            if lam > 0.0 && mu > 0.0 {
                let n = &self.friction_normal[(i * nw + w) * dim..(i * nw + w + 1) * dim];
                // The slip against a wall that moved is relative to it.
                let mut slip = dx;
                if w < planes {
                    for k in 0..dim {
                        slip[k] -= self.wall_shift[w * dim + k];
                    }
                } else if let Some(c) = self.implicit_carry.get(w - planes) {
                    let mut moved = [0.0; MAX_DIM];
                    c.at(&self.xn[i * dim..(i + 1) * dim], &mut moved[..dim]);
                    for k in 0..dim {
                        slip[k] -= moved[k];
                    }
                }
                f(mu, lam, n, &slip[..dim]);
            }
        }
    }

    /// Lagged λ (N) and unit normals of every node's wall contacts at `xⁿ` (or at
    /// the current iterate `x` with `at_current`), by [`contact::friction_lag`].
    pub(super) fn compute_friction_lag(&mut self, at_current: bool) {
        let nw = self.friction_slots;
        if nw == 0 {
            return;
        }
        let m = &self.model;
        let dim = m.dim;
        let xn = if at_current { &self.x } else { &self.xn };
        let mut lam = std::mem::take(&mut self.friction_lambda);
        let mut nrm = std::mem::take(&mut self.friction_normal);
        for i in 0..m.num_nodes() {
            let xi = &xn[i * dim..(i + 1) * dim];
            let lam_i = &mut lam[i * nw..(i + 1) * nw];
            let nrm_i = &mut nrm[i * nw * dim..(i + 1) * nw * dim];
            contact::friction_lag(m, i, xi, lam_i, nrm_i);
        }
        self.friction_lambda = lam;
        self.friction_normal = nrm;
    }

    /// Recomputes λ and the normals at the current iterate (friction_lag_update);
    /// returns the largest change of λ (N).
    pub(super) fn friction_lag_update(&mut self) -> f64 {
        let before = self.friction_lambda.clone();
        self.compute_friction_lag(true);
        let walls = before
            .iter()
            .zip(&self.friction_lambda)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        walls.max(self.lag_self_friction())
    }

    /// Friction statistics of the last step: (sticking, sliding, dissipation (J)).
    pub(super) fn friction_stats(&self) -> (u64, u64, f64) {
        let m = &self.model;
        let dim = m.dim;
        let (mut stick, mut slide, mut diss) = self.self_friction_stats();
        for i in 0..m.num_nodes() {
            self.for_each_friction(i, &self.x[i * dim..(i + 1) * dim], |mu, lam, n, dx| {
                let mut u = [0.0; MAX_DIM];
                tangent_displacement(n, dx, &mut u[..dim]);
                let y = u[..dim].iter().map(|c| c * c).sum::<f64>().sqrt();
                if y < self.friction_eps {
                    stick += 1;
                } else {
                    slide += 1;
                }
                diss += mu * lam * y;
            });
        }
        (stick, slide, diss)
    }

    /// Lagged friction normal forces λ (N), `nodes × walls` (plane walls, then
    /// implicit); empty when no wall has friction.
    pub fn friction_lambda(&self) -> &[f64] {
        &self.friction_lambda
    }

    /// Recomputes the lagged λ and normals at `xⁿ` (what [`Backend::begin_step`]
    /// does); for tests that probe the friction energy.
    ///
    /// [`Backend::begin_step`]: crate::backend::Backend::begin_step
    pub fn set_step_start(&mut self, xn: &[f64]) {
        self.xn.copy_from_slice(xn);
        self.compute_friction_lag(false);
    }
}
