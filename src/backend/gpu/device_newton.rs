//! The Newton solve of one time step decided on the device: the host records the
//! whole solve ahead, as slots (a direction solve with a batch of CG iterations,
//! its check with the speculative first trial, line-search trials and an update),
//! and `shaders/kernels/device_newton.wgsl` takes each answer to the transitions of
//! `shaders/newton/machine.wgsl` (the WGSL twin of [`crate::newton::Machine`]) and
//! opens or closes the gates of the work after it. The host submits once and reads
//! once; only a solve that outran its slots records more. [`crate::newton::solve`]
//! stays the specification: the same Newton, CG and line-search counts, tested
//! against it (`tests/gpu_device_newton.rs`).
//!
//! It decides the solves with block-Jacobi (a multilevel preconditioner's reuse of
//! its factors is the host's choice), `real` in f64 (the host's decisions are in
//! f64) and no kernel profiler; fixed and Eisenstat–Walker forcing alike. Other
//! solves run [`crate::newton::solve`] as before. A pair list or term slots that
//! overflow stop the device's decisions until the host has grown them (one more
//! submission and read).

use super::engine::gated::{
    GATE_ADVANCE, GATE_CG, GATE_CHECK, GATE_END, GATE_SOLVE, GATE_STRIDE, GATE_TABLE, GATE_TRIAL,
};
use super::kernels::Kernel;
use super::layout::Lanes;
use super::GpuBackend;
use crate::model::{Forcing, SolverParams};
use crate::newton::{NewtonError, NewtonStats};
use crate::precision::RealClass;

mod report;
pub use report::LOG_LEN;
use report::*;

/// Line-search trials recorded per slot past the speculative first one.
const TRIALS_PER_SLOT: usize = 2;

/// Bytes of the `newton` buffer with reals of `width` bytes.
pub fn newton_bytes(width: u64) -> u64 {
    NEWTON_REALS as u64 * width
}

