// Friction of one node summed over its lagged wall contacts (the `friction` buffer,
// written at the start of the step by kernels/friction.wgsl). `dx` is x − xⁿ (m).
// CPU twin: CpuBackend::for_each_friction in src/backend/cpu/friction.rs.
// #import state.wgsl
// #import energy/friction.wgsl
// #import implicit/frame.wgsl

// The lagged contact of node i with wall slot s: (unit normal, λ (N)).
fn load_friction(i: u32, s: u32) -> vec4<real> {
    return friction[i * P.friction_slots + s];
}

// x − xⁿ (m) of node i less how far wall slot s moved since the step's start where
// the node started (a moving wall; zero for one that stayed): the slip friction sees.
fn slot_slip(i: u32, s: u32, dx: vec3<real>) -> vec3<real> {
    if (s < P.n_walls) { return dx - P.wall_shift[s].xyz; }
    return dx - implicit_carried(s - P.n_walls, load_xn(i));
}

// μ λ of a contact, 0 where there is none.
fn friction_weight(s: u32, f: vec4<real>) -> real {
    return friction_mu(s) * max(f.w, 0.0);
}

// Σ D over the node's contacts (J).
fn node_friction_value(i: u32, dx: vec3<real>) -> real {
    var e: real = 0.0;
    for (var s = 0u; s < P.friction_slots; s++) {
        let f = load_friction(i, s);
        let ml = friction_weight(s, f);
        if (ml > 0.0) { e += friction_value(ml, P.friction_eps, f.xyz, slot_slip(i, s, dx)); }
    }
    return e;
}

// Σ [D(dx + δ) − D(dx)] over the node's contacts (J).
fn node_friction_change(i: u32, dx: vec3<real>, delta: vec3<real>) -> real {
    var e: real = 0.0;
    for (var s = 0u; s < P.friction_slots; s++) {
        let f = load_friction(i, s);
        let ml = friction_weight(s, f);
        if (ml > 0.0) { e += friction_value_change(ml, P.friction_eps, f.xyz, slot_slip(i, s, dx), delta); }
    }
    return e;
}

// Σ ∂D/∂x (N) and Σ of the PSD friction Hessians (N/m), in one pass over the contacts.
fn node_friction_terms(i: u32, dx: vec3<real>) -> FrictionTerms {
    var t = friction_terms_zero();
    for (var s = 0u; s < P.friction_slots; s++) {
        let f = load_friction(i, s);
        let ml = friction_weight(s, f);
        if (ml > 0.0) { t = friction_terms_add(t, friction_terms(ml, P.friction_eps, f.xyz, slot_slip(i, s, dx))); }
    }
    return t;
}
