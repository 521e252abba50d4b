//! The coarse levels and the V-cycle on known SPD systems: every level's matrix is the
//! Galerkin product `P_lᵀ H P_l` (2D and 3D), the V-cycle is symmetric and positive,
//! and CG with it needs far fewer iterations than with the additive sum.

use super::tests::{assert_same_solution, dot, vector, System};
use super::*;
use crate::model::Spring;
use crate::pcg::{pcg, LinearOperator, PcgWork, Preconditioner};

/// An `nx × ny × nz` lattice (3D, unit spacing) of axis springs and one diagonal per
/// cube, the nodes of the bottom layer fixed.
fn lattice(nx: usize, ny: usize, nz: usize) -> System {
    let id = |i: usize, j: usize, k: usize| ((k * ny + j) * nx + i) as u32;
    let mut x = Vec::new();
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                // a little shear so that no frame is degenerate
                x.extend([i as f64 + 0.1 * k as f64, j as f64, k as f64]);
            }
        }
    }
    let mut springs = Vec::new();
    let mut add = |a: u32, b: u32| {
        springs.push(Spring {
            a,
            b,
            rest_length_sq: 1.0,
            stiffness: 300.0,
        })
    };
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                if i + 1 < nx {
                    add(id(i, j, k), id(i + 1, j, k));
                }
                if j + 1 < ny {
                    add(id(i, j, k), id(i, j + 1, k));
                }
                if k + 1 < nz {
                    add(id(i, j, k), id(i, j, k + 1));
                }
                if i + 1 < nx && j + 1 < ny && k + 1 < nz {
                    add(id(i, j, k), id(i + 1, j + 1, k + 1));
                }
            }
        }
    }
    let fixed = (0..nx * ny * nz).map(|v| v < nx * ny).collect();
    System::from_springs(3, x, springs, 0.02, fixed)
}

/// The dense matrix of a linear map on vectors of length `n` (columns by unit vectors).
fn dense(n: usize, len: usize, f: impl Fn(&[f64], &mut [f64])) -> Vec<Vec<f64>> {
    (0..n)
        .map(|c| {
            let mut e = vec![0.0; len];
            e[c] = 1.0;
            let mut out = vec![0.0; len];
            f(&e, &mut out);
            out[..n].to_vec()
        })
        .collect()
}

fn check_galerkin(sys: &System, domain: usize) {
    let dim = sys.dim;
    let mut mas = Mas::new(&sys.x, dim, domain);
    assert!(mas.levels() >= 4, "{} levels", mas.levels());
    mas.factor(&sys.blocks());
    let n = sys.fixed.len() * dim;
    let h = dense(n, n, |u, o| sys.apply(u, o));
    for level in 1..mas.levels() {
        let q = mas.parts[level].dofs;
        let (count, span) = (mas.counts[level], mas.span(level));
        // P_l: node i's rows are its supernode's basis at x_i (fixed nodes: none).
        let mut p = vec![vec![0.0; count * q]; n];
        let mut b = [0.0; 18];
        for i in (0..sys.fixed.len()).filter(|&i| !sys.fixed[i]) {
            let a = mas.rank[i] as usize / span;
            mas.parts[level]
                .frames
                .basis(a, &sys.x[i * dim..(i + 1) * dim], &mut b);
            for k in 0..dim {
                for c in 0..q {
                    p[i * dim + k][a * q + c] = b[k * q + c];
                }
            }
        }
        let m = count * q;
        let len = mas.level_len(level);
        let got = dense(m, len, |u, o| mas.coarse[level - 1].apply(u, o));
        let mut scale: f64 = 0.0;
        let mut worst: f64 = 0.0;
        for r in 0..m {
            for c in 0..m {
                // (Pᵀ H P)_rc, with h[col][row]
                let mut want = 0.0;
                for (i, pi) in p.iter().enumerate() {
                    if pi[r] == 0.0 {
                        continue;
                    }
                    want += pi[r] * (0..n).map(|j| h[j][i] * p[j][c]).sum::<f64>();
                }
                scale = scale.max(want.abs());
                worst = worst.max((got[c][r] - want).abs());
            }
        }
        assert!(
            worst <= 1e-10 * scale,
            "{dim}D level {level}: off by {worst} (scale {scale})"
        );
    }
}

