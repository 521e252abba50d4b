//! One variant of a batch as the run loop sees it: a [`Backend`] whose device work is
//! done in lock-step rounds with the other variants ([`super::lockstep`]). It makes
//! the GPU backend's decisions (src/backend/gpu/system.rs): the first line-search
//! trial at α = min(1, CCD bound) comes with the direction, E after an accepted step
//! is E plus the accepted change, and writes (advance, step start and end) wait for
//! the next call that needs an answer. The round that reads a step's diagnostics
//! also starts the next step, so a step with n Newton iterations takes n + 2 rounds.

use super::device::{NodeState, NA, RS};
use super::lockstep::{Lockstep, Reply, Request};
use super::slots::*;
use super::watch::{WatchPlace, Watched};
use crate::backend::gpu::{loose_error_bound, trials::Trials};
use crate::backend::{Backend, DeviceCounters, Diagnostics};
use crate::newton::{CgTolerance, Direction, NewtonSystem, ETA_MAX, GAMMA, SAFEGUARD_THRESHOLD};
use crate::precision::GpuPrecision;
use std::sync::Arc;

/// How a variant's error begins where the device cut one of its loops short
/// ([`super::run_jobs`] then runs the variant again alone).
pub const LOOP_CUT: &str = "the device cut this variant's loops short in its batch";

/// The stand-in for +∞ the kernels write (`BIG` in shaders/common.wgsl), read back.
const BIG_READ: f64 = 2.9e38;

/// What the batch tells each of its variants about itself.
#[derive(Clone, Debug)]
pub struct Shared {
    /// Adapter and precision, in words, with the batch size.
    pub device: String,
    /// The precision mode.
    pub precision: GpuPrecision,
}

/// One variant's backend.
pub struct Member {
    lock: Arc<Lockstep>,
    index: usize,
    shared: Arc<Shared>,
    memory_bytes: u64,
    /// `solver.cg_tolerance`: directions solved looser get an error bound.
    cg_floor: f64,
    /// `√d / m_min` (m/N), [`Direction::error_bound`] per unit residual.
    per_residual: f64,
    /// Operations waiting for the next round, and their arguments.
    ops: u32,
    args: [f64; NA],
    /// E of the next step's start, computed by the round that read the diagnostics.
    started: Option<f64>,
    pending_energy: Option<f64>,
    current_energy: f64,
    trials: Trials,
    ccd: f64,
    /// Node vectors read since x last moved, and how many (1: x, 2: x and v).
    nodes: Option<(NodeState, usize)>,
    rounds: u64,
    /// Whether the variant has friction on its walls or between bodies (lagged
    /// contacts on the device).
    friction: bool,
    /// Why the variant cannot go on, once (see [`NewtonSystem::failure`]).
    failure: Option<String>,
    /// Writes into the batch's `reals` for the next round.
    writes: Vec<(usize, Vec<f64>)>,
    /// What the batch's watch of its 3D contact needs, where it has such contact,
    /// and whether the watch stopped the current step; whether it left the batch.
    watched: Option<Watched>,
    watch_fired: bool,
    left: bool,
}

impl Member {
    /// Variant `index` of the batch that `lock` serves; `memory_bytes` its share of
    /// the device's buffers.
    pub fn new(
        lock: Arc<Lockstep>,
        index: usize,
        shared: Arc<Shared>,
        model: &crate::model::Model,
        memory_bytes: u64,
        place: WatchPlace,
    ) -> Self {
        let per_residual = model.error_per_residual();
        Self {
            lock,
            index,
            shared,
            memory_bytes,
            cg_floor: model.solver.cg_tolerance,
            per_residual,
            ops: 0,
            args: [0.0; NA],
            started: None,
            pending_energy: None,
            current_energy: 0.0,
            trials: Trials::default(),
            ccd: 1.0,
            nodes: None,
            rounds: 0,
            friction: super::layout::friction_slots(model) > 0
                || (super::pairs::has_pairs(model) && model.self_contact.friction > 0.0),
            failure: None,
            writes: Vec::new(),
            watched: Watched::new(model, place),
            watch_fired: false,
            left: false,
        }
    }

    /// Queues `op` for the next round; runs the queued ones first where `op` must
    /// come after them and the round's fixed order would put it before.
    fn defer(&mut self, op: u32) {
        if self.ops >= op {
            self.round(0, 0);
        }
        self.ops |= op;
        if op & (OP_ADVANCE | OP_END) != 0 {
            self.nodes = None;
            if let Some(w) = self.watched.as_mut() {
                w.fresh = false;
            }
        }
    }

