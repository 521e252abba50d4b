//! The MAS preconditioner on known SPD systems: exact on one domain, symmetric and
//! positive on many, and far fewer CG iterations than block-Jacobi on a grid.

use super::*;
use crate::model::Spring;
use crate::pcg::{invert_block, pcg, BlockJacobi, LinearOperator, PcgWork, Preconditioner};

/// A spring network with its H as node and spring blocks.
pub(super) struct System {
    pub(super) dim: usize,
    pub(super) x: Vec<f64>,
    node_blocks: Vec<f64>,
    spring_blocks: Vec<f64>,
    springs: Vec<Spring>,
    adj_offsets: Vec<u32>,
    adj_springs: Vec<u32>,
    adj_nodes: Vec<u32>,
    pub(super) fixed: Vec<bool>,
}

impl System {
    /// An `nx × ny` grid (2D) with unit spacing, structural and shear springs of
    /// stiffness `k` as isotropic blocks `k I` plus a rank-one term along the spring,
    /// node blocks `mass I`, the nodes of `fixed_row` fixed.
    pub(super) fn grid(nx: usize, ny: usize, mass: f64, k: f64, fixed_row: Option<usize>) -> Self {
        let dim = 2;
        let id = |i: usize, j: usize| (j * nx + i) as u32;
        let x: Vec<f64> = (0..nx * ny)
            .flat_map(|n| [(n % nx) as f64, (n / nx) as f64])
            .collect();
        let mut springs = Vec::new();
        for j in 0..ny {
            for i in 0..nx {
                let mut add = |a: u32, b: u32| {
                    springs.push(Spring {
                        a,
                        b,
                        rest_length_sq: 1.0,
                        stiffness: k,
                    })
                };
                if i + 1 < nx {
                    add(id(i, j), id(i + 1, j));
                }
                if j + 1 < ny {
                    add(id(i, j), id(i, j + 1));
                }
                if i + 1 < nx && j + 1 < ny {
                    add(id(i, j), id(i + 1, j + 1));
                    add(id(i + 1, j), id(i, j + 1));
                }
            }
        }
        let fixed = (0..nx * ny).map(|v| Some(v / nx) == fixed_row).collect();
        Self::from_springs(dim, x, springs, mass, fixed)
    }

    /// The system of `springs` between nodes at `x` (`dim` per node): spring blocks
    /// `k (0.1 I + d dᵀ / |d|²)`, node blocks `mass I`.
    pub(super) fn from_springs(
        dim: usize,
        x: Vec<f64>,
        springs: Vec<Spring>,
        mass: f64,
        fixed: Vec<bool>,
    ) -> Self {
        let mut spring_blocks = Vec::new();
        for s in &springs {
            let (a, b) = (s.a as usize, s.b as usize);
            let d: Vec<f64> = (0..dim).map(|c| x[dim * a + c] - x[dim * b + c]).collect();
            let l2: f64 = d.iter().map(|v| v * v).sum();
            for r in 0..dim {
                for c in 0..dim {
                    let iso = if r == c { 0.1 } else { 0.0 };
                    spring_blocks.push(s.stiffness * (iso + d[r] * d[c] / l2));
                }
            }
        }
        let n = fixed.len();
        let node_blocks = (0..n)
            .flat_map(|_| (0..dim * dim).map(move |k| if k % (dim + 1) == 0 { mass } else { 0.0 }))
            .collect();
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (s, sp) in springs.iter().enumerate() {
            adj[sp.a as usize].push(s as u32);
            adj[sp.b as usize].push(s as u32);
        }
        let mut adj_offsets = vec![0u32];
        let mut adj_springs = Vec::new();
        for a in adj {
            adj_springs.extend(a);
            adj_offsets.push(adj_springs.len() as u32);
        }
        let adj_nodes = other_ends(&springs, &adj_offsets, &adj_springs);
        Self {
            dim,
            x,
            node_blocks,
            spring_blocks,
            springs,
            adj_offsets,
            adj_springs,
            adj_nodes,
            fixed,
        }
    }

    pub(super) fn blocks(&self) -> BlockMatrix<'_> {
        BlockMatrix {
            dim: self.dim,
            node_blocks: &self.node_blocks,
            spring_blocks: &self.spring_blocks,
            springs: &self.springs,
            adj_offsets: &self.adj_offsets,
            adj_springs: &self.adj_springs,
            adj_nodes: &self.adj_nodes,
            fixed: &self.fixed,
            x: &self.x,
            pairs: &crate::collision::blocks::NO_PAIRS,
        }
    }

    fn jacobi(&self) -> Vec<f64> {
        let (dim, dd) = (self.dim, self.dim * self.dim);
        let n = self.fixed.len();
        let mut out = vec![0.0; n * dd];
        for i in 0..n {
            if self.fixed[i] {
                continue;
            }
            let mut b = vec![0.0; dd];
            self.blocks().diagonal_block(i, &mut b);
            invert_block(dim, &b, &mut out[i * dd..(i + 1) * dd]);
        }
        out
    }
}

impl LinearOperator for System {
    fn len(&self) -> usize {
        self.fixed.len() * self.dim
    }

