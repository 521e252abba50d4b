//! Squared distances between contact primitives, with their case selection, exact
//! derivatives, the edge–edge mollifier and closest-point coefficients.
//!
//! Everything here is a SQUARED Euclidean distance (m²) between two closed
//! primitives given by node coordinates (`&[f64]` slices of length `dim`, 2 or 3):
//! point–point, point–edge (2D and 3D), point–triangle (3D) and edge–edge (3D).
//!
//! The distance between two primitives is the distance between some pair of their
//! sub-primitives (a vertex, an edge's interior, a triangle's interior); which pair
//! is the *case*, picked from the clamped closest-point parameters (as in the IPC
//! paper, Li et al. 2020). Each case has one smooth formula:
//! - point–point `|p − q|²`,
//! - point–line `|(e0 − p) × (e1 − p)|² / |e1 − e0|²` (the 2D cross product is a
//!   scalar),
//! - point–plane `((p − t0)·n)² / |n|²` with `n = (t1 − t0) × (t2 − t0)`,
//! - line–line `((ea0 − eb0)·n)² / |n|²` with `n = (ea1 − ea0) × (eb1 − eb0)`.
//!
//! The value of a pair is its case's formula at the given nodes, and it equals the
//! true minimum distance between the two primitives (tested against brute-force
//! minimisation). The `*_derivatives` functions return that same formula's value,
//! gradient and Hessian (see [`Derivatives`]) with respect to the stacked node
//! coordinates, with zero rows for nodes the case does not involve. Each formula is
//! written once, generic over [`ad::Scalar`], and evaluated either on `f64` or on the
//! second-order forward-mode AD type [`ad::Dual`], so values and derivatives agree
//! exactly.
//!
//! Node stacking (see the collision module conventions): point–edge `[p, e0, e1]`,
//! point–triangle `[p, t0, t1, t2]`, edge–edge `[ea0, ea1, eb0, eb1]`.
//!
//! Degenerate input is handled without dividing by ~0: a triangle whose corner
//! angle at `t0` has `sin² θ ≤` [`NEARLY_PARALLEL_SIN_SQ`] is treated as its three
//! edges, and two edges with `sin² θ ≤` [`NEARLY_PARALLEL_SIN_SQ`] (nearly parallel,
//! or one of zero length) never take the line–line case.

pub mod ad;
mod edge_edge;
mod mollifier;
mod point_edge;
mod point_point;
mod point_triangle;
#[cfg(test)]
pub(crate) mod test_support;
mod vector;

pub use edge_edge::{
    edge_edge_case, edge_edge_coefficients, edge_edge_cross_norm_sq, edge_edge_distance_sq,
    edge_edge_distance_sq_derivatives, EdgeEdgeCase,
};
pub use mollifier::{
    edge_edge_mollifier, edge_edge_mollifier_threshold, mollifier_of,
    mollifier_threshold_from_lengths,
};
pub use point_edge::{
    point_edge_case, point_edge_coefficients, point_edge_distance_sq,
    point_edge_distance_sq_derivatives, PointEdgeCase,
};
pub use point_point::{point_point_distance_sq, point_point_distance_sq_derivatives};
pub use point_triangle::{
    point_triangle_case, point_triangle_coefficients, point_triangle_distance_sq,
    point_triangle_distance_sq_derivatives, PointTriangleCase,
};

use ad::Dual;

/// Threshold on `sin² θ = |a × b|² / (|a|²·|b|²)` (dimensionless) below which two
/// directions count as parallel: edge–edge pairs then never use the line–line
/// formula and triangles never use the point–plane formula; they fall back to the
/// smallest of their point–edge distances.
///
/// Why 1e-14 (θ < 1e-7 rad): the cross product carries an absolute rounding error
/// of about `ε·|a|·|b|` (ε = 2.2e-16), so at the threshold its direction is still
/// known to `ε / sin θ ≈ 2e-9` and the line–line and point–plane formulas lose at
/// most ~2e-9 of the nodes' spread in distance; below it the fallback overestimates
/// the squared distance by at most `sin² θ · L² ≤ 1e-14 · L²` (L the longer edge),
/// since along a segment tilted by θ the distance to the other line changes by at
/// most `L · sin θ`.
pub const NEARLY_PARALLEL_SIN_SQ: f64 = 1e-14;

