//! The contact pairs' Hessian blocks as the Newton operator reads them: per pair its
//! nodes and its `(k d) × (k d)` PSD block (weighted by the potential weight), with
//! a node → (pair, local index) adjacency so that the product gathers per node,
//! deterministically and without atomics (the GPU layout too).
//!
//! The diagonal `d × d` sub-blocks go into the node blocks of the operator (so the
//! block-Jacobi and multilevel preconditioners see them); [`PairBlocks::gather`]
//! applies only the off-diagonal coupling between a pair's distinct nodes.

/// Stride of one pair's block in [`PairBlocks::hessian`]: room for 12 × 12.
pub const BLOCK_STRIDE: usize = 144;

/// The off-diagonal couplings of the active contact pairs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairBlocks {
    /// Components per node (2 or 3).
    pub dim: usize,
    /// Each pair's nodes (the first `count` entries are used).
    pub nodes: Vec<[u32; 4]>,
    /// Each pair's node count k (2 to 4).
    pub count: Vec<u8>,
    /// Each pair's weighted block (kg), row-major `(k d)²` at `BLOCK_STRIDE × pair`.
    pub hessian: Vec<f64>,
    /// Node → entries adjacency offsets (`nodes + 1` entries once built).
    pub offsets: Vec<u32>,
    /// Entries: `(pair, local index of the node in the pair)`.
    pub entries: Vec<(u32, u8)>,
}

/// No pairs: what the operator reads where self-contact is off.
pub static NO_PAIRS: PairBlocks = PairBlocks {
    dim: 0,
    nodes: Vec::new(),
    count: Vec::new(),
    hessian: Vec::new(),
    offsets: Vec::new(),
    entries: Vec::new(),
};

impl PairBlocks {
    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether there is no pair.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Empties the list for a new assembly.
    pub fn clear(&mut self, dim: usize) {
        self.dim = dim;
        self.nodes.clear();
        self.count.clear();
        self.hessian.clear();
        self.offsets.clear();
        self.entries.clear();
    }

    /// Appends a pair with nodes `nodes[..k]` and its row-major `(k d)²` block.
    pub fn push(&mut self, nodes: [u32; 4], k: usize, block: &[f64]) {
        let n = k * self.dim;
        self.nodes.push(nodes);
        self.count.push(k as u8);
        let start = self.hessian.len();
        self.hessian.resize(start + BLOCK_STRIDE, 0.0);
        self.hessian[start..start + n * n].copy_from_slice(&block[..n * n]);
    }

    /// The row-major block of pair `p`, `(k d)²` entries.
    pub fn block(&self, p: usize) -> &[f64] {
        let n = self.count[p] as usize * self.dim;
        &self.hessian[p * BLOCK_STRIDE..p * BLOCK_STRIDE + n * n]
    }

    /// Builds the node → (pair, local) adjacency for `nodes` model nodes, in pair order.
    pub fn build_adjacency(&mut self, nodes: usize) {
        let mut offsets = vec![0u32; nodes + 1];
        for (p, nd) in self.nodes.iter().enumerate() {
            for &i in &nd[..self.count[p] as usize] {
                offsets[i as usize + 1] += 1;
            }
        }
        for i in 0..nodes {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut entries = vec![(0u32, 0u8); offsets[nodes] as usize];
        for (p, nd) in self.nodes.iter().enumerate() {
            for (l, &i) in nd[..self.count[p] as usize].iter().enumerate() {
                let slot = &mut fill[i as usize];
                entries[*slot as usize] = (p as u32, l as u8);
                *slot += 1;
            }
        }
        self.offsets = offsets;
        self.entries = entries;
    }

    /// Adds node `i`'s diagonal sub-blocks `H_p[l, l]` of every pair to `out[..d²]`.
    pub fn add_diagonal(&self, i: usize, out: &mut [f64]) {
        let dim = self.dim;
        for &(p, l) in self.node_entries(i) {
            let (b, n, l) = (
                self.block(p as usize),
                self.count[p as usize] as usize * dim,
                l as usize,
            );
            for r in 0..dim {
                for c in 0..dim {
                    out[r * dim + c] += b[(l * dim + r) * n + l * dim + c];
                }
            }
        }
    }

    /// Node `i`'s adjacency entries (none before [`Self::build_adjacency`]).
    #[inline]
    pub fn node_entries(&self, i: usize) -> &[(u32, u8)] {
        if self.offsets.len() <= i + 1 {
            return &[];
        }
        &self.entries[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Adds the off-diagonal coupling `Σ_p Σ_{m ≠ l} H_p[l, m] u_{node m}` of node `i`
    /// to `out[..d]`; nodes listed in `fixed` contribute nothing.
    #[inline]
    pub fn gather(&self, i: usize, u: &[f64], fixed: &[bool], out: &mut [f64]) {
        let dim = self.dim;
        for &(p, l) in self.node_entries(i) {
            let p = p as usize;
            let (k, l) = (self.count[p] as usize, l as usize);
            let (b, n) = (self.block(p), k * dim);
            for (m, &j) in self.nodes[p][..k].iter().enumerate() {
                if m == l || fixed[j as usize] {
                    continue;
                }
                let uj = &u[j as usize * dim..(j as usize + 1) * dim];
                for r in 0..dim {
                    let row = &b[(l * dim + r) * n + m * dim..(l * dim + r) * n + (m + 1) * dim];
                    out[r] += row.iter().zip(uj).map(|(a, b)| a * b).sum::<f64>();
                }
            }
        }
    }

    /// Bytes held (for the memory reports).
    pub fn memory_bytes(&self) -> usize {
        self.nodes.len() * 17
            + self.hessian.len() * 8
            + self.offsets.len() * 4
            + self.entries.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gathered product plus the diagonal equals the dense product of the blocks.
    #[test]
    fn gather_and_diagonal_reproduce_the_dense_product() {
        let dim = 2;
        let mut pb = PairBlocks::default();
        pb.clear(dim);
        // Two pairs over 5 nodes, symmetric blocks with distinct entries.
        let pairs: [([u32; 4], usize); 2] = [([0, 2, 3, 0], 3), ([4, 1, 2, 3], 4)];
        for (nodes, k) in pairs {
            let n = k * dim;
            let block: Vec<f64> = (0..n * n)
                .map(|e| {
                    let (r, c) = (e / n, e % n);
                    1.0 + (r.min(c) * 7 + r.max(c) * 3) as f64 * 0.1
                })
                .collect();
            pb.push(nodes, k, &block);
        }
        pb.build_adjacency(5);
        let u: Vec<f64> = (0..10).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut dense = [0.0; 10];
        for p in 0..pb.len() {
            let (k, b) = (pb.count[p] as usize, pb.block(p));
            let n = k * dim;
            for l in 0..k {
                for m in 0..k {
                    let (i, j) = (pb.nodes[p][l] as usize, pb.nodes[p][m] as usize);
                    for r in 0..dim {
                        for c in 0..dim {
                            dense[i * dim + r] +=
                                b[(l * dim + r) * n + m * dim + c] * u[j * dim + c];
                        }
                    }
                }
            }
        }
        let fixed = vec![false; 5];
        for i in 0..5 {
            let mut out = [0.0; 2];
            pb.gather(i, &u, &fixed, &mut out);
            let mut d = [0.0; 4];
            pb.add_diagonal(i, &mut d);
            for r in 0..dim {
                out[r] += d[r * dim] * u[i * dim] + d[r * dim + 1] * u[i * dim + 1];
                assert!((out[r] - dense[i * dim + r]).abs() < 1e-12, "node {i}");
            }
        }
    }
}
