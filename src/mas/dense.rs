//! Small dense symmetric positive definite matrices: Cholesky factorisation in place,
//! the factor packed by rows of its lower triangle (half the bytes, which is what
//! the solves are bound by), and the solve with it, for the preconditioner's domain
//! matrices.

/// Factors the symmetric `m × m` matrix `a` (row-major, lower triangle read) in place
/// into `L` with `a = L Lᵀ`, `L` in the lower triangle (the upper one is left as it
/// was; [`pack_lower`] keeps what the solve needs). A pivot that is not
/// positive relative to its original diagonal (rounding in a nearly singular
/// matrix) is replaced by that diagonal, or by 1 where the diagonal is not positive,
/// so the factor always exists; returns how many pivots were replaced.
pub fn cholesky_in_place(a: &mut [f64], m: usize) -> usize {
    let mut replaced = 0;
    for j in 0..m {
        let row_j = &mut a[j * m..(j + 1) * m];
        let diag = row_j[j];
        let d = diag - dot(&row_j[..j], &row_j[..j]);
        // (also catches a NaN pivot)
        let d = if d.is_nan() || d <= 1e-12 * diag.abs() {
            replaced += 1;
            if diag > 0.0 {
                diag
            } else {
                1.0
            }
        } else {
            d
        };
        let l = d.sqrt();
        row_j[j] = l;
        for i in j + 1..m {
            let (upper, lower) = a.split_at_mut(i * m);
            let row_j = &upper[j * m..j * m + j];
            let row_i = &mut lower[..m];
            row_i[j] = (row_i[j] - dot(&row_i[..j], row_j)) / l;
        }
    }
    replaced
}

/// Length of an `m × m` lower triangle packed by rows.
pub fn packed_len(m: usize) -> usize {
    m * (m + 1) / 2
}

/// The lower triangle of the row-major `m × m` matrix `a`, by rows: row i is
/// `out[i(i+1)/2 ..][..i + 1]`, its diagonal last.
pub fn pack_lower(a: &[f64], m: usize, out: &mut [f64]) {
    for i in 0..m {
        let start = i * (i + 1) / 2;
        out[start..start + i + 1].copy_from_slice(&a[i * m..i * m + i + 1]);
    }
}

/// `Σ a_k b_k`, in four interleaved partial sums (independent additions pipeline;
/// one running sum waits on each addition).
#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a4, b4) = (a[..n].chunks_exact(4), b[..n].chunks_exact(4));
    let tail: f64 = a4
        .remainder()
        .iter()
        .zip(b4.remainder())
        .map(|(x, y)| x * y)
        .sum();
    let mut acc = [0.0; 4];
    for (x, y) in a4.zip(b4) {
        for k in 0..4 {
            acc[k] += x[k] * y[k];
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// Solves `L Lᵀ y = b` in place (`b` becomes `y`) with the factor of
/// [`cholesky_in_place`] packed by [`pack_lower`]; both sweeps read L by rows.
pub fn cholesky_solve(l: &[f64], m: usize, b: &mut [f64]) {
    for i in 0..m {
        let row = &l[i * (i + 1) / 2..][..i + 1];
        b[i] = (b[i] - dot(&row[..i], &b[..i])) / row[i];
    }
    for i in (0..m).rev() {
        let row = &l[i * (i + 1) / 2..][..i + 1];
        b[i] /= row[i];
        let bi = b[i];
        for (bk, lk) in b[..i].iter_mut().zip(&row[..i]) {
            *bk -= lk * bi;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_spd_system() {
        // A = B Bᵀ + I for a fixed B
        let m = 5;
        let b: Vec<f64> = (0..m * m)
            .map(|k| ((k * 7 % 11) as f64) / 5.0 - 1.0)
            .collect();
        let mut a = vec![0.0; m * m];
        for i in 0..m {
            for j in 0..m {
                a[i * m + j] = (0..m).map(|k| b[i * m + k] * b[j * m + k]).sum::<f64>()
                    + if i == j { 1.0 } else { 0.0 };
            }
        }
        let x: Vec<f64> = (0..m).map(|i| i as f64 - 1.5).collect();
        let mut rhs: Vec<f64> = (0..m)
            .map(|i| (0..m).map(|j| a[i * m + j] * x[j]).sum())
            .collect();
        let mut f = a.clone();
        assert_eq!(cholesky_in_place(&mut f, m), 0);
        let mut packed = vec![0.0; packed_len(m)];
        pack_lower(&f, m, &mut packed);
        cholesky_solve(&packed, m, &mut rhs);
        for (got, want) in rhs.iter().zip(&x) {
            assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        }
    }

    #[test]
    fn a_singular_matrix_still_factors() {
        let mut a = vec![1.0, 1.0, 1.0, 1.0];
        assert_eq!(cholesky_in_place(&mut a, 2), 1);
        let mut packed = vec![0.0; packed_len(2)];
        pack_lower(&a, 2, &mut packed);
        let mut b = vec![1.0, 1.0];
        cholesky_solve(&packed, 2, &mut b);
        assert!(b.iter().all(|v| v.is_finite()));
    }
}
