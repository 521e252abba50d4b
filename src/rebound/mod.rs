//! The restitution law of barrier contact (`contact.restitution = e`): IPC's
//! implicit-Euler step unchanged, then a velocity correction at the contacts that
//! rebound, so that each leaves with `−e` times the normal velocity it came in with.
//! Positions are never touched, so the barrier and CCD keep their promise: nothing
//! passes through anything (docs/PHYSICS.md, "Restitution").
//!
//! Each contact (a node against a wall, a pair of primitives: [`contacts`]) is
//! followed through an event:
//! - it **starts** when the contact is within d̂ at a step's end and its normal
//!   velocity at the step's start, `ḋ_in = ∇d · vⁿ`, was below `−min_speed`
//!   (slower contacts are resting and get no bounce). Its impact speed is taken at
//!   the barrier's edge d̂ by free flight under gravity from the step's start,
//!   `ḋ_c² = ḋ_in² + 2 a (d̂ − d_in)` with `a = ∇d · g`, so that the step's size does
//!   not decide at which height the speed is read;
//! - it **turns** at the first step's end with `ḋ ≥ 0`;
//! - from then on, at every step's end while it is within d̂ its normal velocity is
//!   set to `e |ḋ_c|`, and at the step that takes it out (at distance d ≥ d̂) to the
//!   free-flight speed from `e |ḋ_c|` at d̂, `√(e² ḋ_c² + 2 a (d − d̂))`: the impulses
//!   along ∇d that do so act through the step's elastic Newton matrix ([`impulse`]),
//!   all the contacts corrected at one step together;
//! - it **ends** at the step that leaves d̂ (or, if it never turned, when it leaves).
//!
//! No correction raises the total energy (kinetic, gravity, elastic, barrier) above
//! what it was when the latest of its events started, nor above what it is: the
//! correction is scaled down where it would.

pub mod contacts;
pub mod impulse;
pub mod rigid;

use crate::collision::pairs::Pair;
use crate::model::{Model, RestitutionParams};
use contacts::{Contact, Key};
use std::collections::BTreeMap;

/// A normal rate `rate` (m/s) at distance `from` (m) carried by free flight under
/// normal gravity `a` (m/s²) to distance `to`: `√(rate² + 2a(to − from))` with the
/// sign of `rate` (0 where the flight would not get there).
pub fn free_flight(rate: f64, a: f64, from: f64, to: f64) -> f64 {
    (rate * rate + 2.0 * a * (to - from))
        .max(0.0)
        .sqrt()
        .copysign(rate)
}

/// One contact followed through its bounce.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Event {
    /// Normal velocity it came in with at the barrier's edge d̂ (m/s, negative).
    rate_in: f64,
    /// Total energy at the start of the step it came in (J).
    energy_in: f64,
    /// Whether it has turned (its normal velocity reached 0).
    turned: bool,
}

/// What the law did at one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Correction {
    /// Contacts whose normal velocity was set.
    pub contacts: u32,
    /// Kinetic energy the correction changed (J; negative where it took energy out).
    pub work: f64,
}

/// The law's state over a run: the events under way, the last step's velocities.
pub struct Rebound {
    model: Model,
    params: RestitutionParams,
    excluded: Vec<Pair>,
    bodies: rigid::Bodies,
    events: BTreeMap<Key, Event>,
    /// Positions (m) and velocities (m/s) at the current step's start.
    x_start: Vec<f64>,
    v_start: Vec<f64>,
    /// Total energy at the current step's start (J).
    energy_start: f64,
}

impl Rebound {
    /// The law of `model` from its initial state with total energy `energy` (J);
    /// `None` where the model has none.
    pub fn new(model: &Model, energy: f64) -> Option<Self> {
        let params = model.restitution.clone()?;
        Some(Self {
            excluded: model.rest_exclusions(),
            bodies: rigid::Bodies::new(model),
            model: model.clone(),
            params,
            events: BTreeMap::new(),
            x_start: model.x0.clone(),
            v_start: model.v0.clone(),
            energy_start: energy,
        })
    }

    /// Starts again from positions `x` (m), velocities `v` (m/s) and total energy
    /// `energy` (J), as from an initial state: no event under way.
    pub fn restart(&mut self, x: &[f64], v: &[f64], energy: f64) {
        self.events.clear();
        self.x_start.copy_from_slice(x);
        self.v_start.copy_from_slice(v);
        self.energy_start = energy;
    }

    /// Corrects the velocities `v` (m/s) at the end of a step that ended at positions
    /// `x` (m) with total energy `energy` (J).
    pub fn after_step(&mut self, x: &[f64], v: &mut [f64], energy: f64) -> Correction {
        self.start_events(x);
        let out = match self.events.is_empty() {
            true => Correction::default(),
            false => self.follow(x, v, energy),
        };
        self.x_start.copy_from_slice(x);
        self.v_start.copy_from_slice(v);
        self.energy_start = energy + out.work;
        out
    }

