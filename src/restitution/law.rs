//! The study's third scheme: seed 000's particle stepped by the simulator itself,
//! implicit Euler with the restitution law ([`crate::rebound`]) asking for `e`.
//!
//! The particle is a 2D scene's one node moving along y above the plane y = 0, with
//! the seed's barrier (`barrier = "ipc"`, contact area 1) and its κ read as the seed
//! reads it: added without h², so the scene's κ is `κ_seed / h²`. The Newton
//! tolerance is the seed's on `|Δx|/h`. So the law's column differs from the Euler
//! column by the law alone.

use super::particle::{ParticleParams, Trajectory};
use crate::backend::cpu::CpuBackend;
use crate::sim::Simulation;

/// Runs `p` (validated by the caller) with the restitution law asking for `p.e`.
pub fn simulate(p: &ParticleParams) -> Result<Trajectory, String> {
    let text = format!(
        r#"
dimension = 2
[solver]
dt = {h:e}
gravity = [0.0, {g:e}]
tolerance = {tol:e}
[contact]
dhat = {dhat:e}
kappa = {kappa:e}
barrier = "ipc"
restitution = {e:e}
[[walls]]
type = "plane"
point = [0.0, 0.0]
normal = [0.0, 1.0]
[[bodies]]
generator = "particle"
mass = {m:e}
center = [0.0, {x0:e}]
velocity = [0.0, {v0:e}]
"#,
        h = p.h,
        g = p.g,
        tol = p.tol,
        dhat = p.dhat,
        kappa = p.kappa / (p.h * p.h),
        e = p.e,
        m = p.m,
        x0 = p.x0,
        v0 = p.v0,
    );
    let mut model = crate::scene::parse(&text, "restitution study", "law")
        .map_err(|e| e.to_string())?
        .model;
    model.contact_area.iter_mut().for_each(|a| *a = 1.0);
    let mut sim = Simulation::new(Box::new(CpuBackend::new(model.clone())), &model);
    let mut tr = Trajectory::default();
    let (mut t, end) = (0.0, p.duration * (1.0 - 1e-4));
    tr.t.push(t);
    tr.x.push(p.x0);
    tr.v.push(p.v0);
    tr.newton_iterations.push(0);
    while t < end {
        let r = sim.step().map_err(|e| format!("at t = {t} s: {}", e.0))?;
        t += p.h;
        tr.t.push(t);
        tr.x.push(sim.backend().positions()[1]);
        tr.v.push(sim.backend().velocities()[1]);
        tr.newton_iterations.push(r.newton_iterations);
        tr.line_search_failures += u32::from(r.line_search_failed);
    }
    Ok(tr)
}
