// The Newton solve of one time step recorded ahead and decided on the device
// (src/backend/gpu/device_newton.rs): the host records a sequence of slots, each
// a direction solve (assembly, CG start, a batch of CG iterations, the direction
// check with its speculative first trial), some line-search trials and an update;
// the kernels of this file take the answers of the kernels before them to
// newton/machine.wgsl's transitions and open or close the gates of the kernels
// after them. A gate is a set of indirect dispatch arguments, one per span: the
// span's workgroups where it is open, none where it is closed. Work past a
// decision so becomes empty dispatches; the host reads the outcome once.
// One thread runs each of these kernels.
// #import state.wgsl
// #import newton/machine.wgsl

// `newton` (reals): the rules the host writes, the machine's state, the wrapper's
// own figures, then the logs of every energy and every direction's CG iterations.
const DN_STATE: u32 = 16u;
const DN_WRAP: u32 = 48u;
const DN_LOG: u32 = 80u;
// Entries of each log (src/backend/gpu/device_newton.rs: LOG_LEN).
const DN_LOG_LEN: u32 = 512u;
// The wrapper's figures, from DN_WRAP.
const W_RUNNING: u32 = 48u;   // 1: a direction solve has started and not been checked
const W_PENDING: u32 = 49u;   // the answer the next gate kernel takes (PENDING_*)
const W_SLOTS: u32 = 50u;     // slots begun
const W_DONE_SLOT: u32 = 51u; // the slot in which the solve ended (0 while running)
const W_BAD_ENERGY: u32 = 52u;// a non-finite energy the solve met
const W_BAD_KIND: u32 = 53u;  // 1: it was an inadmissible iterate (+∞)
const W_DIRECTIONS: u32 = 54u;
const W_LAST_DE: u32 = 55u;   // ΔE of the last trial
const W_LAG_BEFORE: u32 = 56u;// pairs the deferred lag's broad phases found,
const W_LAG_AFTER: u32 = 57u; // before and after it
const W_HOST: u32 = 61u;      // the host must act before the solve goes on (HOST_*)
const W_CHECKS: u32 = 62u;    // direction checks taken (broad phases over p)
const W_CANDIDATES: u32 = 63u;// the pairs they found, summed
const W_PAIRS_FOUND: u32 = 64u;
const W_TERMS_FOUND: u32 = 65u;
const W_STARTED: u32 = 66u;   // 1: a direction solve started in this slot
const W_ETA: u32 = 67u;       // the relative CG tolerance of the running solve
const W_ENDED: u32 = 68u;     // 1: the step's end and diagnostics ran after the solve
const HOST_NONE: u32 = 0u;
const HOST_PAIRS: u32 = 1u;   // the pair list overflowed: grow it, check again
const HOST_TERMS: u32 = 2u;   // the term slots overflowed: grow them, solve again
const HOST_START: u32 = 3u;   // the step start's deferred lag overflowed the list
// Rules past the machine's: the pair list's capacity and the term slots.
const R_PAIR_CAPACITY: u32 = 8u;
const R_TERM_SLOTS: u32 = 9u;
// The error bound per residual (m/N, Model::error_per_residual).
const R_ERROR_PER_RESIDUAL: u32 = 10u;
// 1 where the step start's friction lag was deferred into this solve's submission
// (src/backend/gpu/engine/start_lag.rs): newton_begin checks its pair list.
const R_START_LAG: u32 = 11u;
// `gates` entry where the deferred lag's broad phases left their counts (x before
// the lag, y after it; start_lag.rs: LAG_FOUND).
const LAG_FOUND: u32 = 111u;
const PENDING_NONE: u32 = 0u;
const PENDING_CHECK: u32 = 1u;
const PENDING_TRIAL: u32 = 2u;
const PENDING_ADVANCE: u32 = 3u;
// `gates` (vec4<u32>): gate g's arguments for span s at g × GATE_STRIDE + s; the
// open arguments of every span at GATE_TABLE + s (written by the host).
const GATE_SOLVE: u32 = 0u;
const GATE_CG: u32 = 1u;
const GATE_CHECK: u32 = 2u;
const GATE_TRIAL: u32 = 3u;
const GATE_ADVANCE: u32 = 4u;
const GATE_END: u32 = 5u;
const GATE_STRIDE: u32 = 16u;
const GATE_TABLE: u32 = 96u;
const GATE_SPANS: u32 = 9u;
// Any energy change above every real one: the change at an inadmissible trial.
const DN_INADMISSIBLE_CHANGE: real = 1.0e30;

