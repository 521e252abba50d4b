//! Preconditioned conjugate gradients for the symmetric positive (semi-)definite
//! Newton systems, starting from zero (docs/PHYSICS.md).

use crate::parallel;

/// A symmetric linear operator `A` acting on flat vectors (the Newton matrix H,
/// units N/m · s² = kg for the incremental potential's Hessian).
pub trait LinearOperator {
    /// Vector length.
    fn len(&self) -> usize;
    /// Whether the operator acts on empty vectors.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `out = A u`.
    fn apply(&self, u: &[f64], out: &mut [f64]);
}

/// A preconditioner `P⁻¹ ≈ A⁻¹` for [`pcg`], acting on flat vectors.
pub trait Preconditioner {
    /// `z = P⁻¹ r`.
    fn apply(&self, r: &[f64], z: &mut [f64]);
}

/// Block-Jacobi: per node the inverse of A's `dim × dim` diagonal block, row-major,
/// `nodes × dim²` (1/kg for the Newton systems; see [`invert_block`]).
pub struct BlockJacobi<'a> {
    /// Components per node (2 or 3).
    pub dim: usize,
    /// The inverse diagonal blocks, `nodes × dim²`, row-major.
    pub inverse_blocks: &'a [f64],
}

impl Preconditioner for BlockJacobi<'_> {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        let dim = self.dim;
        let dd = dim * dim;
        parallel::for_each_piece(z, dim, |i, zi| {
            let b = &self.inverse_blocks[i * dd..(i + 1) * dd];
            let ri = &r[i * dim..(i + 1) * dim];
            for (k, zk) in zi.iter_mut().enumerate() {
                *zk = (0..dim).map(|c| b[k * dim + c] * ri[c]).sum();
            }
        });
    }
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

/// Solves `A x = b` from `x = 0`, preconditioned by `pre`, until `|r|₂ ≤ tol |b|₂`
/// or `max_iter` iterations.
pub fn pcg<A: LinearOperator + ?Sized, M: Preconditioner + ?Sized>(
    op: &A,
    pre: &M,
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
    let b_norm = parallel::dot(b, b).sqrt();
    if b_norm == 0.0 {
        return PcgResult {
            iterations: 0,
            converged: true,
            relative_residual: 0.0,
        };
    }
    pre.apply(&work.r, &mut work.z);
    work.d.copy_from_slice(&work.z);
    let mut rz = parallel::dot(&work.r, &work.z);
    let mut rel = 1.0;
    for it in 0..max_iter {
        op.apply(&work.d, &mut work.q);
        let dq = parallel::dot(&work.d, &work.q);
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
        parallel::for_each_piece(x, 1, |i, xi| xi[0] += alpha * d[i]);
        parallel::for_each_piece(&mut work.r, 1, |i, ri| ri[0] -= alpha * q[i]);
        rel = parallel::dot(&work.r, &work.r).sqrt() / b_norm;
        if rel <= tol {
            return PcgResult {
                iterations: it + 1,
                converged: true,
                relative_residual: rel,
            };
        }
        pre.apply(&work.r, &mut work.z);
        let rz_new = parallel::dot(&work.r, &work.z);
        let beta = rz_new / rz;
        rz = rz_new;
        let z = &work.z;
        parallel::for_each_piece(&mut work.d, 1, |i, di| di[0] = z[i] + beta * di[0]);
    }
    PcgResult {
        iterations: max_iter,
        converged: false,
        relative_residual: rel,
    }
}

/// Writes the inverse of the symmetric positive definite `dim × dim` block `b`
/// (row-major, `dim` 1 to 3) into `out`; where `b` is (nearly) singular, det ≤ 1e-12
/// × the product of its diagonal, the inverse of its diagonal (0 for a zero entry)
/// instead, so the preconditioner stays defined.
pub fn invert_block(dim: usize, b: &[f64], out: &mut [f64]) {
    let det = match dim {
        1 => b[0],
        2 => b[0] * b[3] - b[1] * b[2],
        _ => {
            b[0] * (b[4] * b[8] - b[5] * b[7]) - b[1] * (b[3] * b[8] - b[5] * b[6])
                + b[2] * (b[3] * b[7] - b[4] * b[6])
        }
    };
    // Hadamard: det ≤ Π b_kk for a positive definite block; far below it, treat the
    // block as singular (the GPU's f32 twin uses 1e-6).
    let diag_product: f64 = (0..dim).map(|k| b[k * dim + k]).product();
    let regular = det > 1e-12 * diag_product; // false for NaN too
    if !regular {
        out.iter_mut().for_each(|c| *c = 0.0);
        for k in 0..dim {
            let d = b[k * dim + k];
            out[k * dim + k] = if d > 0.0 { 1.0 / d } else { 0.0 };
        }
        return;
    }
    match dim {
        1 => out[0] = 1.0 / det,
        2 => {
            out[0] = b[3] / det;
            out[1] = -b[1] / det;
            out[2] = -b[2] / det;
            out[3] = b[0] / det;
        }
        _ => {
            let c = |r: usize, k: usize| b[r * 3 + k];
            for r in 0..3 {
                for k in 0..3 {
                    // adjugate: cofactor of (k, r)
                    let (r1, r2) = ((k + 1) % 3, (k + 2) % 3);
                    let (k1, k2) = ((r + 1) % 3, (r + 2) % 3);
                    out[r * 3 + k] = (c(r1, k1) * c(r2, k2) - c(r1, k2) * c(r2, k1)) / det;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::invert_block;

    #[test]
    fn block_inverses_times_their_blocks_are_the_identity() {
        let blocks: [&[f64]; 3] = [
            &[2.5],
            &[4.0, 1.0, 1.0, 3.0],
            &[4.0, 1.0, -0.5, 1.0, 3.0, 0.25, -0.5, 0.25, 2.0],
        ];
        for b in blocks {
            let dim = (b.len() as f64).sqrt() as usize;
            let mut inv = vec![0.0; b.len()];
            invert_block(dim, b, &mut inv);
            for r in 0..dim {
                for k in 0..dim {
                    let v: f64 = (0..dim).map(|j| b[r * dim + j] * inv[j * dim + k]).sum();
                    let want = if r == k { 1.0 } else { 0.0 };
                    assert!((v - want).abs() < 1e-12, "dim {dim}: ({r},{k}) = {v}");
                }
            }
        }
        // A singular block falls back to its inverse diagonal.
        let mut inv = [0.0; 4];
        invert_block(2, &[1.0, 1.0, 1.0, 1.0], &mut inv);
        assert_eq!(inv, [1.0, 0.0, 0.0, 1.0]);
    }
}
