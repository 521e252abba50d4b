//! The scene-error tests' good scene and their checks of a refused scene.

use springsim::scene::{self, SceneError};
use std::path::Path;
use std::process::Command;

/// A valid 2D scene (a 4×4 grid above the ground) that the error tests break.
pub const GOOD: &str = r#"dimension = 2
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

/// The error parsing `text` (as `bad.toml`) gives; panics when it parses.
pub fn err(text: &str) -> SceneError {
    match scene::parse(text, "bad.toml", "bad") {
        Ok(_) => panic!("scene should be rejected:\n{text}"),
        Err(e) => e,
    }
}

/// Asserts that `text` is refused at `field` on `line` with a reason holding
/// `reason_part`, shown as one line `bad.toml:LINE: field `FIELD`…`.
pub fn expect(text: &str, field: &str, line: usize, reason_part: &str) {
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
pub fn expect_each(cases: &[(&str, &str, &str, usize, &str)]) {
    for (from, to, field, line, reason_part) in cases {
        expect(&GOOD.replace(from, to), field, *line, reason_part);
    }
}

/// Runs `springsim run SCENE --backend cpu --out OUT`, asserts that it exits with
/// status 2, and returns its stderr.
pub fn run_refused(scene: &Path, out: &Path) -> String {
    let run = Command::new(env!("CARGO_BIN_EXE_springsim"))
        .args(["run", scene.to_str().unwrap(), "--backend", "cpu", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    String::from_utf8_lossy(&run.stderr).into_owned()
}
