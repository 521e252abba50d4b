//! The nonsmooth Newmark step of seed 002, for any number of particles and plane
//! walls in any dimension (the seed's vertical ball is one particle, one wall, d = 1),
//! with seed 004's implicit walls resolved at their time of impact.
//!
//! Per particle with position u, velocity v, acceleration a and mass m, gravity g:
//! 1. free-flight prediction `ũ = uⁿ + Δt vⁿ + ½ Δt² aⁿ`, forward velocity `v* = vⁿ + Δt aⁿ`;
//! 2. `aⁿ⁺¹ = g`, trapezoidal velocity `ṽ = vⁿ + ½ Δt (aⁿ + aⁿ⁺¹)`;
//! 3. for each plane wall (normal n, in scene order), gap `n·(ũ − o)` and rate `n·v*`:
//!    when both are negative the normal component of the new velocity is set to
//!    `−e n·vⁿ`; the jump is `w = vⁿ⁺¹ − ṽ` and the impulse `λ = m w` (reported as its
//!    normal part, summed over the walls touched);
//! 4. `vⁿ⁺¹ = ṽ + w`, `uⁿ⁺¹ = ũ + ½ Δt w`.
//!
//! With `a = g` this step is exactly free flight with the jump `w` applied at mid-step,
//! and seed 002's dissipated energy `−λ·½(vⁿ + vⁿ⁺¹)` is exactly the kinetic energy
//! `½ m (|v₋|² − |v₊|²)` that jump removes. The same picture resolves **implicit walls**
//! (seed 004, `W ≥ 0` inside): when the step's flight (with the plane walls' jump at
//! mid-step) leaves an implicit wall, the impact is put where it happens, at the time
//! of impact [`super::impact::first_exit`]; there the velocity becomes
//! `v′ = v − (1 + e)(v·n)n` with `n = ∇W/|∇W|` at the impact point, the energy
//! `½ m (|v|² − |v′|²)` is added to the dissipated energy, and the flight goes on for the
//! rest of the step (further impacts included, up to [`MAX_IMPACTS`]). The particle
//! therefore ends every step inside the implicit walls, however fast it moves; the
//! seed 002 rule tests only the predicted end of the step and sets the normal velocity
//! from `vⁿ`, so a fast ball that crossed a curved wall was turned about the wrong
//! normal, and with `e = 1` a contact step does not move it along the normal at all
//! (`½ Δt n·(vⁿ + vⁿ⁺¹) = 0`): its tangential motion carried it out for good.
//! A flight that stays inside keeps seed 002's formulas bit for bit.
//!
//! Plane walls keep seed 002's rule, which may end a contact step below the wall by
//! up to `½ Δt (1 − e) |n·vⁿ|` (the seed's own ball dips 1.2 mm at step 267);
//! [`ParticleSystem::outside`] checks every particle against that allowance.
//!
//! Energies: `E_kin = ½ m |v|²`, `E_pot = −m g·u`, `E_mech = E_kin + E_pot`, the
//! dissipated increment `ΔE_dis` and its running sum `E_dis`,
//! `E_alg = E_mech − (Δt²/8) m |a|²`, `E_total = E_mech + E_dis` (constant up to
//! round-off: the energy balance is exact) and `E_total_alg = E_alg + E_dis`.

mod outside;
mod resolve;

use crate::wall::PlaneWall;
pub use outside::{Outside, GAP_TOLERANCE};

/// Energies of the whole system at one step (J).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Energies {
    /// `Σ ½ m |v|²`.
    pub kinetic: f64,
    /// `Σ −m g·u`.
    pub potential: f64,
    /// `kinetic + potential`.
    pub mechanical: f64,
    /// Energy dissipated by this step's impulses.
    pub dissipated_step: f64,
    /// Energy dissipated since the start.
    pub dissipated: f64,
    /// `mechanical − Σ (Δt²/8) m |a|²`.
    pub algorithmic: f64,
    /// `mechanical + dissipated`.
    pub total: f64,
    /// `algorithmic + dissipated`.
    pub total_algorithmic: f64,
}

