// Interval slopes, twin of src/implicit/interval/slope.rs: the range of a value and of
// its derivative along a direction p over a box, by forward-mode differentiation in
// interval arithmetic, for the mean-value form of the implicit CCD bound
// (shaders/implicit/wall.wgsl). An undefined derivative gives the whole line.
// #import implicit/interval.wgsl

struct Slope {
    v: Ival,
    d: Ival,
}

fn ival_hull(a: Ival, b: Ival) -> Ival { return Ival(min(a.lo, b.lo), max(a.hi, b.hi)); }
fn slope_whole() -> Slope { return Slope(ival_whole(), ival_whole()); }
fn slope_const(c: real) -> Slope { return Slope(ival_const(c), ival_const(0.0)); }
fn slope_var(lo: real, hi: real, p: real) -> Slope { return Slope(Ival(lo, hi), ival_const(p)); }
fn slope_neg(a: Slope) -> Slope { return Slope(ival_neg(a.v), ival_neg(a.d)); }
fn slope_add(a: Slope, b: Slope) -> Slope { return Slope(ival_add(a.v, b.v), ival_add(a.d, b.d)); }
fn slope_sub(a: Slope, b: Slope) -> Slope { return Slope(ival_sub(a.v, b.v), ival_sub(a.d, b.d)); }

fn slope_mul(a: Slope, b: Slope) -> Slope {
    return Slope(ival_mul(a.v, b.v), ival_add(ival_mul(a.d, b.v), ival_mul(a.v, b.d)));
}

// (a/b)' = (a' − (a/b) b') / b
fn slope_div(a: Slope, b: Slope) -> Slope {
    let inv = ival_recip(b.v);
    let v = ival_mul(a.v, inv);
    return Slope(v, ival_mul(ival_sub(a.d, ival_mul(v, b.d)), inv));
}

fn slope_powi(a: Slope, n: i32) -> Slope {
    if (n == 0) { return slope_const(1.0); }
    return Slope(ival_powi(a.v, n), ival_mul(ival_mul(ival_const(real(n)), ival_powi(a.v, n - 1)), a.d));
}

// (max(a, 0)^c)' = c max(a, 0)^(c−1) a' where a > 0, and 0 where a < 0.
fn slope_powc(a: Slope, c: real) -> Slope {
    var d = ival_mul(ival_mul(ival_const(c), ival_powc(a.v, c - 1.0)), a.d);
    if (a.v.lo < 0.0) { d = ival_hull(d, ival_const(0.0)); }
    return Slope(ival_powc(a.v, c), d);
}

fn slope_abs(a: Slope) -> Slope {
    if (a.v.lo >= 0.0) { return a; }
    if (a.v.hi <= 0.0) { return slope_neg(a); }
    return Slope(ival_abs(a.v), ival_hull(a.d, ival_neg(a.d)));
}

fn slope_sqrt(a: Slope) -> Slope {
    if (!(a.v.lo > 0.0)) { return slope_whole(); }
    let v = ival_sqrt(a.v);
    return Slope(v, ival_mul(a.d, ival_recip(ival_mul(ival_const(2.0), v))));
}

fn slope_exp(a: Slope) -> Slope {
    let v = ival_exp(a.v);
    return Slope(v, ival_mul(v, a.d));
}

fn slope_ln(a: Slope) -> Slope {
    if (!(a.v.lo > 0.0)) { return slope_whole(); }
    return Slope(ival_ln(a.v), ival_mul(a.d, ival_recip(a.v)));
}

fn slope_sin(a: Slope) -> Slope { return Slope(ival_sin(a.v), ival_mul(ival_cos(a.v), a.d)); }
fn slope_cos(a: Slope) -> Slope { return Slope(ival_cos(a.v), ival_mul(ival_neg(ival_sin(a.v)), a.d)); }

// Where one argument is the selected one over the whole box, its slope; else the hull.
fn slope_min(a: Slope, b: Slope) -> Slope {
    var d = ival_hull(a.d, b.d);
    if (a.v.hi < b.v.lo) { d = a.d; } else if (b.v.hi < a.v.lo) { d = b.d; }
    return Slope(ival_min(a.v, b.v), d);
}

fn slope_max(a: Slope, b: Slope) -> Slope {
    var d = ival_hull(a.d, b.d);
    if (a.v.hi < b.v.lo) { d = b.d; } else if (b.v.hi < a.v.lo) { d = a.d; }
    return Slope(ival_max(a.v, b.v), d);
}
