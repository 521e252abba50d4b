//! Malformed or inconsistent scenes give one error naming file, field, line and reason.

use springsim::scene::{self, SceneError};
use std::path::Path;
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

/// [`expect`] for each `(from, to, field, line, reason_part)`: [`GOOD`] with `from`
/// replaced by `to`.
fn expect_each(cases: &[(&str, &str, &str, usize, &str)]) {
    for (from, to, field, line, reason_part) in cases {
        expect(&GOOD.replace(from, to), field, *line, reason_part);
    }
}

/// Runs `springsim run SCENE --backend cpu --out OUT`, asserts that it exits with
/// status 2, and returns its stderr.
fn run_refused(scene: &Path, out: &Path) -> String {
    let run = Command::new(env!("CARGO_BIN_EXE_springsim"))
        .args(["run", scene.to_str().unwrap(), "--backend", "cpu", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    String::from_utf8_lossy(&run.stderr).into_owned()
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
    expect_each(&[
        (
            "dt = 0.01",
            "dt = 0.01\ntimestep = 0.02",
            "solver.timestep",
            4,
            "unknown field `timestep`",
        ),
        (
            "density = 1000.0",
            "densty = 1000.0",
            "bodies[0].densty",
            15,
            "unknown field `densty`",
        ),
    ]);
}

#[test]
fn missing_field_is_named() {
    let e = err(&GOOD.replace("kappa = 1e5\n", ""));
    assert!(e.reason.contains("missing field `kappa`"), "{e}");
    assert_eq!(e.field.as_deref(), Some("contact"), "{e}");
}

#[test]
fn impossible_numbers_are_rejected() {
    expect_each(&[
        ("dt = 0.01", "dt = -0.01", "solver.dt", 3, "positive"),
        ("dt = 0.01", "dt = 0.0", "solver.dt", 3, "positive"),
        ("dhat = 0.01", "dhat = 0.0", "contact.dhat", 5, "positive"),
        (
            "kappa = 1e5",
            "kappa = -3.0",
            "contact.kappa",
            6,
            "positive",
        ),
        (
            "density = 1000.0",
            "density = 0.0",
            "bodies[0].density",
            15,
            "positive",
        ),
        (
            "spring_stiffness = 2e4",
            "spring_stiffness = -2e4",
            "bodies[0].spring_stiffness",
            16,
            "positive",
        ),
        (
            "cells = [4, 4]",
            "cells = [4, 0]",
            "bodies[0].cells[1]",
            14,
            "at least 1",
        ),
        (
            "size = [1.0, 1.0]",
            "size = [1.0, -1.0]",
            "bodies[0].size[1]",
            13,
            "positive",
        ),
        (
            "normal = [0.0, 1.0]",
            "normal = [0.0, 0.0]",
            "walls[0].normal",
            10,
            "zero vector",
        ),
        (
            "point = [0.0, -1.0]",
            "point = [0.0, -1.0, 2.0]",
            "walls[0].point",
            9,
            "2 components",
        ),
        ("dimension = 2", "dimension = 4", "dimension", 1, "2 or 3"),
    ]);
}

#[test]
fn inconsistent_scenes_are_rejected() {
    expect_each(&[
        (
            "fixed = [0, 24]",
            "fixed = [0, 25]",
            "bodies[0].fixed[1]",
            17,
            "out of range",
        ),
        (
            "generator = \"grid\"",
            "generator = \"lattice\"",
            "bodies[0].generator",
            12,
            "dimension 2",
        ),
    ]);
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
    let stderr = run_refused(&path, &dir.join("out"));
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

/// Issue 12, defect 8: a body too large for memory is refused from its counts, before
/// anything is allocated, naming the nodes, the springs and the memory.
#[test]
fn a_body_too_large_for_memory_is_refused_before_it_is_generated() {
    let start = std::time::Instant::now();
    let (n, s) = (
        10_001u64 * 10_001,
        2 * 10_000 * 10_001 + 2 * 10_000 * 10_000,
    );
    let need = scene::memory::estimate_bytes(2, n, s).unwrap();
    match scene::memory::available_bytes() {
        Some(have) if have < need => expect(
            &GOOD.replace("cells = [4, 4]", "cells = [10000, 10000]"),
            "bodies[0].cells",
            14,
            &format!("{n} nodes and {s} springs need about "),
        ),
        have => eprintln!("skipped the 10000² case: {have:?} bytes available, {need} needed"),
    }
    // Counts that overflow 64 bits, and more nodes than springsim indexes.
    expect_each(&[
        (
            "cells = [4, 4]",
            "cells = [4000000000, 4000000000]",
            "bodies[0].cells",
            14,
            "overflows 64-bit arithmetic",
        ),
        (
            "cells = [4, 4]",
            "cells = [100000, 100000]",
            "bodies[0].cells",
            14,
            "10000200001 nodes is more than springsim handles",
        ),
    ]);
    let lattice = GOOD
        .replace("dimension = 2", "dimension = 3")
        .replace("generator = \"grid\"", "generator = \"lattice\"")
        .replace("size = [1.0, 1.0]", "size = [1.0, 1.0, 1.0]")
        .replace("cells = [4, 4]", "cells = [3000000, 3000000, 3000000]")
        .replace("[0.0, -1.0]", "[0.0, -1.0, 0.0]")
        .replace("[0.0, 1.0]", "[0.0, 1.0, 0.0]");
    expect(&lattice, "bodies[0].cells", 14, "overflows");
    assert!(
        start.elapsed().as_secs_f64() < 5.0,
        "took {:?}",
        start.elapsed()
    );
}

/// Issue 12, defect 9: the name is one safe path component (it names out/NAME).
#[test]
fn a_name_that_would_leave_the_output_folder_is_refused() {
    let long = format!("\"{}\"", "a".repeat(101));
    for (name, why) in [
        ("\"../escape\"", "may hold only letters"),
        ("\"/tmp/abs\"", "may hold only letters"),
        ("\"a/b\"", "may hold only letters"),
        ("\"a\\\\b\"", "may hold only letters"),
        ("\"..\"", "must not start with `.`"),
        ("\".hidden\"", "must not start with `.`"),
        ("\"\"", "must not be empty"),
        (long.as_str(), "at most 100 characters"),
    ] {
        expect(&format!("name = {name}\n{GOOD}"), "name", 1, why);
    }
    for ok in ["square-2.v1", "Würfel_3"] {
        let s = scene::parse(&format!("name = \"{ok}\"\n{GOOD}"), "ok.toml", "ok").unwrap();
        assert_eq!(s.name, ok);
    }
    // A default from the file stem is made safe rather than refused.
    let s = scene::parse(GOOD, "my scene.toml", "my scene").unwrap();
    assert_eq!(s.name, "my_scene");
    let s = scene::parse(GOOD, "..toml", ".").unwrap();
    assert_eq!(s.name, "scene");
}

/// Issue 12, defect 11: the run length is capped and numbers in messages are short.
#[test]
fn run_length_is_capped_and_numbers_print_short() {
    let run = |r: &str| GOOD.replace("[[walls]]", &format!("[run]\n{r}\n[[walls]]"));
    expect(
        &run("duration = 1e300"),
        "run.duration",
        8,
        "1e300 s at solver.dt = 0.01 s is 1e302 steps, more than the 1000000000",
    );
    expect(&run("duration = inf"), "run.duration", 8, "positive finite");
    expect(
        &run("duration = -1.0"),
        "run.duration",
        8,
        "positive finite",
    );
    expect(
        &run("steps = 2000000000"),
        "run.steps",
        8,
        "between 1 and 1000000000",
    );
    let ok = scene::parse(&run("duration = 10.0"), "ok.toml", "ok").unwrap();
    assert_eq!(ok.default_steps, Some(1000));
    // The command line's --steps / --duration go through the same cap.
    assert!(ok.run_steps(Some(0), None).is_err());
    assert!(ok.run_steps(Some(2_000_000_000), None).is_err());
    assert_eq!(ok.run_steps(None, Some(0.1)), Ok(10));
    assert_eq!(ok.run_steps(None, None), Ok(1000));
    let e = ok.run_steps(None, Some(1e300)).unwrap_err();
    assert!(e.contains("1e302 steps") && e.len() < 200, "{e}");
    assert!(ok.run_steps(None, Some(f64::NAN)).is_err());
    // 1e300 is shown as 1e300, not a 1 with 300 zeros.
    for (from, to, field, line) in [
        ("dt = 0.01", "dt = -1e300", "solver.dt", 3),
        ("kappa = 1e5", "kappa = -1e300", "contact.kappa", 6),
        (
            "density = 1000.0",
            "density = -1e300",
            "bodies[0].density",
            15,
        ),
    ] {
        let e = err(&GOOD.replace(from, to));
        assert_eq!(e.field.as_deref(), Some(field));
        assert_eq!(e.line, Some(line));
        assert!(e.reason.ends_with("got -1e300"), "{e}");
    }
    let near = err(&GOOD.replace("dhat = 0.01", "dhat = 1e300"));
    assert!(near.to_string().len() < 250, "{near}");
    assert!(near.reason.contains("contact.dhat = 1e300"), "{near}");
}

/// Issue 12, defect 11: a normal with a huge (or tiny) component is normalised by
/// its largest component first instead of overflowing to a "zero vector".
#[test]
fn extreme_normals_are_normalised() {
    let wall = |n: &str| {
        GOOD.replace("point = [0.0, -1.0]", "point = [-1.0, 0.0]")
            .replace("normal = [0.0, 1.0]", &format!("normal = {n}"))
    };
    let s = scene::parse(&wall("[1e308, 1.0]"), "ok.toml", "ok").unwrap();
    assert_eq!(s.model.walls[0].normal[0], 1.0);
    assert!(s.model.walls[0].normal[1] > 0.0 && s.model.walls[0].normal[1] < 1e-300);
    let s = scene::parse(&wall("[1e-320, 0.0]"), "ok.toml", "ok").unwrap();
    assert_eq!(s.model.walls[0].normal, vec![1.0, 0.0]);
    let s = scene::parse(&wall("[4e200, 3e200]"), "ok.toml", "ok").unwrap();
    assert!((s.model.walls[0].normal[0] - 0.8).abs() < 1e-15);
    expect(&wall("[0.0, 0.0]"), "walls[0].normal", 10, "zero vector");
}

/// Issue 12, defect 11: errors are one line on stderr: a TOML syntax error (the
/// loader keeps the parser's message, not its multi-line snippet), and a reason that
/// quotes a multi-line string value from the file (before: one line per line of it).
#[test]
fn errors_are_one_line_on_stderr() {
    let dir = std::env::temp_dir().join(format!("springsim-syntax-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.toml");
    let quoted = "[[bodies]]\ngenerator = \"grid\"\ncontact_area = [\"a\nb\"]";
    let implicit = GOOD
        .replace("type = \"plane\"", "type = \"implicit\"")
        .replace("point = [0.0, -1.0]", "expression = \"4 - x^2 - y^2\"")
        .replace("normal = [0.0, 1.0]", "inside = \"\"\"pos\nitive\"\"\"");
    for (text, start) in [
        (GOOD.replace("[contact]", "[contact"), "bad.toml:4: "),
        (implicit, "bad.toml:10: field `walls[0].inside`: "),
        (GOOD.replace("[[bodies]]", quoted), "bad.toml:"),
    ] {
        if let Err(e) = scene::parse(&text, "bad.toml", "bad") {
            assert!(!e.to_string().contains('\n'), "{e}");
        }
        std::fs::write(&path, &text).unwrap();
        let stderr = run_refused(&path, &dir.join("out"));
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(start),
            "{stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