#[test]
fn coarse_matrices_are_the_galerkin_products() {
    check_galerkin(&System::grid(11, 9, 0.05, 40.0, Some(0)), 4);
    check_galerkin(&lattice(5, 4, 4), 4);
}

fn check_symmetric_positive(sys: &System, domain: usize) {
    let dim = sys.dim;
    let mut mas = Mas::new(&sys.x, dim, domain);
    assert!(mas.levels() >= 3, "{} levels", mas.levels());
    mas.factor(&sys.blocks());
    let v = VCycle {
        mas: &mas,
        h: sys.blocks(),
    };
    let a = vector(sys.len(), 5, &sys.fixed, dim);
    let b = vector(sys.len(), 9, &sys.fixed, dim);
    let (mut ma, mut mb) = (vec![0.0; a.len()], vec![0.0; a.len()]);
    v.apply(&a, &mut ma);
    v.apply(&b, &mut mb);
    let (ab, ba) = (dot(&a, &mb), dot(&b, &ma));
    assert!((ab - ba).abs() <= 1e-10 * ab.abs().max(1.0), "{ab} vs {ba}");
    assert!(dot(&a, &ma) > 0.0 && dot(&b, &mb) > 0.0);
    for (i, f) in sys.fixed.iter().enumerate() {
        if *f {
            assert!(ma[dim * i..dim * (i + 1)].iter().all(|c| *c == 0.0));
        }
    }
}

#[test]
fn the_vcycle_is_symmetric_positive_and_leaves_fixed_nodes_alone() {
    check_symmetric_positive(&System::grid(37, 29, 0.01, 1e3, Some(0)), 4);
    check_symmetric_positive(&lattice(9, 7, 6), 4);
}

#[test]
fn one_level_vcycle_is_the_exact_inverse() {
    let sys = System::grid(4, 3, 0.5, 40.0, Some(0));
    let mut mas = Mas::new(&sys.x, 2, DEFAULT_DOMAIN);
    mas.factor(&sys.blocks());
    let v = VCycle {
        mas: &mas,
        h: sys.blocks(),
    };
    let u = vector(sys.len(), 3, &sys.fixed, 2);
    let (mut hu, mut z) = (vec![0.0; u.len()], vec![0.0; u.len()]);
    sys.apply(&u, &mut hu);
    v.apply(&hu, &mut z);
    for (a, b) in z.iter().zip(&u) {
        assert!((a - b).abs() < 1e-10, "{a} vs {b}");
    }
}

#[test]
fn cg_with_the_vcycle_needs_far_fewer_iterations_than_additive() {
    for sys in [
        System::grid(64, 64, 1e-3, 1e3, Some(0)),
        lattice(16, 16, 16),
    ] {
        let b = vector(sys.len(), 17, &sys.fixed, sys.dim);
        let mut work = PcgWork::default();
        let mut mas = Mas::new(&sys.x, sys.dim, DEFAULT_DOMAIN);
        mas.factor(&sys.blocks());
        let mut x_add = vec![0.0; b.len()];
        let ra = pcg(&sys, &mas, &b, &mut x_add, 1e-8, 100_000, &mut work);
        let v = VCycle {
            mas: &mas,
            h: sys.blocks(),
        };
        let mut x_v = vec![0.0; b.len()];
        let rv = pcg(&sys, &v, &b, &mut x_v, 1e-8, 100_000, &mut work);
        assert!(ra.converged && rv.converged, "{ra:?} {rv:?}");
        assert_same_solution(&x_v, &x_add);
        eprintln!(
            "{}D CG iterations: additive {}, V-cycle {}",
            sys.dim, ra.iterations, rv.iterations
        );
        assert!(
            2 * rv.iterations <= ra.iterations,
            "V-cycle {} vs additive {}",
            rv.iterations,
            ra.iterations
        );
    }
}
