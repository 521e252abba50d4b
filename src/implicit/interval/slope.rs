//! Interval slopes: the range of an expression's values *and* of its derivative
//! along a direction `p` over a box, by forward-mode differentiation in interval
//! arithmetic. The CCD bound uses it for the mean-value form
//! `W(x + t p) ≥ W(x) + t · min(0, D)` for `0 ≤ t ≤ α`, `D` a range containing
//! `d/dt W(x + t p)` over the box spanned by the segment: near a wall `W` is a small
//! difference of large numbers, whose interval carries their rounding, while the
//! derivative has no such cancellation. Non-smooth operations (`abs`, `min`, `max`)
//! are Lipschitz, and their ranges cover every one-sided derivative, which is what the
//! mean-value inequality needs. An undefined derivative (`√` or `ln` reaching 0, a
//! division by a range containing 0) gives the whole line, and the test then fails
//! safe. The WGSL twin is `shaders/implicit/slope.wgsl`.

use super::{
    abs, add, cos_range, exp, ln, max, min, mul, neg, powc, powi, recip, sin_range, sqrt, sub,
    Interval, WHOLE,
};
use crate::implicit::expr::{Expr, Func};

/// The range `v` of an expression's values and the range `d` of its derivative
/// along the segment's direction, over a box (units of the expression, and of the
/// expression per unit of the segment parameter). The values are those of
/// [`super::eval_interval`], operation for operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slope {
    /// Values.
    pub v: Interval,
    /// Derivatives along the direction.
    pub d: Interval,
}

fn point(c: f64) -> Interval {
    Interval { lo: c, hi: c }
}

fn hull(a: Interval, b: Interval) -> Interval {
    Interval {
        lo: a.lo.min(b.lo),
        hi: a.hi.max(b.hi),
    }
}

