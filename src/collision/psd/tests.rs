//! Tests of the PSD projection: closed-form 2 × 2 and diagonal cases, positive
//! definite, empty, rank-deficient and repeated-eigenvalue matrices, zero rows set
//! aside, and property tests on random symmetric matrices of every order
//! (decomposition residuals, PSD result, nearest-matrix distance, idempotence).

use super::*;
use proptest::prelude::*;
use proptest::test_runner::Config;

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

/// Symmetric matrix from the upper triangle of `entries` (row-major n × n).
fn symmetric(entries: &[f64], n: usize) -> [f64; 144] {
    let mut h = [0.0; 144];
    for i in 0..n {
        for j in i..n {
            h[i * n + j] = entries[i * n + j];
            h[j * n + i] = entries[i * n + j];
        }
    }
    h
}

fn frobenius(h: &[f64], n: usize) -> f64 {
    h[..n * n].iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// `‖A V − V diag(λ)‖_F` and `‖VᵀV − I‖_F`.
fn decomposition_residuals(h: &[f64], n: usize) -> (f64, f64) {
    let (l, v) = symmetric_eigen(h, n);
    let (mut r, mut o) = (0.0, 0.0);
    for i in 0..n {
        for k in 0..n {
            let av: f64 = (0..n).map(|j| h[i * n + j] * v[j * n + k]).sum();
            r += (av - l[k] * v[i * n + k]).powi(2);
            let vv: f64 = (0..n).map(|j| v[j * n + i] * v[j * n + k]).sum();
            o += (vv - if i == k { 1.0 } else { 0.0 }).powi(2);
        }
    }
    (r.sqrt(), o.sqrt())
}

/// Eigenvalues from the decomposition, for PSD checks.
fn min_eigenvalue(h: &[f64], n: usize) -> f64 {
    symmetric_eigen(h, n).0[..n]
        .iter()
        .fold(f64::INFINITY, |m, &l| m.min(l))
}

#[test]
fn two_by_two_matches_the_closed_form() {
    // [[a, b], [b, c]] with one negative eigenvalue.
    let (a, b, c) = (1.0, 2.0, -0.5);
    let mut h = [a, b, b, c];
    project_psd(&mut h, 2);
    let mean = 0.5 * (a + c);
    let rad = (0.25 * (a - c) * (a - c) + b * b).sqrt();
    let l1 = mean + rad;
    // Eigenvector of l1: (b, l1 − a) normalised.
    let (x, y) = (b, l1 - a);
    let norm = (x * x + y * y).sqrt();
    let (x, y) = (x / norm, y / norm);
    let expected = [l1 * x * x, l1 * x * y, l1 * x * y, l1 * y * y];
    for k in 0..4 {
        assert!(
            (h[k] - expected[k]).abs() <= 1e-14 * l1,
            "{h:?} vs {expected:?}"
        );
    }
    // Both eigenvalues negative: the zero matrix.
    let mut h = [-1.0, 0.3, 0.3, -2.0];
    project_psd(&mut h, 2);
    assert_eq!(h, [0.0; 4]);
}

#[test]
fn diagonal_matrix_clamps_its_diagonal() {
    let d = [3.0, -1.0, 0.0, 2.5, -7.0, 1e-3];
    let n = d.len();
    let mut h = [0.0; 36];
    for i in 0..n {
        h[i * n + i] = d[i];
    }
    project_psd(&mut h, n);
    for i in 0..n {
        for j in 0..n {
            let expected = if i == j { d[i].max(0.0) } else { 0.0 };
            assert_eq!(h[i * n + j], expected);
        }
    }
}

#[test]
fn positive_definite_and_empty_matrices_are_unchanged() {
    let mut h = [4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0];
    let before = h;
    project_psd(&mut h, 3);
    assert_eq!(h, before);
    let mut e: [f64; 0] = [];
    project_psd(&mut e, 0);
}

#[test]
fn structured_matrices() {
    // Negative semidefinite −vvᵀ projects to zero; the zero matrix stays.
    let v = [0.3, -1.2, 0.5, 2.0];
    let mut h = [0.0; 16];
    for i in 0..4 {
        for j in 0..4 {
            h[i * 4 + j] = -v[i] * v[j];
        }
    }
    project_psd(&mut h, 4);
    assert!(h.iter().all(|x| x.abs() <= 1e-15), "{h:?}");
    let mut z = [0.0; 9];
    project_psd(&mut z, 3);
    assert_eq!(z, [0.0; 9]);
    // Repeated eigenvalues: Q diag(2, 2, 2, −1, −1, 0) Qᵀ with Q a product of
    // two Householder reflections; the projection is Q diag(2, 2, 2, 0, 0, 0) Qᵀ.
    let n = 6;
    let reflect = |w: [f64; 6]| {
        let ww: f64 = w.iter().map(|x| x * x).sum();
        let mut q = [0.0; 36];
        for i in 0..n {
            for j in 0..n {
                q[i * n + j] = f64::from(u8::from(i == j)) - 2.0 * w[i] * w[j] / ww;
            }
        }
        q
    };
    let (q1, q2) = (
        reflect([1.0, 2.0, -1.0, 0.5, 0.0, 3.0]),
        reflect([0.2, -1.0, 0.0, 1.0, 2.0, 0.4]),
    );
    let mut q = [0.0; 36];
    for i in 0..n {
        for j in 0..n {
            q[i * n + j] = (0..n).map(|k| q1[i * n + k] * q2[k * n + j]).sum();
        }
    }
    let build = |d: [f64; 6]| {
        let mut h = [0.0; 36];
        for i in 0..n {
            for j in 0..n {
                h[i * n + j] = (0..n).map(|k| q[i * n + k] * d[k] * q[j * n + k]).sum();
            }
        }
        symmetric(&h, n)
    };
    let mut h = build([2.0, 2.0, 2.0, -1.0, -1.0, 0.0]);
    let expected = build([2.0, 2.0, 2.0, 0.0, 0.0, 0.0]);
    project_psd(&mut h, n);
    for k in 0..n * n {
        assert!(
            (h[k] - expected[k]).abs() <= 1e-14,
            "{} vs {}",
            h[k],
            expected[k]
        );
    }
}

#[test]
fn zero_rows_are_kept_and_the_rest_projected_as_a_block() {
    // An indefinite 3 × 3 block spread over rows 1, 3, 4 of a 6 × 6 matrix.
    let b = [1.0, 2.0, 0.5, 2.0, -1.0, 0.3, 0.5, 0.3, 0.2];
    let rows = [1, 3, 4];
    let mut h = [0.0; 36];
    for a in 0..3 {
        for c in 0..3 {
            h[rows[a] * 6 + rows[c]] = b[a * 3 + c];
        }
    }
    let mut pb = b;
    project_psd(&mut pb, 3);
    project_psd(&mut h, 6);
    for i in 0..6 {
        for j in 0..6 {
            let expected = match (
                rows.iter().position(|&r| r == i),
                rows.iter().position(|&r| r == j),
            ) {
                (Some(a), Some(c)) => pb[a * 3 + c],
                _ => 0.0,
            };
            assert_eq!(h[i * 6 + j], expected);
        }
    }
    assert!(min_eigenvalue(&h, 6) >= -1e-15);
}

proptest! {
    #![proptest_config(config(256))]

    /// Random symmetric matrices of every order: the decomposition is exact
    /// to rounding, the projection is symmetric, PSD, the nearest PSD matrix
    /// (its distance is the norm of the negative eigenvalues), and projecting
    /// again changes nothing beyond rounding.
    #[test]
    fn projection_of_random_symmetric_matrices(
        n in 1usize..=12,
        entries in proptest::collection::vec(-10.0f64..10.0, 144),
    ) {
        let h = symmetric(&entries, n);
        let scale = frobenius(&h, n);
        let (res, orth) = decomposition_residuals(&h, n);
        prop_assert!(res <= 1e-13 * scale, "residual {res}");
        prop_assert!(orth <= 1e-13, "orthogonality {orth}");
        let (l, _) = symmetric_eigen(&h, n);
        let neg: f64 = l[..n].iter().map(|&x| x.min(0.0).powi(2)).sum::<f64>().sqrt();
        let mut p = h;
        project_psd(&mut p, n);
        for i in 0..n {
            for j in 0..n {
                prop_assert_eq!(p[i * n + j], p[j * n + i]);
            }
        }
        prop_assert!(min_eigenvalue(&p, n) >= -1e-12 * scale);
        let dist: f64 = (0..n * n).map(|k| (p[k] - h[k]).powi(2)).sum::<f64>().sqrt();
        prop_assert!((dist - neg).abs() <= 1e-12 * scale, "{dist} vs {neg}");
        let mut pp = p;
        project_psd(&mut pp, n);
        for k in 0..n * n {
            prop_assert!((pp[k] - p[k]).abs() <= 1e-12 * scale);
        }
    }

    /// PSD matrices built as BᵀB of rank ≤ n (singular ones included) are
    /// unchanged up to rounding.
    #[test]
    fn psd_matrices_are_unchanged(
        n in 1usize..=12,
        rank in 1usize..=12,
        entries in proptest::collection::vec(-1.0f64..1.0, 144),
    ) {
        let rank = rank.min(n);
        let mut h = [0.0; 144];
        for i in 0..n {
            for j in 0..n {
                h[i * n + j] = (0..rank).map(|k| entries[k * n + i] * entries[k * n + j]).sum();
            }
        }
        let scale = frobenius(&h, n).max(1e-300);
        let mut p = h;
        project_psd(&mut p, n);
        for k in 0..n * n {
            prop_assert!((p[k] - h[k]).abs() <= 1e-12 * scale);
        }
    }
}
