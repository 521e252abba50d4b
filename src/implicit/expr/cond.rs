//! Conditions over a point, for selecting nodes (`fixed_where`): comparisons of two
//! expressions with `<`, `<=`, `>`, `>=` (chains such as `-0.1 < x < 0.1` mean both),
//! joined by `and` and `or` (`and` binds tighter), negated by `not`, grouped by
//! parentheses. Equality is not offered: coordinates read from files are rarely
//! exact, so `abs(y - 1) < 1e-6` says what is meant.

use super::{parse, Expr, ParseError, MAX_DEPTH};

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

/// A parsed condition.
#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    /// `a op b`.
    Cmp(Expr, CmpOp, Expr),
    /// All of them hold.
    And(Vec<Cond>),
    /// At least one holds.
    Or(Vec<Cond>),
    /// It does not hold.
    Not(Box<Cond>),
}

impl Cond {
    /// Whether the condition holds at the point `x` (m); a comparison with a NaN
    /// side does not hold.
    pub fn holds(&self, x: &[f64]) -> bool {
        match self {
            Cond::Cmp(a, op, b) => {
                let (a, b) = (super::eval(a, x), super::eval(b, x));
                match op {
                    CmpOp::Lt => a < b,
                    CmpOp::Le => a <= b,
                    CmpOp::Gt => a > b,
                    CmpOp::Ge => a >= b,
                }
            }
            Cond::And(cs) => cs.iter().all(|c| c.holds(x)),
            Cond::Or(cs) => cs.iter().any(|c| c.holds(x)),
            Cond::Not(c) => !c.holds(x),
        }
    }
}

