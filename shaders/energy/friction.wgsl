// Lagged IPC friction of one node–wall contact, twin of src/energy/friction.rs:
// D = μ λ f0(|u|), u = T (x − xⁿ), T = I − n nᵀ, with the C¹ smoothing of seed 001 over
// the slip eps = ε_v h (m). `ml` is μ λ (N), `dx` is x − xⁿ (m), `n` the unit normal.
// #import common.wgsl

// f0(y) (m): y²/ε − y³/(3ε²) + ε/3 below ε, y above.
fn friction_f0(y: real, eps: real) -> real {
    if (y < eps) {
        return y * y / eps - y * y * y / (3.0 * eps * eps) + eps / 3.0;
    }
    return y;
}

// f1(y)/y (1/m), finite at y = 0.
fn friction_f1_over_y(y: real, eps: real) -> real {
    if (y < eps) {
        return 2.0 / eps - y / (eps * eps);
    }
    return 1.0 / y;
}

// The tangential slip u = (I − n nᵀ) dx (m).
fn friction_slip(n: vec3<real>, dx: vec3<real>) -> vec3<real> {
    return dx - dot(n, dx) * n;
}

fn friction_value(ml: real, eps: real, n: vec3<real>, dx: vec3<real>) -> real {
    return ml * friction_f0(length(friction_slip(n, dx)), eps);
}

// D(dx + δ) − D(dx), as one difference of two small per-contact values.
fn friction_value_change(ml: real, eps: real, n: vec3<real>, dx: vec3<real>, delta: vec3<real>) -> real {
    let u = friction_slip(n, dx);
    let u1 = u + friction_slip(n, delta);
    return ml * (friction_f0(length(u1), eps) - friction_f0(length(u), eps));
}

// One contact's (sticking, sliding, dissipation μ λ |T dx| in J): sticking where its
// tangential slip is below eps (m). Every friction statistic counts by this rule.
fn friction_contact_stats(ml: real, eps: real, n: vec3<real>, dx: vec3<real>) -> vec3<real> {
    let y = length(friction_slip(n, dx));
    let sticking = y < eps;
    return vec3<real>(select(real(0.0), real(1.0), sticking), select(real(1.0), real(0.0), sticking), ml * y);
}

// The gradient and PSD Hessian of D, from one evaluation of the slip.
struct FrictionTerms {
    // ∂D/∂x = μ λ (f1(y)/y) u (N)
    grad: vec3<real>,
    // μ λ [(f1/y) T + (f1′ − f1/y) û ûᵀ] (N/m)
    hess: Sym,
}

fn friction_terms_zero() -> FrictionTerms {
    return FrictionTerms(vec3<real>(0.0), sym_zero());
}

fn friction_terms_add(a: FrictionTerms, b: FrictionTerms) -> FrictionTerms {
    return FrictionTerms(a.grad + b.grad, sym_add(a.hess, b.hess));
}

// f1′ − f1/y is −y/ε² below ε and −1/y above.
fn friction_terms(ml: real, eps: real, n: vec3<real>, dx: vec3<real>) -> FrictionTerms {
    let u = friction_slip(n, dx);
    let y = length(u);
    let a = ml * friction_f1_over_y(y, eps);
    var h = Sym(a * (vec3<real>(1.0) - n * n), -a * vec3<real>(n.x * n.y, n.x * n.z, n.y * n.z));
    if (y > 0.0) {
        var b = -1.0 / y;
        if (y < eps) { b = -y / (eps * eps); }
        h = sym_add(h, sym_outer(ml * b, u / y));
    }
    return FrictionTerms(a * u, h);
}
