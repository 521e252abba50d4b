//! The recursive-descent parser of expressions, with the nesting limit [`MAX_DEPTH`].

use super::lex::{describe, lex, Tok};
use super::{Expr, Func, ParseError, MAX_DEPTH};

/// The parser's state: the tokens, the next one, the dimension and the open nesting.
struct Parser {
    toks: Vec<(Tok, usize)>,
    at: usize,
    dim: usize,
    /// Nesting levels open in the text (parentheses, arguments, signs, exponents).
    nesting: usize,
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

/// A binary operator's character and the constructor of its node.
type BinaryOp = (char, fn(Expr, Expr) -> Expr);

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

    /// A left-associative chain `operand (op operand)*` of the binary operators
    /// `ops`, each with the constructor of its node.
    fn chain(&mut self, operand: fn(&mut Self) -> Parsed, ops: &[BinaryOp]) -> Parsed {
        let mut a = operand(self)?;
        loop {
            let (t, pos) = self.peek();
            let Some(&(_, make)) = ops.iter().find(|(c, _)| t == Tok::Op(*c)) else {
                return Ok(a);
            };
            self.next();
            a = Self::join(pos, a, operand(self)?, make)?;
        }
    }

    /// Products joined by `+` and `-`.
    fn sum(&mut self) -> Parsed {
        self.chain(Self::product, &[('+', Expr::plus), ('-', Expr::minus)])
    }

    /// Signed factors joined by `*` and `/`.
    fn product(&mut self) -> Parsed {
        self.chain(
            Self::unary,
            &[
                ('*', Expr::times),
                ('/', |a, b| Expr::Div(Box::new(a), Box::new(b))),
            ],
        )
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
