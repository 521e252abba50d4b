//! The static pair list and the step start's friction lag of contacts between
//! primitives: built and checked on the host (one readback per broad phase), or
//! deferred into the next submission with its check owed, which the device solve
//! takes over (`newton_begin` reads the counts the lag left in [`LAG_FOUND`]).

use super::gated::GATE_TABLE;
use super::Engine;
use crate::backend::gpu::kernel_lists::broad_phase_static;
use crate::backend::gpu::kernels::Kernel;

/// The `gates` entry (`vec4<u32>`) where the deferred lag leaves what its two broad
/// phases found (x: before the lag, y: after it); past the open table's spans.
pub const LAG_FOUND: u64 = GATE_TABLE + 15;

impl Engine {
    /// Builds the pair list at the current x (the static broad phase), growing the
    /// buffers until it fits (or [`Self::failure`] says why not); one readback per pass.
    pub fn rebuild_static(&mut self) {
        let Some(_) = self.contact else { return };
        loop {
            self.run(&broad_phase_static());
            if !self.list_grew() {
                return;
            }
        }
    }

    /// Reads and records what the broad phase just run found (`pairs[1]`, one
    /// readback) and grows the list where it overflowed: whether it grew (then the
    /// caller runs the broad phase again).
    pub fn list_grew(&mut self) -> bool {
        let found = self.read_word(|b| &b.pairs, 1);
        self.note_pairs_found(found);
        self.overflows(found) && self.grow_pairs(found)
    }

    /// Whether `found` pairs overflow the list.
    fn overflows(&self, found: u32) -> bool {
        self.contact.as_ref().is_some_and(|c| found > c.capacity)
    }

    /// The step start's lag on the host: the list at x, every candidate lagged, the
    /// list again to carry the new lag (two readbacks where nothing overflows).
    pub fn lag_start_on_host(&mut self) {
        self.rebuild_static();
        self.run(&[Kernel::PairFrictionLag]);
        self.rebuild_static();
    }

    /// The same lag deferred into the next submission, each broad phase's count
    /// copied into [`LAG_FOUND`]; its check is owed (see [`Self::take_deferred`]).
    pub fn defer_start_lag(&mut self) {
        let mut enc = self.deferred_encoder();
        let bp = broad_phase_static();
        let lists: [&[Kernel]; 2] = [&bp, &[&[Kernel::PairFrictionLag][..], &bp].concat()];
        for (k, list) in lists.iter().enumerate() {
            self.record(&mut enc, list);
            let to = 16 * LAG_FOUND + 4 * k as u64;
            enc.copy_buffer_to_buffer(&self.buffers.pairs, 4, &self.buffers.gates, to, 4);
        }
        self.deferred = Some(enc);
        self.start_lag_owed = true;
    }

    /// The deferred work (a new encoder where there is none), taken, and whether it
    /// owes the start lag's check, which the caller takes over.
    pub fn take_deferred(&mut self) -> (wgpu::CommandEncoder, bool) {
        let owed = std::mem::take(&mut self.start_lag_owed);
        (self.deferred_encoder(), owed)
    }

    /// The deferred work's encoder, taken (a new one where there is none); a check
    /// it owes stays owed.
    pub(super) fn deferred_encoder(&mut self) -> wgpu::CommandEncoder {
        // work recorded from here on may move x
        self.end_positions = None;
        self.deferred.take().unwrap_or_else(|| {
            let desc = wgpu::CommandEncoderDescriptor { label: None };
            self.ctx.device.create_command_encoder(&desc)
        })
    }

    /// Where the deferred work owes the start lag's check: submits it and reads both
    /// counts (one readback); where either overflowed, grows the list and lags again
    /// on the host.
    pub(super) fn settle_start_lag(&mut self) {
        if !std::mem::take(&mut self.start_lag_owed) {
            return;
        }
        let enc = self.deferred.take().expect("the lag was deferred");
        self.submit(enc);
        let bytes = self.read_raw(|b| &b.gates, 16 * LAG_FOUND, 8);
        let word = |k: usize| u32::from_le_bytes(bytes[4 * k..4 * k + 4].try_into().expect("4"));
        let (before, after) = (word(0), word(1));
        self.start_lag_found(before, after);
    }

    /// What the deferred lag's broad phases found, `before` and `after` the lag,
    /// counted; where either overflowed the list, it grows and the lag runs again on
    /// the host. `false` where the list cannot grow ([`Self::failure`] says why).
    pub fn start_lag_found(&mut self, before: u32, after: u32) -> bool {
        self.note_pairs_found(before);
        self.note_pairs_found(after);
        let most = before.max(after);
        if !self.overflows(most) {
            return true;
        }
        if !self.grow_pairs(most) {
            return false;
        }
        self.lag_start_on_host();
        true
    }
}

// `shaders/kernels/device_newton.wgsl` reads it there (LAG_FOUND), within `gates`.
const _: () = assert!(LAG_FOUND == 111 && LAG_FOUND < GATE_TABLE + 16);
