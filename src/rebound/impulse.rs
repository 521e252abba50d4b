//! The velocity change that gives a set of contacts their target normal velocities,
//! through the step's elastic Newton matrix.
//!
//! `H = M + h² K` with K the springs' PSD-projected Hessian at the step's end (the
//! matrix of the implicit step without its contact terms). A normal impulse j_c along
//! ∇d_c changes the velocities by `Δv = H⁻¹ Σ_c ∇d_c j_c`: the response of one
//! implicit step to the impulse, so a stiff body moves as a whole (with M alone only
//! the contact node would, and a stiff body's centre of mass would come out far below
//! e). The impulses meet the targets in the least-squares sense ([`least_squares`]),
//! with A the contacts' rates of each response. Fixed nodes do not move (their rows
//! are M's).

use super::contacts::Contact;
use crate::energy::spring::spring_hessian;
use crate::model::Model;
use crate::pcg::{invert_block, pcg, BlockJacobi, LinearOperator, PcgWork};
use crate::potential::diff;

/// Relative residual of each solve with H.
const SOLVE_TOLERANCE: f64 = 1e-12;

/// H at positions x: lumped masses and each spring's `dim × dim` block.
struct Elastic<'a> {
    model: &'a Model,
    /// h² times each spring's PSD block (kg), `springs × dim²`.
    blocks: Vec<f64>,
}

impl Elastic<'_> {
    fn free(&self, i: u32) -> bool {
        !self.model.fixed[i as usize]
    }
}

impl LinearOperator for Elastic<'_> {
    fn len(&self) -> usize {
        self.model.num_nodes() * self.model.dim
    }

    fn apply(&self, u: &[f64], out: &mut [f64]) {
        let (m, dim) = (self.model, self.model.dim);
        for (i, o) in out.chunks_mut(dim).enumerate() {
            for c in 0..dim {
                o[c] = m.mass[i] * u[i * dim + c];
            }
        }
        for (s, sp) in m.springs.iter().enumerate() {
            let (a, b) = (sp.a as usize, sp.b as usize);
            let blk = &self.blocks[s * dim * dim..(s + 1) * dim * dim];
            // Fixed nodes take no part: the spring acts as H's block on the free side.
            let ua = |c: usize| if self.free(sp.a) { u[a * dim + c] } else { 0.0 };
            let ub = |c: usize| if self.free(sp.b) { u[b * dim + c] } else { 0.0 };
            for r in 0..dim {
                let f: f64 = (0..dim).map(|c| blk[r * dim + c] * (ua(c) - ub(c))).sum();
                if self.free(sp.a) {
                    out[a * dim + r] += f;
                }
                if self.free(sp.b) {
                    out[b * dim + r] -= f;
                }
            }
        }
    }
}

/// `H⁻¹ ∇d_c` for each contact and the velocity change for impulses `j`.
pub struct Responses {
    /// Per contact, `H⁻¹ ∇d_c` (s/kg·… : m/s per N·s), `nodes × dim` each.
    columns: Vec<Vec<f64>>,
}

impl Responses {
    /// Solves `H y_c = ∇d_c` at positions `x` for every contact of `set` and keeps
    /// `adjust(y_c, ∇d_c)` (both `nodes × dim`).
    pub fn new(
        model: &Model,
        x: &[f64],
        set: &[Contact],
        adjust: impl Fn(&[f64], &[f64]) -> Vec<f64>,
    ) -> Self {
        let dim = model.dim;
        let h2 = model.solver.dt * model.solver.dt;
        let mut blocks = vec![0.0; model.springs.len() * dim * dim];
        for (s, sp) in model.springs.iter().enumerate() {
            let mut d = [0.0; 3];
            diff(x, sp.a, sp.b, dim, &mut d);
            let blk = &mut blocks[s * dim * dim..(s + 1) * dim * dim];
            spring_hessian(&d[..dim], sp.rest_length_sq, sp.stiffness, blk);
            blk.iter_mut().for_each(|v| *v *= h2);
        }
        let op = Elastic { model, blocks };
        let n = model.num_nodes();
        let mut diag = vec![0.0; n * dim * dim];
        for i in 0..n {
            for c in 0..dim {
                diag[i * dim * dim + c * dim + c] = model.mass[i];
            }
        }
        for (s, sp) in model.springs.iter().enumerate() {
            let blk = &op.blocks[s * dim * dim..(s + 1) * dim * dim];
            for node in [sp.a, sp.b] {
                if op.free(node) {
                    let at = node as usize * dim * dim;
                    for (t, b) in diag[at..at + dim * dim].iter_mut().zip(blk) {
                        *t += b;
                    }
                }
            }
        }
        let mut inverse = vec![0.0; n * dim * dim];
        for i in 0..n {
            let r = i * dim * dim..(i + 1) * dim * dim;
            invert_block(dim, &diag[r.clone()], &mut inverse[r]);
        }
        let pre = BlockJacobi {
            dim,
            inverse_blocks: &inverse,
        };
        let mut work = PcgWork::default();
        let columns = set
            .iter()
            .map(|c| {
                let mut rhs = vec![0.0; n * dim];
                for (l, &i) in c.nodes[..c.k].iter().enumerate() {
                    if op.free(i) {
                        for k in 0..dim {
                            rhs[i as usize * dim + k] += c.grad[l * dim + k];
                        }
                    }
                }
                let mut y = vec![0.0; n * dim];
                let max = (10 * n * dim).max(100) as u32;
                pcg(&op, &pre, &rhs, &mut y, SOLVE_TOLERANCE, max, &mut work);
                adjust(&y, &rhs)
            })
            .collect();
        Self { columns }
    }

