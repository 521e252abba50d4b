//! Malformed or inconsistent scenes give one error naming file, field, line and reason.

use springsim::scene::{self, SceneError};
use std::process::Command;

const GOOD: &str = r#"dimension = 2
[solver]
dt = 0.01
[contact]
dhat = 0.01
kappa = 1e5
[[walls]]
type = "plane"
point = [0.0, -1.0]
normal = [0.0, 1.0]
[[bodies]]
generator = "grid"
size = [1.0, 1.0]
cells = [4, 4]
density = 1000.0
spring_stiffness = 2e4
fixed = [0, 24]
"#;

fn err(text: &str) -> SceneError {
    match scene::parse(text, "bad.toml", "bad") {
        Ok(_) => panic!("scene should be rejected:\n{text}"),
        Err(e) => e,
    }
}

fn expect(text: &str, field: &str, line: usize, reason_part: &str) {
    let e = err(text);
    assert_eq!(e.file, "bad.toml");
    assert_eq!(e.field.as_deref(), Some(field), "{e}");
    assert_eq!(e.line, Some(line), "{e}");
    assert!(
        e.reason.contains(reason_part),
        "reason of `{e}` lacks `{reason_part}`"
    );
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!("bad.toml:{line}: field `{field}`")),
        "{shown}"
    );
    assert!(!shown.contains('\n'), "one line: {shown}");
}

#[test]
fn the_good_scene_parses() {
    let s = scene::parse(GOOD, "good.toml", "good").unwrap();
    assert_eq!(s.model.num_nodes(), 25);
    assert_eq!(s.name, "good");
    assert!(s.model.fixed[0] && s.model.fixed[24] && !s.model.fixed[1]);
    assert!((s.model.mass[0] - 40.0).abs() < 1e-12);
}

#[test]
fn syntax_error_names_the_line() {
    let e = err(&GOOD.replace("dt = 0.01", "dt = = 0.01"));
    assert_eq!(e.line, Some(3), "{e}");
    assert!(e.to_string().starts_with("bad.toml:3: "), "{e}");
}

#[test]
fn unknown_key_is_an_error_not_a_default() {
    expect(
        &GOOD.replace("dt = 0.01", "dt = 0.01\ntimestep = 0.02"),
        "solver.timestep",
        4,
        "unknown field `timestep`",
    );
    expect(
        &GOOD.replace("density = 1000.0", "densty = 1000.0"),
        "bodies[0].densty",
        15,
        "unknown field `densty`",
    );
}

#[test]
fn missing_field_is_named() {
    let e = err(&GOOD.replace("kappa = 1e5\n", ""));
    assert!(e.reason.contains("missing field `kappa`"), "{e}");
    assert_eq!(e.field.as_deref(), Some("contact"), "{e}");
}

#[test]
fn impossible_numbers_are_rejected() {
    expect(
        &GOOD.replace("dt = 0.01", "dt = -0.01"),
        "solver.dt",
        3,
        "positive",
    );
    expect(
        &GOOD.replace("dt = 0.01", "dt = 0.0"),
        "solver.dt",
        3,
        "positive",
    );
    expect(
        &GOOD.replace("dhat = 0.01", "dhat = 0.0"),
        "contact.dhat",
        5,
        "positive",
    );
    expect(
        &GOOD.replace("kappa = 1e5", "kappa = -3.0"),
        "contact.kappa",
        6,
        "positive",
    );
    expect(
        &GOOD.replace("density = 1000.0", "density = 0.0"),
        "bodies[0].density",
        15,
        "positive",
    );
    expect(
        &GOOD.replace("spring_stiffness = 2e4", "spring_stiffness = -2e4"),
        "bodies[0].spring_stiffness",
        16,
        "positive",
    );
    expect(
        &GOOD.replace("cells = [4, 4]", "cells = [4, 0]"),
        "bodies[0].cells[1]",
        14,
        "between 1 and",
    );
    expect(
        &GOOD.replace("size = [1.0, 1.0]", "size = [1.0, -1.0]"),
        "bodies[0].size[1]",
        13,
        "positive",
    );
    expect(
        &GOOD.replace("normal = [0.0, 1.0]", "normal = [0.0, 0.0]"),
        "walls[0].normal",
        10,
        "zero vector",
    );
    expect(
        &GOOD.replace("point = [0.0, -1.0]", "point = [0.0, -1.0, 2.0]"),
        "walls[0].point",
        9,
        "2 components",
    );
    expect(
        &GOOD.replace("dimension = 2", "dimension = 4"),
        "dimension",
        1,
        "2 or 3",
    );
}

#[test]
fn inconsistent_scenes_are_rejected() {
    expect(
        &GOOD.replace("fixed = [0, 24]", "fixed = [0, 25]"),
        "bodies[0].fixed[1]",
        17,
        "out of range",
    );
    expect(
        &GOOD.replace("generator = \"grid\"", "generator = \"lattice\""),
        "bodies[0].generator",
        12,
        "dimension 2",
    );
    // Bottom row at y = -0.5: a wall at -0.505 is within d̂, one at -0.4 cuts the body.
    let near = GOOD.replace("point = [0.0, -1.0]", "point = [0.0, -0.505]");
    let e = err(&near);
    assert_eq!(e.field.as_deref(), Some("bodies[0].center"));
    assert!(e.reason.contains("not beyond contact.dhat"), "{e}");
    let inside = GOOD.replace("point = [0.0, -1.0]", "point = [0.0, -0.4]");
    assert!(
        err(&inside).reason.contains("distance -0.1"),
        "{}",
        err(&inside)
    );
}

#[test]
fn missing_file_is_reported() {
    let e = scene::load("no/such/scene.toml").unwrap_err();
    assert!(e.reason.contains("no such file"), "{e}");
}

#[test]
fn cli_prints_one_error_line_and_exits_nonzero() {
    let dir = std::env::temp_dir().join(format!("springsim-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.toml");
    std::fs::write(&path, GOOD.replace("dt = 0.01", "dt = -1")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_springsim"))
        .args(["run", path.to_str().unwrap(), "--backend", "cpu", "--out"])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with("error: ") && lines[0].contains("bad.toml:3: field `solver.dt`"),
        "{stderr}"
    );
    assert!(
        !dir.join("out").exists(),
        "nothing is written for a rejected scene"
    );
    std::fs::remove_dir_all(&dir).ok();
}