/// The `gates` buffer: every gate's indirect arguments and the open table.
pub fn gates_buffer(dev: &wgpu::Device) -> wgpu::Buffer {
    dev.create_buffer(&wgpu::BufferDescriptor {
        label: Some("gates"),
        size: 16 * (GATE_TABLE + 16),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::INDIRECT
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// What the device solves plan from earlier steps, and their read-back buffer.
#[derive(Default)]
pub struct DevicePlan {
    /// Per solve of a step (by index), its directions' CG iterations in the last step
    /// that had that solve.
    history: Vec<Vec<u32>>,
    /// The solve's index within the current step.
    solve_index: usize,
    staging: Option<wgpu::Buffer>,
    /// Whether the caller reads the positions after every step
    /// ([`crate::backend::Backend::keep_end_positions`]): a solve that ends the step
    /// brings them with its own read.
    pub keep_positions: bool,
}

impl DevicePlan {
    /// A new step: solves are counted from 0 again.
    pub fn begin_step(&mut self) {
        self.solve_index = 0;
    }

    /// The CG batch of each slot of this solve: one slot per direction of the same
    /// solve in the last step plus one, each with that direction's iterations and
    /// a quarter more (8 iterations where nothing is known yet); the first times
    /// `scale` (a running CG solve's continuation).
    fn batches(&self, cap: u32, scale: u32) -> Vec<u32> {
        let last = self
            .history
            .get(self.solve_index)
            .or(self.history.last())
            .cloned()
            .unwrap_or_default();
        let slots = (last.len() + 1).max(2);
        (0..slots)
            .map(|k| {
                let base = last.get(k).or(last.last()).copied().unwrap_or(6);
                let scale = if k == 0 { scale } else { 1 };
                (base + base / 4 + 2)
                    .saturating_mul(scale)
                    .clamp(1, cap.max(1))
            })
            .collect()
    }

    fn finish_solve(&mut self, directions: Vec<u32>) {
        if self.history.len() <= self.solve_index {
            self.history.resize(self.solve_index + 1, Vec::new());
        }
        self.history[self.solve_index] = directions;
        self.solve_index += 1;
    }
}

impl GpuBackend {
    /// Whether [`Self::device_solve`] decides the solves.
    pub(super) fn solves_on_device(&self) -> bool {
        self.device_newton
            && self.solve.factor.is_empty()
            && self.engine.profiler.is_none()
            && self.engine.width(RealClass::State) == 8
    }

    /// One Newton solve recorded ahead and decided on the device.
    pub(super) fn device_solve(
        &mut self,
        params: &SolverParams,
    ) -> Result<NewtonStats, NewtonError> {
        // the device writes each solve's tolerance (newton_set_eta)
        self.engine.forget_cg_tolerance();
        let (capacity, slots) = self
            .engine
            .contact
            .as_ref()
            .map_or((1e30, 1e30), |c| (c.capacity as f64, c.term_slots as f64));
        let rules = [
            params.dt,
            params.tolerance,
            params.cg_tolerance,
            params.forcing_start,
            params.min_newton_iterations as f64,
            params.max_newton_iterations as f64,
            params.max_line_search_halvings as f64,
            f64::from(params.forcing.as_run() == Forcing::EisenstatWalker),
            capacity,
            slots,
            self.engine.error_per_residual,
        ];
        self.write_newton(0, &rules);
        // the step start's friction lag, deferred: newton_begin checks its broad phase
        let (mut enc, start_lag) = self.engine.take_deferred();
        self.write_newton(R_START_LAG, &[f64::from(u8::from(start_lag))]);
        let mut begin = self.solve.energy_total.clone();
        begin.push(Kernel::NewtonBegin);
        self.engine.record(&mut enc, &begin);
        let cap = params.cg_max_iterations;
        let ends_step = self.ends_step_on_device();
        let with_x = ends_step && self.device_plan.keep_positions;
        let mut x;
        // a solve that outran its slots in the middle of a CG solve goes on with that
        // solve's batch twice as long each time (a direction that needs far more CG
        // iterations than the last step's)
        let mut scale = 1u32;
        let report = loop {
            let batches = match self.batching.fixed_batch() {
                Some(k) => vec![k.clamp(1, cap.max(1)); 2],
                None => self.device_plan.batches(cap, scale),
            };
            for &b in &batches {
                self.record_slot(&mut enc, b);
            }
            if ends_step {
                self.record_end(&mut enc);
            }
            let values;
            (values, x) = self.read_report(enc, with_x);
            let r = Report(&values);
            match r.count(W_HOST) {
                host @ (HOST_PAIRS | HOST_TERMS) => {
                    // pairs: the broad phase over p found more than the list holds;
                    // grow it, then check the direction again (its CG state is
                    // final). Terms: more active pairs than term slots; grow them,
                    // and the device solves the direction again.
                    let grown = match host {
                        HOST_PAIRS => self.engine.grow_pairs(r.count(W_PAIRS_FOUND)),
                        _ => self.engine.grow_term_slots(r.count(W_TERMS_FOUND)),
                    };
                    self.device_host_event(grown)?;
                    enc = self.engine.encoder();
                    if host == HOST_PAIRS {
                        self.engine.record(&mut enc, &self.solve.direction_check);
                    }
                }
                HOST_START => {
                    // the step start's lag met a list that overflowed: grown, lagged
                    // again on the host; the solve begins again
                    let (before, after) = (r.count(W_LAG_BEFORE), r.count(W_LAG_AFTER));
                    let grown = self.engine.start_lag_found(before, after);
                    self.device_host_event(grown)?;
                    self.write_newton(R_START_LAG, &[0.0]);
                    enc = self.engine.encoder();
                    self.engine.record(&mut enc, &begin);
                }
                _ if r.done() => break values,
                _ => {
                    scale = match r.flag(W_RUNNING) {
                        true => scale.saturating_mul(2),
                        false => 1,
                    };
                    enc = self.engine.encoder();
                }
            }
        };
        let report = Report(&report);
        let directions = report.count(WRAP + 6);
        let cg = report.log(LOG + LOG_LEN, directions);
        for &k in &cg {
            self.batching.finish_solve(k as u32);
        }
        self.device_plan
            .finish_solve(cg.iter().map(|&k| k as u32).collect());
        self.engine.traffic.cg_iterations_done += report.count(STATE + 20) as u64;
        self.engine.pairs_found = report.count(W_PAIRS_FOUND);
        self.engine.terms_found = report.count(W_TERMS_FOUND);
        if let Some(c) = self.engine.contact.as_mut() {
            c.broad_phases += report.count(W_CHECKS) as u64;
            c.candidates += report.at(W_CANDIDATES) as u64;
        }
        if ends_step && report.done() && report.flag(W_ENDED) {
            let lanes: Vec<Lanes> = (0..self.diagnostic_lists().len())
                .map(|k| {
                    let at = |i: usize| report.at(DIAG + 8 * k + i);
                    Lanes {
                        sums: [at(0), at(1), at(2), at(3)],
                        mixed: [at(4), at(5), at(6), at(7)],
                    }
                })
                .collect();
            self.ended = Some(self.diagnostics_of(&lanes));
            self.engine.end_positions = x;
        }
        let outcome = report.outcome();
        if let Ok(stats) = &outcome {
            self.current_energy = stats.energies.last().copied().unwrap_or(f64::NAN);
        }
        self.pending_energy = None;
        outcome
    }

    /// Whether this solve is the step's last (no lagged friction to update after it):
    /// then the submission that ends it also ends the step and reduces the step's
    /// diagnostics, and [`crate::backend::Backend::diagnostics`] reads nothing more.
    fn ends_step_on_device(&self) -> bool {
        self.model.solver.friction_updates == 0
            || !(self.has_friction() || self.has_pair_friction())
    }

    /// Records the step's end and its diagnostics behind the end gate, each
    /// reduction copied into `newton` at [`DIAG`].
    fn record_end(&mut self, enc: &mut wgpu::CommandEncoder) {
        let gate_end = [
            (Kernel::NewtonGateEnd, None),
            (Kernel::StepEnd, Some(GATE_END)),
        ];
        self.engine.record_mixed(enc, &gate_end);
        let width = self.engine.width(RealClass::State);
        for (k, list) in self.diagnostic_lists().iter().enumerate() {
            let gated: Vec<_> = list.iter().map(|&k| (k, Some(GATE_END))).collect();
            self.engine.record_mixed(enc, &gated);
            let at = (DIAG + 8 * k) as u64 * width;
            let b = &self.engine.buffers;
            enc.copy_buffer_to_buffer(&b.results, 0, &b.newton, at, 8 * width);
        }
    }

    /// After the host grew the pair buffers (`grown`; where the device had no room,
    /// the solve ends with the engine's failure): the new capacities, and the solve
    /// goes on (`W_HOST` cleared).
    fn device_host_event(&mut self, grown: bool) -> Result<(), NewtonError> {
        if !grown {
            let why = self.engine.failure.take();
            return Err(NewtonError(why.unwrap_or_else(|| {
                "no room on the device for the contact pairs".to_string()
            })));
        }
        let c = self.engine.contact.as_ref().expect("grown");
        let rules = [c.capacity as f64, c.term_slots as f64];
        self.write_newton(8, &rules);
        self.write_newton(W_HOST, &[0.0]);
        Ok(())
    }

    /// Writes `values` into `newton` from real `at`, and the gates' open table
    /// (the dispatch sizes may have grown with the pairs).
    fn write_newton(&mut self, at: usize, values: &[f64]) {
        let width = self.engine.width(RealClass::State);
        let bytes = super::layout::state_bytes(values, width);
        let queue = &self.engine.ctx.queue;
        queue.write_buffer(&self.engine.buffers.newton, at as u64 * width, &bytes);
        let table = self.engine.gate_table();
        queue.write_buffer(
            &self.engine.buffers.gates,
            16 * GATE_TABLE,
            bytemuck::cast_slice(&table),
        );
    }

    /// Records one slot: the gate kernels and the gated work between them.
    fn record_slot(&mut self, enc: &mut wgpu::CommandEncoder, batch: u32) {
        let s = &self.solve;
        let mut list: Vec<(Kernel, Option<u64>)> = vec![(Kernel::NewtonGateSolve, None)];
        let gated = |l: &mut Vec<(Kernel, Option<u64>)>, ks: &[Kernel], g: u64| {
            l.extend(ks.iter().map(|&k| (k, Some(g))));
        };
        gated(&mut list, &s.assemble, GATE_SOLVE);
        gated(&mut list, &s.start, GATE_SOLVE);
        list.push((Kernel::NewtonSetEta, None));
        for _ in 0..batch {
            gated(&mut list, &s.iteration, GATE_CG);
        }
        list.push((Kernel::NewtonGateCheck, None));
        gated(&mut list, &s.direction_check, GATE_CHECK);
        for _ in 0..TRIALS_PER_SLOT {
            list.push((Kernel::NewtonGateTrial, None));
            gated(&mut list, &s.energy_change, GATE_TRIAL);
        }
        list.push((Kernel::NewtonGateAdvance, None));
        gated(&mut list, &[Kernel::Advance], GATE_ADVANCE);
        self.engine.record_mixed(enc, &list);
        let t = &mut self.engine.traffic;
        t.cg_iterations_recorded += batch as u64;
        t.cg_dispatches += batch as u64 * s.iteration.len() as u64;
    }

    /// Submits `enc` with a copy of the solve's state and logs, and reads them (reals
    /// from [`STATE`]); with `x`, the positions too (m), in the same read.
    fn read_report(
        &mut self,
        mut enc: wgpu::CommandEncoder,
        x: bool,
    ) -> (Vec<f64>, Option<Vec<f64>>) {
        let width = self.engine.width(RealClass::State);
        let bytes = (NEWTON_REALS - STATE) as u64 * width;
        let dev = &self.engine.ctx.device;
        let staging = self.device_plan.staging.get_or_insert_with(|| {
            dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some("device newton staging"),
                size: bytes,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        let from = STATE as u64 * width;
        enc.copy_buffer_to_buffer(&self.engine.buffers.newton, from, staging, 0, bytes);
        let (raw, x) = self.engine.submit_and_read(enc, staging, bytes, x);
        (super::readback::decode_reals(&raw, width), x)
    }
}

// Every gate's arguments lie before the open table.
const _: () = assert!(GATE_STRIDE * (GATE_END + 1) <= GATE_TABLE);
