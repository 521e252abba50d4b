//! Ctrl-C for long calls that run on a thread of their own (a batch, a nonsmooth
//! run): this thread waits without the GIL and passes Python's Ctrl-C on to the
//! library's loops ([`springsim::interrupt::request`]), which stop after their step
//! under way and write their summaries.

use pyo3::prelude::*;
use std::time::Duration;

/// Runs `f` on a scoped thread; a Ctrl-C meanwhile asks it to stop and is raised
/// once `f` has returned (then `f`'s result is dropped).
pub fn run_interruptible<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    let mut interrupt = None;
    let out = std::thread::scope(|scope| {
        let worker = scope.spawn(f);
        while !worker.is_finished() {
            py.detach(|| std::thread::sleep(Duration::from_millis(20)));
            if let Err(e) = py.check_signals() {
                springsim::interrupt::request();
                interrupt.get_or_insert(e);
            }
        }
        worker.join()
    });
    springsim::interrupt::clear();
    if let Some(e) = interrupt {
        return Err(e);
    }
    out.map_err(|_| crate::errors::SimulationError::new_err("the run panicked"))
}
