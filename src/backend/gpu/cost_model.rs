//! The cost model of a GPU time step, per preconditioner: what `bench` prints
//! beside the measured time (`model_ms_per_step`) and what the GPU's
//! `preconditioner = "auto"` decides by ([`super::auto_choice`]).
//!
//! A step's wall time is modelled as three serial parts (the host records a batch,
//! the device runs it, the host waits for the read back before it records the next):
//! - **host**: recording each dispatch (wgpu's encoding and validation), per
//!   dispatch;
//! - **device**: each kernel's time, the larger of a floor (launch and the barrier
//!   after it) and its bytes over the device's streaming bandwidth; the
//!   single-workgroup reductions add a cost per partial sum; the multilevel
//!   preconditioner's domain solves stream their dense matrices at a fraction of that
//!   bandwidth, and its factorisation costs a latency per factorisation (the
//!   sequential pivots of the largest domain matrix) plus work per spring and the
//!   Gauss–Jordan flops;
//! - **readbacks**: a round trip each.
//!
//! The counts come from the kernel lists the backend records (the CG iteration's
//! kernels, [`MasPlan`]'s factor and apply lists) and the CG batching policy. The
//! device parameters were fitted to per-kernel timestamps (`bench --profile-kernels`)
//! on an NVIDIA H200 and on lavapipe; benchmarks/NOTES.md ("The GPU cost model") shows the
//! fit and how well the model predicts runs it was not fitted to.

use super::bandwidth::cg_iteration_bytes;
use super::layout::node_block_bytes;
use super::mas::MasPlan;
use crate::precision::{GpuPrecision, RealClass};

/// The parameters of one device in the model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeviceProfile {
    /// Name in tables.
    pub name: &'static str,
    /// Host time to record one dispatch (µs).
    pub host_us_per_dispatch: f64,
    /// Shortest device time of one dispatch (µs).
    pub kernel_floor_us: f64,
    /// One blocking read back (µs).
    pub readback_us: f64,
    /// Streaming bandwidth the node and spring kernels reach (GB/s).
    pub bandwidth_gb_s: f64,
    /// Time per partial sum of a single-workgroup reduction (ns).
    pub partial_ns: f64,
    /// Fraction of the bandwidth the domain solves reach on their dense matrices.
    pub mas_solve_efficiency: f64,
    /// Latency of one factorisation of the multilevel preconditioner in 2D and in 3D
    /// (µs): its kernels' sequential phases, independent of the mesh size.
    pub mas_factor_latency_us: [f64; 2],
    /// Factorisation work per spring and squared unknown per node (ns): the level-0
    /// and level-1 matrices and the coarse partial blocks.
    pub mas_factor_ns_per_unit: f64,
    /// Rate of the domain inverses' Gauss–Jordan arithmetic (GFLOP/s).
    pub mas_invert_gflop_s: f64,
    /// f64 multiply-adds' rate over f32's (0 without f64 shaders): what
    /// `precision = "auto"` decides by where the adapter was measured
    /// ([`crate::precision::GpuPrecision::auto_for`]).
    pub f64_rate: f64,
}

/// NVIDIA H200 (Vulkan, driver 580), fitted to `bench --profile-kernels` on
/// 2026-11-26 (benchmarks/NVIDIA-H200-…/profile-*): the CG kernels stream at about
/// 70 % of the 4.8 TB/s peak. A dispatch costs the host about 5 µs to record in one
/// compute pass (the unprofiled runs; 21 µs in a pass of its own, as profiled).
pub const H200: DeviceProfile = DeviceProfile {
    name: "NVIDIA H200 (fitted)",
    host_us_per_dispatch: 5.0,
    kernel_floor_us: 5.5,
    readback_us: 40.0,
    bandwidth_gb_s: 3300.0,
    partial_ns: 1.7,
    mas_solve_efficiency: 0.4,
    mas_factor_latency_us: [700.0, 6500.0],
    mas_factor_ns_per_unit: 0.135,
    mas_invert_gflop_s: 740.0,
    // the data sheet's 34 against 67 TFLOP/s, not measured
    f64_rate: 0.5,
};

/// NVIDIA H100 SXM as modelled, not measured: the H200's host, floor and latency
/// figures with the bandwidth scaled by the peaks (3.35 against 4.8 TB/s) and the
/// arithmetic by the clock-equal SM count (132 both).
pub const H100_SXM: DeviceProfile = DeviceProfile {
    name: "NVIDIA H100 SXM (modelled from the H200)",
    bandwidth_gb_s: 3300.0 * 3.35 / 4.8,
    ..H200
};

