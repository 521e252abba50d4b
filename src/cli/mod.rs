//! The commands of the `springsim` binary that are not a study of their own: `run`
//! ([`run`]), `compare` ([`compare`]), `scenes` and `devices` ([`devices`]). Each takes its parsed
//! arguments and returns the process's exit status.

pub mod batch;
pub mod check;
pub mod compare;
pub mod devices;
pub mod run;

use crate::scene;
use std::path::Path;
use std::process::ExitCode;

/// `springsim run`: one scene ([`run::main`]), or with `--batch-file` the variants it
/// lists as one batch on the device ([`batch::main`], what `sweep --backend gpu`
/// starts per batch).
pub fn run_command(args: run::RunArgs) -> ExitCode {
    match args.batch_file.clone() {
        Some(file) => batch::main(&args, &file),
        None => run::main(args),
    }
}

/// `--out PATH` must be a folder or creatable as one: the error when `path` (or the
/// first part of it that exists) is a file.
pub fn out_dir_error(path: &Path) -> Option<String> {
    let existing = path.ancestors().find(|a| a.exists())?;
    (!existing.is_dir()).then(|| {
        if existing == path {
            format!("--out {}: is a file, not a folder", path.display())
        } else {
            format!(
                "--out {}: {} is a file, not a folder",
                path.display(),
                existing.display()
            )
        }
    })
}

/// `springsim scenes`: one line per bundled scene (name, dimension, nodes, description).
pub fn scenes() -> ExitCode {
    for (name, text) in scene::BUNDLED {
        match scene::parse(text, &format!("bundled:{name}"), name) {
            Ok(s) => println!(
                "{:<22} {}D {:>7} nodes  {}",
                name,
                s.model.dim,
                s.model.num_nodes(),
                s.description
            ),
            Err(e) => println!("{name:<22} (invalid: {e})"),
        }
    }
    ExitCode::SUCCESS
}
