//! The tokens of an expression and the lexer that cuts the text into them.

use super::ParseError;

/// One token: a number, a name, an operator or parenthesis or comma, or the end.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    /// A number literal.
    Num(f64),
    /// A name: a variable, a function or `pi`.
    Ident(String),
    /// One of `+ - * / ^ ( ) ,`.
    Op(char),
    /// The end of the text.
    End,
}

/// The tokens of `src` with their character positions, ending with [`Tok::End`].
pub(super) fn lex(src: &str) -> Result<Vec<(Tok, usize)>, ParseError> {
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

/// A token, in words, for error messages.
pub(super) fn describe(t: &Tok) -> String {
    match t {
        Tok::Num(v) => format!("the number {v}"),
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Op(c) => format!("`{c}`"),
        Tok::End => "the end of the expression".to_string(),
    }
}
