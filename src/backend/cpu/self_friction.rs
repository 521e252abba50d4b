//! Friction on contacts between and within bodies on the CPU (f64), lagged at the
//! step start like the walls': per active pair λ = −m b′(d) (m the edge–edge
//! mollifier, 1 otherwise), the closest-point coefficients β and the contact normal;
//! `D = μ λ f0(|T Σ β_l (x_l − xⁿ_l)|)` with `μ = contact.self_friction`, whose
//! Hessian `β βᵀ ⊗ F` is PSD wherever the wall friction's `F` is.

// Index loops over the d components mirror the WGSL kernels line for line.
#![allow(clippy::needless_range_loop)]

use super::CpuBackend;
use crate::collision::barrier::{mollifier_value, pair_weight};
use crate::collision::closest_coefficients;
use crate::collision::pairs::{stacked_distance_sq, Pair};
use crate::collision::PairBlocks;
use crate::energy::friction::{
    friction_gradient, friction_hessian, friction_value, tangent_displacement,
};

/// One lagged friction contact between two primitives.
#[derive(Clone, Debug)]
pub(super) struct FrictionPair {
    nodes: [u32; 4],
    k: usize,
    /// Closest-point coefficients: `Σ β_l x_l` is the contact vector.
    beta: [f64; 4],
    /// Unit contact normal at the lag point.
    normal: [f64; 3],
    /// Lagged normal force (N).
    lambda: f64,
    pair: Pair,
}

impl CpuBackend {
    /// Lags the self-contact friction at `x` (the step start, or the current iterate
    /// for a lagging update): λ, β and the normal of every active pair. Returns the
    /// largest change of λ against the previous lag (N), matched by pair.
    pub(super) fn lag_self_friction(&mut self) -> f64 {
        let mu = self.model.self_contact.friction;
        if !self.self_contact_on() || mu <= 0.0 {
            return 0.0;
        }
        self.refresh_near_pairs();
        let m = &self.model;
        let dim = m.dim;
        let lagged = self.map_candidates(&self.x, |pair, nodes, s| {
            let (nodes, k, s) = (*nodes, pair.kind.node_count(), *s);
            let dsq = stacked_distance_sq(pair.kind, dim, &s);
            if dsq >= m.barrier.dhat * m.barrier.dhat || dsq <= 0.0 {
                return None;
            }
            let d = dsq.sqrt();
            let w = pair_weight(pair.kind, &nodes, &m.contact_area);
            let moll = mollifier_value(pair.kind, &s, self.eps_x(pair));
            let lambda = -moll * crate::energy::barrier::barrier_gradient(&m.barrier, w, d);
            let beta = closest_coefficients(pair.kind, dim, &s);
            let mut normal = [0.0; 3];
            for (l, b) in beta[..k].iter().enumerate() {
                for c in 0..dim {
                    normal[c] += b * s[l * dim + c];
                }
            }
            let len = normal[..dim].iter().map(|c| c * c).sum::<f64>().sqrt();
            if !(len > 0.0 && lambda > 0.0) {
                return None;
            }
            normal[..dim].iter_mut().for_each(|c| *c /= len);
            Some(FrictionPair {
                nodes,
                k,
                beta,
                normal,
                lambda,
                pair,
            })
        });
        let fresh: Vec<FrictionPair> = lagged.into_iter().flatten().collect();
        let old = std::mem::replace(&mut self.contact.friction, fresh);
        // Largest λ change, pairs matched by identity (a new or lost pair counts whole).
        let (mut i, mut j, mut change) = (0, 0, 0.0f64);
        let new = &self.contact.friction;
        while i < old.len() || j < new.len() {
            match (old.get(i), new.get(j)) {
                (Some(a), Some(b)) if a.pair == b.pair => {
                    change = change.max((a.lambda - b.lambda).abs());
                    i += 1;
                    j += 1;
                }
                (Some(a), Some(b)) if a.pair < b.pair => {
                    change = change.max(a.lambda);
                    i += 1;
                }
                (Some(a), None) => {
                    change = change.max(a.lambda);
                    i += 1;
                }
                (_, Some(b)) => {
                    change = change.max(b.lambda);
                    j += 1;
                }
                (None, None) => break,
            }
        }
        change
    }

