//! Preconditioned conjugate gradients for the symmetric positive (semi-)definite
//! Newton systems, starting from zero (DESIGN.md §1).

use crate::par;

/// A symmetric linear operator with a preconditioner, acting on flat vectors.
pub trait LinearOperator {
    /// Vector length.
    fn len(&self) -> usize;
    /// Whether the operator acts on empty vectors.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `out = A u`.
    fn apply(&self, u: &[f64], out: &mut [f64]);
    /// `z = P⁻¹ r` (the Jacobi preconditioner for the Newton systems).
    fn precondition(&self, r: &[f64], z: &mut [f64]);
}

/// How a PCG solve ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PcgResult {
    /// Iterations performed (matrix-vector products).
    pub iterations: u32,
    /// Whether `|r| ≤ tol |b|` was reached.
    pub converged: bool,
    /// Final `|r| / |b|` (0 when b = 0).
    pub relative_residual: f64,
}

/// Scratch vectors of a PCG solve, kept between solves to avoid allocation.
#[derive(Default, Clone, Debug)]
pub struct PcgWork {
    r: Vec<f64>,
    z: Vec<f64>,
    d: Vec<f64>,
    q: Vec<f64>,
}

/// Solves `A x = b` from `x = 0` until `|r|₂ ≤ tol |b|₂` or `max_iter` iterations.
pub fn pcg<A: LinearOperator + ?Sized>(
    op: &A,
    b: &[f64],
    x: &mut [f64],
    tol: f64,
    max_iter: u32,
    work: &mut PcgWork,
) -> PcgResult {
    let n = op.len();
    for v in [&mut work.r, &mut work.z, &mut work.d, &mut work.q] {
        v.clear();
        v.resize(n, 0.0);
    }
    x.iter_mut().for_each(|v| *v = 0.0);
    work.r.copy_from_slice(b);
    let b_norm = par::dot(b, b).sqrt();
    if b_norm == 0.0 {
        return PcgResult {
            iterations: 0,
            converged: true,
            relative_residual: 0.0,
        };
    }
    op.precondition(&work.r, &mut work.z);
    work.d.copy_from_slice(&work.z);
    let mut rz = par::dot(&work.r, &work.z);
    let mut rel = 1.0;
    for it in 0..max_iter {
        op.apply(&work.d, &mut work.q);
        let dq = par::dot(&work.d, &work.q);
        if dq.is_nan() || dq <= 0.0 {
            // Direction of zero curvature: nothing more to gain along it.
            return PcgResult {
                iterations: it + 1,
                converged: rel <= tol,
                relative_residual: rel,
            };
        }
        let alpha = rz / dq;
        let (d, q) = (&work.d, &work.q);
        par::for_each_piece(x, 1, |i, xi| xi[0] += alpha * d[i]);
        par::for_each_piece(&mut work.r, 1, |i, ri| ri[0] -= alpha * q[i]);
        rel = par::dot(&work.r, &work.r).sqrt() / b_norm;
        if rel <= tol {
            return PcgResult {
                iterations: it + 1,
                converged: true,
                relative_residual: rel,
            };
        }
        op.precondition(&work.r, &mut work.z);
        let rz_new = par::dot(&work.r, &work.z);
        let beta = rz_new / rz;
        rz = rz_new;
        let z = &work.z;
        par::for_each_piece(&mut work.d, 1, |i, di| di[0] = z[i] + beta * di[0]);
    }
    PcgResult {
        iterations: max_iter,
        converged: false,
        relative_residual: rel,
    }
}
