//! The TOML of a scene as run (`scene.toml` in every run's folder): overrides
//! included, and written so that it loads on its own from any folder.

use toml_edit::{DocumentMut, Item};

/// The scene's TOML as a file that loads on its own from any folder: overrides
/// included, `name` written out when the file took it from its stem, and mesh `file`
/// keys relative to the original scene file made absolute (bundled meshes stay as
/// named: they load from the binary).
pub fn resolved_toml(scene: &super::Scene) -> String {
    let Ok(mut doc) = scene.toml.parse::<DocumentMut>() else {
        return scene.toml.clone();
    };
    if !doc.contains_key("name") {
        doc.insert("name", toml_edit::value(scene.name.clone()));
    }
    let base = (!scene.source.starts_with("bundled:"))
        .then(|| std::path::Path::new(&scene.source).parent())
        .flatten();
    if let (Some(base), Some(bodies)) = (
        base,
        doc.get_mut("bodies").and_then(Item::as_array_of_tables_mut),
    ) {
        for body in bodies.iter_mut() {
            let Some(file) = body.get("file").and_then(Item::as_str) else {
                continue;
            };
            let full = base.join(file);
            if let Ok(abs) = full.canonicalize() {
                body.insert("file", toml_edit::value(abs.display().to_string()));
            }
        }
    }
    doc.to_string()
}