fn dn_rules() -> NewtonRules {
    var r: NewtonRules;
    r.dt = newton[0];
    r.tolerance = newton[1];
    r.cg_tolerance = newton[2];
    r.forcing_start = newton[3];
    r.min_newton_iterations = u32(newton[4]);
    r.max_newton_iterations = u32(newton[5]);
    r.max_line_search_halvings = u32(newton[6]);
    r.inexact = u32(newton[7]);
    return r;
}

fn dn_u(i: u32) -> u32 { return u32(newton[i]); }
fn dn_set(i: u32, v: u32) { newton[i] = real(v); }

fn dn_load() -> NewtonState {
    let b = DN_STATE;
    var s: NewtonState;
    s.ask = dn_u(b);
    s.ask_forcing = dn_u(b + 1u);
    s.ask_value = newton[b + 2u];
    s.e0 = newton[b + 3u];
    s.last_energy = newton[b + 4u];
    s.alpha = newton[b + 5u];
    s.residual = newton[b + 6u];
    s.alpha_min = newton[b + 7u];
    s.ccd_alpha_min = newton[b + 8u];
    s.dir.norm = newton[b + 9u];
    s.dir.cg_tolerance = newton[b + 10u];
    s.dir.rhs_norm = newton[b + 11u];
    s.dir.error_bound = newton[b + 12u];
    s.dir.cg_iterations = dn_u(b + 13u);
    s.dir.flags = dn_u(b + 14u);
    s.energies = dn_u(b + 15u);
    s.iterations = dn_u(b + 16u);
    s.halvings = dn_u(b + 17u);
    s.recomputed_directions = dn_u(b + 18u);
    s.cg_unconverged = dn_u(b + 19u);
    s.cg_iterations = dn_u(b + 20u);
    s.trials = dn_u(b + 21u);
    s.within = dn_u(b + 22u);
    s.unproven = dn_u(b + 23u);
    s.converged = dn_u(b + 24u);
    s.line_search_failed = dn_u(b + 25u);
    s.resolution_limited = dn_u(b + 26u);
    s.capped = dn_u(b + 27u);
    s.stall = dn_u(b + 28u);
    s.fail = dn_u(b + 29u);
    return s;
}

fn dn_store(s: NewtonState) {
    let b = DN_STATE;
    dn_set(b, s.ask);
    dn_set(b + 1u, s.ask_forcing);
    newton[b + 2u] = s.ask_value;
    newton[b + 3u] = s.e0;
    newton[b + 4u] = s.last_energy;
    newton[b + 5u] = s.alpha;
    newton[b + 6u] = s.residual;
    newton[b + 7u] = s.alpha_min;
    newton[b + 8u] = s.ccd_alpha_min;
    newton[b + 9u] = s.dir.norm;
    newton[b + 10u] = s.dir.cg_tolerance;
    newton[b + 11u] = s.dir.rhs_norm;
    newton[b + 12u] = s.dir.error_bound;
    dn_set(b + 13u, s.dir.cg_iterations);
    dn_set(b + 14u, s.dir.flags);
    dn_set(b + 15u, s.energies);
    dn_set(b + 16u, s.iterations);
    dn_set(b + 17u, s.halvings);
    dn_set(b + 18u, s.recomputed_directions);
    dn_set(b + 19u, s.cg_unconverged);
    dn_set(b + 20u, s.cg_iterations);
    dn_set(b + 21u, s.trials);
    dn_set(b + 22u, s.within);
    dn_set(b + 23u, s.unproven);
    dn_set(b + 24u, s.converged);
    dn_set(b + 25u, s.line_search_failed);
    dn_set(b + 26u, s.resolution_limited);
    dn_set(b + 27u, s.capped);
    dn_set(b + 28u, s.stall);
    dn_set(b + 29u, s.fail);
}

// Gate g open or closed for every span (closed while the host must act).
fn dn_gate(g: u32, wanted: bool) {
    let open = wanted && dn_u(W_HOST) == HOST_NONE;
    for (var s = 0u; s < GATE_SPANS; s++) {
        gates[g * GATE_STRIDE + s] = select(vec4<u32>(0u, 1u, 1u, 0u), gates[GATE_TABLE + s], open);
    }
}

