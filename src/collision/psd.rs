//! Projection of small dense symmetric matrices onto the positive semidefinite
//! cone, for the per-contact-pair barrier Hessians (n ≤ 12) that Newton's method
//! needs PSD.
//!
//! The projection (nearest PSD matrix in the Frobenius norm) keeps the
//! eigenvectors and clamps negative eigenvalues to zero. The eigen-decomposition
//! is the cyclic Jacobi method: deterministic, allocation-free and accurate to
//! f64 precision. Rows that are entirely zero (the nodes a contact case does not
//! involve) are set aside first, so a point–point block of a 12 × 12 pair Hessian
//! costs a 6 × 6 decomposition; a Cholesky factorisation then catches the positive
//! definite case, which is returned unchanged.
//!
//! Cost (release build, one core): roughly 20 µs for a full indefinite 12 × 12
//! matrix, 10 µs for 9 active rows.

/// Largest supported matrix order.
const MAX_N: usize = 12;

/// Upper bound on Jacobi sweeps; convergence is quadratic and takes well under
/// 15 sweeps at n = 12.
const MAX_SWEEPS: usize = 60;

/// Eigen-decomposition of the symmetric row-major `n × n` matrix in the first
/// `n·n` entries of `h` (n ≤ 12; only its symmetric part `(h + hᵀ)/2` is used),
/// by cyclic Jacobi rotations.
///
/// Returns the eigenvalues (first `n` entries, unsorted, in the units of `h`) and
/// the orthonormal eigenvectors as the columns of a row-major `n × n` matrix `V`
/// (`V[i·n + k]` is component i of eigenvector k), so that `h = V diag(λ) Vᵀ`.
///
/// # Panics
/// If `n > 12` or `h` has fewer than `n·n` entries.
pub fn symmetric_eigen(h: &[f64], n: usize) -> ([f64; 12], [f64; 144]) {
    assert!(n <= MAX_N, "symmetric_eigen: n = {n} > {MAX_N}");
    assert!(h.len() >= n * n);
    match n {
        0 => ([0.0; 12], [0.0; 144]),
        1 => eigen_fixed::<1>(h),
        2 => eigen_fixed::<2>(h),
        3 => eigen_fixed::<3>(h),
        4 => eigen_fixed::<4>(h),
        5 => eigen_fixed::<5>(h),
        6 => eigen_fixed::<6>(h),
        7 => eigen_fixed::<7>(h),
        8 => eigen_fixed::<8>(h),
        9 => eigen_fixed::<9>(h),
        10 => eigen_fixed::<10>(h),
        11 => eigen_fixed::<11>(h),
        _ => eigen_fixed::<12>(h),
    }
}

/// [`symmetric_eigen`] for a compile-time order `N` (so the loops have fixed
/// bounds).
fn eigen_fixed<const N: usize>(h: &[f64]) -> ([f64; 12], [f64; 144]) {
    let mut a = [[0.0; N]; N];
    let mut v = [[0.0; N]; N];
    let mut norm_sq = 0.0;
    for i in 0..N {
        v[i][i] = 1.0;
        for j in 0..N {
            a[i][j] = 0.5 * (h[i * N + j] + h[j * N + i]);
            norm_sq += a[i][j] * a[i][j];
        }
    }
    for sweep in 0..MAX_SWEEPS {
        let (mut off, mut sum_abs) = (0.0, 0.0);
        for (p, row) in a.iter().enumerate() {
            for x in &row[p + 1..] {
                off += x * x;
                sum_abs += x.abs();
            }
        }
        // Off-diagonal part far below the rounding of the eigenvalues (ε·‖A‖).
        if off == 0.0 || off <= 1e-32 * norm_sq || off.is_nan() {
            break;
        }
        // The first sweeps skip entries well below the average off-diagonal size
        // (threshold Jacobi), which saves rotations; later sweeps rotate all.
        let skip_below = if sweep < 3 {
            0.2 * sum_abs / (N * N) as f64
        } else {
            0.0
        };
        for p in 0..N {
            for q in p + 1..N {
                if a[p][q].abs() < skip_below {
                    continue;
                }
                rotate(&mut a, &mut v, p, q);
            }
        }
    }
    let mut values = [0.0; 12];
    let mut vectors = [0.0; 144];
    for i in 0..N {
        values[i] = a[i][i];
        vectors[i * N..(i + 1) * N].copy_from_slice(&v[i]);
    }
    (values, vectors)
}

