//! Scene overrides (`springsim run SCENE --set solver.dt=1e-3`, and every variant of
//! `springsim sweep`): a dotted key with `[i]` (or `.i`) indices into arrays and a
//! value in TOML syntax, written into the scene's TOML before it is parsed, so an
//! override is validated exactly like the file. Errors name the `--set` and the field.

use super::SceneError;
use std::fmt;
use toml_edit::{DocumentMut, InlineTable, Item, Table, TableLike, Value};

/// One part of an override's key: a table key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// A key of a table (`solver`, `dt`).
    Key(String),
    /// An index into an array (`bodies[0]`), from 0.
    Index(usize),
}

/// One `KEY=VALUE` override of a scene key.
#[derive(Clone, Debug)]
pub struct Override {
    /// The key as given (`bodies[0].cells`).
    pub key: String,
    /// The key split into its parts.
    pub path: Vec<Segment>,
    /// The value as given (`[64, 64]`).
    pub value_text: String,
    /// The value: TOML syntax, or a bare word (`newmark`) taken as a string.
    pub value: Value,
    /// The command-line option it came from, for errors (`--set`, `--vary`).
    pub flag: &'static str,
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}={}", self.flag, self.key, self.value_text)
    }
}

/// Splits a key like `bodies[0].cells` or `bodies.0.cells` into its parts; the error
/// says what is wrong with it.
pub fn parse_key(key: &str) -> Result<Vec<Segment>, String> {
    let mut out = Vec::new();
    for part in key.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if name.is_empty() && (out.is_empty() || rest.is_empty()) {
            return Err(format!("`{key}` has an empty part"));
        }
        if !name.is_empty() {
            if !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Err(format!("`{key}`: `{name}` is not a scene key"));
            }
            match name.parse::<usize>() {
                Ok(i) if !out.is_empty() => out.push(Segment::Index(i)),
                _ => out.push(Segment::Key(name.to_string())),
            }
        }
        while !rest.is_empty() {
            let close = rest
                .find(']')
                .ok_or_else(|| format!("`{key}`: `[` without `]`"))?;
            let index = rest[1..close]
                .trim()
                .parse::<usize>()
                .map_err(|_| format!("`{key}`: `{}` is not an index", &rest[..=close]))?;
            out.push(Segment::Index(index));
            rest = &rest[close + 1..];
            if !rest.is_empty() && !rest.starts_with('[') {
                return Err(format!("`{key}`: unexpected `{rest}` after an index"));
            }
        }
    }
    match out.first() {
        Some(Segment::Key(_)) => Ok(out),
        _ => Err(format!("`{key}` must start with a key")),
    }
}

/// Parses a value in TOML syntax (`1e-3`, `[64, 64]`, `"newmark"`, `{ x = 1 }`); a
/// bare word that is not TOML (`newmark`) is taken as that string.
pub fn parse_value(text: &str) -> Result<Value, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("the value is empty".into());
    }
    if let Ok(v) = t.parse::<Value>() {
        return Ok(v);
    }
    let bare = t
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-+.:/".contains(c));
    let numeric_start = t.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c));
    if bare && !numeric_start {
        return Ok(Value::from(t));
    }
    Err(format!(
        "`{t}` is not a TOML value (quote strings: '\"text\"')"
    ))
}

impl Override {
    /// Parses `KEY=VALUE` (of `--set`); the error (one line) names the argument and
    /// the reason.
    pub fn parse(arg: &str) -> Result<Self, String> {
        let (key, value_text) = arg
            .split_once('=')
            .ok_or_else(|| format!("--set {arg}: expected KEY=VALUE"))?;
        Self::new("--set", key, value_text)
    }

    /// Parses every `--set KEY=VALUE` of `args`; the first error, as [`Override::parse`].
    pub fn parse_all(args: &[String]) -> Result<Vec<Self>, String> {
        args.iter().map(|a| Self::parse(a)).collect()
    }

    /// The override of `key` by `value_text`, given with option `flag` (named in errors).
    pub fn new(flag: &'static str, key: &str, value_text: &str) -> Result<Self, String> {
        let key = key.trim();
        let shown = format!("{flag} {key}={}", value_text.trim());
        let path = parse_key(key).map_err(|e| format!("{shown}: {e}"))?;
        let value = parse_value(value_text).map_err(|e| format!("{shown}: {e}"))?;
        Ok(Self {
            key: key.to_string(),
            path,
            value_text: value_text.trim().to_string(),
            value,
            flag,
        })
    }

