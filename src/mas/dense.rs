//! Small dense symmetric positive definite matrices: Cholesky factorisation in place
//! and the solve with the factor, for the preconditioner's domain matrices.

/// Factors the symmetric `m × m` matrix `a` (row-major, lower triangle read) in place
/// into `L` with `a = L Lᵀ`: `L` in the lower triangle and its transpose mirrored
/// into the upper one, so both triangular solves read rows. A pivot that is not
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
    for i in 0..m {
        for k in i + 1..m {
            a[i * m + k] = a[k * m + i];
        }
    }
    replaced
}

/// `Σ a_k b_k`.
#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Solves `L Lᵀ y = b` in place (`b` becomes `y`) with the factor of
/// [`cholesky_in_place`].
pub fn cholesky_solve(l: &[f64], m: usize, b: &mut [f64]) {
    for i in 0..m {
        let row = &l[i * m..i * m + i];
        b[i] = (b[i] - dot(row, &b[..i])) / l[i * m + i];
    }
    for i in (0..m).rev() {
        let row = &l[i * m + i + 1..(i + 1) * m];
        b[i] = (b[i] - dot(row, &b[i + 1..m])) / l[i * m + i];
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
        cholesky_solve(&f, m, &mut rhs);
        for (got, want) in rhs.iter().zip(&x) {
            assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        }
    }

    #[test]
    fn a_singular_matrix_still_factors() {
        let mut a = vec![1.0, 1.0, 1.0, 1.0];
        assert_eq!(cholesky_in_place(&mut a, 2), 1);
        let mut b = vec![1.0, 1.0];
        cholesky_solve(&a, 2, &mut b);
        assert!(b.iter().all(|v| v.is_finite()));
    }
}
