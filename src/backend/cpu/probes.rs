//! [`Probe`] on the CPU backend: the same test access as the GPU backend's, over the
//! CPU's own accessors, so a test can drive both backends through one interface.

use super::CpuBackend;
use crate::backend::probe::Probe;

impl Probe for CpuBackend {
    fn set_positions(&mut self, x: &[f64]) {
        CpuBackend::set_positions(self, x);
    }

    fn set_prediction(&mut self, x_pred: &[f64]) {
        CpuBackend::set_prediction(self, x_pred);
    }

    fn set_step_start(&mut self, xn: &[f64]) {
        CpuBackend::set_step_start(self, xn);
    }

    fn set_direction(&mut self, p: &[f64]) {
        self.p.copy_from_slice(p);
    }

    fn direction_vector(&mut self) -> Vec<f64> {
        self.p.clone()
    }

    fn potential(&mut self) -> f64 {
        self.incremental_potential(&self.x)
    }

    fn potential_gradient(&mut self) -> Vec<f64> {
        self.gradient()
    }

    fn hessian_product(&mut self, u: &[f64]) -> (Vec<f64>, f64) {
        let hu = self.hessian_times(u);
        let uhu = u.iter().zip(&hu).map(|(a, b)| a * b).sum();
        (hu, uhu)
    }

    fn jacobi_blocks(&mut self) -> Vec<f64> {
        self.preconditioner_blocks()
    }

    fn lagged_normal_forces(&mut self) -> Vec<f64> {
        self.friction_lambda().to_vec()
    }

    fn direction_summary(&mut self) -> (f64, f64) {
        (self.direction_norm(), self.ccd_bound_all())
    }

    fn precondition(&mut self, r: &[f64]) -> Vec<f64> {
        self.assemble();
        // Probes compare with the GPU's preconditioner factored at this iterate.
        self.mas_reuse.begin_step();
        let mut z = vec![0.0; r.len()];
        self.with_preconditioner(|_, pre| pre.apply(r, &mut z));
        z
    }
}
