//! One `springsim run` child of a sweep: started in its own process group with its
//! output in a log, waited for, and its error line read back. Shared by the
//! one-variant runs (`exec`) and the batched ones (`batch`).

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;

/// Starts `cmd` with no input and its output and errors into `log`, and waits for
/// it, its pid in `pids` while it runs; `None` when a stop was asked for before it
/// started. Its exit code (`None`: killed by a signal).
pub(super) fn wait_child(
    mut cmd: Command,
    log: std::fs::File,
    pids: &Mutex<Vec<u32>>,
) -> Option<Result<Option<i32>, String>> {
    cmd.stdin(Stdio::null())
        .stdout(log.try_clone().map_or_else(|_| Stdio::null(), Stdio::from))
        .stderr(Stdio::from(log));
    #[cfg(unix)]
    {
        // Its own process group: a terminal's Ctrl-C reaches the sweep only, which
        // passes one SIGTERM on (two signals would end a run without its summary).
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    // Checked and started under the lock the sweep takes to pass a stop on: a child
    // is either in the list it signals, or never started.
    let mut running = pids.lock().expect("pid list");
    if crate::interrupt::requested() {
        return None;
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return Some(Err(format!("cannot start {:?}: {e}", cmd.get_program()))),
    };
    let pid = child.id();
    running.push(pid);
    drop(running);
    let status = child.wait();
    pids.lock().expect("pid list").retain(|p| *p != pid);
    Some(
        status
            .map(|s| s.code())
            .map_err(|e| format!("waiting for the run: {e}")),
    )
}

/// The last `error:` line of a run's log, or its exit status.
pub(super) fn last_error(log: &Path, code: Option<i32>) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .rev()
        .find_map(|l| l.strip_prefix("error: "))
        .map(str::to_string)
        .unwrap_or_else(|| match code {
            Some(c) => format!("springsim run exited with status {c} (see run.log)"),
            None => "springsim run was killed by a signal (see run.log)".into(),
        })
}
