//! Finite-difference checks of the friction element (gradient and Hessian) in 2D
//! and 3D, in the sliding (|u| > ε_v h) and the static (|u| < ε_v h) regime, and
//! of the smoothing functions f0, f1.

use springsim::energy::friction::{
    f0, f1_over_y, friction_gradient, friction_hessian, friction_value,
};

fn unit(v: &[f64]) -> Vec<f64> {
    let l = v.iter().map(|c| c * c).sum::<f64>().sqrt();
    v.iter().map(|c| c / l).collect()
}

fn check(dim: usize, normal: &[f64], dx: &[f64], eps: f64, what: &str) {
    let (mu, lam) = (0.3, 7.0);
    let n = unit(normal);
    let step = 1e-6 * eps;
    let mut g = vec![0.0; dim];
    friction_gradient(mu, lam, eps, &n, dx, &mut g);
    let mut h = vec![0.0; dim * dim];
    friction_hessian(mu, lam, eps, &n, dx, 1.0, &mut h);
    let gscale = mu * lam;
    let hscale = mu * lam / eps;
    for k in 0..dim {
        let (mut p, mut m) = (dx.to_vec(), dx.to_vec());
        p[k] += step;
        m[k] -= step;
        let fd = (friction_value(mu, lam, eps, &n, &p) - friction_value(mu, lam, eps, &n, &m))
            / (2.0 * step);
        assert!(
            (g[k] - fd).abs() <= 1e-6 * gscale,
            "{what}: gradient[{k}] {} vs {fd}",
            g[k]
        );
        let (mut gp, mut gm) = (vec![0.0; dim], vec![0.0; dim]);
        friction_gradient(mu, lam, eps, &n, &p, &mut gp);
        friction_gradient(mu, lam, eps, &n, &m, &mut gm);
        for r in 0..dim {
            let fd = (gp[r] - gm[r]) / (2.0 * step);
            let a = h[r * dim + k];
            assert!(
                (a - fd).abs() <= 1e-5 * hscale,
                "{what}: hessian[{r}][{k}] {a} vs {fd}"
            );
        }
    }
    // Symmetric and PSD: uᵀHu ≥ 0 for random-ish directions.
    for r in 0..dim {
        for c in 0..dim {
            assert!((h[r * dim + c] - h[c * dim + r]).abs() < 1e-12 * hscale);
        }
    }
    for t in 0..20 {
        let v: Vec<f64> = (0..dim).map(|k| ((t * 7 + k * 3) as f64).sin()).collect();
        let q: f64 = (0..dim)
            .map(|r| (0..dim).map(|c| v[r] * h[r * dim + c] * v[c]).sum::<f64>())
            .sum();
        assert!(q >= -1e-12 * hscale, "{what}: not PSD ({q})");
    }
}

#[test]
fn friction_derivatives_match_finite_differences_2d() {
    let eps = 1e-3 * 0.01;
    let n = [0.1, 1.0];
    for (dx, regime) in [
        ([3e-3, -4e-4], "sliding"),
        ([-2e-4, 1e-3], "sliding, backwards"),
        ([4e-6, 2e-6], "static"),
        ([-1e-6, 5e-7], "static, backwards"),
    ] {
        check(2, &n, &dx, eps, &format!("2D {regime}"));
    }
}

#[test]
fn friction_derivatives_match_finite_differences_3d() {
    let eps = 1e-3 * 0.01;
    let n = [0.1, 1.0, -0.2];
    for (dx, regime) in [
        ([3e-3, -4e-4, 1e-3], "sliding"),
        ([4e-6, 2e-6, -3e-6], "static"),
        ([1e-7, 0.0, 2e-7], "static, near zero"),
    ] {
        check(3, &n, &dx, eps, &format!("3D {regime}"));
    }
}

#[test]
fn smoothing_is_c1_and_limits_are_right() {
    let eps = 2e-5;
    // f0 and f1 meet their sliding branches at ε (C¹ of f0 means f1 continuous).
    assert!((f0(eps * (1.0 - 1e-12), eps) - eps).abs() < 1e-15);
    assert!((f1_over_y(eps * (1.0 - 1e-9), eps) * eps - 1.0).abs() < 1e-8);
    assert!((f1_over_y(eps * (1.0 + 1e-9), eps) * eps - 1.0).abs() < 1e-8);
    // f1/y → 2/ε at 0; f0(0) = ε/3.
    assert_eq!(f1_over_y(0.0, eps), 2.0 / eps);
    assert!((f0(0.0, eps) - eps / 3.0).abs() < 1e-18);
    // Normal motion does not change D.
    let n = [0.0, 1.0];
    let a = friction_value(0.5, 2.0, eps, &n, &[1e-3, 0.0]);
    let b = friction_value(0.5, 2.0, eps, &n, &[1e-3, 5.0]);
    assert_eq!(a, b);
    // Hessian at u = 0 is μλ (2/ε) T.
    let mut h = [0.0; 4];
    friction_hessian(0.5, 2.0, eps, &n, &[0.0, 0.3], 1.0, &mut h);
    assert!((h[0] - 0.5 * 2.0 * 2.0 / eps).abs() < 1e-9 * h[0]);
    assert_eq!((h[1], h[2], h[3]), (0.0, 0.0, 0.0));
}
