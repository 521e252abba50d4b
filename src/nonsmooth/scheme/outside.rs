//! Checking that particles ended a step inside their walls.

use super::ParticleSystem;

/// How far (m) outside a wall, beyond what its rule allows, a particle may end a step
/// before [`ParticleSystem::outside`] reports it (round-off of the impact search).
pub const GAP_TOLERANCE: f64 = 1e-9;

/// A particle found outside a wall by [`ParticleSystem::outside`].
#[derive(Clone, Debug, PartialEq)]
pub struct Outside {
    /// The wall, in words.
    pub wall: String,
    /// The particle's gap to it (m, negative).
    pub gap: f64,
    /// How far outside the contact rule allowed it to be (m).
    pub allowed: f64,
}

impl ParticleSystem {
    /// The wall particle `i` lies furthest outside of, beyond what the contact rule
    /// allows (`plane_allowance` for plane walls, nothing for implicit walls, plus
    /// [`GAP_TOLERANCE`]); `None` when it is inside every wall that far. Fixed
    /// particles are never reported.
    pub fn outside(&self, i: usize) -> Option<Outside> {
        if self.fixed[i] {
            return None;
        }
        let ui = &self.u[i * self.dim..(i + 1) * self.dim];
        let planes = self.walls.iter().enumerate().map(|(k, w)| {
            (
                format!("plane wall {k} (normal {:?})", w.normal),
                w.distance(ui),
                self.plane_allowance[i],
            )
        });
        let implicit = self
            .implicit_walls
            .iter()
            .map(|w| (format!("implicit wall `{}`", w.label), w.distance(ui), 0.0));
        planes
            .chain(implicit)
            // NaN gaps count as outside.
            .filter(|(_, gap, allowed)| gap.is_nan() || *gap < -(allowed + GAP_TOLERANCE))
            .map(|(wall, gap, allowed)| Outside { wall, gap, allowed })
            .min_by(|a, b| (a.gap + a.allowed).total_cmp(&(b.gap + b.allowed)))
    }
}