/// Particles under gravity that bounce off plane walls with restitution e.
#[derive(Clone, Debug)]
pub struct ParticleSystem {
    /// Spatial dimension (1, 2 or 3).
    pub dim: usize,
    /// Time step Δt (s).
    pub dt: f64,
    /// Restitution coefficient e.
    pub restitution: f64,
    /// Gravity g (m/s²), `dim` components.
    pub gravity: Vec<f64>,
    /// Walls; distances to them are the gaps (already reduced by the radius).
    pub walls: Vec<PlaneWall>,
    /// Implicit walls `W ≥ 0` (seed 004): gap `W`, impacts at their time of impact with
    /// the normal `∇W/|∇W|` at the impact point (see the module docs).
    pub implicit_walls: Vec<crate::implicit::ImplicitWall>,
    /// Masses (kg).
    pub mass: Vec<f64>,
    /// Particles that never move.
    pub fixed: Vec<bool>,
    /// Positions u (m), `particles × dim`.
    pub u: Vec<f64>,
    /// Velocities v (m/s).
    pub v: Vec<f64>,
    /// Accelerations a (m/s²).
    pub a: Vec<f64>,
    /// Velocity jumps w of the last step (m/s).
    pub w: Vec<f64>,
    /// Normal impulse `m (n·w)` of the last step per particle, summed over walls (kg·m/s).
    pub lambda: Vec<f64>,
    /// Whether each particle was in contact in the last step.
    pub contact: Vec<bool>,
    /// Energies after the last step (or of the initial state).
    pub energies: Energies,
    /// Time (s).
    pub time: f64,
    /// How far (m) below a plane wall seed 002's rule may have left each particle in
    /// the last step: its depth below the plane walls before the step plus
    /// `½ Δt (1 − e) |vⁿ| + ½ Δt² |g|` (a contact step moves it `½ Δt (1 − e) n·vⁿ`
    /// along the normal; a free one at most `½ Δt² |n·g|` against the rate), or, after
    /// touching two walls or more, `½ Δt (|vⁿ| + |vⁿ⁺¹|) + ½ Δt² |g|`.
    pub plane_allowance: Vec<f64>,
    /// Implicit-wall impacts of each particle in the last step.
    pub impacts: Vec<u32>,
}

/// Implicit-wall impacts one particle may take in one step. A particle that would take
/// more stays at its last impact point, with the velocity the impact left it, for the
/// rest of the step: that is a ball coming to rest on a wall with `e < 1`, whose ever
/// shorter bounces would never end (the energy bookkeeping stays exact; only the
/// dropped part of the step's flight, a slide along the wall, is lost).
pub const MAX_IMPACTS: u32 = 64;

