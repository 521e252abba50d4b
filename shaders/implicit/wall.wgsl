// Implicit walls W(x) ≥ 0, twin of src/implicit/wall.rs: the distance measure is
// d = W(x); the CCD bound accepts α when the interval of W over the box spanned by
// x + t p, 0 ≤ t ≤ α, stays at or above (1 − CCD_SAFETY) W(x), or when the mean-value
// form W(x) + α min(0, D) does, D the range of d/dt W(x + t p) over that box (near a
// wall the f32 interval of W is wider than 0.9 W; the slope has no cancellation);
// halving from 1, at most 40 times, then 4 bisection refinements.
// #import generated/implicit_walls.wgsl
// #import energy/barrier.wgsl

const IMPLICIT_CCD_HALVINGS: u32 = 40u;
const IMPLICIT_CCD_REFINE: u32 = 4u;

fn implicit_segment_clear(w: u32, xi: vec3<real>, pi: vec3<real>, alpha: real, w0: real, floor_w: real) -> bool {
    let e = xi + alpha * pi;
    let lo = min(xi, e);
    let hi = max(xi, e);
    if (implicit_wall_interval(w, lo, hi).lo >= floor_w) { return true; }
    return w0 + alpha * min(implicit_wall_slope(w, lo, hi, pi).d.lo, 0.0) >= floor_w;
}

fn implicit_ccd_bound(w: u32, xi: vec3<real>, pi: vec3<real>) -> real {
    let w0 = implicit_wall_value(w, xi);
    if (!(w0 > 0.0)) { return 0.0; }
    let floor_w = (1.0 - CCD_SAFETY) * w0;
    var alpha: real = 1.0;
    var halvings = 0u;
    loop {
        if (implicit_segment_clear(w, xi, pi, alpha, w0, floor_w)) { break; }
        alpha = alpha * 0.5;
        halvings += 1u;
        if (halvings > IMPLICIT_CCD_HALVINGS) { return 0.0; }
    }
    if (halvings > 0u) {
        var bad = 2.0 * alpha;
        for (var k = 0u; k < IMPLICIT_CCD_REFINE; k++) {
            let mid = 0.5 * (alpha + bad);
            if (implicit_segment_clear(w, xi, pi, mid, w0, floor_w)) { alpha = mid; } else { bad = mid; }
        }
    }
    return alpha;
}

// The lagged friction contact of a node at xi (contact area `area`) with implicit wall
// w under the barrier (kind, κ, d̂): (unit normal ∇W/|∇W|, normal force λ = −b′(W) |∇W|
// (N)); zero off the barrier's support 0 < W < d̂ or where ∇W = 0. The GPU backend's
// contact.wgsl and the batches' ensemble/friction.wgsl both lag through it (CPU twin:
// src/backend/cpu/friction.rs).
fn implicit_friction_lag(w: u32, kind: u32, kappa: real, dhat: real, area: real, xi: vec3<real>) -> vec4<real> {
    let dist = implicit_wall_value(w, xi);
    if (dist > 0.0 && dist < dhat) {
        let g = implicit_wall_gradient(w, xi);
        let len = length(g);
        if (len > 0.0) {
            return vec4<real>(g / len, -barrier_gradient(kind, kappa, dhat, area, dist) * len);
        }
    }
    return vec4<real>(0.0);
}
