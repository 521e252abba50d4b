//! Seed 000's experiment: a particle of mass `m` at height `x` (m) above the ground
//! `x = 0`, falling at `v` (m/s), held off the ground by the IPC barrier
//! [`super::barrier`] alone.
//!
//! The seed adds `κ B(x)` to the incremental potential without the `h²` that every
//! other potential carries (docs/PHYSICS.md). Here that is read as the physical barrier
//! potential `Ψ_B = (κ/h²) B`, so the seed's κ is a stiffness per `h²`:
//!
//! - implicit Euler: `E(x) = ½ m (x − x̂)² + κ B(x)` with `x̂ = xⁿ + h (vⁿ + h g)` and
//!   `vⁿ⁺¹ = (xⁿ⁺¹ − xⁿ)/h`, the seed's cell exactly;
//! - Newmark (β = ¼, γ = ½): `E(x) = ½ m (x − x̂)² + (h²/4)(−m g x) + (κ/4) B(x)` with
//!   `x̂ = xⁿ + h vⁿ + (h²/4) aⁿ`, `aⁿ⁺¹ = (4/h²)(xⁿ⁺¹ − x̂)`,
//!   `vⁿ⁺¹ = vⁿ + (h/2)(aⁿ + aⁿ⁺¹)`, `a⁰ = g − κ B′(x⁰)/(m h²)`: the standard scheme
//!   with the same `Ψ_B`, i.e. `(h²/4) Ψ_B = κB/4` (the seed's own Newmark cell adds
//!   an energy to a position and is not copied).
//!
//! Both minimise with the seed's scalar Newton ([`super::newton`]) started at `xⁿ`.
//! Time advances by repeated addition `t += h` while `t < T (1 − 10⁻⁴)`, which for
//! `T = 10` s is the seed's `while t < 9.999`, so step counts match the seed's too.

use super::barrier;
use super::newton::minimize;
use std::fmt;

/// The time integrator of the study.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Implicit Euler, the seed's variational form.
    Euler,
    /// Newmark β = ¼, γ = ½ (trapezoidal, energy-conserving without contact).
    Newmark,
    /// Implicit Euler with the restitution law asking for `e` (the simulator's own
    /// step: [`super::law`]).
    Law,
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scheme::Euler => "euler",
            Scheme::Newmark => "newmark",
            Scheme::Law => "law",
        })
    }
}

/// The parameters of one run; [`Default`] gives the seed's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParticleParams {
    /// Mass m (kg); seed: 1.
    pub m: f64,
    /// Initial height x₀ (m); seed: 10.
    pub x0: f64,
    /// Initial velocity v₀ (m/s, positive up); seed: −10.
    pub v0: f64,
    /// Gravitational acceleration g (m/s², positive up); seed: 0.
    pub g: f64,
    /// Time step h (s); seed: 10⁻³.
    pub h: f64,
    /// Barrier activation distance d̂ (m); seed: 10⁻³.
    pub dhat: f64,
    /// Barrier stiffness κ as the seed writes it (J/m², added without h²); seed: 100.
    pub kappa: f64,
    /// Newton tolerance on `|Δx|/h` (m/s); seed: 10⁻⁵.
    pub tol: f64,
    /// Simulated time T (s); seed: 10.
    pub duration: f64,
    /// Time integrator.
    pub scheme: Scheme,
    /// The coefficient of restitution the law asks for (`Scheme::Law` only).
    pub e: f64,
}

impl Default for ParticleParams {
    fn default() -> Self {
        Self {
            m: 1.0,
            x0: 10.0,
            v0: -10.0,
            g: 0.0,
            h: 1e-3,
            dhat: 1e-3,
            kappa: 100.0,
            tol: 1e-5,
            duration: 10.0,
            scheme: Scheme::Euler,
            e: 0.5,
        }
    }
}

/// Most steps one run may take (keeps a mistyped `h` from filling the disk).
pub const MAX_STEPS: f64 = 1e8;

impl ParticleParams {
    /// Checks every parameter; the error names the parameter and the value.
    pub fn validate(&self) -> Result<(), String> {
        let positive = [
            ("m", self.m),
            ("x0", self.x0),
            ("h", self.h),
            ("dhat", self.dhat),
            ("kappa", self.kappa),
            ("tol", self.tol),
            ("duration", self.duration),
        ];
        for (name, v) in positive {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("{name} must be a positive finite number, got {v}"));
            }
        }
        if !(0.0..=1.0).contains(&self.e) {
            return Err(format!(
                "restitution (e) must be between 0 and 1, got {}",
                self.e
            ));
        }
        for (name, v) in [("v0", self.v0), ("g", self.g)] {
            if !v.is_finite() {
                return Err(format!("{name} must be a finite number, got {v}"));
            }
        }
        if self.dhat > self.x0 {
            return Err(format!(
                "dhat must be at most x0 (dhat = {} m, x0 = {} m): the particle would start inside the barrier zone, where no impact speed and no COR can be measured",
                self.dhat, self.x0
            ));
        }
        if self.duration / self.h > MAX_STEPS {
            return Err(format!(
                "duration / h = {:e} steps is more than the {MAX_STEPS:e} a run may take",
                self.duration / self.h
            ));
        }
        Ok(())
    }
}

