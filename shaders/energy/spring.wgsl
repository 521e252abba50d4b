// Mass-spring energy of one spring, twin of src/energy/spring.rs:
// Ψ = ½ k l² (|d|²/l² − 1)², d = x_a − x_b.
// #import common.wgsl

fn spring_value(dv: vec3<real>, l2: real, k: real) -> real {
    let s = dot(dv, dv) / l2 - 1.0;
    return 0.5 * k * l2 * s * s;
}

// Ψ(d + δ) − Ψ(d) without cancellation: with s = |d|²/l² − 1 and
// Δs = (2 d·δ + |δ|²)/l², the change is ½ k l² Δs (2 s + Δs).
fn spring_value_change(dv: vec3<real>, delta: vec3<real>, l2: real, k: real) -> real {
    let s = dot(dv, dv) / l2 - 1.0;
    let ds = (2.0 * dot(dv, delta) + dot(delta, delta)) / l2;
    return 0.5 * k * l2 * ds * (2.0 * s + ds);
}

// ∂Ψ/∂x_a = 2k (|d|²/l² − 1) d (N).
fn spring_gradient(dv: vec3<real>, l2: real, k: real) -> vec3<real> {
    return 2.0 * k * (dot(dv, dv) / l2 - 1.0) * dv;
}

// The PSD-projected block H_d = across·I + coef·d dᵀ, returned as (across, coef):
// eigenvalue (2k/l²)(3|d|² − l²) along d and (2k/l²)(|d|² − l²) across, clamped at 0.
fn spring_hessian(dv: vec3<real>, l2: real, k: real) -> vec2<real> {
    let c = 2.0 * k / l2;
    let dd = dot(dv, dv);
    let across = max(c * (dd - l2), 0.0);
    let along = max(c * (3.0 * dd - l2), 0.0);
    var coef: real = 0.0;
    if (dd > 0.0) { coef = (along - across) / dd; }
    return vec2<real>(across, coef);
}

// H_d u for the block returned by spring_hessian.
fn spring_hessian_apply(dv: vec3<real>, h: vec2<real>, u: vec3<real>) -> vec3<real> {
    return h.x * u + h.y * dot(dv, u) * dv;
}

// H_d as a symmetric block.
fn spring_hessian_block(dv: vec3<real>, h: vec2<real>) -> Sym {
    return sym_add(Sym(vec3<real>(h.x), vec3<real>(0.0)), sym_outer(h.y, dv));
}