    /// Runs the queued operations and `op` in one round (the queued ones first, in a
    /// round of their own, where the round's order would put one of them after the
    /// first of `op`).
    fn round(&mut self, op: u32, read_nodes: usize) -> Reply {
        let first = op & op.wrapping_neg();
        if op != 0 && self.ops >= first {
            self.round(0, 0);
        }
        let ran = self.ops | op;
        let req = Request {
            ops: ran,
            args: self.args,
            read_nodes,
            writes: std::mem::take(&mut self.writes),
        };
        self.ops = 0;
        self.rounds += 1;
        let reply = self.lock.call(self.index, req);
        if ran != 0 && reply.results[Q_LOOP_CUT] != 0.0 && self.failure.is_none() {
            // (reported at the next direction, or after the step's diagnostics)
            self.failure = Some(format!(
                "{LOOP_CUT} (a round of {}): llvmpipe caps the loop iterations of one \
                 shader invocation at about 65,535 and leaves every loop after that \
                 without a word; alone (`--batch 1`) the GPU backend's kernels have no \
                 such loop",
                op_names(ran)
            ));
        }
        reply
    }

    fn energy_of(r: &[f64; RS]) -> f64 {
        if r[Q_ENERGY_BAD] != 0.0 {
            f64::INFINITY
        } else {
            r[Q_ENERGY]
        }
    }

    /// ΔE of the round's trial (J; +∞ where inadmissible).
    fn trial_of(r: &[f64; RS]) -> f64 {
        if r[Q_TRIAL_BAD] != 0.0 {
            f64::INFINITY
        } else {
            r[Q_TRIAL_CHANGE]
        }
    }

    /// Where the watch could not prove the round's direction free of 3D contact:
    /// makes the current iterate the variant's reference (its bodies' clearances
    /// and distances there, computed on the host) and runs the watch again;
    /// whether it now proves it. A reference already at this iterate is kept.
    fn watch_from_here(&mut self) -> bool {
        if self.watched.as_ref().is_none_or(|w| w.fresh) {
            return false;
        }
        let x = self.nodes(1).0.clone();
        let Some(w) = self.watched.as_mut() else {
            return false;
        };
        self.writes = w.take_reference(&x);
        self.round(OP_WATCH, 0).results[Q_WATCH] == 0.0
    }

    /// The variant's positions and, where `count` is 2, velocities (read once
    /// while x stays).
    fn nodes(&mut self, count: usize) -> &NodeState {
        if self.nodes.as_ref().is_none_or(|(_, k)| *k < count) {
            let read = self.round(0, count).nodes;
            self.nodes = read.map(|n| (n, count));
        }
        &self.nodes.as_ref().expect("the round read the nodes").0
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        if !self.left {
            self.lock.leave(self.index);
        }
    }
}

impl NewtonSystem for Member {
    fn energy(&mut self) -> f64 {
        if let Some(e) = self.pending_energy.take() {
            self.current_energy = e;
            return e;
        }
        let r = self.round(OP_ENERGY, 0);
        self.current_energy = Self::energy_of(&r.results);
        self.current_energy
    }

    fn compute_direction(&mut self, tolerance: CgTolerance) -> Direction {
        let a = &mut self.args;
        match tolerance {
            CgTolerance::Fixed(eta) => {
                a[A_FORCING] = 0.0;
                a[A_ETA] = eta;
            }
            CgTolerance::Forcing {
                previous_rhs_norm,
                previous_eta,
                floor,
                stop_distance,
            } => {
                a[A_FORCING] = 1.0;
                a[A_PREV_RHS] = previous_rhs_norm;
                a[A_PREV_ETA] = previous_eta;
                a[A_FLOOR] = floor;
                a[A_STOP_DISTANCE] = stop_distance;
                a[A_GAMMA] = GAMMA;
                a[A_SAFEGUARD] = SAFEGUARD_THRESHOLD;
                a[A_ETA_MAX] = ETA_MAX;
            }
        }
        let r = self.round(OP_DIRECTION, 0).results;
        if r[Q_WATCH] != 0.0 && self.failure.is_none() && !self.watch_from_here() {
            self.watch_fired = true;
            self.failure = Some(format!(
                "{} (the batch watches 3D contact but does not evaluate it)",
                super::watch::COME_NEAR
            ));
        }
        let rhs_norm = r[Q_RHS];
        // The η the device solved to, in f64 (the device's own differs by rounding).
        let eta = tolerance.relative(rhs_norm, self.per_residual);
        self.ccd = r[Q_CCD];
        self.trials.drop_speculative();
        if self.ccd > 0.0 {
            self.trials.speculate(self.ccd, Self::trial_of(&r));
        }
        Direction {
            norm: r[Q_NORM],
            cg_iterations: r[Q_CG_ITERATIONS] as u32,
            cg_converged: r[Q_CG_CONVERGED] != 0.0,
            below_resolution: r[Q_BELOW] != 0.0,
            near_resolution: r[Q_NEAR] != 0.0,
            cg_tolerance: eta,
            rhs_norm,
            error_bound: loose_error_bound(eta, self.cg_floor, self.per_residual, r[Q_RR]),
        }
    }

