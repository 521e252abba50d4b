// Interval evaluation over a box, twin of src/implicit/interval.rs in f32: every
// result is widened outwards by IVAL_REL |v| (4 f32 ulps; IVAL_TRANS for the
// transcendental functions, whose WGSL accuracy is looser) plus IVAL_ABS, so the
// range contains every value on the box despite rounding.
// #import common.wgsl
// #import implicit/dual.wgsl

struct Ival {
    lo: real,
    hi: real,
}

const IVAL_REL: real = 4.8e-7;
const IVAL_TRANS: real = 1e-5;
const IVAL_ABS: real = 1e-30;
const IVAL_PI: real = 3.14159265358979;

fn ival_widen(lo: real, hi: real, rel: real) -> Ival {
    return Ival(lo - rel * abs(lo) - IVAL_ABS, hi + rel * abs(hi) + IVAL_ABS);
}

fn ival_whole() -> Ival { return Ival(-BIG, BIG); }
// The lower end raised to 0 for operations whose values are never negative (squares,
// sqrt, exp, sums and products of such), as non_negative of the CPU twin: widening
// must not make sqrt(x² + y²) over a box at the origin the whole line.
fn ival_nonneg(a: Ival) -> Ival {
    if (a.lo <= -BIG) { return a; }
    return Ival(max(a.lo, 0.0), a.hi);
}
fn ival_const(c: real) -> Ival { return Ival(c, c); }
fn ival_neg(a: Ival) -> Ival { return Ival(-a.hi, -a.lo); }
fn ival_add(a: Ival, b: Ival) -> Ival {
    let s = ival_widen(a.lo + b.lo, a.hi + b.hi, IVAL_REL);
    if (a.lo >= 0.0 && b.lo >= 0.0) { return ival_nonneg(s); }
    return s;
}
fn ival_sub(a: Ival, b: Ival) -> Ival { return ival_widen(a.lo - b.hi, a.hi - b.lo, IVAL_REL); }

fn ival_mul(a: Ival, b: Ival) -> Ival {
    let p = vec4<real>(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi);
    let r = ival_widen(min(min(p.x, p.y), min(p.z, p.w)), max(max(p.x, p.y), max(p.z, p.w)), IVAL_REL);
    if (a.lo >= 0.0 && b.lo >= 0.0) { return ival_nonneg(r); }
    return r;
}

fn ival_recip(b: Ival) -> Ival {
    if (b.lo <= 0.0 && b.hi >= 0.0) { return ival_whole(); }
    return ival_widen(1.0 / b.hi, 1.0 / b.lo, IVAL_REL);
}

fn ival_div(a: Ival, b: Ival) -> Ival { return ival_mul(a, ival_recip(b)); }

fn ival_powi(a: Ival, n: i32) -> Ival {
    if (n == 0) { return Ival(1.0, 1.0); }
    let m = abs(n);
    let l = real_powi(a.lo, m);
    let h = real_powi(a.hi, m);
    let rel = IVAL_REL * real(m);
    var o: Ival;
    if (m % 2 == 1 || a.lo >= 0.0) {
        o = ival_widen(l, h, rel);
    } else if (a.hi <= 0.0) {
        o = ival_widen(h, l, rel);
    } else {
        o = ival_widen(0.0, max(l, h), rel);
    }
    if (m % 2 == 0 || a.lo >= 0.0) { o = ival_nonneg(o); }
    if (n < 0) { return ival_recip(o); }
    return o;
}

fn ival_powc(a: Ival, c: real) -> Ival {
    let l = max(a.lo, 0.0);
    let h = max(a.hi, 0.0);
    if (c >= 0.0) { return ival_nonneg(ival_widen(real_pow(l, c), real_pow(h, c), IVAL_TRANS)); }
    if (l > 0.0) { return ival_nonneg(ival_widen(real_pow(h, c), real_pow(l, c), IVAL_TRANS)); }
    return ival_whole();
}

fn ival_abs(a: Ival) -> Ival {
    if (a.lo >= 0.0) { return a; }
    if (a.hi <= 0.0) { return Ival(-a.hi, -a.lo); }
    return Ival(0.0, max(a.hi, -a.lo));
}

fn ival_sqrt(a: Ival) -> Ival {
    if (a.lo < 0.0) { return ival_whole(); }
    return ival_nonneg(ival_widen(sqrt(a.lo), sqrt(a.hi), IVAL_TRANS));
}

fn ival_exp(a: Ival) -> Ival { return ival_nonneg(ival_widen(real_exp(a.lo), real_exp(a.hi), IVAL_TRANS)); }

fn ival_ln(a: Ival) -> Ival {
    if (a.lo <= 0.0) { return ival_whole(); }
    return ival_widen(real_log(a.lo), real_log(a.hi), IVAL_TRANS);
}

fn ival_cos(a: Ival) -> Ival {
    if (!(a.hi - a.lo < 2.0 * IVAL_PI)) { return Ival(-1.0, 1.0); }
    let cl = real_cos(a.lo);
    let ch = real_cos(a.hi);
    var lo = min(cl, ch);
    var hi = max(cl, ch);
    if (2.0 * IVAL_PI * ceil(a.lo / (2.0 * IVAL_PI)) <= a.hi) { hi = 1.0; }
    if (2.0 * IVAL_PI * ceil((a.lo - IVAL_PI) / (2.0 * IVAL_PI)) + IVAL_PI <= a.hi) { lo = -1.0; }
    let w = ival_widen(lo, hi, IVAL_TRANS);
    return Ival(w.lo - 1e-6, w.hi + 1e-6);
}

fn ival_sin(a: Ival) -> Ival { return ival_cos(Ival(a.lo - 0.5 * IVAL_PI, a.hi - 0.5 * IVAL_PI)); }
fn ival_min(a: Ival, b: Ival) -> Ival { return Ival(min(a.lo, b.lo), min(a.hi, b.hi)); }
fn ival_max(a: Ival, b: Ival) -> Ival { return Ival(max(a.lo, b.lo), max(a.hi, b.hi)); }
