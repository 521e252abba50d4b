//! Interval evaluation of an [`Expr`] over a box: a range `[lo, hi]` that contains
//! every value the expression takes on the box (the basis of the CCD bound in
//! [`super::wall`]). Every operation is widened outwards by `4ε|v| + 1e-300` (ε the
//! f64 machine epsilon; transcendental functions by `1e-12|v|`), which covers the
//! rounding of the f64 operations, except below 0 for operations whose values are
//! never negative (squares, `√`, `exp`, sums and products of such). Undefined parts (`ln` of ≤ 0, `sqrt` of < 0,
//! division by an interval containing 0) give the whole line, so a bound built on
//! it is still valid (and only pessimistic). The WGSL twin is
//! `shaders/implicit/interval.wgsl`.

use super::dual::powi3;
use super::expr::{Expr, Func};
use std::f64::consts::PI;

/// A closed interval `[lo, hi]` (units of the expression).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

const WHOLE: Interval = Interval {
    lo: f64::NEG_INFINITY,
    hi: f64::INFINITY,
};

fn widen(lo: f64, hi: f64, rel: f64) -> Interval {
    if lo.is_nan() || hi.is_nan() {
        return WHOLE;
    }
    Interval {
        lo: lo - rel * lo.abs() - 1e-300,
        hi: hi + rel * hi.abs() + 1e-300,
    }
}

/// `a` with its lower end raised to 0, for an operation whose every value is ≥ 0
/// (squares, sums and products of non-negative ranges, `√`, `exp`): the outward
/// widening must not push such a range below 0, or `√(x² + y²)` over a box at the
/// origin would be the whole line and the CCD bound would be 0 there. A lower end of
/// −∞ (an undefined part, see the module docs) is kept.
fn non_negative(a: Interval) -> Interval {
    if a.lo == f64::NEG_INFINITY {
        return a;
    }
    Interval {
        lo: a.lo.max(0.0),
        hi: a.hi,
    }
}

const EXACT: f64 = 4.0 * f64::EPSILON;
const TRANSCENDENTAL: f64 = 1e-12;

fn mul(a: Interval, b: Interval) -> Interval {
    let c = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi];
    let c = c.map(|v| if v.is_nan() { 0.0 } else { v });
    let r = widen(
        c.iter().copied().fold(f64::INFINITY, f64::min),
        c.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        EXACT,
    );
    if a.lo >= 0.0 && b.lo >= 0.0 {
        non_negative(r)
    } else {
        r
    }
}

fn powi(a: Interval, n: i32) -> Interval {
    if n == 0 {
        return Interval { lo: 1.0, hi: 1.0 };
    }
    if n < 0 {
        return recip(powi(a, -n));
    }
    let (l, _, _) = powi3(a.lo, n);
    let (h, _, _) = powi3(a.hi, n);
    let r = if n % 2 == 1 || a.lo >= 0.0 {
        widen(l, h, EXACT * n as f64)
    } else if a.hi <= 0.0 {
        widen(h, l, EXACT * n as f64)
    } else {
        widen(0.0, l.max(h), EXACT * n as f64)
    };
    if n % 2 == 0 || a.lo >= 0.0 {
        non_negative(r)
    } else {
        r
    }
}

fn recip(b: Interval) -> Interval {
    if b.lo <= 0.0 && b.hi >= 0.0 {
        return WHOLE;
    }
    widen(1.0 / b.hi, 1.0 / b.lo, EXACT)
}

/// `cos` over `[lo, hi]`: the extreme values at the ends or at multiples of π inside.
fn cos_range(a: Interval) -> Interval {
    if a.hi - a.lo >= 2.0 * PI || (a.hi - a.lo).is_nan() {
        return Interval { lo: -1.0, hi: 1.0 };
    }
    let (cl, ch) = (a.lo.cos(), a.hi.cos());
    let mut lo = cl.min(ch);
    let mut hi = cl.max(ch);
    // a maximum (cos = 1) at 2kπ, a minimum (cos = −1) at (2k + 1)π
    let k = (a.lo / (2.0 * PI)).ceil();
    if 2.0 * PI * k <= a.hi {
        hi = 1.0;
    }
    let k = ((a.lo - PI) / (2.0 * PI)).ceil();
    if 2.0 * PI * k + PI <= a.hi {
        lo = -1.0;
    }
    let w = widen(lo, hi, TRANSCENDENTAL);
    Interval {
        lo: w.lo - 1e-15,
        hi: w.hi + 1e-15,
    }
}

