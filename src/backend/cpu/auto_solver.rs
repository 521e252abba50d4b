//! `--linear-solver auto` between PCG and the sparse factorisation, step by step.
//!
//! A factorisation costs about the same at every Newton iteration; PCG costs its CG
//! iterations, few in free fall or at rest and many where a body crumples or presses
//! into contact. So the backend runs PCG, and from a step whose directions took
//! more CG iterations than [`SwitchingSolver::break_even`] on it runs the
//! factorisation, going back to PCG for one probe step after [`PROBE_EVERY`] steps
//! to see whether CG has become cheap again; each probe that finds PCG still dearer
//! doubles the wait before the next (up to [`PROBE_MAX`]), so a run that stays
//! expensive pays for a few probes only. Every decision is taken from counts
//! (CG iterations, directions, steps), never from clocks, so a run is reproducible.

use crate::linear_solver::{LinearSolver, PreconditionerKind};
use crate::model::Model;

/// How a backend runs `solver` for `model` ([`AutoChoice`]): `Pcg` and `Direct` as
/// they are; `Auto` is `Pcg` on the GPU (`gpu`), where the scene names a
/// preconditioner (one asks for PCG) and above [`DIRECT_AUTO_MAX_NODES`] nodes, and
/// elsewhere switches between the two by the CG iterations PCG needs, against the
/// estimated cost of one factorisation ([`super::direct_cost::factor_flops_per_node`],
/// before contact pairs).
pub fn resolve(solver: LinearSolver, model: &Model, gpu: bool) -> AutoChoice {
    match solver {
        LinearSolver::Pcg => AutoChoice::Pcg,
        LinearSolver::Direct => AutoChoice::Direct,
        LinearSolver::Auto
            if gpu
                || model.solver.preconditioner != PreconditionerKind::Auto
                || model.num_nodes() > DIRECT_AUTO_MAX_NODES =>
        {
            AutoChoice::Pcg
        }
        LinearSolver::Auto => match super::direct_cost::factor_flops_per_node(model) {
            Some(f) => AutoChoice::Switching {
                factor_flops_per_node: f,
            },
            None => AutoChoice::Pcg,
        },
    }
}

/// What [`resolve`] makes of a solver for one model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AutoChoice {
    /// PCG throughout.
    Pcg,
    /// The sparse factorisation throughout.
    Direct,
    /// PCG while its directions take few CG iterations, the factorisation while they
    /// take many ([`SwitchingSolver`]): a factorisation costs about the same whatever
    /// the state, CG's count grows where the body crumples or presses into contact.
    Switching {
        /// The estimated operations per node of one factorisation.
        factor_flops_per_node: f64,
    },
}

/// Most nodes for which `--linear-solver auto` considers the direct solver: above
/// it the symbolic analysis alone takes seconds and the factor's memory grows past
/// PCG's (the 1,050,625-node square factors slower than the V-cycle solves,
/// BENCHMARKS.md).
pub const DIRECT_AUTO_MAX_NODES: usize = 300_000;

/// Steps the factorisation runs before PCG is first probed again for one step.
pub const PROBE_EVERY: u32 = 16;

/// Most steps between two probes.
pub const PROBE_MAX: u32 = 1024;

/// What one operation of a factorisation costs, in operations of a CG iteration:
/// a supernodal factorisation runs dense kernels, CG gathers node blocks from
/// memory. Measured on the AMD EPYC, 2 threads: 5.3·10⁻⁸ ms per estimated
/// factorisation operation on the 9,261-node lattice (2.3 s per factorisation,
/// BENCHMARKS.md's ladder), against about 1.5·10⁻⁶ ms per CG operation (issue 26's
/// 2,930-node shell: 1,358 ms per step over 2,574 block-Jacobi iterations, Newton's
/// other work included); 0.035, rounded down.
pub const FACTOR_OPERATION_WEIGHT: f64 = 0.03;

