//! Contact between and within bodies (IPC self-contact), backend-independent parts:
//! the collision mesh ([`mesh`]), the distance primitives with their case
//! selection and derivatives ([`distance`]), the barrier of one pair ([`barrier`]),
//! continuous collision detection ([`ccd`]), the broad phase ([`broad_phase`]),
//! the pair lists ([`pairs`]), the bounds that skip far pairs ([`near`]), the
//! operator's pair blocks ([`blocks`]), and an exact intersection checker
//! ([`intersect`], [`check`]).
//!
//! 2D bodies meet by point–edge pairs; 3D bodies by point–triangle and edge–edge
//! pairs. Every list is a flat array of indices, sorted, so the GPU twin can upload
//! it as is. The CPU backend's use of it is `backend::cpu::self_contact`.

pub mod barrier;
pub mod blocks;
pub mod broad_phase;
pub mod ccd;
pub mod check;
pub mod distance;
pub mod intersect;
pub mod mesh;
pub mod near;
pub mod pairs;
pub mod psd;

pub use blocks::PairBlocks;
pub use ccd::PairKind;
pub use mesh::{BodyShape, Collide, CollisionMesh};
pub use pairs::Pair;

use serde::Serialize;

/// Self-contact settings of a scene (`[contact]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SelfContactParams {
    /// Whether bodies collide with each other and themselves (`contact.self_contact`).
    pub enabled: bool,
    /// Friction coefficient μ of contacts between primitives (`contact.self_friction`,
    /// dimensionless); 0: frictionless.
    pub friction: f64,
}

impl Default for SelfContactParams {
    /// On, frictionless.
    fn default() -> Self {
        Self {
            enabled: true,
            friction: 0.0,
        }
    }
}

/// Pairs of one body closer than `REST_EXCLUSION × d̂` in the initial state are mesh
/// neighbours below the contact scale (the boundary of a grid whose cells are
/// narrower than d̂, say) and never form contacts: a barrier would push them apart at
/// rest. Those farther apart are watched like any pair, since their barrier is off at
/// rest. It was 2: then `square_64`'s boundary nodes one cell (1.56 d̂) apart were
/// excluded, and its fold on impact let one such node pass through its neighbouring
/// edge (found by the intersection checker at step 44 with the direct solver).
/// Excluded pairs are not protected: a mesh finer than d̂ can fold through itself at
/// the scale of its cells (docs/PHYSICS.md).
pub const REST_EXCLUSION: f64 = 1.0;

/// The closest-point coefficients β of a pair from its stacked coordinates `s`:
/// `Σ β_l s_l` is the contact vector (from the second primitive's closest point to
/// the first's).
pub fn closest_coefficients(kind: PairKind, dim: usize, s: &[f64]) -> [f64; 4] {
    match kind {
        PairKind::PointEdge => {
            let b = distance::point_edge_coefficients(&s[..3 * dim], dim);
            [b[0], b[1], b[2], 0.0]
        }
        PairKind::PointTriangle => distance::point_triangle_coefficients(&s[..12]),
        PairKind::EdgeEdge => distance::edge_edge_coefficients(&s[..12]),
    }
}