    fn ccd_bound(&mut self) -> f64 {
        self.ccd
    }

    fn energy_change(&mut self, alpha: f64) -> f64 {
        if let Some(de) = self.trials.take(alpha) {
            return de;
        }
        self.args[A_TRIAL_ALPHA] = alpha;
        let de = Self::trial_of(&self.round(OP_TRIAL, 0).results);
        self.trials.record(alpha, de);
        de
    }

    fn failure(&mut self) -> Option<String> {
        self.failure.take()
    }

    fn advance(&mut self, alpha: f64) {
        self.defer(OP_ADVANCE);
        self.args[A_ADVANCE_ALPHA] = alpha;
        self.pending_energy = self.trials.accepted(alpha, self.current_energy);
    }
}

impl Backend for Member {
    fn name(&self) -> &'static str {
        "gpu"
    }

    /// After the watch stopped a step: reads the variant's state at the step's start,
    /// leaves the batch and goes on alone on the GPU backend ([`super::watch`]).
    fn handover(&mut self) -> Option<Result<crate::backend::Handover, String>> {
        if !std::mem::take(&mut self.watch_fired) {
            return None;
        }
        let model = self.watched.take()?.model;
        let state = self.round(OP_RESTART, 3).nodes?;
        self.lock.leave(self.index);
        self.left = true;
        Some(super::watch::go_on_alone(model, state))
    }

    fn device(&self) -> String {
        self.shared.device.clone()
    }

    fn gpu_precision(&self) -> Option<GpuPrecision> {
        Some(self.shared.precision)
    }

    fn begin_step(&mut self) {
        self.trials.clear();
        self.pending_energy = match self.started.take() {
            Some(e) => Some(e),
            None => {
                self.defer(OP_BEGIN);
                None
            }
        };
    }

    fn end_step(&mut self) {
        self.started = None;
        self.defer(OP_END);
    }

    fn positions(&mut self) -> Vec<f64> {
        self.nodes(1).0.clone()
    }

    fn velocities(&mut self) -> Vec<f64> {
        self.nodes(2).1.clone()
    }

    fn diagnostics(&mut self) -> Diagnostics {
        // The next step's start changes neither x nor v: do it now, with its E.
        let r = self.round(OP_DIAGNOSTICS | OP_BEGIN | OP_ENERGY, 0).results;
        self.started = Some(Self::energy_of(&r));
        let dmin = r[Q_MIN_DISTANCE];
        Diagnostics {
            kinetic: r[Q_KINETIC],
            gravity: r[Q_GRAVITY],
            elastic: r[Q_ELASTIC],
            barrier: r[Q_BARRIER],
            min_wall_distance: if dmin >= BIG_READ {
                f64::INFINITY
            } else {
                dmin
            },
            contact_pairs: r[Q_PAIRS] as u64,
            min_pair_distance: if r[Q_MIN_PAIR_DISTANCE] >= BIG_READ {
                f64::INFINITY
            } else {
                r[Q_MIN_PAIR_DISTANCE]
            },
            sticking: r[Q_STICKING] as u64,
            sliding: r[Q_SLIDING] as u64,
            dissipation: r[Q_DISSIPATION],
        }
    }

    fn update_friction_lag(&mut self) -> f64 {
        if !self.friction {
            return 0.0;
        }
        let r = self.round(OP_LAG, 0).results;
        // E with the new contacts is another function: computed afresh, not carried.
        self.pending_energy = None;
        self.trials.clear();
        r[Q_LAMBDA_CHANGE]
    }

    fn preconditioner(&self) -> Option<crate::linear_solver::PreconditionerKind> {
        Some(crate::linear_solver::PreconditionerKind::BlockJacobi)
    }

    fn counters(&self) -> DeviceCounters {
        // Each round is one submission and one readback shared by the whole batch.
        DeviceCounters {
            submissions: self.rounds,
            readbacks: self.rounds,
            dispatches: self.rounds,
            memory_bytes: self.memory_bytes,
            ..Default::default()
        }
    }
}

#[cfg(test)]
#[path = "member_tests.rs"]
mod tests;
