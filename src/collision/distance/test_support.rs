//! Test helpers for the distance module: central finite-difference checks of
//! [`Derivatives`] and brute-force distances computed independently of the case
//! selection (direct point differences, golden-section minimisation of convex
//! functions of the primitives' parameters).

use super::Derivatives;
use proptest::prop_assert;
use proptest::test_runner::{Config, TestCaseError};

/// Proptest configuration: `cases` cases, no regression files written next to
/// the sources.
pub fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

/// Largest absolute entry of a slice.
fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// Asserts `|a_i − b_i| ≤ tol · max(max_j |b_j|, floor)` for every i.
fn assert_close_slices(what: &str, a: &[f64], b: &[f64], tol: f64, floor: f64) {
    let scale = max_abs(b).max(floor);
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * scale,
            "{what}[{i}]: finite difference {x} vs analytic {y} (scale {scale})"
        );
    }
}

/// Checks `d` against central finite differences: its value equals `value(x)`,
/// its gradient matches the differences of `value`, its Hessian those of
/// `gradient` (each with step `1e-6 · scale` and relative tolerance `tol`), and
/// its Hessian is symmetric.
pub fn check_derivatives(
    x: &[f64],
    d: &Derivatives,
    value: impl Fn(&[f64]) -> f64,
    derivatives: impl Fn(&[f64]) -> Derivatives,
    scale: f64,
    tol: f64,
) {
    let n = d.n;
    assert_eq!(x.len(), n);
    let v0 = value(x);
    assert!(
        (d.value - v0).abs() <= 1e-14 * v0.abs().max(1e-300),
        "value {} vs {}",
        d.value,
        v0
    );
    let h = 1e-6 * scale;
    let mut xp = x.to_vec();
    let mut fd_grad = vec![0.0; n];
    let mut fd_hess = vec![0.0; n * n];
    for i in 0..n {
        xp[i] = x[i] + h;
        let (fp, gp) = (value(&xp), derivatives(&xp).gradient);
        xp[i] = x[i] - h;
        let (fm, gm) = (value(&xp), derivatives(&xp).gradient);
        xp[i] = x[i];
        fd_grad[i] = (fp - fm) / (2.0 * h);
        for j in 0..n {
            // Row i of the Hessian is the derivative of the gradient in x_i.
            fd_hess[i * n + j] = (gp[j] - gm[j]) / (2.0 * h);
        }
    }
    let floor = 1e-12;
    assert_close_slices("gradient", &fd_grad, &d.gradient[..n], tol, floor);
    assert_close_slices("hessian", &fd_hess, &d.hessian[..n * n], tol, floor);
    for i in 0..n {
        for j in 0..n {
            assert_eq!(d.hessian[i * n + j], d.hessian[j * n + i], "asymmetric");
        }
    }
    assert!(d.gradient[n..].iter().all(|&g| g == 0.0));
    assert!(d.hessian[n * n..].iter().all(|&g| g == 0.0));
}

/// Minimum of a convex (unimodal) function on `[lo, hi]` by golden-section search
/// to machine precision, also comparing the two ends.
pub fn golden_min(f: impl Fn(f64) -> f64, lo: f64, hi: f64) -> f64 {
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (lo, hi);
    let mut c = b - g * (b - a);
    let mut d = a + g * (b - a);
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..160 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = f(d);
        }
    }
    [f(lo), f(hi), fc, fd, f(0.5 * (a + b))]
        .into_iter()
        .fold(f64::INFINITY, f64::min)
}

/// `|p − (a + t (b − a))|²` computed from the points.
fn dist_sq_to_param(p: &[f64], a: &[f64], b: &[f64], t: f64) -> f64 {
    (0..p.len())
        .map(|i| (p[i] - (a[i] + t * (b[i] - a[i]))).powi(2))
        .sum()
}

