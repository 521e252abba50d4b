//! Nodes ordered along a Morton (Z-order) curve: nodes close in space get close
//! ranks, so runs of consecutive ranks are compact patches of the mesh, the domains
//! of the multilevel preconditioner.

/// Bits per coordinate of the quantised positions (3 × 21 = 63 bits of key).
const BITS: u32 = 21;

/// Spreads the low 21 bits of `v` so that bit k lands at bit 3k (3D) or, with
/// `dim = 2`, bit 2k.
fn spread(v: u64, dim: usize) -> u64 {
    let mut out = 0u64;
    for k in 0..BITS as usize {
        out |= ((v >> k) & 1) << (dim * k);
    }
    out
}

/// The Morton key of every node of the flat positions `x` (`nodes × dim`), each
/// coordinate quantised over the bounding box to 21 bits.
pub fn morton_keys(x: &[f64], dim: usize) -> Vec<u64> {
    let n = x.len().checked_div(dim).unwrap_or(0);
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for i in 0..n {
        for k in 0..dim {
            lo[k] = lo[k].min(x[i * dim + k]);
            hi[k] = hi[k].max(x[i * dim + k]);
        }
    }
    // One scale for every axis keeps the patches square where the body is not.
    let extent = (0..dim).map(|k| hi[k] - lo[k]).fold(0.0f64, f64::max);
    let scale = if extent > 0.0 && extent.is_finite() {
        ((1u64 << BITS) - 1) as f64 / extent
    } else {
        0.0
    };
    (0..n)
        .map(|i| {
            (0..dim).fold(0u64, |key, k| {
                let q = ((x[i * dim + k] - lo[k]) * scale).clamp(0.0, ((1u64 << BITS) - 1) as f64);
                key | (spread(q as u64, dim) << k)
            })
        })
        .collect()
}

/// The nodes in Morton order: `order[rank]` is a node index; ties keep index order.
pub fn morton_order(x: &[f64], dim: usize) -> Vec<u32> {
    let keys = morton_keys(x, dim);
    let mut order: Vec<u32> = (0..keys.len() as u32).collect();
    order.sort_by_key(|&i| (keys[i as usize], i));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_4x4_grid_is_ordered_in_2x2_then_4x4_patches() {
        // row-major 4 × 4 grid, node (i, j) at (i, j)
        let x: Vec<f64> = (0..16)
            .flat_map(|n| [(n % 4) as f64, (n / 4) as f64])
            .collect();
        let order = morton_order(&x, 2);
        // the first four ranks are the 2 × 2 patch at the origin
        let mut first: Vec<u32> = order[..4].to_vec();
        first.sort();
        assert_eq!(first, vec![0, 1, 4, 5]);
        let mut second: Vec<u32> = order[4..8].to_vec();
        second.sort();
        assert_eq!(second, vec![2, 3, 6, 7]);
        let mut all = order.clone();
        all.sort();
        assert_eq!(all, (0..16).collect::<Vec<u32>>());
    }

    #[test]
    fn spreading_interleaves_bits() {
        assert_eq!(spread(0b111, 2), 0b10101);
        assert_eq!(spread(0b11, 3), 0b1001);
        assert_eq!(morton_keys(&[0.0, 0.0, 0.0], 3), vec![0]);
    }
}
