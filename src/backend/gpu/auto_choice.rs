//! The GPU's `preconditioner = "auto"`: the cost model ([`super::cost_model`])
//! evaluated for block-Jacobi and MAS with the CG counts the mesh's extent leads one
//! to expect, on the profile of the adapter the run opens.

use super::cost_model::{profile_for, step_cost, DeviceProfile, GpuPre, Mesh, StepCost, Work};
use super::mas::MasPlan;
use crate::linear_solver::PreconditionerKind;
use crate::precision::{GpuPrecision, RealClass};

/// How a mesh spans space, for the CG counts: its cells along its longest extent
/// and whether it fills a volume or a surface (a sheet or shell in 3D is a surface).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Extent {
    /// Cells along the longest side: that side over the spacing (the 10th percentile
    /// of the rest lengths: the edges, not the diagonal or bending springs).
    pub cells: f64,
    /// Whether the nodes fill a volume (N ≈ cells³) rather than a surface (N ≈ cells²).
    pub volume: bool,
}

impl Extent {
    /// The extent of `model`'s initial positions: `cells` from the bounding box's
    /// longest side and the rest lengths of up to 4,096 evenly spaced springs;
    /// a volume where the nodes fill the bounding box rather than a surface in it.
    pub fn of(model: &crate::model::Model) -> Self {
        let (dim, n) = (model.dim, model.num_nodes());
        let stride = (model.springs.len() / 4096).max(1);
        let mut rest: Vec<f64> = model
            .springs
            .iter()
            .step_by(stride)
            .map(|s| s.rest_length_sq.sqrt())
            .collect();
        rest.sort_by(f64::total_cmp);
        let h = rest.get(rest.len() / 10).copied().unwrap_or(0.0);
        // cells along each axis, longest first
        let mut cells: Vec<f64> = (0..dim)
            .map(|a| {
                let (lo, hi) = model
                    .x0
                    .iter()
                    .skip(a)
                    .step_by(dim)
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                        (lo.min(v), hi.max(v))
                    });
                if h > 0.0 && hi > lo {
                    ((hi - lo) / h).max(1.0)
                } else {
                    1.0
                }
            })
            .collect();
        cells.sort_by(|a, b| b.total_cmp(a));
        if cells[0] <= 1.0 {
            cells[0] = (n as f64).powf(1.0 / dim as f64);
        }
        // A volume holds about c1 c2 c3 nodes, a surface (sheet or shell) about c1 c2:
        // the geometric midpoint between the two decides.
        let volume =
            dim == 3 && cells[2] >= 2.0 && (n as f64) > cells[0] * cells[1] * cells[2].sqrt();
        Self {
            cells: cells[0],
            volume,
        }
    }
}

/// CG iterations per direction the model expects of `pre` on a mesh of `extent`,
/// with inexact Newton, from the ladders (CG counts do not depend on the device):
/// block-Jacobi grows as the cells per side c (about 1.3 c on the square, 1.8 c on the
/// lattice, 2 c on the draping cloth), the multilevel preconditioner about as c^0.7
/// (1.3 c^0.7 on the square and the cloth, 2.2 c^0.66 on the lattice).
pub fn expected_cg(pre: GpuPre, dim: usize, extent: Extent) -> f64 {
    let c = extent.cells;
    match (pre, extent.volume) {
        (GpuPre::BlockJacobi, true) => 1.8 * c,
        (GpuPre::BlockJacobi, false) if dim == 3 => 2.0 * c,
        (GpuPre::BlockJacobi, false) => 1.3 * c,
        (GpuPre::Mas, false) => 1.3 * c.powf(0.7),
        (GpuPre::Mas, true) => 2.2 * c.powf(0.66),
    }
    .max(10.0)
}

/// The modelled step cost of `pre` with its expected CG count ([`expected_cg`]) and
/// 1.75 Newton iterations per step (the ladders' typical figure), MAS factored at
/// every solve. MAS now keeps its factors through a step (`solver.mas_reuse`), but
/// the choice still charges the factorisation per solve, as the crossovers were
/// measured: charged once per step, the model would move lavapipe's 66k-node cloth
/// to MAS, which runs it 53× slower than block-Jacobi (61.7 s against 1.16 s per
/// step, block-Jacobi needing 1 CG iteration per direction there; BENCHMARKS.md).
pub fn expected_step(mesh: Mesh, extent: Extent, pre: GpuPre, dev: &DeviceProfile) -> StepCost {
    let solves = 2.75;
    let cg = expected_cg(pre, mesh.dim, extent) * solves;
    let work = Work {
        solves,
        cg,
        factorisations: solves,
    };
    step_cost(mesh, pre, work, dev)
}

