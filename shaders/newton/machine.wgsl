// The Newton driver's decisions on the device: a transcription of
// src/newton/machine.rs (Machine, its questions and each answer's transition), with
// forcing.rs's Eisenstat–Walker tolerance and mod.rs's `tighter`. One thread of one
// workgroup takes them, between the kernels that produce the answers, so that a step
// can be recorded ahead and its decisions taken where the answers are (DESIGN.md §7).
// tests/gpu_newton_machine.rs runs both transcriptions on scripted answers and
// compares every question and the outcome.
// #import common.wgsl
// #import precision.wgsl

// What the solve needs next (newton::Ask).
const ASK_ENERGY: u32 = 0u;
const ASK_DIRECTION: u32 = 1u;
const ASK_CCD_BOUND: u32 = 2u;
const ASK_ENERGY_CHANGE: u32 = 3u;
const ASK_ADVANCE: u32 = 4u;
const ASK_DONE: u32 = 5u;

// Why a solve failed (the host words the message, newton::NewtonError).
const FAIL_NONE: u32 = 0u;
const FAIL_ENERGY_AT_START: u32 = 1u;
const FAIL_ENERGY_AFTER_STEP: u32 = 2u;
const FAIL_CHANGE_NAN: u32 = 3u;
const FAIL_SYSTEM: u32 = 4u;

// Why a solve stalled (newton::Stall; 0: it did not).
const STALL_NONE: u32 = 0u;
const STALL_CCD_ZERO: u32 = 1u;
const STALL_LINE_SEARCH: u32 = 2u;
const STALL_NON_FINITE_DIRECTION: u32 = 3u;
const STALL_NO_DECREASE: u32 = 4u;

// Eisenstat–Walker's constants (newton::forcing).
const EW_GAMMA: real = 0.9;
const EW_ETA_MAX: real = 0.5;
const EW_SAFEGUARD_THRESHOLD: real = 0.1;

// The solver's parameters the decisions read (model::SolverParams).
struct NewtonRules {
    dt: real,
    tolerance: real,
    cg_tolerance: real,
    forcing_start: real,
    min_newton_iterations: u32,
    max_newton_iterations: u32,
    max_line_search_halvings: u32,
    // 1: Eisenstat–Walker forcing, 0: every direction to cg_tolerance
    inexact: u32,
}

// What a direction solve measured (newton::Direction).
struct DirectionFigures {
    norm: real,
    cg_tolerance: real,
    rhs_norm: real,
    error_bound: real,
    cg_iterations: u32,
    // bit 0: CG converged, 1: below the resolution, 2: near it
    flags: u32,
}

// The state of one solve (newton::Machine and its NewtonStats).
struct NewtonState {
    // the question: ask, and for ASK_DIRECTION either a fixed η (ask_forcing 0, in
    // ask_value) or Eisenstat–Walker's from the last direction's ‖b‖ and η
    // (ask_forcing 1); for ASK_ENERGY_CHANGE and ASK_ADVANCE, α in ask_value
    ask: u32,
    ask_forcing: u32,
    ask_value: real,
    e0: real,
    last_energy: real,
    alpha: real,
    residual: real,
    alpha_min: real,
    ccd_alpha_min: real,
    dir: DirectionFigures,
    energies: u32,
    iterations: u32,
    halvings: u32,
    recomputed_directions: u32,
    cg_unconverged: u32,
    cg_iterations: u32,
    trials: u32,
    within: u32,
    unproven: u32,
    converged: u32,
    line_search_failed: u32,
    resolution_limited: u32,
    capped: u32,
    stall: u32,
    fail: u32,
}

// Machine::new: the first question is the energy.
fn newton_start(r: NewtonRules) -> NewtonState {
    var s: NewtonState;
    s.ask = ASK_ENERGY;
    s.alpha = 1.0;
    s.alpha_min = 1.0;
    s.ccd_alpha_min = 1.0;
    s.dir.cg_tolerance = r.cg_tolerance;
    s.dir.flags = 1u;
    return s;
}