    /// The relative step displacement `Σ β_l (y_l − xⁿ_l)` of a friction pair (m).
    #[inline]
    fn relative_slip(&self, f: &FrictionPair, y: &[f64], out: &mut [f64; 3]) {
        let dim = self.model.dim;
        *out = [0.0; 3];
        for (l, &i) in f.nodes[..f.k].iter().enumerate() {
            for c in 0..dim {
                let i = i as usize * dim + c;
                out[c] += f.beta[l] * (y[i] - self.xn[i]);
            }
        }
    }

    /// Self-contact friction energy (J) at `y`.
    pub(super) fn self_friction_energy(&self, y: &[f64]) -> f64 {
        let (mu, dim) = (self.model.self_contact.friction, self.model.dim);
        let mut e = 0.0;
        for f in &self.contact.friction {
            let mut u = [0.0; 3];
            self.relative_slip(f, y, &mut u);
            e += friction_value(mu, f.lambda, self.friction_eps, &f.normal[..dim], &u[..dim]);
        }
        e
    }

    /// Adds the self-contact friction's weighted gradients to `r` and its blocks
    /// `β βᵀ ⊗ F` to the node and pair blocks.
    pub(super) fn add_friction_blocks(&mut self, blocks: &mut PairBlocks) {
        let (mu, dim) = (self.model.self_contact.friction, self.model.dim);
        if self.contact.friction.is_empty() {
            return;
        }
        let weight = self.potential_weight;
        let friction = std::mem::take(&mut self.contact.friction);
        let mut h = [0.0; 144];
        for f in &friction {
            let mut u = [0.0; 3];
            self.relative_slip(f, &self.x, &mut u);
            let mut g = [0.0; 3];
            friction_gradient(
                mu,
                f.lambda,
                self.friction_eps,
                &f.normal[..dim],
                &u[..dim],
                &mut g,
            );
            let mut fb = [0.0; 9];
            let (nrm, slip) = (&f.normal[..dim], &u[..dim]);
            friction_hessian(
                mu,
                f.lambda,
                self.friction_eps,
                nrm,
                slip,
                weight,
                &mut fb[..dim * dim],
            );
            let n = f.k * dim;
            for (l, &i) in f.nodes[..f.k].iter().enumerate() {
                if !self.model.fixed[i as usize] {
                    for c in 0..dim {
                        self.r[i as usize * dim + c] -= weight * f.beta[l] * g[c];
                    }
                }
                for mm in 0..f.k {
                    for r in 0..dim {
                        for c in 0..dim {
                            h[(l * dim + r) * n + mm * dim + c] =
                                f.beta[l] * f.beta[mm] * fb[r * dim + c];
                        }
                    }
                }
            }
            self.add_pair_block(blocks, f.nodes, f.k, &h);
        }
        self.contact.friction = friction;
    }

    /// Self-contact friction statistics of the last step: (sticking, sliding,
    /// dissipation (J)).
    pub(super) fn self_friction_stats(&self) -> (u64, u64, f64) {
        let (mu, dim) = (self.model.self_contact.friction, self.model.dim);
        let (mut stick, mut slide, mut diss) = (0, 0, 0.0);
        for f in &self.contact.friction {
            let mut u = [0.0; 3];
            self.relative_slip(f, &self.x, &mut u);
            let mut t = [0.0; 3];
            tangent_displacement(&f.normal[..dim], &u[..dim], &mut t[..dim]);
            let y = t[..dim].iter().map(|c| c * c).sum::<f64>().sqrt();
            if y < self.friction_eps {
                stick += 1;
            } else {
                slide += 1;
            }
            diss += mu * f.lambda * y;
        }
        (stick, slide, diss)
    }
}
