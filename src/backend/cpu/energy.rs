//! Energies; CPU twin of `shaders/kernels/energy.wgsl` (energy_total and
//! energy_change): the incremental potential E (friction included), the spring
//! energy, the line search's change E(x + α p) − E(x) and the diagnostics.
//! The GPU sums the change per element; the CPU evaluates E at the trial point.

use super::CpuBackend;
use crate::backend::Diagnostics;
use crate::contact;
use crate::energy::friction::friction_value;
use crate::energy::gravity::gravity_value;
use crate::energy::inertia::inertia_value;
use crate::energy::spring::spring_value;
use crate::parallel;
use crate::potential::{diff, MAX_DIM};

impl CpuBackend {
    /// Incremental potential E(y) (J) with the current prediction.
    pub fn incremental_potential(&self, y: &[f64]) -> f64 {
        let m = &self.model;
        let dim = m.dim;
        let weight = self.potential_weight;
        let nodes = parallel::sum(m.num_nodes(), |i| {
            let yi = &y[i * dim..(i + 1) * dim];
            let mut pot = gravity_value(m.mass[i], &m.gravity, yi);
            for b in contact::barrier_values(m, i, yi) {
                pot += b;
            }
            self.for_each_friction(i, yi, |mu, lam, n, dx| {
                pot += friction_value(mu, lam, self.friction_eps, n, dx)
            });
            inertia_value(m.mass[i], yi, &self.x_pred[i * dim..(i + 1) * dim]) + weight * pot
        });
        nodes + weight * (self.spring_energy(y) + self.self_contact_energy(y))
    }

    /// The springs' elastic energy Ψ_springs(y) (J).
    pub(super) fn spring_energy(&self, y: &[f64]) -> f64 {
        let dim = self.model.dim;
        let springs = &self.model.springs;
        parallel::sum(springs.len(), |s| {
            let sp = &springs[s];
            let mut d = [0.0; MAX_DIM];
            diff(y, sp.a, sp.b, dim, &mut d);
            spring_value(&d[..dim], sp.rest_length_sq, sp.stiffness)
        })
    }

    /// `E(x + α p) − E(x)` (J), with `E(x)` from the last [`NewtonSystem::energy`].
    ///
    /// [`NewtonSystem::energy`]: crate::newton::NewtonSystem::energy
    pub(super) fn energy_change_at(&mut self, alpha: f64) -> f64 {
        if !self.contact.swept {
            self.sweep_pairs();
        }
        let mut trial = std::mem::take(&mut self.trial);
        let (x, p) = (&self.x, &self.p);
        parallel::for_each_piece(&mut trial, 1, |i, t| t[0] = x[i] + alpha * p[i]);
        let e = self.incremental_potential(&trial);
        self.trial = trial;
        e - self.current_energy
    }

    /// The energies and wall distances of the current state (twin of energy_total's
    /// diagnostic lanes) and the friction statistics of the last step.
    pub(super) fn energy_diagnostics(&mut self) -> Diagnostics {
        let (contact_pairs, min_pair_distance) = self.self_contact_stats();
        let m = &self.model;
        let dim = m.dim;
        let (x, v) = (&self.x, &self.v);
        let node = |i: usize| &x[i * dim..(i + 1) * dim];
        let (sticking, sliding, dissipation) = self.friction_stats();
        Diagnostics {
            sticking,
            sliding,
            dissipation,
            kinetic: parallel::sum(m.num_nodes(), |i| {
                inertia_value(
                    m.mass[i],
                    &v[i * dim..(i + 1) * dim],
                    &[0.0; MAX_DIM][..dim],
                )
            }),
            gravity: parallel::sum(m.num_nodes(), |i| {
                gravity_value(m.mass[i], &m.gravity, node(i))
            }),
            elastic: self.spring_energy(x),
            barrier: parallel::sum(m.num_nodes(), |i| contact::barrier_value(m, i, node(i)))
                + self.self_contact_barrier(x),
            contact_pairs,
            min_pair_distance,
            min_wall_distance: parallel::min(m.num_nodes(), |i| contact::min_distance(m, node(i))),
        }
    }
}
