//! Finite-difference checks of every energy's gradient and Hessian per element (the
//! barrier of both kinds, springs and their PSD projection); the whole incremental
//! potential is checked in `potential_derivatives.rs`.

mod common;
use common::{assert_close, Rng};
use springsim::energy::barrier::{
    barrier_gradient, barrier_hessian, barrier_value, BarrierKind, BarrierParams,
};
use springsim::energy::spring::{
    spring_gradient, spring_hessian, spring_hessian_exact, spring_value,
};

#[test]
fn barrier_derivatives_match_finite_differences() {
    for kind in [BarrierKind::Book, BarrierKind::Ipc] {
        let p = BarrierParams {
            kind,
            dhat: 0.01,
            kappa: 1e5,
        };
        for s in [0.05, 0.2, 0.5, 0.9, 0.99] {
            let d = s * p.dhat;
            let eps = 1e-7 * d;
            let fd_g =
                (barrier_value(&p, 0.3, d + eps) - barrier_value(&p, 0.3, d - eps)) / (2.0 * eps);
            let fd_h = (barrier_gradient(&p, 0.3, d + eps) - barrier_gradient(&p, 0.3, d - eps))
                / (2.0 * eps);
            assert_close(
                barrier_gradient(&p, 0.3, d),
                fd_g,
                1e-6,
                1e-9,
                &format!("{kind:?} gradient at s={s}"),
            );
            assert_close(
                barrier_hessian(&p, 0.3, d),
                fd_h,
                1e-5,
                1e-6,
                &format!("{kind:?} hessian at s={s}"),
            );
            assert!(
                barrier_hessian(&p, 0.3, d) > 0.0,
                "{kind:?} barrier must be convex inside d̂"
            );
        }
        assert_eq!(barrier_value(&p, 0.3, 0.011), 0.0);
        assert_eq!(barrier_value(&p, 0.3, 0.0), f64::INFINITY);
        assert_eq!(barrier_value(&p, 0.3, -1e-3), f64::INFINITY);
    }
    // The book barrier is seed 003's formula with its numbers.
    let p = BarrierParams {
        kind: BarrierKind::Book,
        dhat: 0.01,
        kappa: 1e5,
    };
    let d: f64 = 0.004;
    let s = d / 0.01;
    assert_close(
        barrier_value(&p, 0.25, d),
        0.25 * 0.01 * 1e5 / 2.0 * (s - 1.0) * s.ln(),
        1e-14,
        0.0,
        "book value",
    );
}

#[test]
fn ipc_barrier_is_c2_at_dhat() {
    let p = BarrierParams {
        kind: BarrierKind::Ipc,
        dhat: 0.01,
        kappa: 1e3,
    };
    let d = 0.01 * (1.0 - 1e-9);
    assert!(barrier_gradient(&p, 1.0, d).abs() < 1e-12);
    assert!(barrier_hessian(&p, 1.0, d).abs() < 1e-5);
}

#[test]
fn spring_derivatives_match_finite_differences() {
    let mut rng = Rng(7);
    for dim in [2, 3] {
        for scale in [0.5, 0.9, 1.0, 1.3] {
            let d: Vec<f64> = (0..dim).map(|_| rng.next()).collect();
            let l2 = springsim::energy::dot(&d, &d) / (scale * scale);
            let k = 2e4;
            let mut g = vec![0.0; dim];
            spring_gradient(&d, l2, k, &mut g);
            let mut h = vec![0.0; dim * dim];
            spring_hessian_exact(&d, l2, k, &mut h);
            for c in 0..dim {
                let eps = 1e-6;
                let (mut dp, mut dm) = (d.clone(), d.clone());
                dp[c] += eps;
                dm[c] -= eps;
                let fd = (spring_value(&dp, l2, k) - spring_value(&dm, l2, k)) / (2.0 * eps);
                assert_close(
                    g[c],
                    fd,
                    1e-6,
                    1e-6,
                    &format!("spring gradient dim={dim} scale={scale}"),
                );
                let (mut gp, mut gm) = (vec![0.0; dim], vec![0.0; dim]);
                spring_gradient(&dp, l2, k, &mut gp);
                spring_gradient(&dm, l2, k, &mut gm);
                for r in 0..dim {
                    let fd = (gp[r] - gm[r]) / (2.0 * eps);
                    assert_close(h[r * dim + c], fd, 1e-6, 1e-4, "spring hessian");
                }
            }
            // Projection: equal to the exact block when stretched, PSD always, and equal to
            // the eigenvalue-clamped exact block.
            let mut proj = vec![0.0; dim * dim];
            spring_hessian(&d, l2, k, &mut proj);
            let clamped = clamp_eigen(&h, dim);
            for i in 0..dim * dim {
                assert_close(proj[i], clamped[i], 1e-9, 1e-6, "projected spring hessian");
                if scale >= 1.0 {
                    assert_close(
                        proj[i],
                        h[i],
                        1e-12,
                        1e-9,
                        "stretched spring needs no projection",
                    );
                }
            }
        }
    }
}

/// Symmetric eigen-decomposition by cyclic Jacobi rotations, negatives set to 0.
fn clamp_eigen(a: &[f64], n: usize) -> Vec<f64> {
    let mut m = a.to_vec();
    let mut v: Vec<f64> = (0..n * n)
        .map(|i| if i % (n + 1) == 0 { 1.0 } else { 0.0 })
        .collect();
    for _ in 0..50 {
        for p in 0..n {
            for q in p + 1..n {
                if m[p * n + q].abs() < 1e-300 {
                    continue;
                }
                let theta = (m[q * n + q] - m[p * n + p]) / (2.0 * m[p * n + q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let (c, s) = (1.0 / (t * t + 1.0).sqrt(), t / (t * t + 1.0).sqrt());
                for k in 0..n {
                    let (mkp, mkq) = (m[k * n + p], m[k * n + q]);
                    m[k * n + p] = c * mkp - s * mkq;
                    m[k * n + q] = s * mkp + c * mkq;
                }
                for k in 0..n {
                    let (mpk, mqk) = (m[p * n + k], m[q * n + k]);
                    m[p * n + k] = c * mpk - s * mqk;
                    m[q * n + k] = s * mpk + c * mqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    let mut out = vec![0.0; n * n];
    for e in 0..n {
        let lam = m[e * n + e].max(0.0);
        for r in 0..n {
            for c in 0..n {
                out[r * n + c] += lam * v[r * n + e] * v[c * n + e];
            }
        }
    }
    out
}
