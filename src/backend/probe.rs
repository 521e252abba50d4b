//! Test access to a backend's state and intermediate results, the same on every
//! backend, so tests can compare the GPU kernels with their CPU twins one by one and
//! check derivatives by finite differences. Runs never use it.

/// Reads and overwrites a backend's Newton state between the kernels.
pub trait Probe {
    /// Overwrites the current iterate x (m), `nodes × dim`.
    fn set_positions(&mut self, x: &[f64]);
    /// Overwrites the prediction x̃ (m), keeping x and xⁿ.
    fn set_prediction(&mut self, x_pred: &[f64]);
    /// Overwrites the step's start xⁿ (m), keeping x and x̃, and recomputes the lagged
    /// friction contacts there (what `Backend::begin_step` does).
    fn set_step_start(&mut self, xn: &[f64]);
    /// Overwrites the Newton direction p (m).
    fn set_direction(&mut self, p: &[f64]);
    /// The current Newton direction p (m).
    fn direction_vector(&mut self) -> Vec<f64>;
    /// The incremental potential E (J) at the current iterate, `+∞` if inadmissible.
    fn potential(&mut self) -> f64;
    /// `∇E` (kg·m, i.e. N·s²) at the current iterate, fixed nodes' rows zeroed.
    fn potential_gradient(&mut self) -> Vec<f64>;
    /// `H u` with the projected Newton matrix at the current iterate, and `uᵀ H u`
    /// as the backend reduces it.
    fn hessian_product(&mut self, u: &[f64]) -> (Vec<f64>, f64);
    /// The block-Jacobi preconditioner at the current iterate: per node the inverse of
    /// H's `dim × dim` diagonal block, row-major, `nodes × dim²` (1/kg; 0 for fixed
    /// nodes).
    fn jacobi_blocks(&mut self) -> Vec<f64>;
    /// The lagged friction normal forces λ (N), `nodes × walls` (plane walls, then
    /// implicit); empty when no wall has friction.
    fn lagged_normal_forces(&mut self) -> Vec<f64>;
    /// `(max_i Σ_k |p_ik|, CCD bound)` for the current direction p.
    fn direction_summary(&mut self) -> (f64, f64);
    /// `z = M⁻¹ r` (m for r in N·s²) with the scene's preconditioner (block-Jacobi or
    /// the multilevel one) formed at the current iterate.
    fn precondition(&mut self, r: &[f64]) -> Vec<f64>;
}
