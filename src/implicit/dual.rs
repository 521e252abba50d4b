//! Exact value, gradient and Hessian of an [`Expr`] by second-order forward mode:
//! every sub-expression carries `(v, ∇v, ∇²v)` in three variables and the chain rule
//! `f(a) → (f, f′ ∇a, f′ ∇²a + f″ ∇a ∇aᵀ)` (no finite differences). At the kinks of
//! `abs`, `min`, `max` one side's derivative is taken (`sign(0) = 0`, `min` picks `a`
//! when `a ≤ b`), and where `sqrt` or a fractional power has an infinite derivative
//! at 0 the derivative is taken as 0 ([`sqrt3`], [`powc3`]). The WGSL twin is `shaders/implicit/dual.wgsl`.

use super::expr::{Expr, Func};

/// A value with its gradient and Hessian in (x, y, z) (units of the expression per m, per m²).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dual {
    /// Value.
    pub v: f64,
    /// Gradient.
    pub g: [f64; 3],
    /// Hessian (symmetric, row-major).
    pub h: [[f64; 3]; 3],
}

impl Dual {
    fn constant(v: f64) -> Self {
        Dual {
            v,
            g: [0.0; 3],
            h: [[0.0; 3]; 3],
        }
    }

    fn var(k: usize, x: &[f64]) -> Self {
        let mut d = Dual::constant(x.get(k).copied().unwrap_or(0.0));
        d.g[k] = 1.0;
        d
    }

    /// `f(self)` given `f`, `f′`, `f″` at `self.v`.
    fn chain(self, f: f64, f1: f64, f2: f64) -> Self {
        let mut o = Dual::constant(f);
        for r in 0..3 {
            o.g[r] = f1 * self.g[r];
            for c in 0..3 {
                o.h[r][c] = f1 * self.h[r][c] + f2 * self.g[r] * self.g[c];
            }
        }
        o
    }

    fn lin(self, sa: f64, b: Dual, sb: f64) -> Self {
        let mut o = Dual::constant(sa * self.v + sb * b.v);
        for r in 0..3 {
            o.g[r] = sa * self.g[r] + sb * b.g[r];
            for c in 0..3 {
                o.h[r][c] = sa * self.h[r][c] + sb * b.h[r][c];
            }
        }
        o
    }

    fn mul(self, b: Dual) -> Self {
        let a = self;
        let mut o = Dual::constant(a.v * b.v);
        for r in 0..3 {
            o.g[r] = a.g[r] * b.v + a.v * b.g[r];
            for c in 0..3 {
                o.h[r][c] = a.h[r][c] * b.v + a.v * b.h[r][c] + a.g[r] * b.g[c] + b.g[r] * a.g[c];
            }
        }
        o
    }
}

/// `a^n` with its first and second derivatives, for an integer `n`.
pub fn powi3(a: f64, n: i32) -> (f64, f64, f64) {
    let nf = n as f64;
    (
        a.powi(n),
        if n == 0 { 0.0 } else { nf * a.powi(n - 1) },
        if n == 0 || n == 1 {
            0.0
        } else {
            nf * (nf - 1.0) * a.powi(n - 2)
        },
    )
}

/// `√a` with its first and second derivatives. At `a = 0` both derivatives are
/// infinite; 0 is taken there (the one-sided derivative of `√max(a, 0)` from the
/// left, a valid subgradient choice), so that `√(x² + y²)` at the origin has a
/// zero gradient rather than `∞ · 0 = NaN`, which would freeze the whole body.
pub fn sqrt3(a: f64) -> (f64, f64, f64) {
    let s = a.sqrt();
    if s > 0.0 {
        (s, 0.5 / s, -0.25 / (s * a))
    } else {
        (s, 0.0, 0.0)
    }
}

/// `max(a, 0)^c` with its first and second derivatives, for a constant `c`. Where the
/// base is 0 and a derivative is infinite (`c < 1` for the first, `c < 2` for the
/// second), 0 is taken, as for [`sqrt3`].
pub fn powc3(a: f64, c: f64) -> (f64, f64, f64) {
    let b = a.max(0.0);
    if b > 0.0 {
        (
            b.powf(c),
            c * b.powf(c - 1.0),
            c * (c - 1.0) * b.powf(c - 2.0),
        )
    } else {
        (
            b.powf(c),
            if c == 1.0 { 1.0 } else { 0.0 },
            if c == 2.0 { 2.0 } else { 0.0 },
        )
    }
}

/// Value, gradient and Hessian of `e` at the point `x` (`dim` ≤ 3 coordinates, m).
pub fn eval_dual(e: &Expr, x: &[f64]) -> Dual {
    match e {
        Expr::Const(v) => Dual::constant(*v),
        Expr::Var(k) => Dual::var(*k, x),
        Expr::Neg(a) => eval_dual(a, x).lin(-1.0, Dual::constant(0.0), 0.0),
        Expr::Add(a, b) => eval_dual(a, x).lin(1.0, eval_dual(b, x), 1.0),
        Expr::Sub(a, b) => eval_dual(a, x).lin(1.0, eval_dual(b, x), -1.0),
        Expr::Mul(a, b) => eval_dual(a, x).mul(eval_dual(b, x)),
        Expr::Div(a, b) => {
            let b = eval_dual(b, x);
            let r = 1.0 / b.v;
            eval_dual(a, x).mul(b.chain(r, -r * r, 2.0 * r * r * r))
        }
        Expr::PowI(a, n) => {
            let a = eval_dual(a, x);
            let (f, f1, f2) = powi3(a.v, *n);
            a.chain(f, f1, f2)
        }
        Expr::PowC(a, c) => {
            let a = eval_dual(a, x);
            let (f, f1, f2) = powc3(a.v, *c);
            a.chain(f, f1, f2)
        }
        Expr::Call(f, a) => {
            let a = eval_dual(a, x);
            let v = a.v;
            match f {
                Func::Abs => a.chain(v.abs(), sign(v), 0.0),
                Func::Sqrt => {
                    let (f, f1, f2) = sqrt3(v);
                    a.chain(f, f1, f2)
                }
                Func::Exp => {
                    let ev = v.exp();
                    a.chain(ev, ev, ev)
                }
                Func::Ln => a.chain(v.ln(), 1.0 / v, -1.0 / (v * v)),
                Func::Sin => a.chain(v.sin(), v.cos(), -v.sin()),
                Func::Cos => a.chain(v.cos(), -v.sin(), -v.cos()),
            }
        }
        Expr::Min(a, b) => {
            let (a, b) = (eval_dual(a, x), eval_dual(b, x));
            if a.v <= b.v {
                a
            } else {
                b
            }
        }
        Expr::Max(a, b) => {
            let (a, b) = (eval_dual(a, x), eval_dual(b, x));
            if a.v >= b.v {
                a
            } else {
                b
            }
        }
    }
}

fn sign(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}
