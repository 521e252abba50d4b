//! The GPU's `preconditioner = "auto"`: the cost model ([`super::cost_model`])
//! evaluated for block-Jacobi and MAS with the CG counts the mesh's extent leads one
//! to expect, on the profile of the adapter the run opens.

use super::cost_model::{step_cost, DeviceProfile, GpuPre, Mesh, StepCost, Work};
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
    /// β = h² Σₑ kₑ / mᵢ, the springs' stiffness at a node against its inertia over
    /// one step (dimensionless; the median over the nodes with mass): where it is
    /// small, inertia dominates the Newton matrix and block-Jacobi needs few CG
    /// iterations whatever the mesh's size ([`expected_cg`]). `f64::INFINITY`:
    /// stiffness-dominated, as the ladders are.
    pub stiffness_ratio: f64,
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
            stiffness_ratio: stiffness_ratio(model),
        }
    }
}

/// [`Extent::stiffness_ratio`] of `model`: the median over the nodes with mass of
/// h² Σ k / m (the stiffness of the springs at the node, N/m); 0 without springs.
fn stiffness_ratio(model: &crate::model::Model) -> f64 {
    let mut k = vec![0.0; model.num_nodes()];
    for s in &model.springs {
        k[s.a as usize] += s.stiffness;
        k[s.b as usize] += s.stiffness;
    }
    let h2 = model.solver.dt * model.solver.dt;
    let mut ratios: Vec<f64> = k
        .iter()
        .zip(&model.mass)
        .filter(|(_, &m)| m > 0.0 && m.is_finite())
        .map(|(&k, &m)| h2 * k / m)
        .collect();
    if ratios.is_empty() {
        return 0.0;
    }
    let mid = ratios.len() / 2;
    *ratios.select_nth_unstable_by(mid, f64::total_cmp).1
}

/// Block-Jacobi's CG iterations per direction where inertia dominates: about
/// `INERTIA_CG` √(1 + 2β) (β = [`Extent::stiffness_ratio`]; 1 + 2β bounds the
/// condition number of the Jacobi-scaled Newton matrix M + h² K). On the ladders,
/// whose counts the mesh-size terms of [`expected_cg`] follow, the measured counts are
/// 3.9–4.7 times √κ with κ = (1 + 2β)/(1 + β π²/c²); `cloth_on_sphere` at 128 cells
/// (β = 63, light and soft) took 10.9, about √(1 + 2β), on the H200, where the size
/// term expects 256.
const INERTIA_CG: f64 = 4.0;

/// CG iterations per direction the model expects of `pre` on a mesh of `extent`,
/// with inexact Newton, from the ladders (CG counts do not depend on the device):
/// block-Jacobi grows as the cells per side c (about 1.3 c on the square, 1.8 c on the
/// lattice, 2 c on the draping cloth), the additive multilevel preconditioner about
/// as c^0.7 (1.3 c^0.7 on the square and the cloth, 2.2 c^0.66 on the lattice), its
/// V-cycle as c^0.5–0.7 with a smaller factor (1.3 c^0.48 on the square: 9.5, 19.0
/// measured on the GPU at 64 and 256 cells, 35.5 on the CPU at 1024; 0.45 c^0.58 on
/// the cloth: 5.0 and 11.1 at 64 and 256; 0.7 c^0.68 on the lattice: 3.8, 6.1, 9.5
/// at 10, 20, 46). Block-Jacobi's count is capped where inertia dominates
/// ([`INERTIA_CG`]); the multilevel forms' counts are small either way.
pub fn expected_cg(pre: GpuPre, dim: usize, extent: Extent) -> f64 {
    let c = extent.cells;
    let inertia = INERTIA_CG * (1.0 + 2.0 * extent.stiffness_ratio).sqrt();
    match (pre, extent.volume) {
        (GpuPre::BlockJacobi, true) => (1.8 * c).min(inertia).max(10.0),
        (GpuPre::BlockJacobi, false) if dim == 3 => (2.0 * c).min(inertia).max(10.0),
        (GpuPre::BlockJacobi, false) => (1.3 * c).min(inertia).max(10.0),
        (GpuPre::Mas, false) => (1.3 * c.powf(0.7)).max(10.0),
        (GpuPre::Mas, true) => (2.2 * c.powf(0.66)).max(10.0),
        (GpuPre::VCycle, true) => (0.7 * c.powf(0.68)).max(3.0),
        (GpuPre::VCycle, false) if dim == 3 => (0.45 * c.powf(0.58)).max(3.0),
        (GpuPre::VCycle, false) => (1.3 * c.powf(0.48)).max(3.0),
    }
}

/// The modelled step cost of `pre` with its expected CG count ([`expected_cg`]) and
/// 1.75 Newton iterations per step (the ladders' typical figure), MAS factored at
/// every solve. MAS now keeps its factors through a step (`solver.mas_reuse`), but
/// the choice still charges the factorisation per solve, as the crossovers were
/// measured: charged once per step, the model would move lavapipe's 66k-node cloth
/// to MAS, which runs it 53× slower than block-Jacobi (61.7 s against 1.16 s per
/// step, block-Jacobi needing 1 CG iteration per direction there; benchmarks/NOTES.md).
/// Likewise it charges the split CG iteration (five dispatches with block-Jacobi),
/// the form the crossovers were measured with: the fused one (three) makes
/// block-Jacobi's iteration cheaper by more than the multilevel forms' in the
/// model, which would move the H200's 66k-node square to block-Jacobi, and no
/// device has measured that yet.
pub fn expected_step(mesh: Mesh, extent: Extent, pre: GpuPre, dev: &DeviceProfile) -> StepCost {
    let solves = 2.75;
    let cg = expected_cg(pre, mesh.dim, extent) * solves;
    let work = Work {
        solves,
        cg,
        factorisations: solves,
        fused_cg: Some(false),
    };
    step_cost(mesh, pre, work, dev)
}

