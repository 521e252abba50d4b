//! Running a sweep's variants: each one is a `springsim run` child process (so a
//! crash or a stall stays in its variant) writing into its own folder with its log in
//! `run.log`; `jobs` of them at a time; each finished one leaves its `variant.json`.
//! Ctrl-C or SIGTERM stops the launching, asks the running children to stop after
//! their current step, and leaves a folder that `--resume` completes.

use super::child::{last_error, wait_child};
use super::spec::Variant;
use super::table::{Plan, Record};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How the variants of one call went.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Records of the variants run, in the order they finished.
    pub records: Vec<Record>,
    /// Whether a stop was asked for (some variants may not have run).
    pub interrupted: bool,
}

/// Where progress goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// A bar over the variants with an ETA (stderr is a terminal).
    Bar,
    /// One line per finished variant.
    Lines,
    /// Nothing.
    Quiet,
}

/// The `springsim run` command of variant `v`.
fn command(exe: &Path, plan: &Plan, v: &Variant, dir: &Path) -> Command {
    let mut c = Command::new(exe);
    c.arg("run").arg(&plan.scene);
    for s in &plan.set {
        c.arg("--set").arg(s);
    }
    for (k, val) in &v.values {
        c.arg("--set").arg(format!("{k}={val}"));
    }
    if plan.threads > 0 {
        c.arg("--threads").arg(plan.threads.to_string());
    }
    c.args(&plan.run_args).arg("--out").arg(dir).arg("--quiet");
    c
}