impl ParticleSystem {
    /// Starts at positions `u0` and velocities `v0` with `a⁰ = g` (zero for fixed particles).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        dim: usize,
        dt: f64,
        restitution: f64,
        gravity: Vec<f64>,
        walls: Vec<PlaneWall>,
        mass: Vec<f64>,
        fixed: Vec<bool>,
        u0: Vec<f64>,
        v0: Vec<f64>,
    ) -> Self {
        let n = mass.len();
        let mut a = Vec::with_capacity(n * dim);
        let mut v = v0;
        for (i, f) in fixed.iter().enumerate() {
            if *f {
                a.extend(std::iter::repeat_n(0.0, dim));
                v[i * dim..(i + 1) * dim].fill(0.0);
            } else {
                a.extend_from_slice(&gravity);
            }
        }
        let mut me = Self {
            dim,
            dt,
            restitution,
            gravity,
            walls,
            implicit_walls: Vec::new(),
            mass,
            fixed,
            u: u0,
            v,
            a,
            w: vec![0.0; n * dim],
            lambda: vec![0.0; n],
            contact: vec![false; n],
            energies: Energies::default(),
            time: 0.0,
            plane_allowance: vec![0.0; n],
            impacts: vec![0; n],
        };
        me.energies = me.energies_with(0.0, 0.0);
        me
    }

    /// Number of particles.
    pub fn len(&self) -> usize {
        self.mass.len()
    }

    /// Whether there are no particles.
    pub fn is_empty(&self) -> bool {
        self.mass.is_empty()
    }

    /// Smallest distance (m) of particle `i` to any wall (`+∞` without walls).
    pub fn gap(&self, i: usize) -> f64 {
        let ui = &self.u[i * self.dim..(i + 1) * self.dim];
        self.walls
            .iter()
            .map(|w| w.distance(ui))
            .chain(self.implicit_walls.iter().map(|w| w.distance(ui)))
            .fold(f64::INFINITY, f64::min)
    }

    fn energies_with(&self, dissipated_step: f64, dissipated: f64) -> Energies {
        let d = self.dim;
        let (mut kinetic, mut potential, mut alg) = (0.0, 0.0, 0.0);
        for i in 0..self.len() {
            let m = self.mass[i];
            let (u, v, a) = (
                &self.u[i * d..(i + 1) * d],
                &self.v[i * d..(i + 1) * d],
                &self.a[i * d..(i + 1) * d],
            );
            kinetic += 0.5 * m * crate::energy::dot(v, v);
            potential -= m * crate::energy::dot(&self.gravity, u);
            alg += self.dt * self.dt * 0.125 * m * crate::energy::dot(a, a);
        }
        let mechanical = kinetic + potential;
        Energies {
            kinetic,
            potential,
            mechanical,
            dissipated_step,
            dissipated,
            algorithmic: mechanical - alg,
            total: mechanical + dissipated,
            total_algorithmic: mechanical - alg + dissipated,
        }
    }

    /// Advances one step Δt.
    pub fn step(&mut self) {
        let (d, dt, e) = (self.dim, self.dt, self.restitution);
        let g_norm = crate::energy::dot(&self.gravity, &self.gravity).sqrt();
        let mut dissipated_step = 0.0;
        let mut ut = [0.0; 3];
        let mut vstar = [0.0; 3];
        let mut vt = [0.0; 3];
        for i in 0..self.len() {
            self.lambda[i] = 0.0;
            self.contact[i] = false;
            self.impacts[i] = 0;
            self.plane_allowance[i] = 0.0;
            let r = i * d..(i + 1) * d;
            if self.fixed[i] {
                self.w[r].fill(0.0);
                continue;
            }
            let (u, v, a) = (&self.u[r.clone()], &self.v[r.clone()], &self.a[r.clone()]);
            for k in 0..d {
                ut[k] = u[k] + dt * v[k] + 0.5 * dt * dt * a[k];
                vstar[k] = v[k] + dt * a[k];
                vt[k] = v[k] + 0.5 * dt * (a[k] + self.gravity[k]);
            }
            let mut vnext = vt;
            let mut plane_contacts = 0;
            for wall in &self.walls {
                let n = &wall.normal;
                let gap = wall.distance(&ut[..d]);
                let rate = crate::energy::dot(n, &vstar[..d]);
                if gap < 0.0 && rate < 0.0 {
                    // Replace the normal component by −e n·vⁿ (exactly, as the seed sets v).
                    let target = -e * crate::energy::dot(n, v);
                    let current = crate::energy::dot(n, &vnext[..d]);
                    for k in 0..d {
                        vnext[k] = vnext[k] - current * n[k] + target * n[k];
                    }
                    self.lambda[i] += self.mass[i] * (target - current);
                    self.contact[i] = true;
                    plane_contacts += 1;
                }
            }
            let mut w = [0.0; 3];
            for k in 0..d {
                w[k] = vnext[k] - vt[k];
            }
            let m = self.mass[i];
            let speed = crate::energy::dot(v, v).sqrt();
            let depth = self
                .walls
                .iter()
                .map(|wall| -wall.distance(u))
                .fold(0.0, f64::max);
            let resolved = self.resolve_implicit(u, v, &w[..d], plane_contacts > 0);
            let (unext, vnext) = match &resolved {
                None => {
                    for k in 0..d {
                        dissipated_step -= m * w[k] * 0.5 * (v[k] + vnext[k]);
                    }
                    let mut unext = [0.0; 3];
                    for k in 0..d {
                        unext[k] = ut[k] + 0.5 * dt * w[k];
                    }
                    (unext, vnext)
                }
                Some(r) => {
                    dissipated_step += m * r.dissipated;
                    self.lambda[i] += m * r.lambda;
                    self.contact[i] = true;
                    self.impacts[i] = r.impacts;
                    for k in 0..d {
                        w[k] = r.v[k] - vt[k];
                    }
                    (r.u, r.v)
                }
            };
            let walls_touched = plane_contacts + resolved.as_ref().map_or(0, |r| r.impacts);
            self.plane_allowance[i] = if self.walls.is_empty() {
                0.0
            } else if walls_touched <= 1 {
                depth + 0.5 * dt * (1.0 - e) * speed + 0.5 * dt * dt * g_norm
            } else {
                let speed_next = crate::energy::dot(&vnext[..d], &vnext[..d]).sqrt();
                depth + 0.5 * dt * (speed + speed_next) + 0.5 * dt * dt * g_norm
            };
            for k in 0..d {
                self.u[i * d + k] = unext[k];
                self.v[i * d + k] = vnext[k];
                self.a[i * d + k] = self.gravity[k];
                self.w[i * d + k] = w[k];
            }
        }
        self.time += dt;
        let dissipated = self.energies.dissipated + dissipated_step;
        self.energies = self.energies_with(dissipated_step, dissipated);
    }
}

/// Seed 002's bouncing ball: mass `m`, gap `u0` (m) above the ground `u = 0`,
/// velocity `v0`, gravity `g` (m/s², pointing down), restitution `e`, step `dt`.
pub fn seed_ball(m: f64, u0: f64, v0: f64, g: f64, e: f64, dt: f64) -> ParticleSystem {
    let ground = PlaneWall {
        origin: vec![0.0],
        normal: vec![1.0],
    };
    ParticleSystem::new(
        1,
        dt,
        e,
        vec![-g],
        vec![ground],
        vec![m],
        vec![false],
        vec![u0],
        vec![v0],
    )
}