    /// ḋ (m/s) of `c` for node velocities `v` whose rigid part is `rigid`: the rigid
    /// part's, except between two parts of one body, where the nodes' own.
    fn rate(&self, c: &Contact, v: &[f64], rigid: &[f64]) -> f64 {
        let within = matches!(c.key, Key::Pair(_))
            && self.bodies.of(c.nodes[0]) == self.bodies.of(c.nodes[c.k - 1]);
        c.rate(if within { v } else { rigid }, self.model.dim)
    }

    /// Starts an event for each contact within d̂ at `x` that is not followed yet and
    /// came in faster than `min_speed`, with its impact speed at d̂.
    fn start_events(&mut self, x: &[f64]) {
        let (dim, dhat) = (self.model.dim, self.model.barrier.dhat);
        let mut rigid = None;
        for c in contacts::near(&self.model, &self.params, &self.excluded, x) {
            if self.events.contains_key(&c.key) {
                continue;
            }
            let rigid = rigid.get_or_insert_with(|| {
                self.bodies.rigid(&self.model, &self.x_start, &self.v_start)
            });
            let before = contacts::at(&self.model, &self.params, c.key, &self.x_start);
            let b = before.unwrap_or(c);
            let rate = self.rate(&b, &self.v_start, rigid);
            if rate < -self.params.min_speed {
                let a = c.gravity_rate(&self.model.gravity, dim);
                let ev = Event {
                    rate_in: free_flight(rate, a, b.d, dhat),
                    energy_in: self.energy_start,
                    turned: false,
                };
                self.events.insert(c.key, ev);
            }
        }
    }

    /// Takes every event one step on: which have turned, which leave, and the
    /// correction of those that have turned.
    fn follow(&mut self, x: &[f64], v: &mut [f64], energy: f64) -> Correction {
        let (dim, dhat) = (self.model.dim, self.model.barrier.dhat);
        let rigid = self.bodies.rigid(&self.model, x, v);
        let (mut set, mut targets, mut bound) = (Vec::new(), Vec::new(), f64::INFINITY);
        let mut done = Vec::new();
        for (&key, ev) in self.events.iter() {
            let Some(c) = contacts::at(&self.model, &self.params, key, x) else {
                done.push(key);
                continue;
            };
            let inside = c.d < dhat;
            let turned = ev.turned || self.rate(&c, v, &rigid) >= 0.0;
            if turned {
                let edge = c.e * ev.rate_in;
                let a = c.gravity_rate(&self.model.gravity, dim);
                targets.push(match inside {
                    true => -edge,
                    false => free_flight(-edge, a, dhat, c.d),
                });
                bound = bound.min(ev.energy_in);
                set.push(c);
            }
            if !inside {
                done.push(key);
            }
        }
        for c in &set {
            if let Some(ev) = self.events.get_mut(&c.key) {
                ev.turned = true;
            }
        }
        for key in done {
            self.events.remove(&key);
        }
        if set.is_empty() {
            return Correction::default();
        }
        self.correct(x, v, (&set, &targets), (&rigid, energy, bound))
    }

    /// Sets the normal velocities of `set` to `targets` within the energy bound.
    fn correct(
        &self,
        x: &[f64],
        v: &mut [f64],
        (set, targets): (&[Contact], &[f64]),
        (rigid, energy, bound): (&[f64], f64, f64),
    ) -> Correction {
        let dim = self.model.dim;
        let responses = impulse::Responses::new(&self.model, x, set, |y, g| {
            self.bodies.with_rigid_response(&self.model, x, y, g)
        });
        let k = set.len();
        let mut a = vec![0.0; k * k];
        for (col, y) in responses.columns().enumerate() {
            let ry = self.bodies.rigid(&self.model, x, y);
            for (r, c) in set.iter().enumerate() {
                a[r * k + col] = self.rate(c, y, &ry);
            }
        }
        let b: Vec<f64> = set
            .iter()
            .zip(targets)
            .map(|(c, t)| t - self.rate(c, v, rigid))
            .collect();
        let j = impulse::least_squares(&a, &b);
        let dv = responses.combine(&j);
        // Kinetic energy along v + s Δv: K(s) = K₀ + s p + s² q.
        let (mut p, mut q) = (0.0, 0.0);
        for (i, m) in self.model.mass.iter().enumerate() {
            for c in 0..dim {
                let (vi, di) = (v[i * dim + c], dv[i * dim + c]);
                p += m * vi * di;
                q += 0.5 * m * di * di;
            }
        }
        let room = bound.max(energy) - energy;
        let mut s = 1.0;
        if p + q > room {
            // The largest s in [0, 1] with s p + s² q ≤ room (q ≥ 0; room ≥ 0).
            s = if q > 0.0 {
                ((-p + (p * p + 4.0 * q * room).max(0.0).sqrt()) / (2.0 * q)).clamp(0.0, 1.0)
            } else if p > 0.0 {
                (room / p).clamp(0.0, 1.0)
            } else {
                1.0
            };
        }
        for (vi, di) in v.iter_mut().zip(&dv) {
            *vi += s * di;
        }
        Correction {
            contacts: set.len() as u32,
            work: s * p + s * s * q,
        }
    }
}