// Machine::energy with the log; `inadmissible`: the iterate is at or behind a
// wall (E = +∞, which WGSL cannot write).
fn dn_energy(s: ptr<function, NewtonState>, r: NewtonRules, e: real, inadmissible: bool) {
    let k = (*s).energies;
    if (inadmissible || !real_finite(e)) {
        newton[W_BAD_ENERGY] = e;
        dn_set(W_BAD_KIND, select(0u, 1u, inadmissible));
        (*s).fail = select(FAIL_ENERGY_AFTER_STEP, FAIL_ENERGY_AT_START, k == 0u);
        (*s).ask = ASK_DONE;
        return;
    }
    newton_energy(s, r, e);
    if (k < DN_LOG_LEN) { newton[DN_LOG + k] = e; }
}

// Marks the slot in which the solve ended.
fn dn_finish(s: NewtonState) {
    if (s.ask == ASK_DONE && dn_u(W_DONE_SLOT) == 0u) { dn_set(W_DONE_SLOT, dn_u(W_SLOTS)); }
    dn_store(s);
}

// Whether the checked direction stands: the swept broad phase's pairs fit the list
// and the assembly's active pairs their term slots (the host grows them otherwise,
// as GpuBackend::compute_direction does, and the solve goes on after it).
fn dn_direction_stands() -> bool {
    let found = pairs[1];
    let terms = atomicLoad(&contact_grid[4u]);
    dn_set(W_CHECKS, dn_u(W_CHECKS) + 1u);
    newton[W_CANDIDATES] += real(found);
    dn_set(W_PAIRS_FOUND, found);
    dn_set(W_TERMS_FOUND, terms);
    if (real(found) > newton[R_PAIR_CAPACITY]) {
        dn_set(W_HOST, HOST_PAIRS);
        dn_set(W_PENDING, PENDING_CHECK);
        return false;
    }
    if (real(terms) > newton[R_TERM_SLOTS]) {
        dn_set(W_HOST, HOST_TERMS);
        dn_set(W_RUNNING, 0u);
        return false;
    }
    return true;
}

// The checked direction (results[0]: its statistics; results[1]: the speculative
// first trial at α = cg.ls_alpha = min(1, CCD bound); cg: the solve's figures).
fn dn_take_direction(s: ptr<function, NewtonState>, r: NewtonRules) {
    let stats = results[0];
    var d: DirectionFigures;
    d.norm = stats.mixed.w;
    let eta = newton[W_ETA];
    d.cg_tolerance = eta;
    d.rhs_norm = sqrt(cg.bb);
    // loose_error_bound (src/backend/gpu/system.rs): only read for a solve looser
    // than cg_tolerance, +∞ (BIG) otherwise
    d.error_bound = BIG;
    if (eta > r.cg_tolerance) {
        d.error_bound = 1.01 * newton[R_ERROR_PER_RESIDUAL] * sqrt(max(cg.rr, 0.0));
    }
    d.cg_iterations = cg.iterations;
    d.flags = select(0u, 1u, cg.converged != 0u)
        | select(0u, 2u, stats.sums.x == 0.0)
        | select(0u, 4u, stats.sums.y == 0.0);
    let k = dn_u(W_DIRECTIONS);
    if (k < DN_LOG_LEN) { dn_set(DN_LOG + DN_LOG_LEN + k, cg.iterations); }
    dn_set(W_DIRECTIONS, k + 1u);
    newton_direction(s, r, d, false);
    if ((*s).ask == ASK_CCD_BOUND) { newton_ccd_bound(s, r, min(1.0, stats.mixed.z)); }
    if ((*s).ask == ASK_ENERGY_CHANGE && (*s).ask_value == cg.ls_alpha) {
        dn_take_change(s, r, results[1]);
    }
}

// Machine::energy_change with the trial's lanes.
fn dn_take_change(s: ptr<function, NewtonState>, r: NewtonRules, t: Lanes) {
    var de = t.sums.x;
    if (t.mixed.w > 0.0) { de = DN_INADMISSIBLE_CHANGE; }
    newton[W_LAST_DE] = de;
    newton_energy_change(s, r, de);
}

// Takes what the kernels since the last gate kernel answered.
fn dn_take_pending(s: ptr<function, NewtonState>, r: NewtonRules) {
    if (dn_u(W_HOST) != HOST_NONE) { return; }
    let pending = dn_u(W_PENDING);
    dn_set(W_PENDING, PENDING_NONE);
    if (pending == PENDING_CHECK) {
        if (dn_direction_stands()) { dn_take_direction(s, r); }
    } else if (pending == PENDING_TRIAL) {
        dn_take_change(s, r, results[0]);
    } else if (pending == PENDING_ADVANCE) {
        newton_advanced(s);
        // E after the update from the accepted trial's change, as the host's
        // driver keeps it (GpuBackend::advance)
        dn_energy(s, r, (*s).last_energy + newton[W_LAST_DE], false);
    }
}

