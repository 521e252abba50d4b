//! The memory traffic of one GPU CG iteration, for the bandwidth bound that
//! benchmarks/NOTES.md sets the measured per-iteration time against.

use crate::backend::gpu::layout::node_block_bytes;
use crate::precision::{GpuPrecision, RealClass};

/// Bytes one CG iteration of the GPU backend must move between memory and the
/// device if every array element is read or written once (perfect caching of the
/// neighbours' values), for a mesh of `nodes` nodes, `springs` springs in `dim` D
/// in `precision` (the state's reals, `x`, `p` and `r`, of the state's width; z,
/// d, q, the blocks and the springs' rest lengths and stiffnesses of the linear
/// width):
///
/// - `newton_matvec`: reads the node's Newton block (4 reals in 2D, 8 in 3D), `x`
///   and `d` (d reals each), the two adjacency offsets and 2S/N entries per node,
///   every spring record (two u32 and two reals) twice (once from each end);
///   writes `q`;
/// - `cg_update`: reads `p, d, r, q` and the node's preconditioner block (as large
///   as its Newton block), writes `p, r, z` (`p` and `r` of the state's width);
/// - `cg_direction`: reads `z, d`, writes `d`.
///
/// The one-workgroup scalar kernels and the partial sums are a few kilobytes and left out.
pub fn cg_iteration_bytes(
    nodes: usize,
    springs: usize,
    dim: usize,
    precision: GpuPrecision,
) -> u64 {
    let s = precision.bytes(RealClass::State) as usize;
    let l = precision.bytes(RealClass::Linear);
    let f = l as usize * dim; // one CG vector per node
    let node = node_block_bytes(dim, l);
    let spring = 8 + 2 * l as usize;
    let matvec = nodes * (node + dim * s + 2 * f + 4) + springs * (2 * 4 + 2 * spring);
    // p and r, CG's accumulators, are state reals; z, d, q of the linear width
    let update = nodes * (4 * dim * s + 3 * f + node);
    let direction = nodes * 3 * f;
    (matvec + update + direction) as u64
}

/// The time (µs) one CG iteration takes at least on a device of `peak_gb_s`
/// gigabytes per second: [`cg_iteration_bytes`] over the bandwidth.
pub fn cg_iteration_bound_us(
    nodes: usize,
    springs: usize,
    dim: usize,
    precision: GpuPrecision,
    peak_gb_s: f64,
) -> f64 {
    cg_iteration_bytes(nodes, springs, dim, precision) as f64 / (peak_gb_s * 1e9) * 1e6
}

/// Bytes the contact pairs (`kernels/pairs.wgsl`) add to one CG iteration, for
/// `pairs` pairs in the list over `nodes` nodes: `newton_matvec_pairs` reads each
/// node's two incidence offsets, `d`, `q` and its fixed flag and writes `q` once more
/// than `newton_matvec`; per incidence entry (k per pair: 3 nodes in 2D, 4 in 3D)
/// the entry, the pair's record (seven u32), and per other node of the pair its
/// coupling block (`dim²` state reals) and its `d`.
pub fn pair_cg_bytes(nodes: usize, pairs: usize, dim: usize, precision: GpuPrecision) -> u64 {
    let s = precision.bytes(RealClass::State) as usize;
    let f = precision.bytes(RealClass::Linear) as usize * dim;
    let k = pair_nodes(dim);
    (nodes * (8 + 3 * f + 4) + k * pairs * (4 + 28 + (k - 1) * (dim * dim * s + f))) as u64
}

/// Nodes of a contact pair: 3 (point–edge) in 2D, 4 (point–triangle, edge–edge) in 3D.
fn pair_nodes(dim: usize) -> usize {
    if dim == 3 {
        4
    } else {
        3
    }
}

/// Bytes the contact pairs add to one Newton iteration outside CG, for `vertices`
/// collision vertices, `edges` edges, `slots` hash slots and `pairs` pairs in `dim`
/// D: the swept broad phase (each of its box passes reads both ends of every edge
/// and every vertex, x and p; the hash and incidence arrays are read and written a
/// few times; each candidate costs a target box twice), the pairs' assembly (its
/// stacked x in, 156 state reals out), the gather into r and the node blocks, and
/// the CCD and energy passes (stacked x and p per pair, about four times). In 3D the
/// faces (about twice the vertices of a surface) are counted as two more edges per
/// vertex, and the edges query too.
pub fn pair_newton_bytes(
    vertices: usize,
    edges: usize,
    slots: usize,
    pairs: usize,
    dim: usize,
    precision: GpuPrecision,
) -> u64 {
    let s = precision.bytes(RealClass::State) as usize;
    let k = pair_nodes(dim);
    let node = 2 * dim * s; // x and p
    let (queries, targets) = if dim == 3 {
        (vertices + edges, edges + 2 * vertices)
    } else {
        (vertices, edges)
    };
    let boxes = 4 * (queries + (k - 1) * targets) * node;
    let counts = 4 * 4 * (2 * slots + queries + (1 << dim) * targets);
    let candidates = 2 * pairs * (28 + (k - 1) * node);
    let assemble = pairs * (k * dim * s + 156 * s);
    let gather = k * pairs * (4 + (dim + dim * dim) * s);
    let ccd_energy = 4 * pairs * (28 + k * node);
    (boxes + counts + candidates + assemble + gather + ccd_energy) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pairs' terms grow with the pairs, and a CG iteration of a 2D mesh with
    /// one pair per boundary node costs a fraction of the springs' mat-vec.
    #[test]
    fn pair_traffic_grows_with_the_pairs() {
        let p = GpuPrecision::F64;
        assert!(pair_cg_bytes(1000, 200, 2, p) > pair_cg_bytes(1000, 100, 2, p));
        let newton = |pairs| pair_newton_bytes(128, 128, 512, pairs, 2, p);
        assert!(newton(200) > newton(100));
        let (n, springs) = (4225, 16_640); // the 64×64-cell square
        let cg = cg_iteration_bytes(n, springs, 2, p);
        assert!(pair_cg_bytes(n, 256, 2, p) < cg / 2);
    }

    #[test]
    fn a_2d_square_moves_about_three_hundred_bytes_per_node() {
        // 1024×1024 cells: 1 050 625 nodes, 4 196 352 springs.
        let (n, s) = (1_050_625, 4_196_352);
        let per_node = cg_iteration_bytes(n, s, 2, GpuPrecision::F32) as f64 / n as f64;
        assert!(per_node > 250.0 && per_node < 320.0, "{per_node}");
        // H100 SXM (3.35 TB/s): under a tenth of a millisecond.
        let us = cg_iteration_bound_us(n, s, 2, GpuPrecision::F32, 3350.0);
        assert!(us > 70.0 && us < 110.0, "{us}");
    }

    #[test]
    fn f64_doubles_the_bytes_and_mixed_adds_only_the_state() {
        for (n, s, dim) in [(1_050_625, 4_196_352, 2), (68_921, 427_320, 3)] {
            let f32 = cg_iteration_bytes(n, s, dim, GpuPrecision::F32) as f64;
            let f64 = cg_iteration_bytes(n, s, dim, GpuPrecision::F64) as f64;
            let mixed = cg_iteration_bytes(n, s, dim, GpuPrecision::Mixed) as f64;
            // the adjacency and the spring ends stay u32: under 2×
            assert!(f64 / f32 > 1.6 && f64 / f32 < 2.0, "{}", f64 / f32);
            assert!(mixed > f32 && mixed < f64, "{mixed} {f32} {f64}");
        }
    }
}
