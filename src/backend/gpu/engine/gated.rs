//! Dispatch sizes by span, and dispatches behind a gate: indirect dispatches whose
//! arguments a kernel on the device wrote (the device Newton solve's,
//! [`crate::backend::gpu::device_newton`]), so that work past a decision taken on the
//! device covers no workgroups.

use super::super::kernel_spans::Span;
use super::super::kernels::Kernel;
use super::Engine;

/// Every span in the order of a gate's arguments (`GATE_SPANS` in
/// `shaders/kernels/device_newton.wgsl`).
pub const GATE_SPAN_ORDER: [Span; 9] = [
    Span::Nodes,
    Span::Elements,
    Span::Single,
    Span::Supernodes,
    Span::Domains,
    Span::PartialSlots,
    Span::CoarseDomains,
    Span::CoarseBlocks,
    Span::ContactSlots,
];

/// `vec4<u32>` entries between two gates' arguments (`GATE_STRIDE`).
pub const GATE_STRIDE: u64 = 16;
/// The entry of the open arguments of the first span (`GATE_TABLE`).
pub const GATE_TABLE: u64 = 96;
/// The gates (`GATE_SOLVE` … `GATE_END`): the direction solve's assembly and
/// CG start, its CG iterations, its check, a line-search trial, the update, and
/// the step's end.
pub const GATE_SOLVE: u64 = 0;
pub const GATE_CG: u64 = 1;
pub const GATE_CHECK: u64 = 2;
pub const GATE_TRIAL: u64 = 3;
pub const GATE_ADVANCE: u64 = 4;
/// The step's end and its diagnostics after the step's last solve.
pub const GATE_END: u64 = 5;

impl Engine {
    /// Workgroups (x, y) of a dispatch over `span`.
    pub fn span_size(&self, span: Span) -> (u32, u32) {
        match span {
            Span::Nodes => self.dispatch.nodes,
            Span::Elements => self.dispatch.elements,
            Span::Single => (1, 1),
            Span::Supernodes => self.dispatch.supernodes,
            Span::Domains => self.dispatch.domains,
            Span::PartialSlots => self.dispatch.partial_slots,
            Span::CoarseDomains => self.dispatch.coarse_domains,
            Span::CoarseBlocks => self.dispatch.coarse_blocks,
            Span::ContactSlots => self.dispatch.contact_slots,
        }
    }

    /// The open arguments of every span, as the gates' table holds them (x, y, 1, 0).
    pub fn gate_table(&self) -> Vec<u32> {
        GATE_SPAN_ORDER
            .iter()
            .flat_map(|&s| {
                let (x, y) = self.span_size(s);
                [x, y, 1, 0]
            })
            .collect()
    }

    /// Records `list` into one compute pass of `enc`: each kernel dispatched over
    /// its span, or with a gate's arguments for its span where it names one.
    pub fn record_mixed(&self, enc: &mut wgpu::CommandEncoder, list: &[(Kernel, Option<u64>)]) {
        let started = std::time::Instant::now();
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes: None,
            });
            for &(k, gate) in list {
                let Some(gate) = gate else {
                    self.dispatch_one(&mut pass, k);
                    continue;
                };
                pass.set_pipeline(&self.pipes.get(k).pipeline);
                pass.set_bind_group(0, self.groups[k.index()].as_ref(), &[]);
                let span = GATE_SPAN_ORDER
                    .iter()
                    .position(|&s| s == k.span())
                    .expect("every span has a gate entry") as u64;
                let entry = gate * GATE_STRIDE + span;
                pass.dispatch_workgroups_indirect(&self.buffers.gates, 16 * entry);
                self.dispatches.set(self.dispatches.get() + 1);
            }
        }
        self.record_times.push(started.elapsed(), list.len());
    }
}
