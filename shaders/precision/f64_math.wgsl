// ln, exp, pow, sin and cos in f64. SPIR-V's GLSL.std.450 (and so Vulkan) has them
// for 16- and 32-bit floats only, so the f64 modes evaluate them here, to about one
// ulp: ln by 2 atanh((m − 1)/(m + 1)) on the mantissa, exp by a Taylor polynomial
// after reduction by ln 2, sin and cos by Taylor polynomials after reduction by π/2
// (three-part constants, exact for |x| up to about 10⁶). Checked against the CPU's
// f64 functions in tests/gpu_precision.rs.

// ln 2 in two parts; the high part has 32 trailing zero bits, so k ln2_hi is exact.
const LN2_HI: f64 = 6.93147180369123816490e-01;
const LN2_LO: f64 = 1.90821492927058770002e-10;
// π/2 in three parts, each product with k < 2²⁰ exact.
const PIO2_1: f64 = 1.57079632673412561417e+00;
const PIO2_2: f64 = 6.07710050630396597660e-11;
const PIO2_3: f64 = 2.02226624871116645580e-21;

// ln x for x > 0; −BIG for x ≤ 0. (WGSL's frexp of an f64 returns an i64 exponent,
// which needs 64-bit integers; the exponent comes from f32's log2 instead.)
fn real_log(x: f64) -> f64 {
    if (!(x > 0.0)) { return -BIG; }
    // bring x into f32's normal range, then x = m 2^e with m in [1/√2, √2]
    var y = x;
    var e = 0;
    for (var k = 0; k < 12 && y > 1e30; k++) {
        y = ldexp(y, -100);
        e += 100;
    }
    for (var k = 0; k < 12 && y < 1e-30; k++) {
        y = ldexp(y, 100);
        e -= 100;
    }
    let ey = i32(round(log2(f32(y))));
    var m = ldexp(y, -ey);
    e += ey;
    if (m < 0.70710678118654752) {
        m = 2.0 * m;
        e -= 1;
    } else if (m > 1.41421356237309505) {
        m = 0.5 * m;
        e += 1;
    }
    let ef = f64(e);
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    // Σ_{k ≤ 11} s^{2k} / (2k + 1); |s| < 0.172, so the first omitted term is < 1e-19
    var t: f64 = 1.0 / 23.0;
    t = t * s2 + 1.0 / 21.0;
    t = t * s2 + 1.0 / 19.0;
    t = t * s2 + 1.0 / 17.0;
    t = t * s2 + 1.0 / 15.0;
    t = t * s2 + 1.0 / 13.0;
    t = t * s2 + 1.0 / 11.0;
    t = t * s2 + 1.0 / 9.0;
    t = t * s2 + 1.0 / 7.0;
    t = t * s2 + 1.0 / 5.0;
    t = t * s2 + 1.0 / 3.0;
    t = t * s2 + 1.0;
    return ef * LN2_HI + (2.0 * s * t + ef * LN2_LO);
}

// eˣ, with x clamped to [−708, 709] (the f64 range).
fn real_exp(x: f64) -> f64 {
    let xc = clamp(x, -708.0, 709.0);
    let k = floor(xc * 1.44269504088896340736 + 0.5);
    let r = (xc - k * LN2_HI) - k * LN2_LO;
    // Taylor to r¹³/13!; |r| ≤ 0.347, so the first omitted term is < 5e-18
    var t: f64 = 1.0 / 6227020800.0;
    t = t * r + 1.0 / 479001600.0;
    t = t * r + 1.0 / 39916800.0;
    t = t * r + 1.0 / 3628800.0;
    t = t * r + 1.0 / 362880.0;
    t = t * r + 1.0 / 40320.0;
    t = t * r + 1.0 / 5040.0;
    t = t * r + 1.0 / 720.0;
    t = t * r + 1.0 / 120.0;
    t = t * r + 1.0 / 24.0;
    t = t * r + 1.0 / 6.0;
    t = t * r + 0.5;
    t = t * r + 1.0;
    t = t * r + 1.0;
    return ldexp(t, i32(k));
}

// bᶜ for b ≥ 0 (as WGSL's pow, which is undefined for b < 0): 0 at b = 0 for c > 0,
// 1 for c = 0, BIG for c < 0.
fn real_pow(b: f64, c: f64) -> f64 {
    if (b <= 0.0) {
        if (c > 0.0) { return 0.0; }
        if (c == 0.0) { return 1.0; }
        return BIG;
    }
    return real_exp(c * real_log(b));
}

// (sin r, cos r) for |r| ≤ π/4 (Taylor to r¹⁷ and r¹⁶).
fn sincos_reduced(r: f64) -> vec2<f64> {
    let r2 = r * r;
    var s: f64 = -1.0 / 355687428096000.0;
    s = s * r2 + 1.0 / 1307674368000.0;
    s = s * r2 - 1.0 / 6227020800.0;
    s = s * r2 + 1.0 / 39916800.0;
    s = s * r2 - 1.0 / 362880.0;
    s = s * r2 + 1.0 / 5040.0;
    s = s * r2 - 1.0 / 120.0;
    s = s * r2 + 1.0 / 6.0;
    var c: f64 = 1.0 / 20922789888000.0;
    c = c * r2 - 1.0 / 87178291200.0;
    c = c * r2 + 1.0 / 479001600.0;
    c = c * r2 - 1.0 / 3628800.0;
    c = c * r2 + 1.0 / 40320.0;
    c = c * r2 - 1.0 / 720.0;
    c = c * r2 + 1.0 / 24.0;
    c = c * r2 - 0.5;
    return vec2<f64>(r - r * r2 * s, 1.0 + r2 * c);
}

// (sin x, cos x): reduction to x = k π/2 + r, then the quadrant k mod 4.
fn real_sincos(x: f64) -> vec2<f64> {
    let k = floor(x * 0.63661977236758134308 + 0.5);
    let r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
    let sc = sincos_reduced(r);
    let q = i32(k) & 3;
    if (q == 0) { return sc; }
    if (q == 1) { return vec2<f64>(sc.y, -sc.x); }
    if (q == 2) { return -sc; }
    return vec2<f64>(-sc.y, sc.x);
}

fn real_sin(x: f64) -> f64 { return real_sincos(x).x; }
fn real_cos(x: f64) -> f64 { return real_sincos(x).y; }