    /// Whether scene error field `field` (`bodies.0.cells`, `solver`) is this key, lies
    /// under it, or encloses it.
    pub fn concerns(&self, field: &str) -> bool {
        let Ok(f) = parse_key(field) else {
            return false;
        };
        let n = f.len().min(self.path.len());
        f[..n] == self.path[..n]
    }
}

/// Writes `overrides` into the TOML `text` (in order; later ones win), keeping the rest
/// of the file as written. Returns the new text and whether a key was added that the
/// file did not have (which shifts the file's line numbers). The error is a
/// [`SceneError`] for `file` whose reason starts with the `--set` that failed.
pub fn apply(text: &str, file: &str, overrides: &[Override]) -> Result<(String, bool), SceneError> {
    if overrides.is_empty() {
        return Ok((text.to_string(), false));
    }
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| SceneError {
        file: file.to_string(),
        field: None,
        line: e
            .span()
            .map(|s| super::error::line_of_offset(text, s.start)),
        reason: super::error::one_line(e.message()),
    })?;
    let mut added = false;
    for o in overrides {
        added |= set(doc.as_table_mut(), o).map_err(|reason| SceneError {
            file: file.to_string(),
            field: Some(o.key.clone()),
            line: None,
            reason: format!("{o}: {reason}"),
        })?;
    }
    Ok((doc.to_string(), added))
}

/// Sets one override in `root`; `Ok(true)` when a key was added.
fn set(root: &mut Table, o: &Override) -> Result<bool, String> {
    set_key(root, &o.path, &o.value, String::new())
}

/// Walks `path` (starting with a key) from table `t`; `walked` is the key so far.
fn set_key(
    t: &mut dyn TableLike,
    path: &[Segment],
    value: &Value,
    walked: String,
) -> Result<bool, String> {
    let Segment::Key(k) = &path[0] else {
        return Err(format!("`{walked}` is a table, not an array"));
    };
    let here = if walked.is_empty() {
        k.clone()
    } else {
        format!("{walked}.{k}")
    };
    if let Some(child) = t.get_mut(k) {
        return set_item(child, &path[1..], value, here);
    }
    // A new key: the rest of the path becomes nested inline tables.
    let mut v = value.clone();
    for seg in path[1..].iter().rev() {
        let Segment::Key(k) = seg else {
            return Err(format!("the scene has no `{here}`"));
        };
        let mut inline = InlineTable::new();
        inline.insert(k, v);
        v = Value::InlineTable(inline);
    }
    v.decor_mut().set_prefix(" ");
    t.insert(k, Item::Value(v));
    Ok(true)
}

/// Walks `path` from `item`, setting `value` where it ends.
fn set_item(
    item: &mut Item,
    path: &[Segment],
    value: &Value,
    walked: String,
) -> Result<bool, String> {
    let Some(seg) = path.first() else {
        let decor = item.as_value().map(|v| v.decor().clone());
        let mut v = value.clone();
        match decor {
            Some(d) => *v.decor_mut() = d,
            None => v.decor_mut().set_prefix(" "),
        }
        *item = Item::Value(v);
        return Ok(false);
    };
    match (seg, item) {
        (Segment::Index(i), Item::ArrayOfTables(a)) => {
            let len = a.len();
            let t = a
                .get_mut(*i)
                .ok_or_else(|| out_of_range(&walked, len, *i))?;
            if path.len() == 1 {
                return Err(format!("`{walked}[{i}]` is a table: set one of its keys"));
            }
            set_key(t, &path[1..], value, format!("{walked}[{i}]"))
        }
        (Segment::Index(_), Item::Value(v)) => set_value(v, path, value, walked),
        (Segment::Key(_), item) => match item.as_table_like_mut() {
            Some(t) => set_key(t, path, value, walked),
            None => Err(format!("`{walked}` is not a table, so it has no keys")),
        },
        (Segment::Index(_), _) => Err(format!("`{walked}` is not an array")),
    }
}

/// Walks `path` from value `v` (inside an inline array or table).
fn set_value(
    v: &mut Value,
    path: &[Segment],
    value: &Value,
    walked: String,
) -> Result<bool, String> {
    let Some(seg) = path.first() else {
        let decor = v.decor().clone();
        *v = value.clone();
        *v.decor_mut() = decor;
        return Ok(false);
    };
    match (seg, v) {
        (Segment::Index(i), Value::Array(a)) => {
            let len = a.len();
            let e = a
                .get_mut(*i)
                .ok_or_else(|| out_of_range(&walked, len, *i))?;
            set_value(e, &path[1..], value, format!("{walked}[{i}]"))
        }
        (Segment::Key(_), Value::InlineTable(t)) => set_key(t, path, value, walked),
        (Segment::Index(_), _) => Err(format!("`{walked}` is not an array")),
        (Segment::Key(_), _) => Err(format!("`{walked}` is not a table, so it has no keys")),
    }
}

