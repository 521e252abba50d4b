//! How `summary.json` names the Newton direction solver a run used
//! ([`super::Summary::linear_solver`]).

use crate::scene::Scene;

/// The direction solver `scene` runs with on `backend` (`cpu`, `gpu`), for
/// [`Summary::linear_solver`]: what the backend `chose` itself
/// ([`crate::backend::Backend::solves_directly`],
/// [`crate::backend::Backend::preconditioner`]), else the scene's rule for it.
pub(super) fn linear_solver_label(scene: &Scene, backend: &str, chosen: Chosen) -> String {
    if scene.nonsmooth.is_some() {
        return "none".into();
    }
    if chosen.direct || scene.linear_solver == crate::linear_solver::LinearSolver::Direct {
        return "direct".into();
    }
    let s = &scene.model.solver;
    let pre = chosen.preconditioner.unwrap_or_else(|| {
        s.preconditioner
            .resolve(scene.model.num_nodes(), scene.model.dim, backend == "gpu")
    });
    // Scenes resolve `auto` when they are built; name the rule Newton applies.
    let forcing = s.forcing.as_run().name();
    if !chosen.switching {
        return format!("pcg, {}, {forcing}", pre.name());
    }
    // With the V-cycle, auto's PCG runs block-Jacobi too (backend::cpu::switching::Route).
    let routes = match pre {
        crate::linear_solver::PreconditionerKind::Multigrid => "block_jacobi | multigrid",
        other => other.name(),
    };
    format!("auto: pcg, {routes}, {forcing} / direct")
}

/// What a backend chose for its Newton direction solve, where it resolved `auto`
/// itself (the default: nothing chosen, the scene's rules name it).
#[derive(Clone, Copy, Debug, Default)]
pub struct Chosen {
    /// The direct solver runs ([`crate::backend::Backend::solves_directly`]).
    pub direct: bool,
    /// PCG and the direct solver alternate ([`crate::backend::Backend::switches_solver`]).
    pub switching: bool,
    /// The preconditioner the backend picked ([`crate::backend::Backend::preconditioner`]).
    pub preconditioner: Option<crate::linear_solver::PreconditionerKind>,
}

impl Chosen {
    /// What `backend` chose.
    pub fn of(backend: &dyn crate::backend::Backend) -> Self {
        Self {
            direct: backend.solves_directly(),
            switching: backend.switches_solver(),
            preconditioner: backend.preconditioner(),
        }
    }
}
