//! Scene errors that name the file, the field, the line and the reason.

use std::fmt;

/// Why a scene could not be loaded.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneError {
    /// The scene file (as given by the user).
    pub file: String,
    /// The field, as a path like `solver.dt` or `bodies[0].density`, where one applies.
    pub field: Option<String>,
    /// 1-based line in the file, where known.
    pub line: Option<usize>,
    /// What is wrong, in words.
    pub reason: String,
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        write!(f, ": {}", one_line(&self.reason))
    }
}

/// `text` on one line: its lines trimmed, blank ones dropped, joined by `; ` (parser
/// messages such as TOML's "invalid table header\nexpected `.`, `]`" span lines, and
/// every error springsim prints is one line).
pub fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

impl std::error::Error for SceneError {}

/// 1-based line of byte offset `pos` in `text`.
pub fn line_of_offset(text: &str, pos: usize) -> usize {
    text.as_bytes()[..pos.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// 1-based line where the value at `path` (segments like `["bodies", "0", "density"]`)
/// is written in the TOML `text`, found by walking the parsed document. Where the
/// path ends in something not written in the file (a default), the line of the
/// deepest enclosing part that is written; `None` when the text does not parse.
pub fn line_of_path(text: &str, path: &[&str]) -> Option<usize> {
    use toml_edit::{Item, Table, Value};
    enum Node<'a> {
        Item(&'a Item),
        Table(&'a Table),
        Value(&'a Value),
    }
    let doc = toml_edit::Document::parse(text).ok()?;
    let mut node = Node::Table(doc.as_table());
    let mut best = None;
    for seg in path {
        let index = seg.parse::<usize>().ok();
        let next = match (&node, index) {
            (Node::Item(it), Some(i)) => match (it.as_array_of_tables(), it.as_array()) {
                (Some(aot), _) => aot.get(i).map(Node::Table),
                (_, Some(arr)) => arr.get(i).map(Node::Value),
                _ => None,
            },
            (Node::Item(it), None) => it.as_table_like().and_then(|t| t.get(seg)).map(Node::Item),
            (Node::Table(t), None) => t.get(seg).map(Node::Item),
            (Node::Value(Value::Array(a)), Some(i)) => a.get(i).map(Node::Value),
            (Node::Value(Value::InlineTable(t)), None) => t.get(seg).map(Node::Value),
            _ => None,
        };
        let Some(next) = next else { break };
        let span = match &next {
            Node::Item(it) => it.span(),
            Node::Table(t) => t.span(),
            Node::Value(v) => v.span(),
        };
        if let Some(s) = span {
            best = Some(line_of_offset(text, s.start));
        }
        node = next;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_print_on_one_line() {
        assert_eq!(
            one_line("invalid key\nexpected `=`\n"),
            "invalid key; expected `=`"
        );
        let e = SceneError {
            file: "a.toml".into(),
            field: None,
            line: Some(2),
            reason: "first\n\n  second".into(),
        };
        assert_eq!(e.to_string(), "a.toml:2: first; second");
    }
}