/// The slope of `e` over the box `lo[k] ≤ x_k ≤ hi[k]` along the direction `p`.
pub fn eval_slope(e: &Expr, lo: &[f64], hi: &[f64], p: &[f64]) -> Slope {
    let r = |a: &Expr| eval_slope(a, lo, hi, p);
    let zero = point(0.0);
    match e {
        Expr::Const(c) => Slope {
            v: point(*c),
            d: zero,
        },
        Expr::Var(k) => Slope {
            v: Interval {
                lo: lo.get(*k).copied().unwrap_or(0.0),
                hi: hi.get(*k).copied().unwrap_or(0.0),
            },
            d: point(p.get(*k).copied().unwrap_or(0.0)),
        },
        Expr::Neg(a) => {
            let a = r(a);
            Slope {
                v: neg(a.v),
                d: neg(a.d),
            }
        }
        Expr::Add(a, b) => {
            let (a, b) = (r(a), r(b));
            Slope {
                v: add(a.v, b.v),
                d: add(a.d, b.d),
            }
        }
        Expr::Sub(a, b) => {
            let (a, b) = (r(a), r(b));
            Slope {
                v: sub(a.v, b.v),
                d: sub(a.d, b.d),
            }
        }
        Expr::Mul(a, b) => {
            let (a, b) = (r(a), r(b));
            Slope {
                v: mul(a.v, b.v),
                d: add(mul(a.d, b.v), mul(a.v, b.d)),
            }
        }
        Expr::Div(a, b) => {
            // (a/b)' = (a' − (a/b) b') / b
            let (a, b) = (r(a), r(b));
            let inv = recip(b.v);
            let v = mul(a.v, inv);
            Slope {
                v,
                d: mul(sub(a.d, mul(v, b.d)), inv),
            }
        }
        Expr::PowI(a, n) => {
            let a = r(a);
            let d = match n {
                0 => zero,
                _ => mul(mul(point(*n as f64), powi(a.v, n - 1)), a.d),
            };
            Slope {
                v: powi(a.v, *n),
                d,
            }
        }
        Expr::PowC(a, c) => {
            // (max(a, 0)^c)' = c max(a, 0)^(c−1) a' where a > 0, and 0 where a < 0.
            let a = r(a);
            let mut d = mul(mul(point(*c), powc(a.v, c - 1.0)), a.d);
            if a.v.lo < 0.0 {
                d = hull(d, zero);
            }
            Slope {
                v: powc(a.v, *c),
                d,
            }
        }
        Expr::Call(f, a) => {
            let a = r(a);
            match f {
                Func::Abs => Slope {
                    v: abs(a.v),
                    d: if a.v.lo >= 0.0 {
                        a.d
                    } else if a.v.hi <= 0.0 {
                        neg(a.d)
                    } else {
                        hull(a.d, neg(a.d))
                    },
                },
                Func::Sqrt => {
                    if a.v.lo <= 0.0 {
                        return Slope { v: WHOLE, d: WHOLE };
                    }
                    let v = sqrt(a.v);
                    Slope {
                        v,
                        d: mul(a.d, recip(mul(point(2.0), v))),
                    }
                }
                Func::Exp => {
                    let v = exp(a.v);
                    Slope { v, d: mul(v, a.d) }
                }
                Func::Ln => {
                    if a.v.lo <= 0.0 {
                        return Slope { v: WHOLE, d: WHOLE };
                    }
                    Slope {
                        v: ln(a.v),
                        d: mul(a.d, recip(a.v)),
                    }
                }
                Func::Sin => Slope {
                    v: sin_range(a.v),
                    d: mul(cos_range(a.v), a.d),
                },
                Func::Cos => Slope {
                    v: cos_range(a.v),
                    d: mul(neg(sin_range(a.v)), a.d),
                },
            }
        }
        Expr::Min(a, b) | Expr::Max(a, b) => {
            let (a, b) = (r(a), r(b));
            let is_min = matches!(e, Expr::Min(..));
            let v = if is_min { min(a.v, b.v) } else { max(a.v, b.v) };
            // Where one argument is the selected one over the whole box, its slope.
            let a_below = a.v.hi < b.v.lo;
            let b_below = b.v.hi < a.v.lo;
            let d = match (is_min, a_below, b_below) {
                (true, true, _) | (false, _, true) => a.d,
                (true, _, true) | (false, true, _) => b.d,
                _ => hull(a.d, b.d),
            };
            Slope { v, d }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::implicit::expr::parse;

    /// The derivative range contains central differences at sample points of the box,
    /// and the value range contains the values.
    #[test]
    fn slopes_contain_sampled_derivatives() {
        let exprs = [
            "15 - sqrt(x^2 + y^2)",
            "-(((x/3)^2 + (y/3)^2 - 1)^3 + 27*(x/3)^2*(y/3)^2)",
            "min(2 - abs(x), 1 + y) * exp(0.1*x) + ln(3 + y) - sin(x*y) + cos(x) / (4 + x^2)",
            "max(x, y)^1.5 + abs(x - y)^0.5",
        ];
        let (lo, hi, p) = ([0.3, -0.7], [0.9, -0.2], [0.6, 0.5]);
        for text in exprs {
            let e = parse(text, 2).unwrap();
            let s = eval_slope(&e, &lo, &hi, &p);
            for i in 0..=10 {
                for j in 0..=10 {
                    let x = [
                        lo[0] + (hi[0] - lo[0]) * i as f64 / 10.0,
                        lo[1] + (hi[1] - lo[1]) * j as f64 / 10.0,
                    ];
                    let w = crate::implicit::expr::eval(&e, &x);
                    let h = 1e-6;
                    let f = |t: f64| {
                        crate::implicit::expr::eval(&e, &[x[0] + t * p[0], x[1] + t * p[1]])
                    };
                    let dw = (f(h) - f(-h)) / (2.0 * h);
                    assert!(s.v.lo <= w && w <= s.v.hi, "{text}: {w} not in {:?}", s.v);
                    assert!(
                        s.d.lo - 1e-6 <= dw && dw <= s.d.hi + 1e-6,
                        "{text} at {x:?}: {dw} not in {:?}",
                        s.d
                    );
                }
            }
        }
    }

    /// Near a large circle's wall the slope is tight where the value interval is not.
    #[test]
    fn the_slope_of_a_large_circle_near_its_wall_is_tight() {
        let e = parse("15 - sqrt(x^2 + y^2)", 2).unwrap();
        let x = [14.99999, 0.0];
        let s = eval_slope(&e, &x, &[14.999995, 1e-6], &[5e-6, 1e-6]);
        // d/dt (15 − |x + t p|) ≈ −p·x/|x| = −5e-6
        assert!(
            (s.d.lo + 5e-6).abs() < 1e-9 && (s.d.hi + 5e-6).abs() < 1e-9,
            "{s:?}"
        );
    }
}