fn ask_direction_to(s: ptr<function, NewtonState>, eta: real) {
    (*s).ask = ASK_DIRECTION;
    (*s).ask_forcing = 0u;
    (*s).ask_value = eta;
}

// mod.rs' `tighter`: the tolerance a loose direction is solved again to.
fn tighter_eta(s: NewtonState, r: NewtonRules) -> real {
    let reach = r.tolerance * r.dt - s.dir.norm;
    let needed = 0.5 * reach * s.dir.cg_tolerance / s.dir.error_bound;
    // Rust's f64::min ignores a NaN `needed`; WGSL's min need not
    var eta = 0.1 * s.dir.cg_tolerance;
    if (needed < eta) { eta = needed; }
    if (real_finite(eta)) { return max(eta, r.cg_tolerance); }
    return r.cg_tolerance;
}

fn recompute(s: ptr<function, NewtonState>, r: NewtonRules) {
    (*s).recomputed_directions += 1u;
    ask_direction_to(s, tighter_eta(*s, r));
}

// forcing.rs' eisenstat_walker.
fn eisenstat_walker_eta(rhs_norm: real, previous_rhs_norm: real, previous_eta: real, floor: real) -> real {
    let ratio = rhs_norm / previous_rhs_norm;
    var eta = EW_GAMMA * ratio * ratio;
    if (!real_finite(eta)) { return floor; }
    let safeguard = EW_GAMMA * previous_eta * previous_eta;
    if (safeguard > EW_SAFEGUARD_THRESHOLD) { eta = max(eta, safeguard); }
    return clamp(eta, floor, max(EW_ETA_MAX, floor));
}

// CgTolerance::relative of the question ASK_DIRECTION asks, for a right-hand side of
// norm rhs_norm with the backend's error bound per residual.
fn asked_eta(s: NewtonState, r: NewtonRules, rhs_norm: real, error_per_residual: real) -> real {
    if (s.ask_forcing == 0u) { return s.ask_value; }
    let ew = eisenstat_walker_eta(rhs_norm, s.dir.rhs_norm, s.dir.cg_tolerance, r.cg_tolerance);
    let certified = 0.5 * (r.tolerance * r.dt) / (error_per_residual * rhs_norm);
    if (real_finite(certified)) { return max(ew, min(certified, EW_ETA_MAX)); }
    return ew;
}

// Machine::energy.
fn newton_energy(s: ptr<function, NewtonState>, r: NewtonRules, e: real) {
    let first = (*s).energies == 0u;
    if (!real_finite(e)) {
        (*s).fail = select(FAIL_ENERGY_AFTER_STEP, FAIL_ENERGY_AT_START, first);
        (*s).ask = ASK_DONE;
        return;
    }
    (*s).energies += 1u;
    (*s).last_energy = e;
    if (first) {
        (*s).e0 = e;
        var start = r.cg_tolerance;
        if (r.inexact != 0u) { start = max(r.forcing_start, r.cg_tolerance); }
        ask_direction_to(s, start);
        return;
    }
    if (r.inexact != 0u) {
        (*s).ask = ASK_DIRECTION;
        (*s).ask_forcing = 1u;
    } else {
        ask_direction_to(s, r.cg_tolerance);
    }
}

