//! Finite-difference checks of the whole incremental potential's gradient and
//! Hessian on the CPU backend, in 2D and 3D, for both barrier kinds, with and without
//! friction (the per-element checks are in `finite_differences.rs`).

mod common;
use common::{assert_close, grid_scene, lattice_scene, Rng};
use springsim::backend::cpu::CpuBackend;
use springsim::scene::Scene;

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
