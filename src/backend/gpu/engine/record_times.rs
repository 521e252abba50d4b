//! Host time to record a dispatch: the figure that says whether recording, not the
//! device, bounds a GPU step (issue on GPU speed: at most 2 µs per dispatch).

use std::cell::RefCell;

/// Recordings kept for the median: the latest ones, in a ring.
pub const RECORD_SAMPLES: usize = 4096;

/// Host nanoseconds per dispatch of the latest recordings (one sample per call of
/// `Engine::record`: its time over its dispatches).
#[derive(Debug, Default)]
pub struct RecordTimes {
    ring: RefCell<Vec<u32>>,
    next: std::cell::Cell<usize>,
}

impl RecordTimes {
    /// Adds one recording of `dispatches` kernels that took `elapsed`.
    pub fn push(&self, elapsed: std::time::Duration, dispatches: usize) {
        if dispatches == 0 {
            return;
        }
        let ns = (elapsed.as_nanos() / dispatches as u128).min(u32::MAX as u128) as u32;
        let mut ring = self.ring.borrow_mut();
        if ring.len() < RECORD_SAMPLES {
            ring.push(ns);
        } else {
            let at = self.next.get();
            ring[at] = ns;
            self.next.set((at + 1) % RECORD_SAMPLES);
        }
    }

    /// The median of the kept samples (ns per dispatch; 0 before any recording).
    pub fn median_ns(&self) -> u64 {
        let mut v = self.ring.borrow().clone();
        if v.is_empty() {
            return 0;
        }
        let mid = v.len() / 2;
        *v.select_nth_unstable(mid).1 as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The median is per dispatch, of the latest samples only.
    #[test]
    fn median_of_the_latest_recordings_per_dispatch() {
        let t = RecordTimes::default();
        assert_eq!(t.median_ns(), 0);
        t.push(Duration::from_nanos(3000), 3); // 1000 ns each
        t.push(Duration::from_nanos(9000), 3); // 3000
        t.push(Duration::from_nanos(2000), 1); // 2000
        t.push(Duration::from_nanos(5), 0); // no dispatch: not a sample
        assert_eq!(t.median_ns(), 2000);
        for _ in 0..RECORD_SAMPLES {
            t.push(Duration::from_nanos(700), 1);
        }
        assert_eq!(t.median_ns(), 700, "older samples leave the ring");
    }
}