// Machine::direction; `failure`: the system cannot go on.
fn newton_direction(s: ptr<function, NewtonState>, r: NewtonRules, dir: DirectionFigures, failure: bool) {
    if (failure) {
        (*s).fail = FAIL_SYSTEM;
        (*s).ask = ASK_DONE;
        return;
    }
    (*s).dir = dir;
    (*s).cg_iterations += dir.cg_iterations;
    (*s).cg_unconverged += select(1u, 0u, (dir.flags & 1u) != 0u);
    if (!real_finite(dir.norm)) {
        (*s).stall = STALL_NON_FINITE_DIRECTION;
        (*s).residual = dir.norm;
        (*s).ask = ASK_DONE;
        return;
    }
    (*s).residual = dir.norm / r.dt;
    let within = (*s).residual < r.tolerance;
    // NaN bounds never prove: `!(bound < reach)`, as partial_cmp != Less
    let unproven = within && dir.cg_tolerance > r.cg_tolerance
        && !(dir.error_bound < r.tolerance * r.dt - dir.norm);
    (*s).within = select(0u, 1u, within);
    (*s).unproven = select(0u, 1u, unproven);
    let ends_here = (*s).iterations >= r.min_newton_iterations;
    if (unproven && ends_here) {
        recompute(s, r);
        return;
    }
    if (within && ends_here) {
        (*s).converged = 1u;
        (*s).ask = ASK_DONE;
        return;
    }
    if ((dir.flags & 2u) != 0u && !within) {
        (*s).resolution_limited = 1u;
        (*s).ask = ASK_DONE;
        return;
    }
    if ((*s).iterations >= r.max_newton_iterations) {
        (*s).capped = 1u;
        if ((*s).energies > 0u && (*s).last_energy >= (*s).e0) { (*s).stall = STALL_NO_DECREASE; }
        (*s).ask = ASK_DONE;
        return;
    }
    (*s).ask = ASK_CCD_BOUND;
}

// Machine::ccd_bound.
fn newton_ccd_bound(s: ptr<function, NewtonState>, r: NewtonRules, alpha_c: real) {
    // a NaN bound leaves the smallest as it was, as Rust's f64::min does
    if (alpha_c < (*s).ccd_alpha_min) { (*s).ccd_alpha_min = alpha_c; }
    if (!(alpha_c > 0.0)) {
        if ((*s).unproven != 0u) {
            recompute(s, r);
            return;
        }
        (*s).converged = (*s).within;
        if ((*s).within == 0u) { (*s).stall = STALL_CCD_ZERO; }
        (*s).ask = ASK_DONE;
        return;
    }
    (*s).alpha = alpha_c;
    (*s).trials = 0u;
    (*s).ask = ASK_ENERGY_CHANGE;
    (*s).ask_value = alpha_c;
}

// Machine::energy_change.
fn newton_energy_change(s: ptr<function, NewtonState>, r: NewtonRules, de: real) {
    // NaN: `!(de == de)`, never `de != de` (an ordered not-equal in SPIR-V, false
    // for NaN)
    if (!(de == de)) {
        (*s).fail = FAIL_CHANGE_NAN;
        (*s).ask = ASK_DONE;
        return;
    }
    if (de <= 0.0) {
        (*s).ask = ASK_ADVANCE;
        (*s).ask_value = (*s).alpha;
        return;
    }
    (*s).trials += 1u;
    if (((*s).dir.flags & 2u) == 0u) {
        (*s).alpha *= 0.5;
        (*s).halvings += 1u;
        if ((*s).trials <= r.max_line_search_halvings) {
            (*s).ask = ASK_ENERGY_CHANGE;
            (*s).ask_value = (*s).alpha;
            return;
        }
    }
    if ((*s).unproven != 0u) {
        recompute(s, r);
        return;
    }
    (*s).line_search_failed = 1u;
    (*s).converged = (*s).within;
    if ((*s).within == 0u) {
        if (((*s).dir.flags & 4u) != 0u) {
            (*s).resolution_limited = 1u;
        } else {
            (*s).stall = STALL_LINE_SEARCH;
        }
    }
    (*s).ask = ASK_DONE;
}

// Machine::advanced.
fn newton_advanced(s: ptr<function, NewtonState>) {
    (*s).iterations += 1u;
    (*s).alpha_min = min((*s).alpha_min, (*s).alpha);
    (*s).ask = ASK_ENERGY;
}