    fn apply(&self, u: &[f64], out: &mut [f64]) {
        let (dim, dd) = (self.dim, self.dim * self.dim);
        out.iter_mut().for_each(|v| *v = 0.0);
        for i in 0..self.fixed.len() {
            if self.fixed[i] {
                continue;
            }
            let nb = &self.node_blocks[i * dd..(i + 1) * dd];
            for r in 0..dim {
                for c in 0..dim {
                    out[i * dim + r] += nb[r * dim + c] * u[i * dim + c];
                }
            }
            for e in self.adj_offsets[i]..self.adj_offsets[i + 1] {
                let s = self.adj_springs[e as usize] as usize;
                let sp = &self.springs[s];
                let j = if sp.a as usize == i { sp.b } else { sp.a } as usize;
                let uj = if self.fixed[j] { 0.0 } else { 1.0 };
                let bk = &self.spring_blocks[s * dd..(s + 1) * dd];
                for r in 0..dim {
                    for c in 0..dim {
                        out[i * dim + r] +=
                            bk[r * dim + c] * (u[i * dim + c] - uj * u[j * dim + c]);
                    }
                }
            }
        }
    }
}

pub(super) fn vector(n: usize, seed: u64, fixed: &[bool], dim: usize) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|c| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5;
            if fixed[c / dim] {
                0.0
            } else {
                v
            }
        })
        .collect()
}

/// Asserts that two CG solutions agree to 1e-5 of the reference's largest entry.
pub(super) fn assert_same_solution(x: &[f64], reference: &[f64]) {
    let err = x
        .iter()
        .zip(reference)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    let scale = reference.iter().map(|v| v.abs()).fold(0.0, f64::max);
    assert!(
        err <= 1e-5 * scale,
        "solutions differ by {err} (scale {scale})"
    );
}

pub(super) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn one_domain_is_the_exact_inverse() {
    let sys = System::grid(4, 3, 0.5, 40.0, Some(0));
    let mut mas = Mas::new(&sys.x, 2, DEFAULT_DOMAIN);
    assert_eq!(mas.levels(), 1);
    mas.factor(&sys.blocks());
    let u = vector(sys.len(), 3, &sys.fixed, 2);
    let mut hu = vec![0.0; u.len()];
    sys.apply(&u, &mut hu);
    let mut z = vec![0.0; u.len()];
    mas.apply(&hu, &mut z);
    for (a, b) in z.iter().zip(&u) {
        assert!((a - b).abs() < 1e-10, "{a} vs {b}");
    }
}

#[test]
fn many_levels_are_symmetric_and_positive() {
    let sys = System::grid(37, 29, 0.01, 1e3, Some(0));
    let mut mas = Mas::new(&sys.x, 2, 4);
    assert!(mas.levels() >= 4, "{} levels", mas.levels());
    mas.factor(&sys.blocks());
    assert_eq!(mas.replaced_pivots(), 0);
    let a = vector(sys.len(), 5, &sys.fixed, 2);
    let b = vector(sys.len(), 9, &sys.fixed, 2);
    let (mut ma, mut mb) = (vec![0.0; a.len()], vec![0.0; a.len()]);
    mas.apply(&a, &mut ma);
    mas.apply(&b, &mut mb);
    let (ab, ba) = (dot(&a, &mb), dot(&b, &ma));
    assert!((ab - ba).abs() <= 1e-10 * ab.abs().max(1.0), "{ab} vs {ba}");
    assert!(dot(&a, &ma) > 0.0);
    // fixed nodes get nothing
    for (i, f) in sys.fixed.iter().enumerate() {
        if *f {
            assert_eq!(&ma[2 * i..2 * i + 2], &[0.0, 0.0]);
        }
    }
}

#[test]
fn cg_needs_far_fewer_iterations_than_with_block_jacobi() {
    // A stiff 64 × 64 grid hanging from its bottom row: the regime where block-Jacobi
    // iteration counts grow with the mesh.
    let sys = System::grid(64, 64, 1e-3, 1e3, Some(0));
    let b = vector(sys.len(), 17, &sys.fixed, 2);
    let mut work = PcgWork::default();
    let jac = sys.jacobi();
    let mut x_jacobi = vec![0.0; b.len()];
    let pre = BlockJacobi {
        dim: 2,
        inverse_blocks: &jac,
    };
    let rj = pcg(&sys, &pre, &b, &mut x_jacobi, 1e-8, 100_000, &mut work);
    let mut mas = Mas::new(&sys.x, 2, DEFAULT_DOMAIN);
    mas.factor(&sys.blocks());
    let mut x_mas = vec![0.0; b.len()];
    let rm = pcg(&sys, &mas, &b, &mut x_mas, 1e-8, 100_000, &mut work);
    assert!(rj.converged && rm.converged, "{rj:?} {rm:?}");
    assert_same_solution(&x_mas, &x_jacobi);
    eprintln!(
        "CG iterations: block-Jacobi {}, MAS {}",
        rj.iterations, rm.iterations
    );
    assert!(
        4 * rm.iterations <= rj.iterations,
        "MAS {} vs block-Jacobi {}",
        rm.iterations,
        rj.iterations
    );
}
