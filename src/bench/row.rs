//! One row of `springsim bench`'s table ([`BenchRow`]) and the row of an entry
//! that did not run.

use super::ladder::Entry;
use super::{bandwidth, BenchBackend, BenchOptions};
use serde::Serialize;

/// One row of the table: an entry on a backend.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchRow {
    /// Entry name, e.g. `square2d_64`.
    pub scene: String,
    /// Spatial dimension.
    pub dimension: usize,
    /// Nodes.
    pub nodes: usize,
    /// Springs.
    pub springs: usize,
    /// `cpu`, `cpu-mas`, `direct` or `gpu`.
    pub backend: String,
    /// The device, in words (CPU model and threads, or the GPU adapter).
    pub device: String,
    /// Float precision: `f64` on the CPU, the GPU's mode (`f32`, `mixed`, `f64`),
    /// empty where a GPU row did not open its device.
    pub precision: String,
    /// `ok`, or `skipped: REASON` / `failed: REASON` (then the figures are absent).
    pub status: String,
    /// Timed steps.
    pub steps: u64,
    /// Warm-up steps before them.
    pub warmup: u64,
    /// Wall-clock milliseconds per timed step.
    pub ms_per_step: Option<f64>,
    /// Newton iterations per timed step.
    pub newton_per_step: Option<f64>,
    /// CG iterations per Newton direction solve (0 for the direct solver).
    pub cg_per_newton: Option<f64>,
    /// Preconditioner setup per timed step (ms), where it is built apart from the
    /// assembly (MAS); absent for block-Jacobi, whose inverses come with the assembly.
    pub preconditioner_ms_per_step: Option<f64>,
    /// Memory the preconditioner holds beyond the node blocks (MiB); MAS rows only.
    pub preconditioner_mib: Option<f64>,
    /// Device memory of the scene's GPU buffers (MiB); GPU rows only.
    pub gpu_memory_mib: Option<f64>,
    /// Resident memory of the whole process after the timed steps, backend alive (MiB).
    pub host_rss_mib: Option<f64>,
    /// Throughput: nodes × timed steps / timed seconds.
    pub node_steps_per_s: Option<f64>,
    /// Smallest wall distance at the end of the timed steps (m): positive, below a few cm.
    pub min_wall_distance: Option<f64>,
    /// Bytes one GPU CG iteration moves at least ([`bandwidth::cg_iteration_bytes`]),
    /// for the bandwidth bound; given on every row of an entry.
    pub gpu_cg_bytes_per_iter: u64,
    /// Queue submissions per timed step (GPU rows).
    pub submissions_per_step: Option<f64>,
    /// Kernels dispatched per timed step (GPU rows).
    pub dispatches_per_step: Option<f64>,
    /// Blocking reads from the device per timed step (GPU rows).
    pub readbacks_per_step: Option<f64>,
    /// Dispatches per recorded CG iteration (GPU rows; 3 for block-Jacobi's fused
    /// form).
    pub dispatches_per_cg_iteration: Option<f64>,
    /// Dispatches per timed step of CG iterations recorded past their solve's end
    /// (their kernels return at once; GPU rows).
    pub empty_dispatches_per_step: Option<f64>,
    /// Median host time to record one dispatch (µs; GPU rows).
    pub record_us_per_dispatch: Option<f64>,
    /// What the cost model ([`crate::backend::gpu::cost_model`]) predicts for the row's device, from the
    /// row's own Newton and CG counts (GPU rows on a device with a profile).
    pub model_ms_per_step: Option<f64>,
    /// GPU time per kernel over the timed steps (`--profile-kernels`), the most first.
    #[serde(skip)]
    pub kernel_times: Vec<crate::backend::gpu::profiler::KernelTime>,
}

/// A row without figures, carrying a reason.
pub(super) fn note_row(
    e: &Entry,
    scene: Option<&crate::scene::Scene>,
    backend: BenchBackend,
    status: String,
    o: &BenchOptions,
) -> BenchRow {
    BenchRow {
        scene: e.name(),
        dimension: scene.map_or(0, |s| s.model.dim),
        nodes: e.nodes(),
        springs: scene.map_or(0, |s| s.model.springs.len()),
        backend: backend.name().into(),
        device: String::new(),
        precision: match backend {
            BenchBackend::Gpu | BenchBackend::GpuMas | BenchBackend::GpuMg => String::new(),
            _ => "f64".into(),
        },
        status,
        steps: o.steps,
        warmup: o.warmup,
        ms_per_step: None,
        newton_per_step: None,
        cg_per_newton: None,
        preconditioner_ms_per_step: None,
        preconditioner_mib: None,
        gpu_memory_mib: None,
        host_rss_mib: None,
        node_steps_per_s: None,
        min_wall_distance: None,
        gpu_cg_bytes_per_iter: scene.map_or(0, |s| {
            let m = &s.model;
            // the mode asked for; `auto` as f32 until a device resolves it
            let mode = o
                .precision
                .fixed()
                .unwrap_or(crate::precision::GpuPrecision::F32);
            bandwidth::cg_iteration_bytes(m.num_nodes(), m.springs.len(), m.dim, mode)
        }),
        submissions_per_step: None,
        dispatches_per_step: None,
        readbacks_per_step: None,
        dispatches_per_cg_iteration: None,
        empty_dispatches_per_step: None,
        record_us_per_dispatch: None,
        model_ms_per_step: None,
        kernel_times: Vec::new(),
    }
}