fn out_of_range(walked: &str, len: usize, i: usize) -> String {
    format!(
        "`{walked}` has {len} entr{}, so index {i} is out of range",
        if len == 1 { "y" } else { "ies" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(text: &str, args: &[&str]) -> Result<String, String> {
        let o: Vec<Override> = args
            .iter()
            .map(|a| Override::parse(a))
            .collect::<Result<_, _>>()?;
        apply(text, "t.toml", &o)
            .map(|(t, _)| t)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn keys_split_into_tables_and_indices() {
        use Segment::{Index, Key};
        let k = |s: &str| Key(s.to_string());
        assert_eq!(parse_key("solver.dt").unwrap(), vec![k("solver"), k("dt")]);
        assert_eq!(
            parse_key("bodies[2].cells[1]").unwrap(),
            vec![k("bodies"), Index(2), k("cells"), Index(1)]
        );
        assert_eq!(
            parse_key("bodies.2.cells").unwrap(),
            parse_key("bodies[2].cells").unwrap()
        );
        for bad in ["", ".dt", "solver.", "[0]", "a[x]", "a[1", "a[1]b", "a b"] {
            assert!(parse_key(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn values_are_toml_or_bare_words() {
        assert_eq!(parse_value("1e-3").unwrap().as_float(), Some(1e-3));
        assert_eq!(parse_value("7").unwrap().as_integer(), Some(7));
        assert_eq!(parse_value("newmark").unwrap().as_str(), Some("newmark"));
        assert_eq!(parse_value("\"a b\"").unwrap().as_str(), Some("a b"));
        assert_eq!(
            parse_value("[1, 2]").unwrap().as_array().map(|a| a.len()),
            Some(2)
        );
        for bad in ["", "1e3x", "[1,", "a b"] {
            assert!(parse_value(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn overrides_write_existing_new_and_nested_keys() {
        let text =
            "a = 1 # kept\n[s]\ndt = 0.1\n[[b]]\nv = [1, 2]\nw = { x = 1 }\n[[b]]\nv = [3, 4]\n";
        let out = set(
            text,
            &[
                "s.dt=0.5",
                "b[1].v=[5, 6]",
                "b[0].v[1]=9",
                "b[0].w.x=2",
                "s.new=3",
                "r.steps=4",
            ],
        )
        .unwrap();
        let doc: toml::Table = out.parse().unwrap();
        let t = |p: &str| {
            let mut v = toml::Value::Table(doc.clone());
            for s in p.split('.') {
                v = match s.parse::<usize>() {
                    Ok(i) => v[i].clone(),
                    Err(_) => v[s].clone(),
                };
            }
            v
        };
        assert_eq!(t("s.dt").as_float(), Some(0.5));
        assert_eq!(t("b.1.v.0").as_integer(), Some(5));
        assert_eq!(t("b.0.v.1").as_integer(), Some(9));
        assert_eq!(t("b.0.w.x").as_integer(), Some(2));
        assert_eq!(t("s.new").as_integer(), Some(3));
        assert_eq!(t("r.steps").as_integer(), Some(4));
        assert_eq!(t("a").as_integer(), Some(1));
        assert!(out.contains("# kept"), "comments stay: {out}");
        // Later overrides win.
        let out = set(text, &["s.dt=0.5", "s.dt=0.25"]).unwrap();
        assert!(out.contains("dt = 0.25"), "{out}");
    }

    #[test]
    fn bad_paths_name_the_set_and_why() {
        let text = "[s]\ndt = 0.1\n[[b]]\nv = [1, 2]\n";
        let cases = [
            ("b[2].v=1", "has 1 entry, so index 2"),
            ("b[0].v[5]=1", "index 5 is out of range"),
            ("s.dt.x=1", "`s.dt` is not a table"),
            ("s[0]=1", "`s` is not an array"),
            ("b[0]=1", "is a table: set one of its keys"),
            ("q[0].x=1", "the scene has no `q`"),
        ];
        for (arg, want) in cases {
            let e = set(text, &[arg]).unwrap_err();
            assert!(
                e.contains(&format!("--set {arg}")) && e.contains(want),
                "{arg}: {e}"
            );
        }
    }
}