/// `−a`.
fn neg(a: Interval) -> Interval {
    Interval {
        lo: -a.hi,
        hi: -a.lo,
    }
}

/// `a + b`; never below 0 when both are not.
fn add(a: Interval, b: Interval) -> Interval {
    let s = widen(a.lo + b.lo, a.hi + b.hi, EXACT);
    if a.lo >= 0.0 && b.lo >= 0.0 {
        non_negative(s)
    } else {
        s
    }
}

/// `a − b`.
fn sub(a: Interval, b: Interval) -> Interval {
    widen(a.lo - b.hi, a.hi - b.lo, EXACT)
}

/// `max(a, 0)^c`, as the expressions define a real exponent.
fn powc(a: Interval, c: f64) -> Interval {
    let (l, h) = (a.lo.max(0.0), a.hi.max(0.0));
    if c >= 0.0 {
        non_negative(widen(l.powf(c), h.powf(c), TRANSCENDENTAL))
    } else if l > 0.0 {
        non_negative(widen(h.powf(c), l.powf(c), TRANSCENDENTAL))
    } else {
        WHOLE
    }
}

/// `|a|`.
fn abs(a: Interval) -> Interval {
    if a.lo >= 0.0 {
        a
    } else if a.hi <= 0.0 {
        neg(a)
    } else {
        Interval {
            lo: 0.0,
            hi: a.hi.max(-a.lo),
        }
    }
}

/// `√a`; the whole line where `a` reaches below 0.
fn sqrt(a: Interval) -> Interval {
    if a.lo < 0.0 {
        WHOLE
    } else {
        non_negative(widen(a.lo.sqrt(), a.hi.sqrt(), EXACT))
    }
}

/// `eᵃ`.
fn exp(a: Interval) -> Interval {
    non_negative(widen(a.lo.exp(), a.hi.exp(), TRANSCENDENTAL))
}

/// `ln a`; the whole line where `a` reaches 0 or below.
fn ln(a: Interval) -> Interval {
    if a.lo <= 0.0 {
        WHOLE
    } else {
        widen(a.lo.ln(), a.hi.ln(), TRANSCENDENTAL)
    }
}

/// `sin` over `a`, as `cos(a − π/2)`.
fn sin_range(a: Interval) -> Interval {
    cos_range(Interval {
        lo: a.lo - PI / 2.0,
        hi: a.hi - PI / 2.0,
    })
}

/// `min(a, b)`.
fn min(a: Interval, b: Interval) -> Interval {
    Interval {
        lo: a.lo.min(b.lo),
        hi: a.hi.min(b.hi),
    }
}

/// `max(a, b)`.
fn max(a: Interval, b: Interval) -> Interval {
    Interval {
        lo: a.lo.max(b.lo),
        hi: a.hi.max(b.hi),
    }
}

/// A range containing `e` over the box `lo[k] ≤ x_k ≤ hi[k]`.
pub fn eval_interval(e: &Expr, lo: &[f64], hi: &[f64]) -> Interval {
    let r = |a: &Expr| eval_interval(a, lo, hi);
    match e {
        Expr::Const(v) => Interval { lo: *v, hi: *v },
        Expr::Var(k) => Interval {
            lo: lo.get(*k).copied().unwrap_or(0.0),
            hi: hi.get(*k).copied().unwrap_or(0.0),
        },
        Expr::Neg(a) => neg(r(a)),
        Expr::Add(a, b) => add(r(a), r(b)),
        Expr::Sub(a, b) => sub(r(a), r(b)),
        Expr::Mul(a, b) => mul(r(a), r(b)),
        Expr::Div(a, b) => mul(r(a), recip(r(b))),
        Expr::PowI(a, n) => powi(r(a), *n),
        Expr::PowC(a, c) => powc(r(a), *c),
        Expr::Call(f, a) => {
            let a = r(a);
            match f {
                Func::Abs => abs(a),
                Func::Sqrt => sqrt(a),
                Func::Exp => exp(a),
                Func::Ln => ln(a),
                Func::Cos => cos_range(a),
                Func::Sin => sin_range(a),
            }
        }
        Expr::Min(a, b) => min(r(a), r(b)),
        Expr::Max(a, b) => max(r(a), r(b)),
    }
}

pub mod slope;
