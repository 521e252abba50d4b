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

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Ident(String),
    Op(char),
    End,
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    at: usize,
    dim: usize,
    /// Nesting levels open in the text (parentheses, arguments, signs, exponents).
    nesting: usize,
}

fn lex(src: &str) -> Result<Vec<(Tok, usize)>, ParseError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let text: String = chars[start..i].iter().collect();
            let v: f64 = text.parse().map_err(|_| ParseError {
                position: start,
                reason: format!("`{text}` is not a number"),
            })?;
            out.push((Tok::Num(v), start));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Tok::Ident(chars[start..i].iter().collect()), start));
        } else if "+-*/^(),".contains(c) {
            out.push((Tok::Op(c), i));
            i += 1;
        } else {
            return Err(ParseError {
                position: i,
                reason: format!("unexpected character `{c}`"),
            });
        }
    }
    out.push((Tok::End, chars.len()));
    Ok(out)
}

/// Parses `src` as a function of the first `dim` coordinates (2 → `x, y`; 3 → `x, y, z`).
pub fn parse(src: &str, dim: usize) -> Result<Expr, ParseError> {
    let mut p = Parser {
        toks: lex(src)?,
        at: 0,
        dim,
        nesting: 0,
    };
    let (e, _) = p.sum()?;
    match p.peek() {
        (Tok::End, _) => Ok(e),
        (t, pos) => Err(ParseError {
            position: pos,
            reason: format!("expected an operator or the end, found {}", describe(&t)),
        }),
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Num(v) => format!("the number {v}"),
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Op(c) => format!("`{c}`"),
        Tok::End => "the end of the expression".to_string(),
    }
}

/// A parsed sub-expression and the depth of its tree (0 for a number or a variable).
type Parsed = Result<(Expr, usize), ParseError>;

fn too_deep(position: usize, what: &str) -> ParseError {
    ParseError {
        position,
        reason: format!("the expression is nested deeper than {MAX_DEPTH} levels ({what})"),
    }
}

impl Parser {
    fn peek(&self) -> (Tok, usize) {
        self.toks[self.at].clone()
    }

    fn next(&mut self) -> (Tok, usize) {
        let t = self.peek();
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
        t
    }

    fn expect(&mut self, c: char) -> Result<(), ParseError> {
        match self.next() {
            (Tok::Op(o), _) if o == c => Ok(()),
            (t, pos) => Err(ParseError {
                position: pos,
                reason: format!("expected `{c}`, found {}", describe(&t)),
            }),
        }
    }

    /// `make(a, b)` one level above the deeper of `a` and `b`, refused beyond
    /// [`MAX_DEPTH`] (`pos`: the operator's position).
    fn join(
        pos: usize,
        (a, da): (Expr, usize),
        (b, db): (Expr, usize),
        make: fn(Expr, Expr) -> Expr,
    ) -> Parsed {
        Self::wrap(pos, (make(a, b), da.max(db)))
    }

    /// `e` one level deeper, refused beyond [`MAX_DEPTH`].
    fn wrap(pos: usize, (e, depth): (Expr, usize)) -> Parsed {
        if depth + 1 > MAX_DEPTH {
            return Err(too_deep(
                pos,
                "every operation counts one level, so a sum of n + 1 terms is n levels; group long sums in parentheses",
            ));
        }
        Ok((e, depth + 1))
    }

    fn sum(&mut self) -> Parsed {
        let mut a = self.product()?;
        loop {
            match self.peek() {
                (Tok::Op('+'), pos) => {
                    self.next();
                    a = Self::join(pos, a, self.product()?, Expr::plus)?;
                }
                (Tok::Op('-'), pos) => {
                    self.next();
                    a = Self::join(pos, a, self.product()?, Expr::minus)?;
                }
                _ => return Ok(a),
            }
        }
    }

    fn product(&mut self) -> Parsed {
        let mut a = self.unary()?;
        loop {
            match self.peek() {
                (Tok::Op('*'), pos) => {
                    self.next();
                    a = Self::join(pos, a, self.unary()?, Expr::times)?;
                }
                (Tok::Op('/'), pos) => {
                    self.next();
                    a = Self::join(pos, a, self.unary()?, |a, b| {
                        Expr::Div(Box::new(a), Box::new(b))
                    })?;
                }
                _ => return Ok(a),
            }
        }
    }