/// Lavapipe (llvmpipe 15, Mesa 22.3.6) on this 2-core container, fitted to `bench
/// --profile-kernels` on 2026-11-26: the kernels run on the CPU, barriers are
/// expensive, so the factorisation's Gauss–Jordan runs at about 55 MFLOP/s.
pub const LAVAPIPE: DeviceProfile = DeviceProfile {
    name: "lavapipe, 2 cores (fitted)",
    host_us_per_dispatch: 40.0,
    kernel_floor_us: 150.0,
    readback_us: 150.0,
    bandwidth_gb_s: 0.3,
    partial_ns: 30.0,
    mas_solve_efficiency: 0.6,
    mas_factor_latency_us: [10_000.0, 90_000.0],
    mas_factor_ns_per_unit: 200.0,
    mas_invert_gflop_s: 0.055,
    // the median of six `springsim devices --calibrate` runs on this container,
    // 2026-11-29 (0.45–0.96)
    f64_rate: 0.8,
};

/// The fixture for an adapter that was not measured (`springsim devices
/// --calibrate`; [`super::profiles::profile_for`] prefers a measurement): lavapipe's
/// for a software adapter, the H100's for one named H100, else the H200's.
pub fn fixture_for(adapter: &str, software: bool) -> &'static DeviceProfile {
    if software {
        &LAVAPIPE
    } else if adapter.contains("H100") {
        &H100_SXM
    } else {
        &H200
    }
}

/// The preconditioner of a GPU solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuPre {
    /// Block-Jacobi (formed by the assembly).
    BlockJacobi,
    /// The additive multilevel Schwarz preconditioner.
    Mas,
    /// The same levels as a V-cycle (`preconditioner = "multigrid"`).
    VCycle,
}

/// What the model needs of a scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mesh {
    /// Nodes.
    pub nodes: usize,
    /// Springs.
    pub springs: usize,
    /// 2 or 3.
    pub dim: usize,
    /// The GPU's precision mode.
    pub precision: GpuPrecision,
}

/// Per step: Newton directions solved and CG iterations done.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Work {
    /// Direction solves (accepted Newton iterations + 1).
    pub solves: f64,
    /// CG iterations over all solves.
    pub cg: f64,
    /// Factorisations of the multilevel preconditioner (one per step where the
    /// additive MAS keeps its factors through the step, `solver.mas_reuse`; one per
    /// solve without; ignored for block-Jacobi).
    pub factorisations: f64,
    /// The CG iteration's form: fused or split (`kernels/cg.wgsl`); `None`: the
    /// backend's default for the mesh ([`super::kernel_lists::fused_cg`]).
    pub fused_cg: Option<bool>,
}

/// The modelled cost of one step (ms), term by term.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepCost {
    /// Dispatches recorded.
    pub dispatches: f64,
    /// Blocking reads.
    pub readbacks: f64,
    /// Recording the dispatches on the host.
    pub host_ms: f64,
    /// The CG iterations on the device (preconditioner applications included).
    pub cg_ms: f64,
    /// The preconditioner's factorisations on the device.
    pub factor_ms: f64,
    /// Assembly, direction checks and the step's own kernels on the device.
    pub other_ms: f64,
    /// The read backs' round trips.
    pub readback_ms: f64,
}

impl StepCost {
    /// The modelled wall time of the step (ms).
    pub fn total_ms(&self) -> f64 {
        self.host_ms + self.cg_ms + self.factor_ms + self.other_ms + self.readback_ms
    }
}

/// Kernels per step outside the solves (step begin and end, energy, advance).
const STEP_KERNELS: f64 = 7.0;
/// Kernels per solve besides CG and the factorisation: assembly (2), CG start (2),
/// the direction check (5).
const SOLVE_KERNELS: f64 = 9.0;

