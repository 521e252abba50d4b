//! The expression AST of implicit walls and its parser. Grammar (usual precedence,
//! `^` right-associative and binding tighter than unary minus):
//! numbers, the variables `x`, `y`, `z` (m), `+ - * / ^`, parentheses, the functions
//! `abs sqrt exp ln sin cos` of one argument and `min max` of two, and the constant
//! `pi`. Exponents must be constant: integers for any base, other numbers only for
//! a base that is never negative (`abs(x)^2.5`; the base is clamped at 0).

use std::fmt;

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
    };
    let e = p.sum()?;
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

    fn sum(&mut self) -> Result<Expr, ParseError> {
        let mut a = self.product()?;
        loop {
            match self.peek().0 {
                Tok::Op('+') => {
                    self.next();
                    a = Expr::plus(a, self.product()?);
                }
                Tok::Op('-') => {
                    self.next();
                    a = Expr::minus(a, self.product()?);
                }
                _ => return Ok(a),
            }
        }
    }

    fn product(&mut self) -> Result<Expr, ParseError> {
        let mut a = self.unary()?;
        loop {
            match self.peek().0 {
                Tok::Op('*') => {
                    self.next();
                    a = Expr::times(a, self.unary()?);
                }
                Tok::Op('/') => {
                    self.next();
                    a = Expr::Div(Box::new(a), Box::new(self.unary()?));
                }
                _ => return Ok(a),
            }
        }
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        match self.peek().0 {
            Tok::Op('-') => {
                self.next();
                Ok(Expr::Neg(Box::new(self.unary()?)))
            }
            Tok::Op('+') => {
                self.next();
                self.unary()
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Expr, ParseError> {
        let base = self.atom()?;
        if self.peek().0 != Tok::Op('^') {
            return Ok(base);
        }
        self.next();
        let pos = self.peek().1;
        let exp = self.unary()?;
        let c = constant(&exp).ok_or_else(|| ParseError {
            position: pos,
            reason: "the exponent must be a constant number".to_string(),
        })?;
        if c == c.round() && c.abs() <= 64.0 {
            Ok(Expr::powi(base, c as i32))
        } else {
            Ok(Expr::PowC(Box::new(base), c))
        }
    }

    fn atom(&mut self) -> Result<Expr, ParseError> {
        let (t, pos) = self.next();
        match t {
            Tok::Num(v) => Ok(Expr::Const(v)),
            Tok::Op('(') => {
                let e = self.sum()?;
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
                    return Ok(Expr::Var(k));
                }
                if name == "pi" {
                    return Ok(Expr::Const(std::f64::consts::PI));
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
                let a = self.sum()?;
                if let Some(f) = func {
                    self.expect(')')?;
                    return Ok(Expr::call(f, a));
                }
                if name == "min" || name == "max" {
                    self.expect(',')?;
                    let b = self.sum()?;
                    self.expect(')')?;
                    return Ok(if name == "min" {
                        Expr::min(a, b)
                    } else {
                        Expr::Max(Box::new(a), Box::new(b))
                    });
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
