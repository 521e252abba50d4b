//! Per-node statistics of a Newton direction; CPU twin of
//! `shaders/kernels/direction_stats.wgsl`: the stopping measure max_i Σ_k |p_ik|, the
//! rounding-resolution checks and the CCD step bound over every wall.

use super::CpuBackend;
use crate::contact;
use crate::newton::Direction;
use crate::parallel;
use crate::pcg::PcgResult;

impl CpuBackend {
    /// The [`Direction`] summary of the current `p` after a solve that ended in `res`.
    pub(super) fn direction_stats(&self, res: PcgResult) -> Direction {
        let dim = self.model.dim;
        let (x, p) = (&self.x, &self.p);
        let within_ulps = |ulps: f64| {
            (0..self.model.num_nodes()).all(|i| {
                let xi = &x[i * dim..(i + 1) * dim];
                let scale = xi.iter().fold(0.0f64, |m, c| m.max(c.abs()));
                p[i * dim..(i + 1) * dim]
                    .iter()
                    .all(|c| c.abs() <= ulps * f64::EPSILON * scale)
            })
        };
        let below_resolution = within_ulps(1.0);
        let near_resolution = within_ulps(crate::newton::NEAR_RESOLUTION_ULPS);
        Direction {
            norm: self.direction_norm(),
            cg_iterations: res.iterations,
            cg_converged: res.converged,
            below_resolution,
            near_resolution,
            cg_tolerance: self.model.solver.cg_tolerance,
            rhs_norm: 0.0,
            error_bound: f64::INFINITY,
        }
    }

    /// The Newton stopping measure of the current `p`: `max_i Σ_k |p_ik|` (m).
    pub(super) fn direction_norm(&self) -> f64 {
        let dim = self.model.dim;
        let norm = parallel::min(self.model.num_nodes(), |i| {
            -self.p[i * dim..(i + 1) * dim]
                .iter()
                .map(|c| c.abs())
                .sum::<f64>()
        });
        -norm.min(0.0)
    }

    /// The largest step fraction α ≤ 1 along `p` that keeps every node clear of every
    /// wall and every contact pair apart: the minimum of the per-node
    /// [`contact::ccd_bound`] and the pairs' additive CCD bounds.
    pub(super) fn ccd_bound_all(&mut self) -> f64 {
        self.self_contact_ccd_bound().min(self.wall_ccd_bound())
    }

    /// The walls' part of [`Self::ccd_bound_all`].
    fn wall_ccd_bound(&self) -> f64 {
        let m = &self.model;
        let dim = m.dim;
        let (x, p) = (&self.x, &self.p);
        parallel::min(m.num_nodes(), |i| {
            let xi = &x[i * dim..(i + 1) * dim];
            let pi = &p[i * dim..(i + 1) * dim];
            contact::ccd_bound(m, xi, pi)
        })
        .min(1.0)
    }
}