// After energy_total: E at the step's start (results[0]) starts the solve.
@compute @workgroup_size(1)
fn newton_begin() {
    let r = dn_rules();
    for (var i = DN_WRAP; i < DN_LOG; i++) { newton[i] = 0.0; }
    if (newton[R_START_LAG] > 0.0) {
        let found = gates[LAG_FOUND].xy;
        dn_set(W_CHECKS, 2u);
        newton[W_CANDIDATES] = real(found.x) + real(found.y);
        dn_set(W_PAIRS_FOUND, found.y);
        dn_set(W_LAG_BEFORE, found.x);
        dn_set(W_LAG_AFTER, found.y);
        if (real(max(found.x, found.y)) > newton[R_PAIR_CAPACITY]) { dn_set(W_HOST, HOST_START); }
    }
    var s = newton_start(r);
    let t = results[0];
    dn_energy(&s, r, t.sums.x, t.mixed.w > 0.0);
    dn_finish(s);
}

// A slot's start: takes a pending update, then opens the direction solve where one
// is asked and none runs, and the CG iterations while one runs.
@compute @workgroup_size(1)
fn newton_gate_solve() {
    let r = dn_rules();
    var s = dn_load();
    dn_take_pending(&s, r);
    dn_set(W_SLOTS, dn_u(W_SLOTS) + 1u);
    let start = s.ask == ASK_DIRECTION && dn_u(W_RUNNING) == 0u && dn_u(W_HOST) == HOST_NONE;
    if (start) {
        dn_set(W_RUNNING, 1u);
        dn_set(W_STARTED, 1u);
    }
    dn_gate(GATE_SOLVE, start);
    dn_gate(GATE_CG, dn_u(W_RUNNING) != 0u);
    dn_finish(s);
}

// After a started solve's CG start: its tolerance η, from ‖b‖ where the question
// is Eisenstat–Walker's (CgTolerance::relative), into cg.tol_sq.
@compute @workgroup_size(1)
fn newton_set_eta() {
    if (dn_u(W_STARTED) == 0u) { return; }
    dn_set(W_STARTED, 0u);
    let r = dn_rules();
    let s = dn_load();
    let eta = asked_eta(s, r, sqrt(cg.bb), newton[R_ERROR_PER_RESIDUAL]);
    newton[W_ETA] = eta;
    cg.tol_sq = eta * eta;
}

// After a CG batch: opens the direction check where the running solve is done.
@compute @workgroup_size(1)
fn newton_gate_check() {
    let open = dn_u(W_RUNNING) != 0u && cg.done != 0u && dn_u(W_HOST) == HOST_NONE;
    if (open) {
        dn_set(W_RUNNING, 0u);
        dn_set(W_PENDING, PENDING_CHECK);
    }
    dn_gate(GATE_CHECK, open);
}

// Takes what is pending, then opens `gate` where the machine asks `ask` (a trial
// or the update), with the α it asks for in cg.ls_alpha, and marks `pending` the
// answer the next gate kernel takes.
fn dn_gate_alpha(ask: u32, pending: u32, gate: u32) {
    let r = dn_rules();
    var s = dn_load();
    dn_take_pending(&s, r);
    let open = s.ask == ask && dn_u(W_HOST) == HOST_NONE;
    if (open) {
        cg.ls_alpha = s.ask_value;
        dn_set(W_PENDING, pending);
    }
    dn_gate(gate, open);
    dn_finish(s);
}

// Takes a checked direction or a trial, then opens a line-search trial.
@compute @workgroup_size(1)
fn newton_gate_trial() {
    dn_gate_alpha(ASK_ENERGY_CHANGE, PENDING_TRIAL, GATE_TRIAL);
}

// Takes a trial, then opens the update.
@compute @workgroup_size(1)
fn newton_gate_advance() {
    dn_gate_alpha(ASK_ADVANCE, PENDING_ADVANCE, GATE_ADVANCE);
}

// After the slots, where the solve is the step's last: opens the step's end and
// its diagnostics once the solve has ended without failing.
@compute @workgroup_size(1)
fn newton_gate_end() {
    let s = dn_load();
    let open = s.ask == ASK_DONE && s.fail == FAIL_NONE && dn_u(W_ENDED) == 0u
        && dn_u(W_HOST) == HOST_NONE;
    if (open) { dn_set(W_ENDED, 1u); }
    dn_gate(GATE_END, open);
}
