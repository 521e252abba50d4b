// Runs newton/machine.wgsl on scripted answers, one thread per script, for
// tests/gpu_newton_machine.rs, which runs src/newton/machine.rs on the same scripts
// and compares every question and the outcome. A script (SCRIPT_REALS reals) holds
// the rules and pools of answers, each question taking the next answer of its kind;
// the trace (TRACE_REALS reals) holds the number of questions, each question (kind,
// forcing, value: the η asked for a direction, α for a trial or an update, else 0)
// and the final state (PROBE_STATE_REALS figures).
// #import newton/machine.wgsl

@group(0) @binding(0) var<storage, read_write> script: array<real>;
@group(0) @binding(1) var<storage, read_write> trace: array<real>;

// Answers of each kind a script holds (energy changes: twice as many).
const POOL: u32 = 32u;
// The most questions one script runs to.
const MAX_ASKS: u32 = 96u;
// Offsets in a script: the rules (8 reals), the error bound per residual, then the
// pools: energies, CCD bounds, energy changes, system failures (0 or 1), and per
// direction its norm, ‖b‖, error bound, CG iterations and flags.
const AT_EPR: u32 = 8u;
const AT_ENERGIES: u32 = 9u;
const AT_CCD: u32 = 41u;
const AT_CHANGES: u32 = 73u;
const AT_FAILURES: u32 = 137u;
const AT_DIRECTIONS: u32 = 169u;
const SCRIPT_REALS: u32 = 329u;
const PROBE_STATE_REALS: u32 = 16u;
const TRACE_REALS: u32 = 305u;

fn probe_rules(b: u32) -> NewtonRules {
    var r: NewtonRules;
    r.dt = script[b];
    r.tolerance = script[b + 1u];
    r.cg_tolerance = script[b + 2u];
    r.forcing_start = script[b + 3u];
    r.min_newton_iterations = u32(script[b + 4u]);
    r.max_newton_iterations = u32(script[b + 5u]);
    r.max_line_search_halvings = u32(script[b + 6u]);
    r.inexact = u32(script[b + 7u]);
    return r;
}

@compute @workgroup_size(64)
fn newton_machine_probe(@builtin(global_invocation_id) g: vec3<u32>) {
    let k = g.x;
    if (k >= arrayLength(&script) / SCRIPT_REALS) { return; }
    let b = k * SCRIPT_REALS;
    let t = k * TRACE_REALS;
    let r = probe_rules(b);
    var s = newton_start(r);
    var used = vec4<u32>(0u);
    var n = 0u;
    for (; n < MAX_ASKS && s.ask != ASK_DONE; n++) {
        let kind = s.ask;
        let forcing = select(0u, s.ask_forcing, kind == ASK_DIRECTION);
        var value: real = 0.0;
        if (kind == ASK_ENERGY) {
            newton_energy(&s, r, script[b + AT_ENERGIES + used.x % POOL]);
            used.x += 1u;
        } else if (kind == ASK_DIRECTION) {
            let o = b + AT_DIRECTIONS + 5u * (used.y % POOL);
            var d: DirectionFigures;
            d.norm = script[o];
            d.rhs_norm = script[o + 1u];
            d.error_bound = script[o + 2u];
            d.cg_iterations = u32(script[o + 3u]);
            d.flags = u32(script[o + 4u]);
            d.cg_tolerance = asked_eta(s, r, d.rhs_norm, script[b + AT_EPR]);
            value = d.cg_tolerance;
            newton_direction(&s, r, d, script[b + AT_FAILURES + used.y % POOL] != 0.0);
            used.y += 1u;
        } else if (kind == ASK_CCD_BOUND) {
            newton_ccd_bound(&s, r, script[b + AT_CCD + used.z % POOL]);
            used.z += 1u;
        } else if (kind == ASK_ENERGY_CHANGE) {
            value = s.ask_value;
            newton_energy_change(&s, r, script[b + AT_CHANGES + used.w % (2u * POOL)]);
            used.w += 1u;
        } else {
            value = s.ask_value;
            newton_advanced(&s);
        }
        let at = t + 1u + 3u * n;
        trace[at] = real(kind);
        trace[at + 1u] = real(forcing);
        trace[at + 2u] = value;
    }
    trace[t] = real(n);
    let f = t + 1u + 3u * MAX_ASKS;
    trace[f] = real(s.iterations);
    trace[f + 1u] = real(s.halvings);
    trace[f + 2u] = real(s.recomputed_directions);
    trace[f + 3u] = real(s.cg_unconverged);
    trace[f + 4u] = real(s.cg_iterations);
    trace[f + 5u] = real(s.converged);
    trace[f + 6u] = real(s.line_search_failed);
    trace[f + 7u] = real(s.resolution_limited);
    trace[f + 8u] = real(s.capped);
    trace[f + 9u] = real(s.stall);
    trace[f + 10u] = real(s.fail);
    trace[f + 11u] = s.residual;
    trace[f + 12u] = s.alpha_min;
    trace[f + 13u] = s.ccd_alpha_min;
    trace[f + 14u] = real(s.energies);
    trace[f + 15u] = s.last_energy;
}
