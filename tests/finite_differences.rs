//! Finite-difference checks of every energy's gradient and Hessian, per element and
//! for the whole incremental potential, in 2D and 3D, for both barrier kinds.

mod common;
use common::{grid_scene, lattice_scene, Rng};
use springsim::backend::cpu::CpuBackend;
use springsim::energy::barrier::{
    barrier_gradient, barrier_hessian, barrier_value, BarrierKind, BarrierParams,
};
use springsim::energy::spring::{
    spring_gradient, spring_hessian, spring_hessian_exact, spring_value,
};
use springsim::scene::Scene;

fn assert_close(a: f64, b: f64, rel: f64, abs: f64, what: &str) {
    assert!(
        (a - b).abs() <= rel * a.abs().max(b.abs()) + abs,
        "{what}: {a} vs {b}"
    );
}

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

/// Moves every node towards the walls so that several are inside d̂, stretches the
/// mesh by 10 % (so no spring needs projection) and jitters positions and prediction.
fn probe_state(scene: &Scene, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let m = &scene.model;
    let mut rng = Rng(seed);
    let dim = m.dim;
    let n = m.num_nodes();
    let centroid: Vec<f64> = (0..dim)
        .map(|k| m.x0.chunks(dim).map(|p| p[k]).sum::<f64>() / n as f64)
        .collect();
    let mut x: Vec<f64> =
        m.x0.iter()
            .enumerate()
            .map(|(i, v)| centroid[i % dim] + 1.1 * (v - centroid[i % dim]))
            .collect();
    // Bring the lowest node to 0.4 d̂ above the ground (wall 0, normal +y).
    let lowest = x
        .chunks(dim)
        .map(|p| m.walls[0].distance(p))
        .fold(f64::INFINITY, f64::min);
    let shift = lowest - 0.4 * m.barrier.dhat;
    for p in x.chunks_mut(dim) {
        p[1] -= shift;
    }
    for v in x.iter_mut() {
        *v += 0.002 * rng.next();
    }
    let x_pred = x.iter().map(|v| v + 0.05 * rng.next()).collect();
    (x, x_pred)
}

/// A random direction `u` (zero on fixed nodes) and the points `x ± step u`.
fn probe_direction(
    x: &[f64],
    fixed: &[bool],
    dim: usize,
    rng: &mut Rng,
    step: f64,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let u: Vec<f64> = (0..x.len())
        .map(|i| if fixed[i / dim] { 0.0 } else { rng.next() })
        .collect();
    let xp: Vec<f64> = x.iter().zip(&u).map(|(a, b)| a + step * b).collect();
    let xm: Vec<f64> = x.iter().zip(&u).map(|(a, b)| a - step * b).collect();
    (u, xp, xm)
}

/// The central differences `(∇E(xp) − ∇E(xm)) / (2 step)` of the gradient, per
/// coordinate (a finite-difference Hessian-vector product); the positions are set
/// back to `x` after.
fn gradient_differences(
    b: &mut CpuBackend,
    x: &[f64],
    (xp, xm): (&[f64], &[f64]),
    step: f64,
) -> Vec<f64> {
    b.set_positions(xp);
    let gp = b.gradient();
    b.set_positions(xm);
    let gm = b.gradient();
    b.set_positions(x);
    gp.iter()
        .zip(&gm)
        .map(|(p, m)| (p - m) / (2.0 * step))
        .collect()
}

fn check_incremental_potential(scene: Scene, seed: u64) {
    let (x, x_pred) = probe_state(&scene, seed);
    let dim = scene.model.dim;
    let fixed = scene.model.fixed.clone();
    let mut b = CpuBackend::new(scene.model);
    b.set_prediction(&x_pred);
    b.set_positions(&x);
    let g = b.gradient();
    let eps = 1e-6;
    let e = |b: &CpuBackend, y: &[f64]| b.incremental_potential(y);
    let mut rng = Rng(seed + 1);
    // Directional derivatives along random directions, and every coordinate of a few nodes.
    for trial in 0..4 {
        let (u, xp, xm) = probe_direction(&x, &fixed, dim, &mut rng, eps);
        let fd = (e(&b, &xp) - e(&b, &xm)) / (2.0 * eps);
        let an: f64 = g.iter().zip(&u).map(|(a, b)| a * b).sum();
        assert_close(
            an,
            fd,
            1e-6,
            1e-7,
            &format!("directional gradient, trial {trial}"),
        );
        // Hessian-vector product against the difference of gradients.
        let hu = b.hessian_times(&u);
        let fd_hu = gradient_differences(&mut b, &x, (&xp, &xm), eps);
        for i in 0..x.len() {
            assert_close(
                hu[i],
                fd_hu[i],
                1e-5,
                1e-6,
                &format!("Hessian-vector product entry {i}"),
            );
        }
    }
    for (i, f) in fixed.iter().enumerate() {
        if *f {
            assert!(
                g[i * dim..(i + 1) * dim].iter().all(|c| *c == 0.0),
                "fixed node {i} has a gradient"
            );
        }
    }
}

