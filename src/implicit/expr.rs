//! The expression AST of implicit walls and its parser. Grammar (usual precedence,
//! `^` right-associative and binding tighter than unary minus):
//! numbers, the variables `x`, `y`, `z` (m), `+ - * / ^`, parentheses, the functions
//! `abs sqrt exp ln sin cos` of one argument and `min max` of two, and the constant
//! `pi`. Exponents must be constant: integers for any base, other numbers only for
//! a base that is never negative (`abs(x)^2.5`; the base is clamped at 0).
//!
//! Expressions are limited to [`MAX_DEPTH`] levels, both of nesting in the text
//! (parentheses, function calls, signs) and of the parsed tree (a chain of `n`
//! operators such as a sum of `n + 1` terms is `n` levels deep), so that the parser
//! and every recursive walk over an [`Expr`] (evaluation, derivatives, intervals,
//! WGSL generation) stay far inside a thread's stack.

pub mod cond;
mod lex;
mod parser;

pub use cond::{parse_condition, Cond};
pub use parser::parse;
use std::fmt;

/// The most levels an expression may nest (see the module docs): deeper ones are a
/// parse error, so every recursive walk over a parsed [`Expr`] is at most this deep
/// (plus the few levels a scene adds: the sign of `inside`, the particle radius).
pub const MAX_DEPTH: usize = 200;

/// One node of a parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A number.
    Const(f64),
    /// Coordinate `k` of the point (0 = x, 1 = y, 2 = z), in metres.
    Var(usize),
    /// `−a`.
    Neg(Box<Expr>),
    /// `a + b`.
    Add(Box<Expr>, Box<Expr>),
    /// `a − b`.
    Sub(Box<Expr>, Box<Expr>),
    /// `a · b`.
    Mul(Box<Expr>, Box<Expr>),
    /// `a / b`.
    Div(Box<Expr>, Box<Expr>),
    /// `a^n` for an integer constant `n`.
    PowI(Box<Expr>, i32),
    /// `max(a, 0)^c` for a non-integer constant `c`.
    PowC(Box<Expr>, f64),
    /// A function of one argument.
    Call(Func, Box<Expr>),
    /// `min(a, b)`.
    Min(Box<Expr>, Box<Expr>),
    /// `max(a, b)`.
    Max(Box<Expr>, Box<Expr>),
}

/// Functions of one argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `|a|` (derivative `sign(a)`, 0 at 0).
    Abs,
    /// `√a`.
    Sqrt,
    /// `eᵃ`.
    Exp,
    /// Natural logarithm.
    Ln,
    /// Sine (radians).
    Sin,
    /// Cosine (radians).
    Cos,
}

impl Func {
    /// The function's name in expressions.
    pub fn name(self) -> &'static str {
        match self {
            Func::Abs => "abs",
            Func::Sqrt => "sqrt",
            Func::Exp => "exp",
            Func::Ln => "ln",
            Func::Sin => "sin",
            Func::Cos => "cos",
        }
    }
}

/// A parse error: what went wrong and where (0-based character position).
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    /// Character position in the expression (0-based).
    pub position: usize,
    /// The reason.
    pub reason: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at character {}: {}", self.position + 1, self.reason)
    }
}

/// Shorthand constructors used by the shapes.
impl Expr {
    /// `a + b`.
    pub fn plus(a: Expr, b: Expr) -> Expr {
        Expr::Add(Box::new(a), Box::new(b))
    }
    /// `a − b`.
    pub fn minus(a: Expr, b: Expr) -> Expr {
        Expr::Sub(Box::new(a), Box::new(b))
    }
    /// `a · b`.
    pub fn times(a: Expr, b: Expr) -> Expr {
        Expr::Mul(Box::new(a), Box::new(b))
    }
    /// `a^n`.
    pub fn powi(a: Expr, n: i32) -> Expr {
        Expr::PowI(Box::new(a), n)
    }
    /// `f(a)`.
    pub fn call(f: Func, a: Expr) -> Expr {
        Expr::Call(f, Box::new(a))
    }
    /// `min(a, b)`.
    pub fn min(a: Expr, b: Expr) -> Expr {
        Expr::Min(Box::new(a), Box::new(b))
    }
    /// `max(a, b)`.
    pub fn max(a: Expr, b: Expr) -> Expr {
        Expr::Max(Box::new(a), Box::new(b))
    }
    /// The largest variable index used plus one (0 for a constant).
    pub fn arity(&self) -> usize {
        match self {
            Expr::Const(_) => 0,
            Expr::Var(k) => k + 1,
            Expr::Neg(a) | Expr::PowI(a, _) | Expr::PowC(a, _) | Expr::Call(_, a) => a.arity(),
            Expr::Add(a, b)
            | Expr::Sub(a, b)
            | Expr::Mul(a, b)
            | Expr::Div(a, b)
            | Expr::Min(a, b)
            | Expr::Max(a, b) => a.arity().max(b.arity()),
        }
    }
}

/// The value of `e` at `x` (the cheap path: no derivatives).
pub fn eval(e: &Expr, x: &[f64]) -> f64 {
    match e {
        Expr::Const(v) => *v,
        Expr::Var(k) => x.get(*k).copied().unwrap_or(0.0),
        Expr::Neg(a) => -eval(a, x),
        Expr::Add(a, b) => eval(a, x) + eval(b, x),
        Expr::Sub(a, b) => eval(a, x) - eval(b, x),
        Expr::Mul(a, b) => eval(a, x) * eval(b, x),
        Expr::Div(a, b) => eval(a, x) / eval(b, x),
        Expr::PowI(a, n) => eval(a, x).powi(*n),
        Expr::PowC(a, c) => eval(a, x).max(0.0).powf(*c),
        Expr::Call(f, a) => {
            let v = eval(a, x);
            match f {
                Func::Abs => v.abs(),
                Func::Sqrt => v.sqrt(),
                Func::Exp => v.exp(),
                Func::Ln => v.ln(),
                Func::Sin => v.sin(),
                Func::Cos => v.cos(),
            }
        }
        Expr::Min(a, b) => eval(a, x).min(eval(b, x)),
        Expr::Max(a, b) => eval(a, x).max(eval(b, x)),
    }
}