/// Whether the GPU's `preconditioner = "auto"` takes the multilevel preconditioner:
/// where the model expects a step with it to be faster than with block-Jacobi. Near
/// the crossover the two differ by less than the model's error (about 20 %), so
/// either choice costs little there.
pub fn gpu_auto_prefers_mas(mesh: Mesh, extent: Extent, dev: &DeviceProfile) -> bool {
    let mas = expected_step(mesh, extent, GpuPre::Mas, dev).total_ms();
    let bj = expected_step(mesh, extent, GpuPre::BlockJacobi, dev).total_ms();
    mas < bj
}

/// The preconditioner a GPU run of `model` uses: `auto` resolved by the model
/// ([`gpu_auto_prefers_mas`]) for the adapter the run will open, block-Jacobi where
/// no adapter answers (the run then fails on the missing adapter) or the multilevel
/// matrices would not fit one of the adapter's storage bindings; the others as named.
pub fn gpu_preconditioner(model: &crate::model::Model) -> PreconditionerKind {
    if model.solver.preconditioner != PreconditionerKind::Auto {
        return model.solver.preconditioner;
    }
    let Ok((info, limits)) = super::context::preferred_adapter_limits() else {
        return PreconditionerKind::BlockJacobi;
    };
    let software = info.device_type == wgpu::DeviceType::Cpu;
    let dev = profile_for(&info.name, software);
    let (n, dim) = (model.num_nodes(), model.dim);
    let precision = model.solver.precision.fixed().unwrap_or(GpuPrecision::F32);
    let mesh = Mesh {
        nodes: n,
        springs: model.springs.len(),
        dim,
        precision,
    };
    let fits = MasPlan::shape(n, dim, false).is_ok_and(|plan| {
        let bytes = plan.matrix_reals * precision.bytes(RealClass::Linear);
        bytes <= limits.max_storage_buffer_binding_size && bytes <= limits.max_buffer_size
    });
    if fits && gpu_auto_prefers_mas(mesh, Extent::of(model), dev) {
        PreconditionerKind::Mas
    } else {
        PreconditionerKind::BlockJacobi
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::gpu::cost_model::{H200, LAVAPIPE};

    fn square(cells: usize) -> (Mesh, Extent) {
        let n = (cells + 1) * (cells + 1);
        let mesh = Mesh {
            nodes: n,
            springs: 4 * cells * cells + 2 * cells,
            dim: 2,
            precision: GpuPrecision::F32,
        };
        (
            mesh,
            Extent {
                cells: cells as f64,
                volume: false,
            },
        )
    }

    fn lattice(cells: usize) -> (Mesh, Extent) {
        let k = cells + 1;
        let mesh = Mesh {
            nodes: k * k * k,
            springs: 13 * cells * cells * cells,
            dim: 3,
            precision: GpuPrecision::F32,
        };
        (
            mesh,
            Extent {
                cells: cells as f64,
                volume: true,
            },
        )
    }

    /// A cloth sheet of `cells` × `cells` in 3D (6 springs per node with bending).
    fn cloth(cells: usize) -> (Mesh, Extent) {
        let (mut mesh, extent) = square(cells);
        mesh.dim = 3;
        mesh.springs = 6 * mesh.nodes;
        (mesh, extent)
    }

    fn prefers_mas((mesh, extent): (Mesh, Extent), dev: &DeviceProfile) -> bool {
        gpu_auto_prefers_mas(mesh, extent, dev)
    }

    /// The choice the H200's profile makes on the ladder matches what the H200
    /// measured (BENCHMARKS.md): MAS on the large squares, block-Jacobi on the small
    /// squares and every lattice; on lavapipe block-Jacobi on every rung it runs in
    /// CI-sized time (to 4,225 nodes in 2D, 9,261 in 3D) and the 3D rungs above.
    #[test]
    fn auto_follows_the_measured_crossovers() {
        assert!(!prefers_mas(square(16), &H200));
        assert!(!prefers_mas(square(64), &H200));
        assert!(prefers_mas(square(256), &H200));
        assert!(prefers_mas(square(1024), &H200));
        for c in [10, 20, 46, 100] {
            assert!(!prefers_mas(lattice(c), &H200), "lattice {c}");
        }
        // the 1M-node cloth: MAS measured 2.2× faster; the 64-cell one: block-Jacobi
        assert!(prefers_mas(cloth(1023), &H200));
        assert!(!prefers_mas(cloth(64), &H200));
        for c in [4, 16, 64] {
            assert!(!prefers_mas(square(c), &LAVAPIPE), "square {c}");
            assert!(!prefers_mas(cloth(c), &LAVAPIPE), "cloth {c}");
        }
        for c in [4, 10, 20, 46] {
            assert!(!prefers_mas(lattice(c), &LAVAPIPE), "lattice {c}");
        }
    }
}