impl ParticleParams {
    /// When (s) the particle would reach the barrier zone `x = d̂` in free flight
    /// `x(t) = x₀ + v₀ t + ½ g t²`; `None` when it never does (it moves away from the
    /// ground, or gravity turns it back first). 0 when it starts there.
    pub fn free_flight_arrival(&self) -> Option<f64> {
        // ½ g t² + v₀ t + (x₀ − d̂) = 0, smallest root t ≥ 0 (written to avoid cancellation)
        let (a, b, c) = (0.5 * self.g, self.v0, self.x0 - self.dhat);
        if c <= 0.0 {
            return Some(0.0);
        }
        if a == 0.0 {
            return (b < 0.0).then(|| c / -b);
        }
        let disc = b * b - 4.0 * a * c;
        if disc < 0.0 {
            return None;
        }
        let q = -0.5 * (b + b.signum() * disc.sqrt());
        [q / a, c / q]
            .into_iter()
            .filter(|t| t.is_finite() && *t >= 0.0)
            .min_by(f64::total_cmp)
    }

    /// Checks that the particle reaches the barrier zone within the run, so that the
    /// study has a contact to measure; the error names the parameter to change.
    pub fn check_reaches_ground(&self) -> Result<(), String> {
        match self.free_flight_arrival() {
            None => Err(format!(
                "v0 {} m/s never brings the particle down to the barrier zone (x0 = {} m, g = {} m/s², dhat = {} m): there is no contact to measure; give a negative v0 or g",
                self.v0, self.x0, self.g, self.dhat
            )),
            Some(t) if t > self.duration => Err(format!(
                "duration {} s ends before the contact: in free flight from x0 = {} m at v0 = {} m/s (g = {} m/s²) the particle reaches x = dhat = {} m only at t = {} s",
                self.duration,
                self.x0,
                self.v0,
                self.g,
                self.dhat,
                crate::plot::axis::fmt_g(t)
            )),
            Some(_) => Ok(()),
        }
    }
}

/// A simulated trajectory: entry 0 is the initial state, entry k the state after step k.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trajectory {
    /// Times (s).
    pub t: Vec<f64>,
    /// Heights (m).
    pub x: Vec<f64>,
    /// Velocities (m/s).
    pub v: Vec<f64>,
    /// Newton updates taken in each step (0 for the initial state).
    pub newton_iterations: Vec<u32>,
    /// Steps whose line search halved α to zero.
    pub line_search_failures: u32,
}

/// Runs the experiment with `p` (validated first).
pub fn simulate(p: &ParticleParams) -> Result<Trajectory, String> {
    p.validate()?;
    if p.scheme == Scheme::Law {
        return Err("the restitution law's runs are restitution::law::simulate's".into());
    }
    let (m, h, g, dhat, kappa) = (p.m, p.h, p.g, p.dhat, p.kappa);
    let mut tr = Trajectory::default();
    let (mut x, mut v) = (p.x0, p.v0);
    let mut a = g - kappa * barrier::gradient(x, dhat) / (m * h * h);
    let mut t = 0.0;
    tr.t.push(t);
    tr.x.push(x);
    tr.v.push(v);
    tr.newton_iterations.push(0);
    let end = p.duration * (1.0 - 1e-4);
    while t < end {
        let r = match p.scheme {
            Scheme::Euler => {
                let xhat = x + h * (v + h * g);
                minimize(
                    |y| 0.5 * m * (y - xhat) * (y - xhat) + kappa * barrier::value(y, dhat),
                    |y| m * (y - xhat) + kappa * barrier::gradient(y, dhat),
                    |y| m + kappa * barrier::hessian(y, dhat),
                    x,
                    h,
                    p.tol,
                )
            }
            Scheme::Law => unreachable!("refused above"),
            Scheme::Newmark => {
                let xhat = x + h * v + 0.25 * h * h * a;
                let (c, w) = (0.25 * h * h, 0.25 * kappa);
                minimize(
                    |y| {
                        0.5 * m * (y - xhat) * (y - xhat) - c * m * g * y
                            + w * barrier::value(y, dhat)
                    },
                    |y| m * (y - xhat) - c * m * g + w * barrier::gradient(y, dhat),
                    |y| m + w * barrier::hessian(y, dhat),
                    x,
                    h,
                    p.tol,
                )
            }
        };
        match p.scheme {
            Scheme::Euler | Scheme::Law => v = (r.x - x) / h,
            Scheme::Newmark => {
                let xhat = x + h * v + 0.25 * h * h * a;
                let a_new = 4.0 / (h * h) * (r.x - xhat);
                v += 0.5 * h * (a + a_new);
                a = a_new;
            }
        }
        x = r.x;
        t += h;
        if !(x.is_finite() && v.is_finite()) {
            return Err(format!(
                "the state is not finite at t = {t} s (x = {x}, v = {v})"
            ));
        }
        tr.t.push(t);
        tr.x.push(x);
        tr.v.push(v);
        tr.newton_iterations.push(r.iterations);
        tr.line_search_failures += u32::from(r.line_search_failed);
    }
    Ok(tr)
}
