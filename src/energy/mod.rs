//! The energies of the incremental potential, one module each, every one with a
//! `value`, a `gradient` and a (PSD-projected) `hessian` for one element.
//!
//! The element functions here are the executable spec of the WGSL kernels of the
//! same names; they take plain slices so both the CPU backend and the tests can
//! call them on any input. Units: positions in m, masses in kg, energies in J.

pub mod barrier;
pub mod friction;
pub mod gravity;
pub mod inertia;
pub mod spring;

/// Adds `s · a bᵀ` to the row-major `dim × dim` matrix `out`.
#[inline]
pub fn add_outer(out: &mut [f64], dim: usize, s: f64, a: &[f64], b: &[f64]) {
    for r in 0..dim {
        for c in 0..dim {
            out[r * dim + c] += s * a[r] * b[c];
        }
    }
}

/// Dot product of two equally long slices.
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
