//! How many CG iterations the GPU backend records before it reads the CG flags back.
//! Every check is a full host–device synchronisation, every iteration past
//! convergence an idle dispatch; the policy balances the two from the iteration
//! counts of earlier solves.

/// The CG batching policy and its history.
#[derive(Clone, Debug, Default)]
pub struct CgBatching {
    /// CG iterations of the k-th direction solve of the previous step(s).
    history: Vec<u32>,
    /// Direction solves so far in this step.
    solve_index: usize,
    /// A fixed batch size instead of the policy (tests).
    fixed: Option<u32>,
}

impl CgBatching {
    /// The policy, or with `Some(k)` batches of k iterations always.
    pub fn fixed(batch: Option<u32>) -> Self {
        Self {
            fixed: batch,
            ..Self::default()
        }
    }

    /// The fixed batch size where tests set one.
    pub fn fixed_batch(&self) -> Option<u32> {
        self.fixed
    }

    /// A new step starts: solves are counted from 0 again.
    pub fn begin_step(&mut self) {
        self.solve_index = 0;
    }

    /// CG iterations to submit before the next check, after `submitted` so far in
    /// this solve, with at most `cap` iterations per solve: first about the count of
    /// the same solve (by its index within the step) in the previous step, or of the
    /// latest solve where this index is new; then half of what was submitted so far
    /// (geometric growth keeps the number of checks logarithmic when the estimate is
    /// poor, the overshoot under 50 %).
    pub fn batch_size(&self, submitted: u64, cap: u32) -> u32 {
        let cap = cap.max(1);
        if let Some(k) = self.fixed {
            return k.clamp(1, cap);
        }
        let b = if submitted == 0 {
            // Where this index is new, the latest solve is the history's last entry.
            let last = self
                .history
                .get(self.solve_index)
                .or(self.history.last())
                .copied()
                .unwrap_or(0);
            last + last / 8 + 4
        } else {
            ((submitted / 2) as u32).max(8)
        };
        b.clamp(4, 1024).min(cap)
    }

    /// A solve has ended after `iterations` CG iterations.
    pub fn finish_solve(&mut self, iterations: u32) {
        if self.history.len() <= self.solve_index {
            self.history.resize(self.solve_index + 1, iterations);
        }
        self.history[self.solve_index] = iterations;
        self.solve_index += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_follow_the_previous_step_then_grow_geometrically() {
        let mut b = CgBatching::default();
        assert_eq!(b.batch_size(0, 10_000), 4);
        assert_eq!(b.batch_size(4, 10_000), 8);
        assert_eq!(b.batch_size(64, 10_000), 32);
        b.finish_solve(80);
        b.finish_solve(16);
        b.begin_step();
        assert_eq!(b.batch_size(0, 10_000), 80 + 10 + 4);
        b.finish_solve(80);
        assert_eq!(b.batch_size(0, 10_000), 16 + 2 + 4);
        b.finish_solve(16);
        // a third solve in this step: the latest solve's count
        assert_eq!(b.batch_size(0, 10_000), 16 + 2 + 4);
        assert_eq!(b.batch_size(0, 7), 7);
        assert_eq!(b.batch_size(1_000_000, 1_000_000), 1024);
    }
}
