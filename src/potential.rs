//! The potential Ψ's gradient per node on the CPU (f64): gravity, every wall's barrier
//! (through [`crate::contact`]) and the springs' gradients gathered over the
//! node → springs adjacency. Shared by the CPU backend's assembly and by
//! [`crate::integrator::initial_acceleration`].

// Index loops over the d components mirror the WGSL kernels line for line.
#![allow(clippy::needless_range_loop)]

use crate::contact;
use crate::energy::gravity::gravity_gradient;
use crate::energy::spring::spring_gradient;
use crate::model::Model;
use crate::parallel;

/// Largest supported dimension (for stack scratch arrays).
pub const MAX_DIM: usize = 3;

/// Writes `x_a − x_b` (m) into `out[..dim]`.
#[inline]
pub fn diff(x: &[f64], a: u32, b: u32, dim: usize, out: &mut [f64; MAX_DIM]) {
    let (a, b) = (a as usize * dim, b as usize * dim);
    for k in 0..dim {
        out[k] = x[a + k] - x[b + k];
    }
}

/// Every spring's gradient `∂Ψ/∂x_a` (N) at positions `x`, `springs × dim`.
pub fn spring_gradients(m: &Model, x: &[f64], out: &mut [f64]) {
    let dim = m.dim;
    let springs = &m.springs;
    parallel::for_each_piece(out, dim, |s, out| {
        let sp = &springs[s];
        let mut d = [0.0; MAX_DIM];
        diff(x, sp.a, sp.b, dim, &mut d);
        spring_gradient(&d[..dim], sp.rest_length_sq, sp.stiffness, out);
    });
}

/// The node → springs adjacency of a model (see [`Model::node_springs`]):
/// node i's springs are `springs[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Copy, Debug)]
pub struct Adjacency<'a> {
    /// Per node, the start of its entries in `springs`; `nodes + 1` entries.
    pub offsets: &'a [u32],
    /// Spring indices, grouped by node.
    pub springs: &'a [u32],
}

/// `∇Ψ` of node i (N) at positions `y`: gravity, every wall's barrier, then
/// `extra(out)` (the CPU backend's friction), then the spring gradients
/// `spring_grad` (from [`spring_gradients`] at `y`) gathered over the adjacency.
#[inline]
pub fn node_potential_gradient(
    m: &Model,
    adjacency: Adjacency<'_>,
    spring_grad: &[f64],
    y: &[f64],
    i: usize,
    extra: impl FnOnce(&mut [f64]),
    out: &mut [f64],
) {
    let dim = m.dim;
    let yi = &y[i * dim..(i + 1) * dim];
    gravity_gradient(m.mass[i], &m.gravity, out);
    contact::add_barrier_gradient(m, i, yi, out);
    extra(out);
    for e in adjacency.offsets[i]..adjacency.offsets[i + 1] {
        let s = adjacency.springs[e as usize] as usize;
        let sign = if m.springs[s].a as usize == i {
            1.0
        } else {
            -1.0
        };
        for k in 0..dim {
            out[k] += sign * spring_grad[s * dim + k];
        }
    }
}

/// The gradient (N, `nodes × dim`) of the barriers between and within bodies at
/// positions `x` (m): every pair of the broad phase within d̂ that is not in
/// `excluded` (the model's rest exclusions). Zero without self-contact. Newmark's
/// a⁰ and the reaction forces of driven nodes ([`crate::drive`]) read it.
pub fn pair_barrier_gradient(
    model: &Model,
    x: &[f64],
    excluded: &[crate::collision::pairs::Pair],
) -> Vec<f64> {
    use crate::collision::barrier::{pair_barrier, pair_weight};
    use crate::collision::pairs::{candidates, stacked, Motion};
    let dim = model.dim;
    let mut grad = vec![0.0; x.len()];
    let mesh = &model.collision;
    if !model.self_contact.enabled || mesh.is_empty() {
        return grad;
    }
    let dhat = model.barrier.dhat;
    for pair in candidates(mesh, Motion { x, sweep: None }, dhat, excluded) {
        let (nodes, k, s) = stacked(mesh, x, pair);
        let w = pair_weight(pair.kind, &nodes, &model.contact_area);
        let eps_x = mesh.mollifier_threshold(pair);
        if let Some(b) = pair_barrier(pair.kind, dim, &s, &model.barrier, w, eps_x, false) {
            for (l, &i) in nodes[..k].iter().enumerate() {
                for c in 0..dim {
                    grad[i as usize * dim + c] += b.gradient[l * dim + c];
                }
            }
        }
    }
    grad
}
