//! Per-node time-step bookkeeping; CPU twin of `shaders/kernels/step.wgsl`: start of
//! a step (store xⁿ, predict x̃, lag friction), end of a step (velocity and
//! acceleration update) and the Newton update x ← x + α p.

use super::CpuBackend;
use crate::integrator;
use crate::parallel;

impl CpuBackend {
    /// Stores xⁿ, predicts x̃ and lags the friction contacts at xⁿ (step_begin).
    pub(super) fn step_begin(&mut self) {
        let s = &self.model.solver;
        let (integ, h) = (s.integrator, s.dt);
        self.xn.copy_from_slice(&self.x);
        let (xn, v, a) = (&self.xn, &self.v, &self.acc);
        parallel::for_each_piece(&mut self.x_pred, 1, |i, o| {
            o[0] = integrator::predict(integ, h, xn[i], v[i], a[i])
        });
        self.compute_friction_lag(false);
        self.contact.valid = false;
        self.lag_self_friction();
        self.mas_reuse.begin_step();
    }

    /// Updates the velocities and accelerations from xⁿ and xⁿ⁺¹ (step_end).
    pub(super) fn step_end(&mut self) {
        let s = &self.model.solver;
        let (integ, h) = (s.integrator, s.dt);
        for i in 0..self.x.len() {
            let (v, a) = integrator::update(
                integ,
                h,
                self.xn[i],
                self.x[i],
                self.x_pred[i],
                self.v[i],
                self.acc[i],
            );
            self.v[i] = v;
            self.acc[i] = a;
        }
    }

    /// x ← x + α p (advance).
    pub(super) fn advance_by(&mut self, alpha: f64) {
        let p = &self.p;
        parallel::for_each_piece(&mut self.x, 1, |i, x| x[0] += alpha * p[i]);
    }
}