/// One Jacobi rotation in the plane (p, q) that zeroes `a[p][q]`, applied to `a`
/// (both triangles) and accumulated into the columns of `v`.
fn rotate<const N: usize>(a: &mut [[f64; N]; N], v: &mut [[f64; N]; N], p: usize, q: usize) {
    let apq = a[p][q];
    if apq == 0.0 {
        return;
    }
    let (app, aqq) = (a[p][p], a[q][q]);
    // Negligible against both diagonal entries: drop it without rotating.
    let g = 100.0 * apq.abs();
    if app.abs() + g == app.abs() && aqq.abs() + g == aqq.abs() {
        a[p][q] = 0.0;
        a[q][p] = 0.0;
        return;
    }
    // tan of the rotation angle, the smaller root (|angle| ≤ π/4) for stability.
    let theta = (aqq - app) / (2.0 * apq);
    let t = if theta.abs() > 1e150 {
        0.5 / theta
    } else {
        theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt())
    };
    let c = 1.0 / (t * t + 1.0).sqrt();
    let s = t * c;
    a[p][p] = app - t * apq;
    a[q][q] = aqq + t * apq;
    a[p][q] = 0.0;
    a[q][p] = 0.0;
    for r in 0..N {
        if r != p && r != q {
            let (arp, arq) = (a[r][p], a[r][q]);
            let new_rp = c * arp - s * arq;
            let new_rq = s * arp + c * arq;
            a[r][p] = new_rp;
            a[p][r] = new_rp;
            a[r][q] = new_rq;
            a[q][r] = new_rq;
        }
        let (vrp, vrq) = (v[r][p], v[r][q]);
        v[r][p] = c * vrp - s * vrq;
        v[r][q] = s * vrp + c * vrq;
    }
}

/// Whether the symmetric `n × n` matrix is positive definite in floating point
/// (its Cholesky factorisation finds only positive pivots).
fn is_positive_definite(h: &[f64], n: usize) -> bool {
    let mut l = [0.0; 144];
    for j in 0..n {
        let mut d = h[j * n + j];
        for k in 0..j {
            d -= l[j * n + k] * l[j * n + k];
        }
        if d.is_nan() || d <= 0.0 {
            return false;
        }
        let d = d.sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = h[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / d;
        }
    }
    true
}

/// Replaces the symmetric row-major `n × n` matrix in the first `n·n` entries of
/// `h` (n ≤ 12, any units) by its projection onto the positive semidefinite cone:
/// the same eigenvectors with negative eigenvalues clamped to 0 (the nearest PSD
/// matrix in the Frobenius norm). A matrix that is already PSD (no negative
/// eigenvalue) is left untouched; the result is exactly symmetric.
///
/// # Panics
/// If `n > 12` or `h` has fewer than `n·n` entries.
pub fn project_psd(h: &mut [f64], n: usize) {
    assert!(n <= MAX_N, "project_psd: n = {n} > {MAX_N}");
    assert!(h.len() >= n * n);
    // Rows (and columns) that are entirely zero, as those of the nodes a contact
    // case does not involve, are eigenvectors of eigenvalue 0 and stay zero: only
    // the block of the other rows is decomposed.
    let mut active = [0usize; MAX_N];
    let mut m = 0;
    for i in 0..n {
        if h[i * n..(i + 1) * n].iter().any(|&x| x != 0.0) || (0..n).any(|j| h[j * n + i] != 0.0) {
            active[m] = i;
            m += 1;
        }
    }
    let active = &active[..m];
    let mut block = [0.0; 144];
    for (a, &i) in active.iter().enumerate() {
        for (b, &j) in active.iter().enumerate() {
            block[a * m + b] = h[i * n + j];
        }
    }
    if m == 0 || is_positive_definite(&block, m) {
        return;
    }
    let (values, vectors) = symmetric_eigen(&block, m);
    if values[..m].iter().all(|&l| l >= 0.0) {
        return;
    }
    for a in 0..m {
        for b in a..m {
            let mut s = 0.0;
            for (k, &l) in values.iter().enumerate().take(m) {
                if l > 0.0 {
                    s += l * vectors[a * m + k] * vectors[b * m + k];
                }
            }
            h[active[a] * n + active[b]] = s;
            h[active[b] * n + active[a]] = s;
        }
    }
}

#[cfg(test)]
#[path = "psd/tests.rs"]
mod tests;