/// Runs variant `v` to its end and records it; `pids` holds the running children.
/// `None` when a stop was asked for before it started (it stays unrun).
fn run_one(
    exe: &Path,
    plan: &Plan,
    out: &Path,
    v: &Variant,
    pids: &Mutex<Vec<u32>>,
) -> Option<Record> {
    let dir = out.join(&v.dir);
    let start = Instant::now();
    let failed = |error: String| {
        Some(Record {
            index: v.index,
            status: "failed".into(),
            error: Some(error),
            exit_code: None,
            seconds: start.elapsed().as_secs_f64(),
        })
    };
    // A rerun starts clean: nothing of an earlier attempt is mixed into this one.
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return failed(format!("{}: {e}", dir.display()));
    }
    let log_path = dir.join("run.log");
    let log = match std::fs::File::create(&log_path) {
        Ok(f) => f,
        Err(e) => return failed(format!("{}: {e}", log_path.display())),
    };
    let cmd = command(exe, plan, v, &dir);
    let code = match wait_child(cmd, log, pids)? {
        Ok(code) => code,
        Err(e) => return failed(e),
    };
    let summary = super::metrics::RunFiles::open(&dir);
    let summary_status = summary
        .summary()
        .and_then(|s| s["status"].as_str().map(str::to_string));
    let summary_error = summary
        .summary()
        .and_then(|s| s["error"].as_str().map(str::to_string));
    let (status, error) = match (code, summary_status.as_deref()) {
        (Some(0), Some("completed")) => ("completed".to_string(), None),
        (Some(3), _) | (Some(0), Some("stalled")) => ("stalled".to_string(), summary_error),
        (Some(130), _) | (None, Some("interrupted")) => ("interrupted".into(), summary_error),
        (_, _) => ("failed".to_string(), Some(last_error(&log_path, code))),
    };
    Some(Record {
        index: v.index,
        status,
        error,
        exit_code: code,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Runs `todo` (variants of `plan`) into `out`, `jobs` at a time, writing each one's
/// `variant.json` when it ends; `after` is called on the main thread after each.
pub fn run_variants(
    exe: PathBuf,
    plan: &Plan,
    out: &Path,
    todo: Vec<Variant>,
    (jobs, batch): (usize, usize),
    progress: Progress,
    mut after: impl FnMut(&Record),
) -> Outcome {
    let total = todo.len();
    // Chunks of variants: one each, or GPU batches handed to one child each.
    let chunks: VecDeque<Vec<Variant>> =
        todo.chunks(batch.max(1)).map(<[Variant]>::to_vec).collect();
    let workers = chunks.len();
    let queue = Arc::new(Mutex::new(chunks));
    let pids = Arc::new(Mutex::new(Vec::<u32>::new()));
    // Folders of the variants in running batches: their summaries show the progress.
    let running = Arc::new(Mutex::new(Vec::<PathBuf>::new()));
    let bar = (progress == Progress::Bar).then(|| {
        let bar = indicatif::ProgressBar::new(total as u64);
        let style = indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} variants [{elapsed_precise} < {eta_precise}] {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        bar.set_style(style);
        bar
    });
    let mut outcome = Outcome::default();
    let (tx, rx) = mpsc::channel::<(Variant, Record)>();
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(workers.max(1)) {
            let (queue, pids, tx, exe) = (queue.clone(), pids.clone(), tx.clone(), &exe);
            let running = running.clone();
            scope.spawn(move || loop {
                if crate::interrupt::requested() {
                    break;
                }
                let Some(chunk) = queue.lock().expect("queue").pop_front() else {
                    break;
                };
                let records = if batch > 1 {
                    let dirs: Vec<PathBuf> = chunk.iter().map(|v| out.join(&v.dir)).collect();
                    running
                        .lock()
                        .expect("running")
                        .extend(dirs.iter().cloned());
                    let r = super::batch::run_batch(exe, plan, out, &chunk, batch, &pids);
                    running
                        .lock()
                        .expect("running")
                        .retain(|d| !dirs.contains(d));
                    r
                } else {
                    run_one(exe, plan, out, &chunk[0], &pids).map(|r| vec![r])
                };
                let Some(records) = records else {
                    break;
                };
                if chunk
                    .into_iter()
                    .zip(records)
                    .any(|vr| tx.send(vr).is_err())
                {
                    break;
                }
            });
        }
        drop(tx);
        let mut forwarded = false;
        let (mut done, mut bad) = (0usize, 0usize);
        let mut polled = Instant::now();
        loop {
            // A batch reports all its variants at its end: meanwhile the bar shows
            // the steps its variants have taken (their summaries, rewritten every
            // few seconds).
            if let (Some(b), true) = (&bar, polled.elapsed().as_secs_f64() >= 2.0) {
                polled = Instant::now();
                let dirs = running.lock().expect("running").clone();
                if !dirs.is_empty() {
                    let steps: u64 = dirs
                        .iter()
                        .filter_map(|d| {
                            super::metrics::RunFiles::open(d).summary()?["steps"].as_u64()
                        })
                        .sum();
                    b.set_message(format!(
                        "{} variants in a batch: {steps} steps so far",
                        dirs.len()
                    ));
                }
            }
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok((v, r)) => {
                    if let Err(e) = r.write(out, &v) {
                        eprintln!("warning: {e}");
                    }
                    done += 1;
                    bad += usize::from(r.status != "completed");
                    let line = format!(
                        "[{done}/{total}] {}: {} in {:.1} s{}",
                        v.dir,
                        r.status,
                        r.seconds,
                        r.error
                            .as_deref()
                            .map(|e| format!(" ({e})"))
                            .unwrap_or_default()
                    );
                    match &bar {
                        Some(b) => {
                            b.inc(1);
                            if r.status != "completed" {
                                b.println(line);
                            }
                            b.set_message(if bad > 0 {
                                format!("{bad} not completed")
                            } else {
                                String::new()
                            });
                        }
                        None if progress == Progress::Lines => eprintln!("{line}"),
                        None => {}
                    }
                    after(&r);
                    outcome.records.push(r);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if crate::interrupt::requested() && !forwarded {
                forwarded = true;
                outcome.interrupted = true;
                queue.lock().expect("queue").clear();
                for pid in pids.lock().expect("pid list").iter() {
                    #[cfg(unix)]
                    // SAFETY: kill has no memory effects; the pid is a child we wait for.
                    unsafe {
                        libc::kill(*pid as libc::pid_t, libc::SIGTERM);
                    }
                }
            }
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    outcome.interrupted |= crate::interrupt::requested();
    outcome
}