    /// The responses `H⁻¹ ∇d_c` (m/s per N·s), one per contact, `nodes × dim` each.
    pub fn columns(&self) -> impl Iterator<Item = &[f64]> {
        self.columns.iter().map(Vec::as_slice)
    }

    /// `Σ_c j_c H⁻¹ ∇d_c` (m/s for impulses j in N·s).
    pub fn combine(&self, j: &[f64]) -> Vec<f64> {
        let len = self.columns.first().map_or(0, Vec::len);
        let mut dv = vec![0.0; len];
        for (y, &jc) in self.columns.iter().zip(j) {
            for (d, yc) in dv.iter_mut().zip(y) {
                *d += jc * yc;
            }
        }
        dv
    }
}

/// Relative weight of the regularisation in [`least_squares`].
const LSQ_REGULARISATION: f64 = 1e-6;

/// The impulses `j` that best meet `A j = b` (`k × k`, row-major): the solution of
/// `(AᵀA + λ I) j = Aᵀ b`, `λ` = [`LSQ_REGULARISATION`] of AᵀA's largest diagonal
/// entry. More contacts on one body than its rigid motion has degrees of freedom (a
/// flat landing) make A singular; targets they cannot all meet get the least-squares
/// compromise and the smallest impulses that reach it, not impulses that fight.
pub fn least_squares(a: &[f64], b: &[f64]) -> Vec<f64> {
    let k = b.len();
    let mut n = vec![0.0; k * k];
    let mut rhs = vec![0.0; k];
    for r in 0..k {
        for c in 0..k {
            n[r * k + c] = (0..k).map(|i| a[i * k + r] * a[i * k + c]).sum();
        }
        rhs[r] = (0..k).map(|i| a[i * k + r] * b[i]).sum();
    }
    let scale = (0..k).map(|i| n[i * k + i]).fold(0.0, f64::max);
    for i in 0..k {
        n[i * k + i] += LSQ_REGULARISATION * scale;
    }
    solve_dense(&n, &rhs)
}

/// Solves the symmetric positive semi-definite `A j = b` (`k × k`, row-major) by
/// Gaussian elimination with partial pivoting on `A + ε I`, ε = 10⁻¹² of A's largest
/// diagonal entry: contacts with the same ∇d (a node in a corner of two equal walls,
/// or met twice) share their impulse instead of making A singular.
pub fn solve_dense(a: &[f64], b: &[f64]) -> Vec<f64> {
    let k = b.len();
    let scale = (0..k).map(|i| a[i * k + i]).fold(0.0, f64::max);
    let mut m: Vec<f64> = a.to_vec();
    for i in 0..k {
        m[i * k + i] += 1e-12 * scale.max(f64::MIN_POSITIVE);
    }
    let mut x = b.to_vec();
    for col in 0..k {
        let piv = (col..k)
            .max_by(|&p, &q| m[p * k + col].abs().total_cmp(&m[q * k + col].abs()))
            .unwrap_or(col);
        if m[piv * k + col] == 0.0 {
            continue;
        }
        if piv != col {
            for c in 0..k {
                m.swap(piv * k + c, col * k + c);
            }
            x.swap(piv, col);
        }
        for r in col + 1..k {
            let f = m[r * k + col] / m[col * k + col];
            if f != 0.0 {
                for c in col..k {
                    m[r * k + c] -= f * m[col * k + c];
                }
                x[r] -= f * x[col];
            }
        }
    }
    for col in (0..k).rev() {
        let s: f64 = (col + 1..k).map(|c| m[col * k + c] * x[c]).sum();
        let p = m[col * k + col];
        x[col] = if p == 0.0 { 0.0 } else { (x[col] - s) / p };
    }
    x
}

#[cfg(test)]
mod tests {
    use super::solve_dense;

    #[test]
    fn dense_solve_matches_a_known_system() {
        let a = [4.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 2.0];
        let x_true = [1.0, -2.0, 0.5];
        let b: Vec<f64> = (0..3)
            .map(|r| (0..3).map(|c| a[r * 3 + c] * x_true[c]).sum())
            .collect();
        let x = solve_dense(&a, &b);
        for (u, v) in x.iter().zip(x_true) {
            assert!((u - v).abs() < 1e-9, "{x:?}");
        }
    }

    #[test]
    fn a_repeated_contact_shares_its_impulse() {
        // Two identical rows: the same contact twice; j₁ + j₂ must give the target.
        let a = [2.0, 2.0, 2.0, 2.0];
        let x = solve_dense(&a, &[1.0, 1.0]);
        assert!((2.0 * (x[0] + x[1]) - 1.0).abs() < 1e-6, "{x:?}");
    }
}
