//! What a sparse Cholesky factorisation of a model's Newton matrix would cost,
//! estimated before any is made: the symbolic analysis (fill-reducing ordering and
//! the factor's pattern) of the node graph (one entry per node and per spring).
//! `--linear-solver auto` weighs it against PCG's iterations
//! ([`super::auto_solver::SwitchingSolver`]).

use crate::model::Model;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, SymbolicCholeskyRaw, SymmetricOrdering,
};
use faer::sparse::{Pair, SymbolicSparseColMat};
use faer::Side;

/// Floating-point operations per node of one numeric Cholesky factorisation of the
/// Newton matrix (`dim × dim` blocks), estimated from the node graph's symbolic
/// factor: `Σ c_j²` over its columns (simplicial) or `w³/3 + w²m + w m²` per
/// supernode of `w` columns and `m` rows below them, times `dim³` for the blocks.
/// Contact pairs added later are not counted. `None` where the analysis fails.
pub fn factor_flops_per_node(model: &Model) -> Option<f64> {
    let n = model.num_nodes();
    if n == 0 {
        return Some(0.0);
    }
    let mut pairs: Vec<Pair<usize, usize>> = (0..n).map(|i| Pair { row: i, col: i }).collect();
    pairs.extend(model.springs.iter().map(|s| {
        let (a, b) = (s.a as usize, s.b as usize);
        Pair {
            row: a.max(b),
            col: a.min(b),
        }
    }));
    let (pattern, _) = SymbolicSparseColMat::try_new_from_indices(n, n, &pairs).ok()?;
    let symbolic = factorize_symbolic_cholesky(
        pattern.as_ref(),
        Side::Lower,
        SymmetricOrdering::Amd,
        Default::default(),
    )
    .ok()?;
    let flops: f64 = match symbolic.raw() {
        SymbolicCholeskyRaw::Simplicial(s) => s
            .col_ptr()
            .windows(2)
            .map(|w| ((w[1] - w[0]) as f64).powi(2))
            .sum(),
        SymbolicCholeskyRaw::Supernodal(s) => {
            let (begin, end) = (s.supernode_begin(), s.supernode_end());
            let rows = s.col_ptr_for_row_idx();
            (0..s.n_supernodes())
                .map(|k| {
                    let w = (end[k] - begin[k]) as f64;
                    let m = (rows[k + 1] - rows[k]) as f64;
                    w * w * w / 3.0 + w * w * m + w * m * m
                })
                .sum()
        }
    };
    Some(flops * (model.dim as f64).powi(3) / n as f64)
}
