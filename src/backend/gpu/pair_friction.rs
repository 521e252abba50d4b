//! Friction on contacts between and within bodies on the GPU
//! (`shaders/pair_friction.wgsl`, `shaders/kernels/pair_friction.wgsl`): when the
//! host lags it. A lag needs the candidates at x, so it builds the list at x, lags
//! every candidate, and builds the list again to carry the new lag: two broad
//! phases and two readbacks (three with the change of λ) per lag, at the step start
//! and at each lagging update. CPU twin: `src/backend/cpu/self_friction.rs`.

use super::kernel_lists::PAIR_FRICTION_CHANGE;
use super::kernels::Kernel;
use super::readback::lag_change;
use super::GpuBackend;

impl GpuBackend {
    /// Whether contacts between primitives have friction.
    pub(super) fn has_pair_friction(&self) -> bool {
        self.engine.contact.as_ref().is_some_and(|c| c.lagged)
    }

    /// A lagging update of the friction of the contact pairs at the current x: the
    /// largest change of λ (N) against the previous lag, pairs matched by their
    /// primitives (a new or lost pair counts whole). (The step start's lag, which
    /// measures nothing, is [`super::engine::Engine::lag_start_on_host`] or, deferred,
    /// `defer_start_lag`.)
    pub(super) fn lag_pair_friction(&mut self) -> f64 {
        self.rebuild_pairs();
        let change = lag_change(self.engine.reduce(&PAIR_FRICTION_CHANGE));
        self.engine.run(&[Kernel::PairFrictionLag]);
        self.rebuild_pairs();
        change
    }
}
