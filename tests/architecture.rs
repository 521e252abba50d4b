//! The shape of the code, checked: the top-level modules of `src/` import each
//! other without a cycle (ARCHITECTURE.md draws the layers), and no source file
//! grows past about 400 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Longest source file allowed (lines).
const MAX_LINES: usize = 400;

/// Files allowed to be longer, each with the reason.
const LONG_FILES: &[(&str, &str)] = &[];

fn files_under(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The top-level module a file of `src/` belongs to (`None` for the crate roots).
fn top_module(path: &Path) -> Option<String> {
    let rel = path.strip_prefix("src").ok()?;
    let first = rel
        .components()
        .next()?
        .as_os_str()
        .to_string_lossy()
        .to_string();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// The code of a Rust file without its comments (line comments and doc comments).
fn code_only(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::NAME` referenced in `code`.
fn crate_references(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
        rest = after;
    }
    out
}

/// The import graph between the top-level modules of `src/`.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files_under("src", "rs") {
        let Some(from) = top_module(&f) else {
            continue;
        };
        let text = std::fs::read_to_string(&f).unwrap();
        let deps = graph.entry(from.clone()).or_default();
        for to in crate_references(&code_only(&text)) {
            if to != from {
                deps.insert(to);
            }
        }
    }
    graph
}

/// A cycle through `graph`, if there is one, as the modules along it.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|p| p == next).unwrap();
                    let mut cycle = path[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(next, graph, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if state.get(node.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(node, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn top_level_modules_import_each_other_without_a_cycle() {
    let graph = module_graph();
    assert!(graph.len() > 10, "read the modules: {graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!("module import cycle: {}", cycle.join(" → "));
    }
}

#[test]
fn the_cycle_check_finds_a_cycle() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let edge = |g: &mut BTreeMap<String, BTreeSet<String>>, a: &str, b: &str| {
        g.entry(a.into()).or_default().insert(b.into());
    };
    edge(&mut g, "a", "b");
    edge(&mut g, "b", "c");
    assert_eq!(find_cycle(&g), None);
    edge(&mut g, "c", "a");
    assert_eq!(
        find_cycle(&g),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert_eq!(
        crate_references(&code_only(
            "use crate::a::B; // crate::c\n/// [`crate::d`]\nx(crate::e)"
        )),
        ["a", "e"].into_iter().map(String::from).collect()
    );
}

#[test]
fn no_source_file_is_longer_than_the_limit() {
    let mut long = Vec::new();
    for (dir, ext) in [
        ("src", "rs"),
        ("tests", "rs"),
        ("benches", "rs"),
        ("shaders", "wgsl"),
    ] {
        for f in files_under(dir, ext) {
            let lines = std::fs::read_to_string(&f).unwrap().lines().count();
            let name = f.to_string_lossy().replace('\\', "/");
            if lines > MAX_LINES && !LONG_FILES.iter().any(|(p, _)| *p == name) {
                long.push(format!("{name}: {lines} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines (split them by role, or list them with a reason in LONG_FILES):\n{}",
        long.join("\n")
    );
}

/// Folders of `src/` whose files still import each other in a circle, each with the
/// issue that untangles it; the test below fails on a circle anywhere else, and on a
/// listed folder that no longer has one (then it leaves the list).
const KNOWN_CIRCLES: &[(&str, &str)] = &[];

/// Every `PREFIX::NAME` in `code` whose NAME is in `names`.
fn references_after(code: &str, prefix: &str, names: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().next_back();
        let after = &rest[i + prefix.len()..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        // `super::x` only, not `a::super::x`'s tail of a longer path
        let starts = before.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'));
        if starts && names.contains(&name) {
            out.insert(name);
        }
        rest = after;
    }
    out
}

/// The import graph between the files and subfolders directly inside `dir` (a
/// folder of `src/`, its `mod.rs` left out): `super::NAME` from its files,
/// `super::super::NAME` from a subfolder's, and `crate::PATH::NAME`.
fn folder_graph(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let module_path = dir
        .strip_prefix("src")
        .unwrap()
        .to_string_lossy()
        .replace(['/', '\\'], "::");
    let mut children: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            children
                .entry(stem)
                .or_default()
                .extend(files_under(&p.to_string_lossy(), "rs"));
        } else if p.extension().is_some_and(|x| x == "rs") && stem != "mod" {
            children.entry(stem).or_default().push(p);
        }
    }
    let names: BTreeSet<String> = children.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (child, files) in &children {
        let mut deps = BTreeSet::new();
        for f in files {
            let code = code_only(&std::fs::read_to_string(f).unwrap());
            // how deep below `dir` the file's module is (a subfolder's mod.rs is the
            // subfolder's module itself)
            let mut depth = f.strip_prefix(dir).unwrap().components().count() - 1;
            if f.file_name().is_some_and(|n| n == "mod.rs") {
                depth -= 1;
            }
            let supers = "super::".repeat(depth + 1);
            deps.extend(references_after(&code, &supers, &names));
            deps.extend(references_after(
                &code,
                &format!("crate::{module_path}::"),
                &names,
            ));
        }
        deps.remove(child);
        graph.insert(child.clone(), deps);
    }
    graph
}

#[test]
fn files_inside_a_module_import_each_other_without_a_circle() {
    let mut circles = Vec::new();
    let mut dirs = vec![PathBuf::from("src")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p.clone());
                if let Some(c) = find_cycle(&folder_graph(&p)) {
                    circles.push((p.to_string_lossy().replace('\\', "/"), c.join(" → ")));
                }
            }
        }
    }
    let unknown: Vec<_> = circles
        .iter()
        .filter(|(d, _)| !KNOWN_CIRCLES.iter().any(|(k, _)| k == d))
        .collect();
    assert!(
        unknown.is_empty(),
        "import circles inside a module: {unknown:?}"
    );
    for (known, why) in KNOWN_CIRCLES {
        assert!(
            circles.iter().any(|(d, _)| d == known),
            "{known} ({why}) has no circle any more: take it off KNOWN_CIRCLES"
        );
    }
}

#[test]
fn the_folder_graph_sees_super_and_crate_paths() {
    let g = folder_graph(Path::new("src/backend/gpu"));
    assert!(g["setup"].contains("context"), "{:?}", g["setup"]);
    assert!(g["engine"].contains("layout"), "{:?}", g["engine"]);
    let names: BTreeSet<String> = ["a", "b"].into_iter().map(String::from).collect();
    let refs = references_after("use super::a::X; x::super::b; super::c", "super::", &names);
    assert_eq!(refs, ["a"].into_iter().map(String::from).collect());
}
