//! Applying the MAS hierarchy. Both ways move residuals up the levels by the exact
//! transfers of rigid motions (level 0 → 1 by the nodes' bases, l → l + 1 by
//! [`transfer`]) and corrections back down their transposes.
//! - **Additive** (`Mas` as a [`Preconditioner`], the GPU's twin): every level's
//!   domain solves of the same residual, summed.
//! - **V-cycle** ([`VCycle`]): a symmetric multiplicative cycle over the same levels,
//!   the domain solves as smoothers. Each level smooths, passes its new residual
//!   (`r − A_l z`, level 0 with H itself) to the next, adds the correction coming
//!   back, and smooths again; the coarsest level, one domain, is solved exactly. Two
//!   more products with H per application, and about three times fewer CG
//!   iterations (benchmarks/NOTES.md).

use super::coarse::transfer;
use super::dense::cholesky_solve;
use super::{BlockMatrix, Mas};
use crate::parallel;
use crate::pcg::{LinearOperator, Preconditioner};

impl Mas {
    /// Length of level `l`'s vectors (whole domains, `B q` per domain).
    pub(super) fn level_len(&self, l: usize) -> usize {
        self.parts[l].domains * self.parts[l].m(self.domain)
    }

    /// `v ← B_l v`: every domain's solve of level `l`.
    fn solve_domains(&self, l: usize, v: &mut [f64]) {
        let part = &self.parts[l];
        let (m, f) = (part.m(self.domain), &part.factors);
        let len = super::dense::packed_len(m);
        let solve = |d: usize, y: &mut [f64]| cholesky_solve(&f[d * len..(d + 1) * len], m, y);
        if f.len() < super::SERIAL_LEN {
            // A small (coarse) level: handing it to the thread pool costs more.
            v.chunks_mut(m).enumerate().for_each(|(d, y)| solve(d, y));
        } else {
            parallel::for_each_heavy_piece(v, m, solve);
        }
    }

    /// Level 0's vector of the node vector `r`: by rank, fixed nodes 0.
    fn by_rank(&self, r: &[f64]) -> Vec<f64> {
        let (dim, n) = (self.dim, self.order.len());
        let mut v = vec![0.0; self.level_len(0)];
        parallel::for_each_piece(&mut v[..n * dim], dim, |rank, o| {
            let i = self.order[rank] as usize;
            if self.free[i] {
                o.copy_from_slice(&r[i * dim..(i + 1) * dim]);
            }
        });
        v
    }

    /// `z +=` level 0's vector `v` and `P₁ v₁` of level 1's, those given (free
    /// nodes only).
    fn add_to_nodes(&self, v: Option<&[f64]>, v1: Option<&[f64]>, z: &mut [f64]) {
        let dim = self.dim;
        parallel::for_each_piece(z, dim, |i, zi| {
            if !self.free[i] {
                return;
            }
            let rank = self.rank[i] as usize;
            if let Some(v) = v {
                for (zk, vk) in zi.iter_mut().zip(&v[rank * dim..(rank + 1) * dim]) {
                    *zk += vk;
                }
            }
            if let Some(v1) = v1 {
                let (a, q, mut p) = (rank / self.domain, self.parts[1].dofs, [0.0; 18]);
                let xi = &self.x[i * dim..(i + 1) * dim];
                self.parts[1].frames.basis(a, xi, &mut p);
                for (k, zk) in zi.iter_mut().enumerate() {
                    *zk += (0..q).map(|c| p[k * q + c] * v1[a * q + c]).sum::<f64>();
                }
            }
        });
    }

    /// `P₁ᵀ r`: level 1's vector of the node vector `r`.
    fn to_level1(&self, r: &[f64]) -> Vec<f64> {
        let (dim, b, n) = (self.dim, self.domain, self.order.len());
        let part = &self.parts[1];
        let q = part.dofs;
        let mut v = vec![0.0; self.level_len(1)];
        parallel::for_each_piece(&mut v[..self.counts[1] * q], q, |a, o| {
            let mut p = [0.0; 18];
            for rank in a * b..((a + 1) * b).min(n) {
                let i = self.order[rank] as usize;
                if !self.free[i] {
                    continue;
                }
                let ri = &r[i * dim..(i + 1) * dim];
                part.frames
                    .basis(a, &self.x[i * dim..(i + 1) * dim], &mut p);
                for (c, oc) in o.iter_mut().enumerate() {
                    *oc += (0..dim).map(|k| p[k * q + c] * ri[k]).sum::<f64>();
                }
            }
        });
        v
    }

