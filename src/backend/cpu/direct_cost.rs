//! What a sparse Cholesky factorisation of a model's Newton matrix would cost,
//! estimated before any is made: the symbolic analysis (fill-reducing ordering and
//! the factor's pattern) of the node graph (one entry per node and per spring).
//! `--linear-solver auto` weighs it against PCG's iterations
//! ([`super::switching::SwitchingSolver`]).

use crate::model::Model;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, SymbolicCholeskyRaw, SymmetricOrdering,
};
use faer::sparse::{Pair, SymbolicSparseColMat};
use faer::Side;

/// What one numeric Cholesky factorisation of a model's Newton matrix (`dim × dim`
/// blocks) costs per node, estimated from the node graph's symbolic factor.
/// Contact pairs added later are not counted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FactorCost {
    /// Floating-point operations: `Σ c_j²` over the factor's columns (simplicial) or
    /// `w³/3 + w²m + w m²` per supernode of `w` columns and `m` rows below them,
    /// times `dim³` for the blocks.
    pub flops_per_node: f64,
    /// Entries of the factor (`c_j` per column, or `w(w+1)/2 + w m` per supernode,
    /// times `dim²`): what the triangular solves and the numeric pass's bookkeeping
    /// touch.
    pub entries_per_node: f64,
}

/// The cost of one numeric factorisation ([`FactorCost`]); `None` where the
/// symbolic analysis fails.
pub fn factor_cost(model: &Model) -> Option<FactorCost> {
    let n = model.num_nodes();
    if n == 0 {
        return Some(FactorCost {
            flops_per_node: 0.0,
            entries_per_node: 0.0,
        });
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
    let (flops, entries): (f64, f64) = match symbolic.raw() {
        SymbolicCholeskyRaw::Simplicial(s) => s.col_ptr().windows(2).fold((0.0, 0.0), |acc, w| {
            let c = (w[1] - w[0]) as f64;
            (acc.0 + c * c, acc.1 + c)
        }),
        SymbolicCholeskyRaw::Supernodal(s) => {
            let (begin, end) = (s.supernode_begin(), s.supernode_end());
            let rows = s.col_ptr_for_row_idx();
            (0..s.n_supernodes()).fold((0.0, 0.0), |acc, k| {
                let w = (end[k] - begin[k]) as f64;
                let m = (rows[k + 1] - rows[k]) as f64;
                (
                    acc.0 + w * w * w / 3.0 + w * w * m + w * m * m,
                    acc.1 + w * (w + 1.0) / 2.0 + w * m,
                )
            })
        }
    };
    let dim = model.dim as f64;
    Some(FactorCost {
        flops_per_node: flops * dim.powi(3) / n as f64,
        entries_per_node: entries * dim * dim / n as f64,
    })
}
