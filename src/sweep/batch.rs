//! A GPU sweep's batch: one `springsim run --batch-file` child runs a chunk of the
//! variants as batched ensembles ([`crate::ensemble`]), each into its own folder.

use super::child::{last_error, wait_child};
use super::spec::Variant;
use super::table::{Plan, Record};
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::Instant;

/// Runs `chunk` (variants of `plan`) as GPU batches of at most `batch` in one
/// `springsim run --batch-file` child, each variant into its own folder; records
/// each from its `summary.json` and `run.log`. `None` when a stop was asked for
/// before it started.
pub fn run_batch(
    exe: &Path,
    plan: &Plan,
    out: &Path,
    chunk: &[Variant],
    batch: usize,
    pids: &Mutex<Vec<u32>>,
) -> Option<Vec<Record>> {
    let start = Instant::now();
    let dir = out.join("batches");
    let name = format!("batch-{:04}", chunk.first().map_or(0, |v| v.index));
    let list = dir.join(format!("{name}.tsv"));
    let log_path = dir.join(format!("{name}.log"));
    let mut lines = String::new();
    for v in chunk {
        let d = out.join(&v.dir);
        // A rerun starts clean: nothing of an earlier attempt is mixed into this one.
        let _ = std::fs::remove_dir_all(&d);
        lines.push_str(&d.display().to_string());
        for (k, val) in &v.values {
            lines.push_str(&format!("\t{k}={val}"));
        }
        lines.push('\n');
    }
    let all_failed = |e: String| {
        let records = chunk.iter().map(|v| Record {
            index: v.index,
            status: "failed".into(),
            error: Some(e.clone()),
            exit_code: None,
            seconds: start.elapsed().as_secs_f64(),
        });
        Some(records.collect())
    };
    let log = std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::write(&list, lines))
        .and_then(|_| std::fs::File::create(&log_path));
    let log = match log {
        Ok(f) => f,
        Err(e) => return all_failed(format!("{}: {e}", dir.display())),
    };
    let mut cmd = Command::new(exe);
    cmd.arg("run").arg(&plan.scene);
    for s in &plan.set {
        cmd.arg("--set").arg(s);
    }
    cmd.args(&plan.run_args)
        .arg("--batch-file")
        .arg(&list)
        .arg("--batch")
        .arg(batch.to_string())
        .arg("--quiet");
    let code = match wait_child(cmd, log, pids)? {
        Ok(code) => code,
        Err(e) => return all_failed(e),
    };
    // The child's notes (variants that run one at a time, and why) reach the user.
    if let Ok(text) = std::fs::read_to_string(&log_path) {
        for note in text.lines().filter_map(|l| l.strip_prefix("note: ")) {
            eprintln!("sweep: {note}");
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let records = chunk.iter().map(|v| {
        let d = out.join(&v.dir);
        let files = super::metrics::RunFiles::open(&d);
        let field = |k: &str| {
            files
                .summary()
                .and_then(|s| s[k].as_str().map(str::to_string))
        };
        let (status, error) = match field("status").as_deref() {
            Some("completed") => ("completed".to_string(), None),
            Some(s @ ("stalled" | "interrupted")) => (s.to_string(), field("error")),
            _ => {
                let why = field("error").unwrap_or_else(|| match d.join("run.log").exists() {
                    true => last_error(&d.join("run.log"), code),
                    false => last_error(&log_path, code),
                });
                ("failed".to_string(), Some(why))
            }
        };
        Record {
            index: v.index,
            status,
            error,
            exit_code: code,
            seconds,
        }
    });
    Some(records.collect())
}