/// Brute-force point–segment squared distance: the closest parameter in closed
/// form, clamped to the segment, and the distance taken from the points.
pub fn brute_point_segment(p: &[f64], a: &[f64], b: &[f64]) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for i in 0..p.len() {
        num += (p[i] - a[i]) * (b[i] - a[i]);
        den += (b[i] - a[i]).powi(2);
    }
    let t = if den > 0.0 {
        (num / den).clamp(0.0, 1.0)
    } else {
        0.0
    };
    dist_sq_to_param(p, a, b, t)
}

/// Brute-force point–segment squared distance by golden-section search over the
/// segment's parameter.
pub fn golden_point_segment(p: &[f64], a: &[f64], b: &[f64]) -> f64 {
    golden_min(|t| dist_sq_to_param(p, a, b, t), 0.0, 1.0)
}

/// Brute-force segment–segment squared distance: golden-section search over one
/// segment's parameter of the (convex) distance of its point to the other
/// segment, both ways round, keeping the smaller.
pub fn brute_segment_segment(a0: &[f64], a1: &[f64], b0: &[f64], b1: &[f64]) -> f64 {
    let along = |p0: &[f64], p1: &[f64], q0: &[f64], q1: &[f64]| {
        golden_min(
            |s| {
                let ps: Vec<f64> = (0..3).map(|i| p0[i] + s * (p1[i] - p0[i])).collect();
                brute_point_segment(&ps, q0, q1)
            },
            0.0,
            1.0,
        )
    };
    along(a0, a1, b0, b1).min(along(b0, b1, a0, a1))
}

/// Brute-force point–triangle squared distance: golden-section search over the
/// coordinate `u` along `t1 − t0` of the (convex) minimum over the coordinate `v`
/// along `t2 − t0` (closed form, clamped to `[0, 1 − u]`), over all three corner
/// orderings, keeping the smallest.
pub fn brute_point_triangle(p: &[f64], t0: &[f64], t1: &[f64], t2: &[f64]) -> f64 {
    let from = |a: &[f64], b: &[f64], c: &[f64]| {
        let e1: Vec<f64> = (0..3).map(|i| b[i] - a[i]).collect();
        let e2: Vec<f64> = (0..3).map(|i| c[i] - a[i]).collect();
        let e2e2: f64 = e2.iter().map(|x| x * x).sum();
        golden_min(
            |u| {
                let r: Vec<f64> = (0..3).map(|i| p[i] - a[i] - u * e1[i]).collect();
                let v = if e2e2 > 0.0 {
                    ((0..3).map(|i| r[i] * e2[i]).sum::<f64>() / e2e2).clamp(0.0, 1.0 - u)
                } else {
                    0.0
                };
                (0..3).map(|i| (r[i] - v * e2[i]).powi(2)).sum()
            },
            0.0,
            1.0,
        )
    };
    from(t0, t1, t2).min(from(t1, t2, t0)).min(from(t2, t0, t1))
}

/// `|Σ_i β_i x_i|²` for nodes of `dim` coordinates stacked in `x`.
pub fn combination_norm_sq(x: &[f64], beta: &[f64], dim: usize) -> f64 {
    (0..dim)
        .map(|c| {
            beta.iter()
                .enumerate()
                .map(|(k, b)| b * x[k * dim + c])
                .sum::<f64>()
                .powi(2)
        })
        .sum()
}

/// Property check of a 3D squared distance `d` of the stacked pair `x`: it is
/// non-negative and within `1e-12 · (1 + brute)` of the brute-force distance
/// `brute`, and the closest-point coefficients `beta` reproduce it
/// (`|Σ_i β_i x_i|²` within `1e-12 · (1 + d)`). `what` labels a failure.
pub fn check_minimum_distance(
    x: &[f64],
    d: f64,
    brute: f64,
    beta: &[f64],
    what: impl std::fmt::Debug,
) -> Result<(), TestCaseError> {
    prop_assert!(d >= 0.0);
    prop_assert!(
        (d - brute).abs() <= 1e-12 * (1.0 + brute),
        "{d} vs {brute}, {what:?}"
    );
    let c = combination_norm_sq(x, beta, 3);
    prop_assert!((c - d).abs() <= 1e-12 * (1.0 + d), "{c} vs {d}");
    Ok(())
}