/// The modelled cost of one step of `mesh` with `pre` doing `work` on `dev`.
pub fn step_cost(mesh: Mesh, pre: GpuPre, work: Work, dev: &DeviceProfile) -> StepCost {
    let (n, s, dim, p) = (mesh.nodes, mesh.springs, mesh.dim, mesh.precision);
    let bytes_us = |b: f64| b / (dev.bandwidth_gb_s * 1e3);
    let kernel = |b: f64| dev.kernel_floor_us.max(bytes_us(b));
    let l = p.bytes(RealClass::Linear) as f64;
    let st = p.bytes(RealClass::State) as f64;
    let (nf, sf, df) = (n as f64, s as f64, dim as f64);
    let partials = (nf / 256.0).ceil();
    let fold = partials * dev.partial_ns * 1e-3;
    let reduce = dev.kernel_floor_us + fold;
    // The fused iteration folds the partials in every workgroup of the update and
    // direction kernels (no kernel of its own); the split one has two reductions.
    let fused = work
        .fused_cg
        .unwrap_or(super::kernel_lists::fused_cg(partials as u32));
    let scalars = if fused { 2.0 * fold } else { 2.0 * reduce };
    // CG batching: about an eighth more iterations recorded than done, plus 4 per
    // solve; the idle ones cost the floor per kernel.
    let recorded = work.cg * 1.125 + 4.0 * work.solves;
    let idle = (recorded - work.cg).max(0.0);
    let total_cg_bytes = cg_iteration_bytes(n, s, dim, p) as f64;
    let update_bytes = nf * (4.0 * df * st + 3.0 * df * l + node_block_bytes(dim, l as u64) as f64);
    let direction_bytes = nf * 3.0 * df * l;
    let matvec_bytes = total_cg_bytes - update_bytes - direction_bytes;
    let bj_iteration =
        kernel(matvec_bytes) + kernel(update_bytes) + kernel(direction_bytes) + scalars;
    // Assembly (springs read, blocks written) and the direction check with its
    // energy change (x and p read per node, springs read twice).
    let other_us = kernel(matvec_bytes)
        + kernel(nf * 2.0 * df * st)
        + 4.0 * kernel(nf * 2.0 * df * st + sf * 16.0)
        + 3.0 * reduce;
    let mut cost = StepCost::default();
    let (per_iteration_kernels, iteration_us, factor_kernels, factor_us) = match pre {
        GpuPre::BlockJacobi => (
            super::kernel_lists::cg_iteration(fused).len() as f64,
            bj_iteration,
            0.0,
            0.0,
        ),
        GpuPre::Mas | GpuPre::VCycle => match MasPlan::shape(n, dim, pre == GpuPre::VCycle) {
            Ok(plan) => {
                let apply = plan.apply();
                // The domain inverses and level vectors are `lreal`s.
                let solve_bytes = plan.matrix_reals as f64 * l + plan.vector_reals as f64 * 2.0 * l;
                // restriction from and prolongation to the nodes: r, x and z per node
                let node_bytes = nf * df * (2.0 * l + st);
                let coarse = crate::mas::basis::coarse_dofs(dim) as f64;
                let units = sf * (df * df + 2.0 * coarse * coarse);
                let mut factor_us = dev.mas_factor_latency_us[dim - 2]
                    + units * dev.mas_factor_ns_per_unit * 1e-3
                    + plan.invert_flops() / (dev.mas_invert_gflop_s * 1e3);
                let apply_us = if pre == GpuPre::Mas {
                    apply.len() as f64 * dev.kernel_floor_us
                        + bytes_us(solve_bytes) / dev.mas_solve_efficiency
                        + 2.0 * bytes_us(node_bytes)
                } else {
                    // Every domain swept twice (the top level once), the coarse
                    // matrices read twice (residuals), two products with H (the
                    // residuals r − H z) and three passes over the nodes (z twice,
                    // the last one with the sums). Filling the coarse matrices costs
                    // about what the levels 0 and 1 cost (lavapipe, profiled).
                    let csr_bytes = plan.coarse_block_estimate() as f64 * l;
                    factor_us += units * dev.mas_factor_ns_per_unit * 1e-3;
                    apply.len() as f64 * dev.kernel_floor_us
                        + bytes_us(2.0 * (solve_bytes + csr_bytes)) / dev.mas_solve_efficiency
                        + 2.0 * bytes_us(matvec_bytes)
                        + 3.0 * bytes_us(node_bytes)
                };
                let it = plan.cg_iteration(fused).len() as f64;
                (
                    it,
                    bj_iteration + apply_us,
                    plan.factor().len() as f64,
                    factor_us,
                )
            }
            // Too large for the GPU's tables: the setup refuses it; so does the model.
            Err(_) => {
                return StepCost {
                    host_ms: f64::INFINITY,
                    ..StepCost::default()
                }
            }
        },
    };
    cost.dispatches = STEP_KERNELS
        + work.solves * SOLVE_KERNELS
        + work.factorisations * factor_kernels
        + recorded * per_iteration_kernels;
    cost.readbacks = 1.0 + 2.0 * work.solves;
    cost.host_ms = cost.dispatches * dev.host_us_per_dispatch * 1e-3;
    cost.cg_ms =
        (work.cg * iteration_us + idle * per_iteration_kernels * dev.kernel_floor_us) * 1e-3;
    cost.factor_ms = work.factorisations * factor_us * 1e-3;
    cost.other_ms = (work.solves * other_us + STEP_KERNELS * dev.kernel_floor_us) * 1e-3;
    cost.readback_ms = cost.readbacks * dev.readback_us * 1e-3;
    cost
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(cells: usize) -> Mesh {
        let n = (cells + 1) * (cells + 1);
        Mesh {
            nodes: n,
            springs: 4 * cells * cells + 2 * cells,
            dim: 2,
            precision: GpuPrecision::F32,
        }
    }

    /// Every term grows with the work, and the multilevel preconditioner pays a
    /// factorisation block-Jacobi does not.
    #[test]
    fn terms_grow_with_the_work() {
        let m = square(256);
        let w = Work {
            solves: 2.0,
            cg: 300.0,
            factorisations: 2.0,
            fused_cg: None,
        };
        let a = step_cost(m, GpuPre::BlockJacobi, w, &H200);
        let b = step_cost(m, GpuPre::BlockJacobi, Work { cg: 600.0, ..w }, &H200);
        assert!(b.cg_ms > 1.9 * a.cg_ms && b.host_ms > a.host_ms);
        assert_eq!(a.factor_ms, 0.0);
        let mas = step_cost(m, GpuPre::Mas, w, &H200);
        assert!(mas.factor_ms > 0.0 && mas.cg_ms > a.cg_ms && mas.dispatches > a.dispatches);
        // One factorisation for the step instead of one per solve: half the cost.
        let once = step_cost(
            m,
            GpuPre::Mas,
            Work {
                factorisations: 1.0,
                ..w
            },
            &H200,
        );
        assert!((once.factor_ms - 0.5 * mas.factor_ms).abs() < 1e-12 * mas.factor_ms);
        assert!(once.dispatches < mas.dispatches && once.cg_ms == mas.cg_ms);
        const { assert!(H100_SXM.bandwidth_gb_s < H200.bandwidth_gb_s) };
    }

    /// The 1M-node square on the modelled H100 with MAS at its measured 146.5 CG per
    /// direction and 2.75 solves per step, term by term (`--nocapture`), factored at
    /// every solve and once per step (`solver.mas_reuse`).
    #[test]
    fn the_1m_square_on_an_h100_term_by_term() {
        let m = square(1024);
        let every = Work {
            solves: 2.75,
            cg: 146.5 * 2.75,
            factorisations: 2.75,
            fused_cg: None,
        };
        let once = Work {
            factorisations: 1.0,
            ..every
        };
        let [a, b] = [every, once].map(|w| step_cost(m, GpuPre::Mas, w, &H100_SXM));
        for (label, c) in [("every solve", a), ("once per step", b)] {
            println!(
                "1M square, MAS factored {label}: {:.0} ms = host {:.0} + CG {:.0} + factorisation {:.0} + rest {:.0}",
                c.total_ms(),
                c.host_ms,
                c.cg_ms,
                c.factor_ms,
                c.other_ms + c.readback_ms
            );
        }
        assert!(b.total_ms() < a.total_ms() && (b.factor_ms * 2.75 - a.factor_ms).abs() < 1e-9);
        // The V-cycle at the CPU's 35.5 CG per direction, factored at every solve.
        let v = step_cost(
            m,
            GpuPre::VCycle,
            Work {
                cg: 35.5 * 2.75,
                ..every
            },
            &H100_SXM,
        );
        println!(
            "1M square, V-cycle: {:.0} ms = host {:.0} + CG {:.0} + factorisation {:.0} + rest {:.0}",
            v.total_ms(),
            v.host_ms,
            v.cg_ms,
            v.factor_ms,
            v.other_ms + v.readback_ms
        );
        assert!(v.factor_ms > a.factor_ms && v.cg_ms < b.cg_ms && v.total_ms() < b.total_ms());
    }
}
