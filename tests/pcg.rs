//! The Jacobi-PCG direction solve against a dense direct solve of the same system.

mod common;
use common::{grid_scene, lattice_scene, Rng};
use springsim::backend::cpu::CpuBackend;
use springsim::newton::NewtonSystem;
use springsim::pcg::{pcg, LinearOperator, PcgWork, Preconditioner};
use springsim::scene::Scene;

/// Gaussian elimination with partial pivoting; `a` is row-major n × n.
fn dense_solve(mut a: Vec<f64>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let piv = (col..n)
            .max_by(|&i, &j| a[i * n + col].abs().total_cmp(&a[j * n + col].abs()))
            .unwrap();
        for k in 0..n {
            a.swap(col * n + k, piv * n + k);
        }
        b.swap(col, piv);
        for r in col + 1..n {
            let f = a[r * n + col] / a[col * n + col];
            for k in col..n {
                a[r * n + k] -= f * a[col * n + k];
            }
            b[r] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|k| a[r * n + k] * x[k]).sum();
        x[r] = (b[r] - s) / a[r * n + r];
    }
    x
}

fn check_direction(scene: Scene, seed: u64) {
    let dim = scene.model.dim;
    let fixed = scene.model.fixed.clone();
    let mut rng = Rng(seed);
    // A compressed and sheared state, so some spring blocks are projected.
    let x: Vec<f64> = scene
        .model
        .x0
        .iter()
        .map(|v| 0.85 * v + 0.03 * rng.next())
        .collect();
    let x_pred: Vec<f64> = x.iter().map(|v| v + 0.1 * rng.next()).collect();
    let mut b = CpuBackend::new(scene.model);
    b.set_prediction(&x_pred);
    b.set_positions(&x);
    let g = b.gradient();
    let n = x.len();
    // Dense matrix of the free rows and columns, column by column.
    let free: Vec<usize> = (0..n).filter(|i| !fixed[i / dim]).collect();
    let mut a = vec![0.0; free.len() * free.len()];
    for (c, &j) in free.iter().enumerate() {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        let col = b.hessian_times(&e);
        for (r, &i) in free.iter().enumerate() {
            a[r * free.len() + c] = col[i];
        }
    }
    for r in 0..free.len() {
        for c in 0..free.len() {
            let (u, v) = (a[r * free.len() + c], a[c * free.len() + r]);
            assert!(
                (u - v).abs() <= 1e-12 * u.abs().max(1.0),
                "Newton matrix is not symmetric"
            );
        }
    }
    let rhs: Vec<f64> = free.iter().map(|&i| -g[i]).collect();
    let exact = dense_solve(a, rhs);
    let tol = b.model().solver.cg_tolerance.into();
    let dir = b.compute_direction(tol);
    assert!(dir.cg_converged);
    let p = b.direction();
    let scale = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (r, &i) in free.iter().enumerate() {
        assert!(
            (p[i] - exact[r]).abs() <= 1e-8 * scale,
            "p[{i}] = {} but the dense solve gives {}",
            p[i],
            exact[r]
        );
    }
    for (i, f) in fixed.iter().enumerate() {
        if *f {
            assert!(p[i * dim..(i + 1) * dim].iter().all(|c| *c == 0.0));
        }
    }
    let expect_norm = p
        .chunks(dim)
        .map(|q| q.iter().map(|c| c.abs()).sum::<f64>())
        .fold(0.0, f64::max);
    assert_eq!(dir.norm, expect_norm);
}

#[test]
fn pcg_direction_matches_dense_solve_2d() {
    check_direction(grid_scene("book", "implicit_euler", ""), 3);
    check_direction(grid_scene("ipc", "newmark", "fixed = [0, 5]"), 4);
}

#[test]
fn pcg_direction_matches_dense_solve_3d() {
    check_direction(lattice_scene("ipc"), 5);
}

/// A 1D Laplacian plus shift, the textbook PCG case.
struct Tridiagonal(usize);

impl LinearOperator for Tridiagonal {
    fn len(&self) -> usize {
        self.0
    }
    fn apply(&self, u: &[f64], out: &mut [f64]) {
        for i in 0..self.0 {
            let l = if i > 0 { u[i - 1] } else { 0.0 };
            let r = if i + 1 < self.0 { u[i + 1] } else { 0.0 };
            out[i] = 2.1 * u[i] - l - r;
        }
    }
}

/// Jacobi for [`Tridiagonal`]: its diagonal is 2.1.
struct Diagonal(usize);

impl Preconditioner for Diagonal {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        for i in 0..self.0 {
            z[i] = r[i] / 2.1;
        }
    }
}

#[test]
fn pcg_solves_a_large_tridiagonal_system_in_parallel_chunks() {
    // Longer than two parallel chunks, so the threaded paths run.
    let n = 10_000;
    let op = Tridiagonal(n);
    let mut rng = Rng(9);
    let x_true: Vec<f64> = (0..n).map(|_| rng.next()).collect();
    let mut b = vec![0.0; n];
    op.apply(&x_true, &mut b);
    let mut x = vec![0.0; n];
    let res = pcg(
        &op,
        &Diagonal(n),
        &b,
        &mut x,
        1e-12,
        5000,
        &mut PcgWork::default(),
    );
    assert!(res.converged, "{res:?}");
    let err = x
        .iter()
        .zip(&x_true)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(err < 1e-9, "max error {err}");
    // Zero right-hand side: zero iterations, zero solution.
    let res = pcg(
        &op,
        &Diagonal(n),
        &vec![0.0; n],
        &mut x,
        1e-12,
        10,
        &mut PcgWork::default(),
    );
    assert_eq!(res.iterations, 0);
    assert!(x.iter().all(|v| *v == 0.0));
}
