//! The slots and flags `member.rs` shares with `shaders/ensemble/state.wgsl`.

use super::*;

/// Every slot and flag this file and the device share has the kernel's value.
#[test]
fn the_host_and_the_kernel_agree_on_every_slot() {
    use crate::ensemble::layout::{BLOCK_REALS, NV, VR, VU};
    let src = crate::backend::gpu::shaders::source("ensemble/state.wgsl")
        .unwrap()
        .to_string()
        + crate::backend::gpu::shaders::source("ensemble/watch.wgsl").unwrap();
    let shared: &[(&str, usize)] = &[
        ("OP_ADVANCE", OP_ADVANCE as usize),
        ("OP_END", OP_END as usize),
        ("OP_DIAGNOSTICS", OP_DIAGNOSTICS as usize),
        ("OP_BEGIN", OP_BEGIN as usize),
        ("OP_ENERGY", OP_ENERGY as usize),
        ("OP_DIRECTION", OP_DIRECTION as usize),
        ("OP_TRIAL", OP_TRIAL as usize),
        ("OP_LAG", OP_LAG as usize),
        ("OP_RESTART", OP_RESTART as usize),
        ("OP_WATCH", OP_WATCH as usize),
        ("A_ADVANCE_ALPHA", A_ADVANCE_ALPHA),
        ("A_TRIAL_ALPHA", A_TRIAL_ALPHA),
        ("A_FORCING", A_FORCING),
        ("A_ETA", A_ETA),
        ("A_PREV_RHS", A_PREV_RHS),
        ("A_PREV_ETA", A_PREV_ETA),
        ("A_FLOOR", A_FLOOR),
        ("A_STOP_DISTANCE", A_STOP_DISTANCE),
        ("A_GAMMA", A_GAMMA),
        ("A_SAFEGUARD", A_SAFEGUARD),
        ("A_ETA_MAX", A_ETA_MAX),
        ("Q_ENERGY", Q_ENERGY),
        ("Q_ENERGY_BAD", Q_ENERGY_BAD),
        ("Q_KINETIC", Q_KINETIC),
        ("Q_GRAVITY", Q_GRAVITY),
        ("Q_ELASTIC", Q_ELASTIC),
        ("Q_BARRIER", Q_BARRIER),
        ("Q_MIN_DISTANCE", Q_MIN_DISTANCE),
        ("Q_NORM", Q_NORM),
        ("Q_CG_ITERATIONS", Q_CG_ITERATIONS),
        ("Q_CG_CONVERGED", Q_CG_CONVERGED),
        ("Q_BELOW", Q_BELOW),
        ("Q_NEAR", Q_NEAR),
        ("Q_RHS", Q_RHS),
        ("Q_RR", Q_RR),
        ("Q_CCD", Q_CCD),
        ("Q_TRIAL_CHANGE", Q_TRIAL_CHANGE),
        ("Q_TRIAL_BAD", Q_TRIAL_BAD),
        ("Q_LAMBDA_CHANGE", Q_LAMBDA_CHANGE),
        ("Q_STICKING", Q_STICKING),
        ("Q_SLIDING", Q_SLIDING),
        ("Q_DISSIPATION", Q_DISSIPATION),
        ("Q_PAIRS", Q_PAIRS),
        ("Q_MIN_PAIR_DISTANCE", Q_MIN_PAIR_DISTANCE),
        ("Q_LOOP_CUT", Q_LOOP_CUT),
        ("Q_WATCH", Q_WATCH),
        ("NA", NA),
        ("RS", RS),
        ("VU", VU),
        ("VR", VR),
        ("NV", NV),
    ];
    for (name, value) in shared {
        let line = format!("const {name}: u32 = {value}u;");
        assert!(
            src.contains(&line),
            "shaders/ensemble/state.wgsl or watch.wgsl lacks `{line}`"
        );
    }
    // Two blocks of six reals per node (state.wgsl's block_base).
    assert_eq!(BLOCK_REALS, 12);
    assert!(src.contains("g * 12u + which * 6u"));
    assert_eq!(crate::ensemble::layout::LAG_REALS, 4);
    assert!(src.contains("total_nodes * 12u + 4u * (vt.lag_off"));
    assert_eq!(
        crate::newton::NEAR_RESOLUTION_ULPS,
        16.0,
        "round.wgsl's NEAR_ULPS"
    );
}
