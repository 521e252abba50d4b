// A batched variant's lagged wall friction, node by node: node_friction.wgsl and
// kernels/friction.wgsl of the GPU backend (the same formulas, energy/friction.wgsl)
// over the variant's own walls and lag slots (state.wgsl's load_lag). A contact's
// normal force is the barrier's force on the node: λ = −b′(d) with the plane's normal,
// λ = −b′(W) |∇W| with ∇W/|∇W| for an implicit wall. Fixed nodes get none.
// #import ensemble/walls.wgsl
// #import energy/friction.wgsl

// The contact of a free node at xi with the variant's slot s: (unit normal, λ (N)).
fn wall_friction_lag(vt: Variant, s: u32, area: real, xi: vec3<real>) -> vec4<real> {
    if (s < vt.walls) {
        let wl = wall_at(vt.wall_off + s);
        let dist = plane_distance(wl[1], wl[0], xi);
        return vec4<real>(wl[1], -barrier_gradient(vt.barrier, vt.kappa, vt.dhat, area, dist));
    }
    return implicit_friction_lag(implicit_at(vt, s - vt.walls), vt.barrier, vt.kappa, vt.dhat, area, xi);
}

// Stores node g's contacts at xi; returns the largest change of λ (N).
fn lag_node(vt: Variant, g: u32, xi: vec3<real>) -> real {
    let fixed = node_fixed(g);
    let area = node_area(g);
    var change: real = 0.0;
    for (var s = 0u; s < vt.friction_slots; s++) {
        var f = vec4<real>(0.0);
        if (!fixed) {
            f = wall_friction_lag(vt, s, area, xi);
        }
        change = max(change, abs(f.w - load_lag(vt, g, s).w));
        store_lag(vt, g, s, f);
    }
    return change;
}

// μ λ of slot s's contact f, 0 where there is none.
fn lag_weight(vt: Variant, s: u32, f: vec4<real>) -> real {
    return variant_mu(vt, s) * max(f.w, 0.0);
}

fn friction_eps_of(vt: Variant) -> real {
    return var_real(vt.index, R_FRICTION_EPS);
}

// Σ D over node g's contacts (J); dx = x − xⁿ (m).
fn variant_friction_value(vt: Variant, g: u32, dx: vec3<real>) -> real {
    var e: real = 0.0;
    for (var s = 0u; s < vt.friction_slots; s++) {
        let f = load_lag(vt, g, s);
        let ml = lag_weight(vt, s, f);
        if (ml > 0.0) { e += friction_value(ml, friction_eps_of(vt), f.xyz, dx); }
    }
    return e;
}

// Σ [D(dx + δ) − D(dx)] over node g's contacts (J).
fn variant_friction_change(vt: Variant, g: u32, dx: vec3<real>, delta: vec3<real>) -> real {
    var e: real = 0.0;
    for (var s = 0u; s < vt.friction_slots; s++) {
        let f = load_lag(vt, g, s);
        let ml = lag_weight(vt, s, f);
        if (ml > 0.0) { e += friction_value_change(ml, friction_eps_of(vt), f.xyz, dx, delta); }
    }
    return e;
}

// Σ ∂D/∂x (N) and Σ of the PSD friction Hessians (N/m) of node g.
fn variant_friction_terms(vt: Variant, g: u32, dx: vec3<real>) -> FrictionTerms {
    var t = friction_terms_zero();
    for (var s = 0u; s < vt.friction_slots; s++) {
        let f = load_lag(vt, g, s);
        let ml = lag_weight(vt, s, f);
        if (ml > 0.0) { t = friction_terms_add(t, friction_terms(ml, friction_eps_of(vt), f.xyz, dx)); }
    }
    return t;
}

// Node g's contacts sticking (slip below ε_v h), sliding, and its dissipation
// Σ μ λ |u| (J), as (sticking, sliding, dissipation).
fn variant_friction_stats(vt: Variant, g: u32, dx: vec3<real>) -> vec3<real> {
    var out = vec3<real>(0.0);
    for (var s = 0u; s < vt.friction_slots; s++) {
        let f = load_lag(vt, g, s);
        let ml = lag_weight(vt, s, f);
        if (ml > 0.0) { out += friction_contact_stats(ml, friction_eps_of(vt), f.xyz, dx); }
    }
    return out;
}
