//! Ctrl-C and SIGTERM for long runs: the first signal asks the running loop to stop
//! after its current step (it then writes its summary with status `interrupted`);
//! a second one ends the process at once with status 130.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

static REQUESTED: AtomicBool = AtomicBool::new(false);
static INSTALL: Once = Once::new();

/// Installs the handler (once per process; later calls do nothing). Without it, a
/// signal ends the process as usual.
pub fn install() {
    INSTALL.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if REQUESTED.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!("\nstopping after this step (press Ctrl-C again to stop at once)");
        });
    });
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// Asks the running loops to stop after their current step, as a first Ctrl-C does
/// (the Python package passes Python's Ctrl-C on this way to a batch it runs).
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Forgets a stop that was asked for, once the loops it stopped have ended, so that
/// later runs in the same process go on (the Python package's; the command line
/// exits instead).
pub fn clear() {
    REQUESTED.store(false, Ordering::SeqCst);
}