#[test]
fn incremental_potential_2d_book_and_ipc() {
    check_incremental_potential(grid_scene("book", "implicit_euler", ""), 11);
    check_incremental_potential(grid_scene("ipc", "implicit_euler", ""), 12);
    check_incremental_potential(grid_scene("ipc", "newmark", "fixed = [11]"), 13);
}

#[test]
fn incremental_potential_3d_book_and_ipc() {
    check_incremental_potential(lattice_scene("book"), 21);
    check_incremental_potential(lattice_scene("ipc"), 22);
}

#[test]
fn probe_states_touch_the_barrier() {
    // Guard: the FD checks above must exercise active barrier terms.
    for scene in [
        grid_scene("book", "implicit_euler", ""),
        lattice_scene("ipc"),
    ] {
        let (x, _) = probe_state(&scene, 5);
        let m = &scene.model;
        let active = x
            .chunks(m.dim)
            .filter(|p| {
                m.walls
                    .iter()
                    .any(|w| w.distance(p) < m.barrier.dhat && w.distance(p) > 0.0)
            })
            .count();
        assert!(active >= 2, "only {active} nodes inside d̂");
    }
}

/// The whole incremental potential with friction on both walls: the backend's
/// gradient and Hessian-vector products against finite differences of E, with the
/// step start `xⁿ` chosen so that some contacts slide (slip 3 ε_v h) and some stick
/// (slip 0.3 ε_v h).
fn check_incremental_potential_with_friction(mut scene: Scene, seed: u64) {
    let (x, x_pred) = probe_state(&scene, seed);
    let dim = scene.model.dim;
    scene.model.friction.plane_mu = vec![0.4, 0.3];
    let eps_vh = scene.model.friction.eps_v * scene.model.solver.dt;
    let fixed = scene.model.fixed.clone();
    let mut rng = Rng(seed + 7);
    let xn: Vec<f64> = x
        .chunks(dim)
        .enumerate()
        .flat_map(|(i, p)| {
            let slip = if i % 2 == 0 { 3.0 } else { 0.3 } * eps_vh;
            let dir: Vec<f64> = (0..dim).map(|_| rng.next()).collect();
            let len = dir.iter().map(|c| c * c).sum::<f64>().sqrt();
            p.iter()
                .zip(dir)
                .map(|(a, d)| a - slip * d / len)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut b = CpuBackend::new(scene.model);
    b.set_step_start(&xn);
    assert!(
        b.friction_lambda().iter().filter(|l| **l > 0.0).count() >= 2,
        "the probe must have friction contacts"
    );
    b.set_prediction(&x_pred);
    b.set_positions(&x);
    let g = b.gradient();
    let step = 1e-8;
    for trial in 0..4 {
        let (u, xp, xm) = probe_direction(&x, &fixed, dim, &mut rng, step);
        let fd = (b.incremental_potential(&xp) - b.incremental_potential(&xm)) / (2.0 * step);
        let an: f64 = g.iter().zip(&u).map(|(a, b)| a * b).sum();
        assert_close(
            an,
            fd,
            1e-5,
            1e-7,
            &format!("friction: directional gradient, trial {trial}"),
        );
        let hu = b.hessian_times(&u);
        let fd_hu = gradient_differences(&mut b, &x, (&xp, &xm), step);
        let scale = hu.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        for i in 0..x.len() {
            assert_close(
                hu[i],
                fd_hu[i],
                1e-4,
                1e-6 * scale,
                &format!("friction: Hessian-vector entry {i}"),
            );
        }
    }
}

#[test]
fn incremental_potential_with_friction_2d_and_3d() {
    check_incremental_potential_with_friction(grid_scene("ipc", "implicit_euler", ""), 31);
    check_incremental_potential_with_friction(grid_scene("book", "implicit_euler", ""), 32);
    check_incremental_potential_with_friction(lattice_scene("ipc"), 33);
}