/// Value, gradient and Hessian of a scalar function of the stacked node
/// coordinates of a contact pair (`n = k·dim ≤ 12` coordinates).
///
/// Units are those of the function: for the squared distances the value is in m²,
/// the gradient in m and the Hessian dimensionless; the mollifier is
/// dimensionless, its gradient in 1/m and its Hessian in 1/m².
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Derivatives {
    /// Number of coordinates: the gradient uses its first `n` entries and the
    /// Hessian its first `n·n` entries.
    pub n: usize,
    /// The function's value.
    pub value: f64,
    /// `gradient[i] = ∂f/∂x_i` for `i < n`; the rest is zero.
    pub gradient: [f64; 12],
    /// Row-major `n × n` Hessian, `hessian[i·n + j] = ∂²f/∂x_i∂x_j`; the rest is
    /// zero.
    pub hessian: [f64; 144],
}

impl Derivatives {
    /// The zero function of `n` coordinates (value, gradient and Hessian zero).
    pub fn zeros(n: usize) -> Self {
        assert!(n <= 12, "at most 12 coordinates, got {n}");
        Derivatives {
            n,
            value: 0.0,
            gradient: [0.0; 12],
            hessian: [0.0; 144],
        }
    }

    /// The Hessian entry `∂²f/∂x_i∂x_j`.
    pub fn hessian_entry(&self, i: usize, j: usize) -> f64 {
        self.hessian[i * self.n + j]
    }
}

/// Evaluates `f` on AD variables seeded at the node differences
/// `y_k = x[diffs[k][0]] − x[diffs[k][1]]` (each `dim` coordinates,
/// `diffs.len()·dim == M`), and maps the result back onto all `n` coordinates of
/// `x` (nodes in no difference get zero rows and columns).
///
/// The formulas depend on the nodes only through differences, so seeding the
/// differences needs fewer AD variables (9 instead of 12 for four nodes); with the
/// constant Jacobian `J = ∂y/∂x` (entries ±1) the gradient is `Jᵀ∇_y f` and the
/// Hessian `Jᵀ∇²_y f J`.
fn derivatives_of<const M: usize>(
    x: &[f64],
    dim: usize,
    diffs: &[[usize; 2]],
    n: usize,
    f: impl Fn(&[Dual<M>]) -> Dual<M>,
) -> Derivatives {
    debug_assert_eq!(diffs.len() * dim, M);
    let mut local = [0.0; M];
    for (k, &[plus, minus]) in diffs.iter().enumerate() {
        for c in 0..dim {
            local[k * dim + c] = x[plus * dim + c] - x[minus * dim + c];
        }
    }
    let r = f(&Dual::variables(&local));
    let mut out = Derivatives::zeros(n);
    out.value = r.v;
    // Each local coordinate l moves global coordinate plus(l) by +1 and minus(l)
    // by −1.
    let ends = |l: usize| {
        let [plus, minus] = diffs[l / dim];
        let c = l % dim;
        [(plus * dim + c, 1.0), (minus * dim + c, -1.0)]
    };
    for l1 in 0..M {
        for (i, si) in ends(l1) {
            out.gradient[i] += si * r.g[l1];
            for l2 in 0..M {
                let h = r.hessian(l1, l2);
                for (j, sj) in ends(l2) {
                    out.hessian[i * n + j] += si * sj * h;
                }
            }
        }
    }
    // The sums above may round differently in the two triangles: make the
    // Hessian exactly symmetric.
    for i in 0..n {
        for j in i + 1..n {
            out.hessian[j * n + i] = out.hessian[i * n + j];
        }
    }
    out
}

/// `a − b` over the first `a.len()` (2 or 3) coordinates, in a 3-array whose
/// unused entry is 0; slice it to the dimension.
fn diff(a: &[f64], b: &[f64]) -> [f64; 3] {
    let mut d = [0.0; 3];
    for i in 0..a.len() {
        d[i] = a[i] - b[i];
    }
    d
}

/// The four 3D nodes `[x[0..3], x[3..6], x[6..9], x[9..12]]` of a stacked pair.
fn nodes_3d(x: &[f64]) -> [&[f64]; 4] {
    std::array::from_fn(|k| &x[3 * k..3 * k + 3])
}
