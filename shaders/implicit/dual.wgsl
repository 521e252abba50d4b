// Value, gradient and Hessian by second-order forward mode, twin of
// src/implicit/dual.rs: each operation applies the chain rule
// f(a) → (f, f′ ∇a, f′ ∇²a + f″ ∇a ∇aᵀ). Generated wall functions call these.
// #import common.wgsl

struct Dual {
    v: real,
    g: vec3<real>,
    h: mat3x3<real>,
}

fn real_powi(a: real, n: i32) -> real {
    var r: real = 1.0;
    for (var k = 0; k < abs(n); k++) { r = r * a; }
    if (n < 0) { return 1.0 / r; }
    return r;
}

fn dual_outer(a: vec3<real>, b: vec3<real>) -> mat3x3<real> {
    return mat3x3<real>(a * b.x, a * b.y, a * b.z);
}

fn dual_const(c: real) -> Dual {
    return Dual(c, vec3<real>(0.0), mat3x3<real>(vec3<real>(0.0), vec3<real>(0.0), vec3<real>(0.0)));
}

fn dual_var(k: u32, xi: vec3<real>) -> Dual {
    var o = dual_const(xi[k]);
    o.g[k] = 1.0;
    return o;
}

fn dual_chain(a: Dual, f: real, f1: real, f2: real) -> Dual {
    return Dual(f, f1 * a.g, f1 * a.h + f2 * dual_outer(a.g, a.g));
}

fn dual_neg(a: Dual) -> Dual { return Dual(-a.v, -a.g, -1.0 * a.h); }
fn dual_add(a: Dual, b: Dual) -> Dual { return Dual(a.v + b.v, a.g + b.g, a.h + b.h); }
fn dual_sub(a: Dual, b: Dual) -> Dual { return Dual(a.v - b.v, a.g - b.g, a.h - b.h); }

fn dual_mul(a: Dual, b: Dual) -> Dual {
    return Dual(a.v * b.v, a.g * b.v + a.v * b.g, b.v * a.h + a.v * b.h + dual_outer(a.g, b.g) + dual_outer(b.g, a.g));
}

fn dual_div(a: Dual, b: Dual) -> Dual {
    let r = 1.0 / b.v;
    return dual_mul(a, dual_chain(b, r, -r * r, 2.0 * r * r * r));
}

fn dual_powi(a: Dual, n: i32) -> Dual {
    let nf = real(n);
    var f1: real = 0.0;
    var f2: real = 0.0;
    if (n != 0) { f1 = nf * real_powi(a.v, n - 1); }
    if (n != 0 && n != 1) { f2 = nf * (nf - 1.0) * real_powi(a.v, n - 2); }
    return dual_chain(a, real_powi(a.v, n), f1, f2);
}

// At a base of 0 an infinite derivative (c < 1, or c < 2 for the second) is taken as
// 0, as in powc3 of the CPU twin.
fn dual_powc(a: Dual, c: real) -> Dual {
    let b = max(a.v, 0.0);
    if (b > 0.0) {
        return dual_chain(a, real_pow(b, c), c * real_pow(b, c - 1.0), c * (c - 1.0) * real_pow(b, c - 2.0));
    }
    return dual_chain(a, real_pow(b, c), select(real(0.0), real(1.0), c == 1.0), select(real(0.0), real(2.0), c == 2.0));
}

fn dual_abs(a: Dual) -> Dual { return dual_chain(a, abs(a.v), sign(a.v), 0.0); }

// At 0 the derivatives are infinite; 0 is taken (a subgradient choice, as sqrt3 of
// the CPU twin), so sqrt(x² + y²) at the origin has a zero gradient, not ∞ · 0 = NaN.
fn dual_sqrt(a: Dual) -> Dual {
    let s = sqrt(a.v);
    if (s > 0.0) {
        return dual_chain(a, s, 0.5 / s, -0.25 / (s * a.v));
    }
    return dual_chain(a, s, 0.0, 0.0);
}

fn dual_exp(a: Dual) -> Dual {
    let e = real_exp(a.v);
    return dual_chain(a, e, e, e);
}

fn dual_ln(a: Dual) -> Dual { return dual_chain(a, real_log(a.v), 1.0 / a.v, -1.0 / (a.v * a.v)); }
fn dual_sin(a: Dual) -> Dual { return dual_chain(a, real_sin(a.v), real_cos(a.v), -real_sin(a.v)); }
fn dual_cos(a: Dual) -> Dual { return dual_chain(a, real_cos(a.v), -real_sin(a.v), -real_cos(a.v)); }

fn dual_min(a: Dual, b: Dual) -> Dual {
    if (a.v <= b.v) { return a; }
    return b;
}

fn dual_max(a: Dual, b: Dual) -> Dual {
    if (a.v >= b.v) { return a; }
    return b;
}
