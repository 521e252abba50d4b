//! `springsim run --batch-file FILE`: the variants of a GPU sweep as batched
//! ensembles ([`crate::ensemble`]), each into its own folder, as if it had run alone,
//! with a one-line `run.log`. `springsim sweep --backend gpu` writes the file.

use super::run::{prepare_scene, RunArgs};
use crate::ensemble::{run_jobs, Job};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Writes `line` as the variant's `run.log` (where the sweep looks for its error).
fn log(dir: &Path, line: &str) {
    let _ = std::fs::create_dir_all(dir);
    if let Err(e) = std::fs::write(dir.join("run.log"), format!("{line}\n")) {
        eprintln!("warning: {}: {e}", dir.display());
    }
}

/// Runs the batch file's variants. Exit status 0 when every variant completed, 3 when
/// some stalled (0 with `--allow-stalled`) and none failed, 1 when some failed, 2
/// for an unreadable file, 130 when interrupted.
pub fn main(args: &RunArgs, file: &Path) -> ExitCode {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    crate::interrupt::install();
    let (mut jobs, mut dirs) = (Vec::new(), Vec::new());
    let mut failed = false;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut parts = line.split('\t');
        let dir = PathBuf::from(parts.next().unwrap_or_default());
        let mut a = args.clone();
        a.set.extend(parts.map(str::to_string));
        a.out = Some(dir.clone());
        a.batch_file = None;
        match prepare_scene(&a) {
            Ok((scene, mut opts)) => {
                // Hundreds of variants share the terminal: no progress bars.
                opts.progress = false;
                jobs.push(Job { scene, opts });
                dirs.push(dir);
            }
            Err(e) => {
                log(&dir, &format!("error: {e}"));
                eprintln!("error: {}: {e}", dir.display());
                failed = true;
            }
        }
    }
    // Once per reason: which variants run one at a time, and why (a sweep relays it).
    let mut alone: Vec<(String, usize)> = Vec::new();
    for j in &jobs {
        if let Some(why) = crate::ensemble::why_alone(j) {
            match alone.iter_mut().find(|(w, _)| *w == why) {
                Some((_, n)) => *n += 1,
                None => alone.push((why, 1)),
            }
        }
    }
    for (why, n) in &alone {
        eprintln!(
            "note: {n} of {} variant(s) run one at a time on the GPU backend: {why}",
            jobs.len()
        );
    }
    let (mut stalled, mut interrupted) = (false, false);
    let totals = run_jobs(&jobs, args.batch as usize, |i, out| {
        let line = match out {
            Ok(s) => {
                stalled |= s.status == "stalled";
                interrupted |= s.status == "interrupted";
                format!(
                    "{}: {} steps on {} ({}): {}, {} Newton / {} CG iterations",
                    s.scene,
                    s.steps,
                    s.backend,
                    s.device,
                    s.status,
                    s.newton_iterations,
                    s.cg_iterations
                )
            }
            Err(e) => {
                failed = true;
                format!("error: {e}")
            }
        };
        log(&dirs[i], &line);
    });
    if !args.quiet {
        println!(
            "{} variant(s): {} batch(es) with {} device submissions, {} alone",
            jobs.len(),
            totals.batches,
            totals.submissions,
            totals.alone
        );
    }
    if interrupted || crate::interrupt::requested() {
        ExitCode::from(130)
    } else if failed {
        ExitCode::from(1)
    } else if stalled && !args.allow_stalled {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}