fn err(position: usize, reason: impl Into<String>) -> ParseError {
    ParseError {
        position,
        reason: reason.into(),
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Parses `src` as a condition over the first `dim` coordinates (`x, y[, z]`).
pub fn parse_condition(src: &str, dim: usize) -> Result<Cond, ParseError> {
    let chars: Vec<char> = src.chars().collect();
    Parser { chars, dim }.cond(0, src.chars().count(), 0)
}

struct Parser {
    chars: Vec<char>,
    dim: usize,
}

impl Parser {
    /// Positions in `[lo, hi)` at parenthesis depth 0 where the word `w` starts.
    fn top_words(&self, lo: usize, hi: usize, w: &str) -> Result<Vec<usize>, ParseError> {
        let w: Vec<char> = w.chars().collect();
        let mut depth = 0i64;
        let mut out = Vec::new();
        let mut i = lo;
        while i < hi {
            match self.chars[i] {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth < 0 {
                        return Err(err(i, "`)` without a matching `(`"));
                    }
                }
                _ if depth == 0
                    && i + w.len() <= hi
                    && self.chars[i..i + w.len()] == w[..]
                    && (i == lo || !is_word_char(self.chars[i - 1]))
                    && (i + w.len() == hi || !is_word_char(self.chars[i + w.len()])) =>
                {
                    out.push(i);
                    i += w.len();
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        if depth > 0 {
            return Err(err(hi, "a `(` is not closed"));
        }
        Ok(out)
    }

    /// `[lo, hi)` without surrounding whitespace.
    fn trim(&self, mut lo: usize, mut hi: usize) -> (usize, usize) {
        while lo < hi && self.chars[lo].is_whitespace() {
            lo += 1;
        }
        while hi > lo && self.chars[hi - 1].is_whitespace() {
            hi -= 1;
        }
        (lo, hi)
    }

    /// Splits `[lo, hi)` at the top-level word `w`; `None` when it has none.
    fn split(
        &self,
        lo: usize,
        hi: usize,
        w: &str,
    ) -> Result<Option<Vec<(usize, usize)>>, ParseError> {
        let at = self.top_words(lo, hi, w)?;
        if at.is_empty() {
            return Ok(None);
        }
        let mut parts = Vec::new();
        let mut start = lo;
        for p in at {
            parts.push((start, p));
            start = p + w.len();
        }
        parts.push((start, hi));
        Ok(Some(parts))
    }

    fn cond(&self, lo: usize, hi: usize, depth: usize) -> Result<Cond, ParseError> {
        if depth > MAX_DEPTH {
            return Err(err(
                lo,
                format!("the condition is nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        let (lo, hi) = self.trim(lo, hi);
        if lo == hi {
            return Err(err(
                lo,
                "expected a condition such as `y > 0.4`, found nothing",
            ));
        }
        for (w, make) in [
            ("or", Cond::Or as fn(Vec<Cond>) -> Cond),
            ("and", Cond::And),
        ] {
            if let Some(parts) = self.split(lo, hi, w)? {
                let cs = parts
                    .into_iter()
                    .map(|(a, b)| self.cond(a, b, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                return Ok(make(cs));
            }
        }
        if self.top_words(lo, hi, "not")?.first() == Some(&lo) {
            return Ok(Cond::Not(Box::new(self.cond(lo + 3, hi, depth + 1)?)));
        }
        if self.chars[lo] == '(' && self.matching(lo) == Some(hi - 1) {
            let inner = &self.chars[lo + 1..hi - 1];
            let logical = inner.iter().any(|c| "<>".contains(*c))
                || ["and", "or", "not"].iter().any(|w| {
                    self.top_words(lo + 1, hi - 1, w)
                        .is_ok_and(|v| !v.is_empty())
                });
            if logical {
                return self.cond(lo + 1, hi - 1, depth + 1);
            }
        }
        self.comparison(lo, hi)
    }

    /// The position of the `)` matching the `(` at `open`.
    fn matching(&self, open: usize) -> Option<usize> {
        let mut depth = 0;
        for (i, c) in self.chars.iter().enumerate().skip(open) {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// A chain `e₀ op₁ e₁ op₂ e₂ …` of comparisons at parenthesis depth 0.
    fn comparison(&self, lo: usize, hi: usize) -> Result<Cond, ParseError> {
        let mut ops = Vec::new();
        let mut depth = 0;
        let mut i = lo;
        while i < hi {
            let c = self.chars[i];
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '=' | '!' => {
                    return Err(err(
                        i,
                        "`=` and `!` are not comparisons here: use <, <=, > or >= (for equality, a tolerance: abs(y - 1) < 1e-6)",
                    ))
                }
                '<' | '>' if depth == 0 => {
                    let eq = i + 1 < hi && self.chars[i + 1] == '=';
                    let op = match (c, eq) {
                        ('<', false) => CmpOp::Lt,
                        ('<', true) => CmpOp::Le,
                        ('>', false) => CmpOp::Gt,
                        _ => CmpOp::Ge,
                    };
                    let len = if eq { 2 } else { 1 };
                    ops.push((i, len, op));
                    i += len;
                    continue;
                }
                '<' | '>' => return Err(err(i, "a comparison inside an expression's parentheses")),
                _ => {}
            }
            i += 1;
        }
        if ops.is_empty() {
            return Err(err(
                lo,
                "a condition needs a comparison (<, <=, >, >=), e.g. `y > 0.4`",
            ));
        }
        let mut sides = Vec::new();
        let mut start = lo;
        for &(p, len, _) in &ops {
            sides.push(self.expr(start, p)?);
            start = p + len;
        }
        sides.push(self.expr(start, hi)?);
        let mut cs: Vec<Cond> = ops
            .iter()
            .enumerate()
            .map(|(k, &(_, _, op))| Cond::Cmp(sides[k].clone(), op, sides[k + 1].clone()))
            .collect();
        Ok(if cs.len() == 1 {
            cs.remove(0)
        } else {
            Cond::And(cs)
        })
    }

    /// The expression in `[lo, hi)`, its errors at positions in the whole condition.
    fn expr(&self, lo: usize, hi: usize) -> Result<Expr, ParseError> {
        let text: String = self.chars[lo..hi].iter().collect();
        if text.trim().is_empty() {
            return Err(err(lo, "a comparison needs an expression on each side"));
        }
        parse(&text, self.dim).map_err(|e| err(lo + e.position, e.reason))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_select_points() {
        let c = parse_condition("y > 0.4 and (x < -0.2 or not x < 0.2)", 2).unwrap();
        assert!(c.holds(&[-0.3, 0.5]) && c.holds(&[0.3, 0.5]));
        assert!(!c.holds(&[0.0, 0.5]) && !c.holds(&[0.3, 0.3]));
        let chain = parse_condition("-0.1 <= x < 0.1", 3).unwrap();
        assert!(chain.holds(&[-0.1, 0.0, 0.0]) && !chain.holds(&[0.1, 0.0, 0.0]));
        let wrapped = parse_condition("((x + 1) * 2 >= abs(z - 3))", 3).unwrap();
        assert!(wrapped.holds(&[0.0, 0.0, 3.0]) && !wrapped.holds(&[-1.0, 0.0, 0.0]));
        let e = parse_condition("x + 1", 2).unwrap_err();
        assert!(e.reason.contains("comparison"), "{e}");
        let e = parse_condition("x == 1", 2).unwrap_err();
        assert_eq!(e.position, 2);
        let e = parse_condition("x < 1 and z > 0", 2).unwrap_err();
        assert_eq!(e.position, 10, "{e}");
        assert!(parse_condition("(x < 1", 2).is_err());
        assert!(parse_condition("x < 1 and", 2).is_err());
    }
}
