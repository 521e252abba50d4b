//! Scene names: they name the output folder `out/NAME`, so they are checked, and
//! derived from a file's stem when the scene gives none.

/// Longest scene `name`, in characters.
pub const MAX_NAME_CHARS: usize = 100;

/// Why `name` cannot be a scene name: it names the output folder `out/NAME`, so it
/// must be one path component of letters, digits, `_`, `-` and `.`, not starting
/// with `.`, non-empty and at most [`MAX_NAME_CHARS`] characters.
pub fn check_name(name: &str) -> Result<(), String> {
    let chars = name.chars().count();
    if name.is_empty() {
        return Err("must not be empty (it names the output folder out/NAME)".into());
    }
    if chars > MAX_NAME_CHARS {
        return Err(format!(
            "must be at most {MAX_NAME_CHARS} characters, got {chars}"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(format!(
            "may hold only letters, digits, `_`, `-` and `.` (it names the output folder out/NAME), found {c:?}"
        ));
    }
    if name.starts_with('.') {
        return Err("must not start with `.` (it names the output folder out/NAME)".into());
    }
    Ok(())
}

/// The default scene name from a file stem: characters [`check_name`] refuses become
/// `_`, leading dots are dropped, and it is cut to [`MAX_NAME_CHARS`]; `scene` when
/// nothing is left.
pub(super) fn name_from_stem(stem: &str) -> String {
    let name: String = stem
        .trim_start_matches('.')
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(MAX_NAME_CHARS)
        .collect();
    if name.is_empty() {
        "scene".into()
    } else {
        name
    }
}
