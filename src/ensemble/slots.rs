//! The operation flags, argument slots and result slots of a batch's round, as
//! `shaders/ensemble/state.wgsl` (and `ensemble/watch.wgsl`) number them, and the
//! node state a variant reads back.

/// Arguments per variant and round (`NA`).
pub const NA: usize = 12;
/// Results per variant (`RS`).
pub const RS: usize = 26;

/// Positions (m), velocities (m/s) and accelerations (m/s²) of nodes, `nodes × 3`
/// (of a batch) or `nodes × dim` (of one variant) each.
pub type NodeState = (Vec<f64>, Vec<f64>, Vec<f64>);

pub const OP_ADVANCE: u32 = 1;
pub const OP_END: u32 = 2;
pub const OP_DIAGNOSTICS: u32 = 4;
pub const OP_BEGIN: u32 = 8;
pub const OP_ENERGY: u32 = 16;
pub const OP_DIRECTION: u32 = 32;
pub const OP_TRIAL: u32 = 64;
pub const OP_LAG: u32 = 128;
pub const OP_RESTART: u32 = 256;
pub const OP_WATCH: u32 = 512;
pub const A_ADVANCE_ALPHA: usize = 0;
pub const A_TRIAL_ALPHA: usize = 1;
pub const A_FORCING: usize = 2;
pub const A_ETA: usize = 3;
pub const A_PREV_RHS: usize = 4;
pub const A_PREV_ETA: usize = 5;
pub const A_FLOOR: usize = 6;
pub const A_STOP_DISTANCE: usize = 7;
pub const A_GAMMA: usize = 8;
pub const A_SAFEGUARD: usize = 9;
pub const A_ETA_MAX: usize = 10;
pub const Q_ENERGY: usize = 0;
pub const Q_ENERGY_BAD: usize = 1;
pub const Q_KINETIC: usize = 2;
pub const Q_GRAVITY: usize = 3;
pub const Q_ELASTIC: usize = 4;
pub const Q_BARRIER: usize = 5;
pub const Q_MIN_DISTANCE: usize = 6;
pub const Q_NORM: usize = 7;
pub const Q_CG_ITERATIONS: usize = 8;
pub const Q_CG_CONVERGED: usize = 9;
pub const Q_BELOW: usize = 10;
pub const Q_NEAR: usize = 11;
pub const Q_PAIRS: usize = 12;
pub const Q_RHS: usize = 13;
pub const Q_RR: usize = 14;
pub const Q_CCD: usize = 15;
pub const Q_TRIAL_CHANGE: usize = 17;
pub const Q_TRIAL_BAD: usize = 18;
pub const Q_LAMBDA_CHANGE: usize = 19;
pub const Q_STICKING: usize = 20;
pub const Q_SLIDING: usize = 21;
pub const Q_DISSIPATION: usize = 22;
pub const Q_MIN_PAIR_DISTANCE: usize = 23;
pub const Q_LOOP_CUT: usize = 24;
pub const Q_WATCH: usize = 25;

/// The operations of a round's flags, by name (for messages).
pub fn op_names(ops: u32) -> String {
    let names = "advance end diagnostics begin energy direction trial lag restart watch".split(' ');
    let on: Vec<&str> = names
        .enumerate()
        .filter(|(k, _)| ops & (1 << k) != 0)
        .map(|(_, name)| name)
        .collect();
    on.join(", ")
}
