//! The memory traffic of one GPU CG iteration, for the bandwidth bound that
//! BENCHMARKS.md sets the measured per-iteration time against.

use crate::backend::gpu::layout::{node_block_bytes, GpuSpring};

/// Bytes one CG iteration of the GPU backend must move between memory and the
/// device if every array element is read or written once (perfect caching of the
/// neighbours' values), for a mesh of `nodes` nodes, `springs` springs in `dim` D
/// with f32 vectors:
///
/// - `newton_matvec`: reads the node's Newton block (16 bytes in 2D, 32 in 3D), `x`
///   and `d` (d floats each), the two adjacency offsets and 2S/N entries per node,
///   every spring record twice (once from each end); writes `q`;
/// - `cg_update`: reads `p, d, r, q` and the node's preconditioner block (as large
///   as its Newton block), writes `p, r, z`;
/// - `cg_direction`: reads `z, d`, writes `d`.
///
/// The one-workgroup scalar kernels and the partial sums are a few kilobytes and left out.
pub fn cg_iteration_bytes(nodes: usize, springs: usize, dim: usize) -> u64 {
    let f = 4 * dim; // one f32 vector per node
    let node = node_block_bytes(dim);
    let spring = std::mem::size_of::<GpuSpring>();
    let matvec = nodes * (node + 3 * f + 4) + springs * (2 * 4 + 2 * spring);
    let update = nodes * (7 * f + node);
    let direction = nodes * 3 * f;
    (matvec + update + direction) as u64
}

/// The time (µs) one CG iteration takes at least on a device of `peak_gb_s`
/// gigabytes per second: [`cg_iteration_bytes`] over the bandwidth.
pub fn cg_iteration_bound_us(nodes: usize, springs: usize, dim: usize, peak_gb_s: f64) -> f64 {
    cg_iteration_bytes(nodes, springs, dim) as f64 / (peak_gb_s * 1e9) * 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_2d_square_moves_about_three_hundred_bytes_per_node() {
        // 1024×1024 cells: 1 050 625 nodes, 4 196 352 springs.
        let (n, s) = (1_050_625, 4_196_352);
        let per_node = cg_iteration_bytes(n, s, 2) as f64 / n as f64;
        assert!(per_node > 250.0 && per_node < 320.0, "{per_node}");
        // H100 SXM (3.35 TB/s): under a tenth of a millisecond.
        let us = cg_iteration_bound_us(n, s, 2, 3350.0);
        assert!(us > 70.0 && us < 110.0, "{us}");
    }
}
