//! The Newton system at the current iterate; CPU twin of `shaders/kernels/assemble.wgsl`
//! (node_terms + assemble): `r = −∇E`, the node blocks `m I + c h²` (barrier +
//! friction Hessians), the springs' projected blocks and the block-Jacobi
//! preconditioner. Fixed nodes get zero rows.

// Index loops over the d components mirror the WGSL kernels line for line.
#![allow(clippy::needless_range_loop)]

use super::CpuBackend;
use crate::contact;
use crate::energy::friction::{friction_gradient, friction_hessian};
use crate::energy::inertia::inertia_hessian;
use crate::energy::spring::spring_hessian;
use crate::parallel;
use crate::pcg::invert_block;
use crate::potential::{diff, node_potential_gradient, spring_gradients, MAX_DIM};

impl CpuBackend {
    /// `∇E(x)` (N·s² / s² = kg·m) at the current iterate, with fixed nodes' rows zeroed.
    pub fn gradient(&mut self) -> Vec<f64> {
        self.assemble();
        self.r.iter().map(|r| -r).collect()
    }

    /// The block-Jacobi preconditioner at the current iterate: per node the inverse of
    /// H's `dim × dim` diagonal block, row-major, `nodes × dim²` (1/kg; 0 for fixed nodes).
    pub fn preconditioner_blocks(&mut self) -> Vec<f64> {
        self.assemble();
        self.preconditioner_blocks.clone()
    }

    /// Per-spring gradients `∂Ψ/∂x_a` and (optionally) `c h²`-scaled projected blocks.
    fn spring_pass(&mut self, with_hessian: bool) {
        let dim = self.model.dim;
        let springs = &self.model.springs;
        let x = &self.x;
        spring_gradients(&self.model, x, &mut self.spring_grad);
        if with_hessian {
            let weight = self.potential_weight;
            parallel::for_each_piece(&mut self.spring_hess, dim * dim, |s, out| {
                let sp = &springs[s];
                let mut d = [0.0; MAX_DIM];
                diff(x, sp.a, sp.b, dim, &mut d);
                spring_hessian(&d[..dim], sp.rest_length_sq, sp.stiffness, out);
                out.iter_mut().for_each(|c| *c *= weight);
            });
        }
    }

    /// `∇Ψ` of node i (N) at positions y: gravity, barrier, friction and the gathered
    /// spring gradients. Needs [`Self::spring_pass`] at the same positions.
    fn potential_gradient(&self, y: &[f64], i: usize, out: &mut [f64]) {
        let dim = self.model.dim;
        let yi = &y[i * dim..(i + 1) * dim];
        let friction = |out: &mut [f64]| {
            self.for_each_friction(i, yi, |mu, lam, n, dx| {
                friction_gradient(mu, lam, self.friction_eps, n, dx, out)
            })
        };
        let (m, adjacency) = (&self.model, self.adjacency());
        node_potential_gradient(m, adjacency, &self.spring_grad, y, i, friction, out);
    }

    /// Computes `r = −∇E`, the spring and node Hessian blocks and the block-Jacobi
    /// preconditioner at the current iterate. Fixed nodes get zero rows.
    pub(super) fn assemble(&mut self) {
        self.spring_pass(true);
        self.node_terms();
        self.assemble_self_contact();
        self.assemble_preconditioner();
    }

    /// `r` and the node blocks (twin of the `node_terms` kernel, with the springs'
    /// gradients gathered here rather than in `assemble`).
    fn node_terms(&mut self) {
        let dim = self.model.dim;
        let mut r = std::mem::take(&mut self.r);
        let mut newton_blocks = std::mem::take(&mut self.newton_blocks);
        {
            let this = &*self;
            let m = &this.model;
            let weight = this.potential_weight;
            parallel::for_each_piece(&mut r, dim, |i, out| {
                if m.fixed[i] {
                    out.iter_mut().for_each(|c| *c = 0.0);
                    return;
                }
                this.potential_gradient(&this.x, i, out);
                for k in 0..dim {
                    let inertia = m.mass[i] * (this.x[i * dim + k] - this.x_pred[i * dim + k]);
                    out[k] = -(inertia + weight * out[k]);
                }
            });
            parallel::for_each_piece(&mut newton_blocks, dim * dim, |i, out| {
                out.iter_mut().for_each(|c| *c = 0.0);
                let mi = inertia_hessian(m.mass[i]);
                for k in 0..dim {
                    out[k * dim + k] = mi;
                }
                let xi = &this.x[i * dim..(i + 1) * dim];
                contact::add_barrier_hessian(m, i, xi, weight, out);
                this.for_each_friction(i, xi, |mu, lam, n, dx| {
                    friction_hessian(mu, lam, this.friction_eps, n, dx, weight, out)
                });
            });
        }
        self.r = r;
        self.newton_blocks = newton_blocks;
    }

    /// The block-Jacobi preconditioner: each node's diagonal block of H (its Newton
    /// block plus its springs' blocks), inverted (twin of the `assemble` kernel).
    fn assemble_preconditioner(&mut self) {
        let dim = self.model.dim;
        let mut blocks = std::mem::take(&mut self.preconditioner_blocks);
        {
            let h = self.block_matrix();
            let dd = dim * dim;
            parallel::for_each_piece(&mut blocks, dd, |i, out| {
                out.iter_mut().for_each(|c| *c = 0.0);
                if h.fixed[i] {
                    return;
                }
                let mut b = [0.0; MAX_DIM * MAX_DIM];
                h.diagonal_block(i, &mut b);
                invert_block(dim, &b[..dd], out);
            });
        }
        self.preconditioner_blocks = blocks;
    }
}