/// The switching state of a CPU backend whose linear solver is `auto`.
#[derive(Clone, Debug)]
pub struct SwitchingSolver {
    /// CG iterations per direction above which a factorisation is cheaper.
    pub break_even: f64,
    /// Whether the current step runs the factorisation.
    pub direct: bool,
    /// Factorisation steps left before the next PCG probe.
    probe_in: u32,
    /// The wait before the next probe after this one (doubling while probes lose).
    probe_wait: u32,
    /// Whether the current step is a probe.
    probing: bool,
    /// CG iterations and directions of the current step.
    step_cg: u64,
    step_directions: u64,
}

impl SwitchingSolver {
    /// The state for `model` with `factor_flops_per_node` per factorisation
    /// ([`super::direct_cost::factor_flops_per_node`]) and a preconditioner whose
    /// iteration costs `preconditioner_weight` block-Jacobi iterations (1
    /// block-Jacobi, 2 the additive multilevel sum, 3 the V-cycle). Starts on PCG.
    pub fn new(model: &Model, factor_flops_per_node: f64, preconditioner_weight: f64) -> Self {
        let n = model.num_nodes().max(1) as f64;
        let dim = model.dim as f64;
        // Per node and CG iteration: the node block and two blocks per spring end
        // applied (the product and the preconditioner), and a few vector updates.
        let cg_flops = dim * dim * (1.0 + 2.0 * model.springs.len() as f64 / n) + 8.0 * dim;
        Self::starting(
            factor_flops_per_node * FACTOR_OPERATION_WEIGHT / (cg_flops * preconditioner_weight),
        )
    }

    /// The state before the first step, on PCG, switching above `break_even` CG
    /// iterations per direction.
    fn starting(break_even: f64) -> Self {
        Self {
            break_even,
            direct: false,
            probe_in: 0,
            probe_wait: PROBE_EVERY,
            probing: false,
            step_cg: 0,
            step_directions: 0,
        }
    }

    /// Counts one PCG direction of `cg` iterations.
    pub fn record(&mut self, cg: u32) {
        self.step_cg += u64::from(cg);
        self.step_directions += 1;
    }

    /// Decides the solver of the step about to begin from the one just ended.
    pub fn begin_step(&mut self) {
        if self.direct {
            self.probe_in = self.probe_in.saturating_sub(1);
            if self.probe_in == 0 {
                self.direct = false;
                self.probing = true;
            }
        } else if self.step_directions > 0 {
            let per_direction = self.step_cg as f64 / self.step_directions as f64;
            if per_direction > self.break_even {
                if self.probing {
                    self.probe_wait = (2 * self.probe_wait).min(PROBE_MAX);
                } else {
                    self.probe_wait = PROBE_EVERY;
                }
                self.direct = true;
                self.probe_in = self.probe_wait;
            }
            self.probing = false;
        }
        self.step_cg = 0;
        self.step_directions = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Steps on the factorisation before the next probe, from a direct step.
    fn direct_steps(s: &mut SwitchingSolver) -> u32 {
        let mut n = 0;
        while s.direct {
            n += 1;
            s.begin_step();
        }
        n
    }

    #[test]
    fn switches_on_expensive_steps_and_probes_back_ever_less_often() {
        let mut s = SwitchingSolver::starting(50.0);
        s.begin_step();
        assert!(!s.direct, "the first step runs PCG");
        s.record(40);
        s.record(60);
        s.begin_step();
        assert!(!s.direct, "50 per direction is not above break-even");
        s.record(80);
        s.record(30);
        s.begin_step();
        assert!(s.direct, "55 per direction is");
        assert_eq!(direct_steps(&mut s), PROBE_EVERY, "then a PCG probe");
        // A probe that is still expensive doubles the wait, up to PROBE_MAX.
        for wait in [2, 4, 8, 16, 32, 64, 64] {
            s.record(99);
            s.begin_step();
            assert_eq!(direct_steps(&mut s), (wait * PROBE_EVERY).min(PROBE_MAX));
        }
        // A probe that finds CG cheap stays on PCG; the next switch waits PROBE_EVERY.
        s.record(5);
        s.begin_step();
        assert!(!s.direct, "cheap again: stays on PCG");
        s.begin_step();
        assert!(!s.direct, "a step with no direction keeps the solver");
        s.record(60);
        s.begin_step();
        assert_eq!(direct_steps(&mut s), PROBE_EVERY);
    }
}