    /// `Tᵀ v`: level l + 1's vector of level `l`'s `v` (l ≥ 1).
    fn up(&self, l: usize, v: &[f64]) -> Vec<f64> {
        let (b, q) = (self.domain, self.parts[l].dofs);
        let (fine, coarse) = (&self.parts[l].frames, &self.parts[l + 1].frames);
        let mut out = vec![0.0; self.level_len(l + 1)];
        parallel::for_each_piece(&mut out[..self.counts[l + 1] * q], q, |pa, o| {
            let mut t = [0.0; 36];
            for a in pa * b..((pa + 1) * b).min(self.counts[l]) {
                transfer(fine, a, coarse, pa, &mut t);
                for (c, oc) in o.iter_mut().enumerate() {
                    *oc += (0..q).map(|k| t[k * q + c] * v[a * q + k]).sum::<f64>();
                }
            }
        });
        out
    }

    /// `v += T vc`: level `l`'s share of level l + 1's correction `vc` (l ≥ 1).
    fn add_down(&self, l: usize, vc: &[f64], v: &mut [f64]) {
        let (b, q) = (self.domain, self.parts[l].dofs);
        let (fine, coarse) = (&self.parts[l].frames, &self.parts[l + 1].frames);
        parallel::for_each_piece(&mut v[..self.counts[l] * q], q, |a, o| {
            let mut t = [0.0; 36];
            let pa = a / b;
            transfer(fine, a, coarse, pa, &mut t);
            for (k, ok) in o.iter_mut().enumerate() {
                *ok += (0..q).map(|c| t[k * q + c] * vc[pa * q + c]).sum::<f64>();
            }
        });
    }

    /// One V-cycle from coarse level `l` ≥ 1 on its residual `r`.
    fn cycle_from(&self, l: usize, r: &[f64]) -> Vec<f64> {
        let mut z = r.to_vec();
        self.solve_domains(l, &mut z);
        if l + 1 == self.parts.len() {
            return z;
        }
        let a = &self.coarse[l - 1];
        let mut res = vec![0.0; r.len()];
        let residual = |z: &[f64], res: &mut [f64]| {
            a.apply(z, res);
            res.iter_mut().zip(r).for_each(|(e, ri)| *e = ri - *e);
        };
        residual(&z, &mut res);
        let zc = self.cycle_from(l + 1, &self.up(l, &res));
        self.add_down(l, &zc, &mut z);
        residual(&z, &mut res);
        self.solve_domains(l, &mut res);
        z.iter_mut().zip(&res).for_each(|(zk, e)| *zk += e);
        z
    }
}

impl Mas {
    /// Level 1's vector of the coarse levels' additive correction of `r`:
    /// `Σ_{l ≥ 1} P_l B_l P_lᵀ r` expressed on level 1 (`None` with one level).
    fn coarse_additive(&self, r: &[f64]) -> Option<Vec<f64>> {
        let levels = self.parts.len();
        if levels == 1 {
            return None;
        }
        // vs[k] is level k + 1's.
        let mut vs = vec![self.to_level1(r)];
        for l in 1..levels - 1 {
            let next = self.up(l, &vs[l - 1]);
            vs.push(next);
        }
        for (k, v) in vs.iter_mut().enumerate() {
            self.solve_domains(k + 1, v);
        }
        for l in (1..levels - 1).rev() {
            let (lo, hi) = vs.split_at_mut(l);
            self.add_down(l, &hi[0], &mut lo[l - 1]);
        }
        vs.into_iter().next()
    }
}

impl Preconditioner for Mas {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        let mut v0 = self.by_rank(r);
        self.solve_domains(0, &mut v0);
        z.iter_mut().for_each(|c| *c = 0.0);
        let v1 = self.coarse_additive(r);
        self.add_to_nodes(Some(&v0), v1.as_deref(), z);
    }
}

/// The MAS hierarchy applied as a symmetric V-cycle (module docs): a preconditioner
/// for H, symmetric by construction; it needs H itself for level 0's residuals.
pub struct VCycle<'a> {
    /// The factored hierarchy.
    pub mas: &'a Mas,
    /// H, as factored.
    pub h: BlockMatrix<'a>,
}

impl Preconditioner for VCycle<'_> {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        let mas = self.mas;
        let smooth = |res: &[f64], z: &mut [f64]| {
            let mut v = mas.by_rank(res);
            mas.solve_domains(0, &mut v);
            mas.add_to_nodes(Some(&v), None, z);
        };
        z.iter_mut().for_each(|c| *c = 0.0);
        smooth(r, z);
        if mas.parts.len() == 1 {
            return;
        }
        let mut res = vec![0.0; r.len()];
        let residual = |z: &[f64], res: &mut [f64]| {
            self.h.apply(z, res);
            res.iter_mut().zip(r).for_each(|(e, ri)| *e = ri - *e);
        };
        residual(z, &mut res);
        let z1 = mas.cycle_from(1, &mas.to_level1(&res));
        mas.add_to_nodes(None, Some(&z1), z);
        residual(z, &mut res);
        smooth(&res, z);
    }
}