/// A multilevel form replaces block-Jacobi only where its modelled step is at least
/// this much cheaper: block-Jacobi's expected count (1.3–2 c) is the model's weakest
/// term where inertia dominates H (lavapipe's 66k-node cloth falling from rest took 1
/// CG per direction, not 512, and ran 53× faster than MAS), and within 10 % the two
/// differ by less than the model's error anyway.
const MULTILEVEL_MARGIN: f64 = 0.9;

/// The preconditioner the GPU's `preconditioner = "auto"` takes: the cheaper of the
/// two multilevel forms (additive MAS, the V-cycle) where the model expects its step
/// to cost under [`MULTILEVEL_MARGIN`] times block-Jacobi's, else block-Jacobi.
pub fn gpu_auto_choice(mesh: Mesh, extent: Extent, dev: &DeviceProfile) -> GpuPre {
    let cost = |pre| expected_step(mesh, extent, pre, dev).total_ms();
    let jacobi = cost(GpuPre::BlockJacobi) * MULTILEVEL_MARGIN;
    [GpuPre::Mas, GpuPre::VCycle]
        .into_iter()
        .fold((GpuPre::BlockJacobi, jacobi), |best, pre| {
            let c = cost(pre);
            if c < best.1 {
                (pre, c)
            } else {
                best
            }
        })
        .0
}

/// The preconditioner a GPU run of `model` uses: `auto` resolved by the model
/// ([`gpu_auto_prefers_mas`]) for the adapter the run will open, block-Jacobi where
/// no adapter answers (the run then fails on the missing adapter) or the multilevel
/// matrices would not fit one of the adapter's storage bindings; the others as named.
pub fn gpu_preconditioner(model: &crate::model::Model) -> PreconditionerKind {
    if model.solver.preconditioner != PreconditionerKind::Auto {
        return model.solver.preconditioner;
    }
    let Ok((_, limits, profile)) = super::context::preferred_profile() else {
        return PreconditionerKind::BlockJacobi;
    };
    let dev = &profile;
    let (n, dim) = (model.num_nodes(), model.dim);
    let precision = model.solver.precision.fixed().unwrap_or(GpuPrecision::F32);
    let mesh = Mesh {
        nodes: n,
        springs: model.springs.len(),
        dim,
        precision,
    };
    let fits = MasPlan::shape(n, dim, true).is_ok_and(|plan| {
        let reals = plan.matrix_reals + plan.coarse_block_estimate();
        let bytes = reals * precision.bytes(RealClass::Linear);
        bytes <= limits.max_storage_buffer_binding_size && bytes <= limits.max_buffer_size
    });
    match gpu_auto_choice(mesh, Extent::of(model), dev) {
        GpuPre::Mas if fits => PreconditionerKind::Mas,
        GpuPre::VCycle if fits => PreconditionerKind::Multigrid,
        _ => PreconditionerKind::BlockJacobi,
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
                stiffness_ratio: f64::INFINITY,
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
                stiffness_ratio: f64::INFINITY,
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
        gpu_auto_choice(mesh, extent, dev) != GpuPre::BlockJacobi
    }

    /// The modelled step of each preconditioner on the ladders and the choice, on
    /// the H100 and on lavapipe (`cargo test --release --lib crossover_table --
    /// --nocapture`; benchmarks/NOTES.md quotes it).
    #[test]
    fn crossover_table() {
        use crate::backend::gpu::cost_model::H100_SXM;
        let rungs: Vec<(String, (Mesh, Extent))> = [4, 16, 64, 256, 1024]
            .iter()
            .map(|&c| (format!("square2d_{c}"), square(c)))
            .chain(
                [10, 20, 46, 100]
                    .iter()
                    .map(|&c| (format!("lattice3d_{c}"), lattice(c))),
            )
            .chain(
                [16, 64, 256, 1023]
                    .iter()
                    .map(|&c| (format!("cloth3d_{c}"), cloth(c))),
            )
            .collect();
        for dev in [&H100_SXM, &LAVAPIPE] {
            println!(
                "{}: ms per step modelled (block-Jacobi, MAS, V-cycle) -> choice",
                dev.name
            );
            for (name, (mesh, extent)) in &rungs {
                let ms = [GpuPre::BlockJacobi, GpuPre::Mas, GpuPre::VCycle]
                    .map(|p| expected_step(*mesh, *extent, p, dev).total_ms());
                let choice = gpu_auto_choice(*mesh, *extent, dev);
                println!(
                    "| {name} | {} | {:.3} | {:.3} | {:.3} | {choice:?} |",
                    mesh.nodes, ms[0], ms[1], ms[2]
                );
                // The choice is the cheapest, block-Jacobi's cost less the margin.
                let weighed = [ms[0] * MULTILEVEL_MARGIN, ms[1], ms[2]];
                let best = weighed.iter().cloned().fold(f64::INFINITY, f64::min);
                assert_eq!(weighed[choice as usize], best, "{name}");
            }
        }
    }

    /// The choice the H200's profile makes on the ladder matches what the H200
    /// measured (benchmarks/NOTES.md): MAS on the large squares, block-Jacobi on the small
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