    /// Runs `f` one nesting level deeper (a parenthesis, a function's arguments, a
    /// sign, an exponent: every place the grammar recurses), refused beyond
    /// [`MAX_DEPTH`] levels, which bounds the parser's own recursion.
    fn nested(&mut self, pos: usize, f: impl FnOnce(&mut Self) -> Parsed) -> Parsed {
        if self.nesting >= MAX_DEPTH {
            return Err(too_deep(pos, "parentheses, function calls and signs"));
        }
        self.nesting += 1;
        let r = f(self);
        self.nesting -= 1;
        r
    }

    fn unary(&mut self) -> Parsed {
        match self.peek() {
            (Tok::Op('-'), pos) => {
                self.next();
                let (a, d) = self.nested(pos, Self::unary)?;
                Self::wrap(pos, (Expr::Neg(Box::new(a)), d))
            }
            (Tok::Op('+'), pos) => {
                self.next();
                self.nested(pos, Self::unary)
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Parsed {
        let (base, depth) = self.atom()?;
        let (tok, at) = self.peek();
        if tok != Tok::Op('^') {
            return Ok((base, depth));
        }
        self.next();
        let pos = self.peek().1;
        let (exp, _) = self.nested(pos, Self::unary)?;
        let c = constant(&exp).ok_or_else(|| ParseError {
            position: pos,
            reason: "the exponent must be a constant number".to_string(),
        })?;
        let e = if c == c.round() && c.abs() <= 64.0 {
            Expr::powi(base, c as i32)
        } else {
            Expr::PowC(Box::new(base), c)
        };
        Self::wrap(at, (e, depth))
    }

    fn atom(&mut self) -> Parsed {
        let (t, pos) = self.next();
        match t {
            Tok::Num(v) => Ok((Expr::Const(v), 0)),
            Tok::Op('(') => {
                let e = self.nested(pos, Self::sum)?;
                self.expect(')')?;
                Ok(e)
            }
            Tok::Ident(name) => {
                let var = ["x", "y", "z"].iter().position(|v| *v == name);
                if let Some(k) = var {
                    if k >= self.dim {
                        return Err(ParseError {
                            position: pos,
                            reason: format!(
                                "`{name}` is not a coordinate of a {}D scene",
                                self.dim
                            ),
                        });
                    }
                    return Ok((Expr::Var(k), 0));
                }
                if name == "pi" {
                    return Ok((Expr::Const(std::f64::consts::PI), 0));
                }
                let func = [
                    Func::Abs,
                    Func::Sqrt,
                    Func::Exp,
                    Func::Ln,
                    Func::Sin,
                    Func::Cos,
                ]
                .into_iter()
                .find(|f| f.name() == name);
                if self.peek().0 != Tok::Op('(') {
                    return Err(ParseError {
                        position: pos,
                        reason: format!(
                            "unknown name `{name}` (variables: x, y{}; constant: pi)",
                            if self.dim == 3 { ", z" } else { "" }
                        ),
                    });
                }
                self.next();
                let a = self.nested(pos, Self::sum)?;
                if let Some(f) = func {
                    self.expect(')')?;
                    return Self::wrap(pos, (Expr::call(f, a.0), a.1));
                }
                if name == "min" || name == "max" {
                    self.expect(',')?;
                    let b = self.nested(pos, Self::sum)?;
                    self.expect(')')?;
                    return Self::join(
                        pos,
                        a,
                        b,
                        if name == "min" { Expr::min } else { Expr::max },
                    );
                }
                Err(ParseError {
                    position: pos,
                    reason: format!(
                        "unknown function `{name}` (functions: abs, sqrt, exp, ln, sin, cos, min, max)"
                    ),
                })
            }
            t => Err(ParseError {
                position: pos,
                reason: format!(
                    "expected a number, a variable, a function or `(`, found {}",
                    describe(&t)
                ),
            }),
        }
    }
}

/// The value of a constant expression (no variables), or `None`.
fn constant(e: &Expr) -> Option<f64> {
    match e {
        Expr::Const(v) => Some(*v),
        Expr::Neg(a) => constant(a).map(|v| -v),
        _ => None,
    }
}
