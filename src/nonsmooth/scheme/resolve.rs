//! Resolving one particle's step through the implicit walls: free flight with every
//! exit turned into an impact at its time (see the parent module's docs).

use super::{ParticleSystem, MAX_IMPACTS};
use crate::nonsmooth::impact::{first_exit, Flight};

/// What one step did to one particle in the implicit walls.
pub(super) struct Resolved {
    /// Position at the end of the step (m).
    pub(super) u: [f64; 3],
    /// Velocity at the end of the step (m/s).
    pub(super) v: [f64; 3],
    /// Kinetic energy the impacts (and the plane walls' jump) removed (J).
    pub(super) dissipated: f64,
    /// Normal impulse of the implicit-wall impacts (kg·m/s).
    pub(super) lambda: f64,
    /// Impacts taken.
    pub(super) impacts: u32,
}

impl ParticleSystem {
    /// The step of a particle at `u` moving at `v` through the implicit walls: free
    /// flight for Δt under gravity with the plane walls' jump `w` applied at mid-step
    /// (when `kick`), and every exit from an implicit wall turned into an impact at its
    /// time (see the module docs). `None` when the flight has no impact, so that the
    /// caller keeps seed 002's formulas. The returned energy and impulse are per unit mass.
    pub(super) fn resolve_implicit(
        &self,
        u: &[f64],
        v: &[f64],
        w: &[f64],
        kick: bool,
    ) -> Option<Resolved> {
        if self.implicit_walls.is_empty() {
            return None;
        }
        let (d, dt, e) = (self.dim, self.dt, self.restitution);
        let mut g = [0.0; 3];
        g[..d].copy_from_slice(&self.gravity);
        let mut x = [0.0; 3];
        x[..d].copy_from_slice(u);
        let mut vel = [0.0; 3];
        vel[..d].copy_from_slice(v);
        let kinetic = |v: &[f64; 3]| 0.5 * crate::energy::dot(&v[..d], &v[..d]);
        let mut out = Resolved {
            u: x,
            v: vel,
            dissipated: 0.0,
            lambda: 0.0,
            impacts: 0,
        };
        let mut t = 0.0;
        let mut kick_pending = kick;
        loop {
            let stop = if kick_pending { 0.5 * dt } else { dt };
            let span = stop - t;
            // A particle already outside a wall and moving out of it is turned at once;
            // every other wall is searched along the flight.
            let mut hit: Option<(f64, usize)> = None;
            for (j, wall) in self.implicit_walls.iter().enumerate() {
                let s = if wall.distance(&x[..d]) >= 0.0 {
                    let flight = Flight {
                        dim: d,
                        x,
                        v: vel,
                        g,
                    };
                    match first_exit(wall, &flight, span) {
                        Some(s) => s,
                        None => continue,
                    }
                } else if crate::energy::dot(&wall.normal(&x[..d])[..d], &vel[..d]) < 0.0 {
                    0.0
                } else {
                    continue;
                };
                if hit.is_none_or(|(best, _)| s < best) {
                    hit = Some((s, j));
                }
            }
            let flight = Flight {
                dim: d,
                x,
                v: vel,
                g,
            };
            match hit {
                Some((s, j)) => {
                    if out.impacts >= MAX_IMPACTS {
                        break;
                    }
                    x = flight.at(s);
                    vel = flight.velocity(s);
                    t += s;
                    let mut n = self.implicit_walls[j].normal(&x[..d]);
                    let mut vn = crate::energy::dot(&n[..d], &vel[..d]);
                    if vn >= 0.0 {
                        // No usable normal (a cusp, or a graze the normal does not see):
                        // send the particle back the way it came.
                        let speed = crate::energy::dot(&vel[..d], &vel[..d]).sqrt();
                        if speed == 0.0 {
                            break;
                        }
                        n = [-vel[0] / speed, -vel[1] / speed, -vel[2] / speed];
                        vn = -speed;
                    }
                    let before = kinetic(&vel);
                    for k in 0..d {
                        vel[k] -= (1.0 + e) * vn * n[k];
                    }
                    out.dissipated += before - kinetic(&vel);
                    out.lambda += -(1.0 + e) * vn;
                    out.impacts += 1;
                }
                None => {
                    x = flight.at(span);
                    vel = flight.velocity(span);
                    t = stop;
                    if !kick_pending {
                        break;
                    }
                    kick_pending = false;
                    let before = kinetic(&vel);
                    for k in 0..d {
                        vel[k] += w[k];
                    }
                    out.dissipated += before - kinetic(&vel);
                }
            }
        }
        if out.impacts == 0 {
            return None;
        }
        out.u = x;
        out.v = vel;
        Some(out)
    }
}
