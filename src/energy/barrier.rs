//! Log barrier on the distance `d` (m) of a node to a wall, active for `0 < d < d̂`,
//! weighted by the node's contact area `A` (m in 2D, m² in 3D).
//!
//! Two kinds ([`BarrierKind`]): `book`, seed 003's `A d̂ (κ/2)(s − 1) ln s` with
//! `s = d/d̂`, and `ipc`, the C² barrier `−κ A (d − d̂)² ln(d/d̂)` of seeds 000/001.
//! Functions return the value and its first and second derivatives in `d`; the
//! node gradient is `b'(d) n` and the node Hessian `b''(d) n nᵀ` for a wall with unit
//! normal `n`. Both second derivatives are positive on `(0, d̂)`.

use serde::{Deserialize, Serialize};

/// Which barrier function is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BarrierKind {
    /// Seed 003 / the course code: `A d̂ (κ/2)(s − 1) ln s`, C¹ at `d̂`.
    Book,
    /// IPC (seeds 000/001): `−κ A (d − d̂)² ln(d/d̂)`, C² at `d̂`.
    Ipc,
}

/// Barrier parameters shared by every wall of a scene.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BarrierParams {
    /// Which function.
    pub kind: BarrierKind,
    /// Activation distance d̂ (m).
    pub dhat: f64,
    /// Stiffness κ (N/m² in 2D with area in m; units follow the kind).
    pub kappa: f64,
}

/// Barrier value (J) at distance `d` for contact area `area`; `+∞` for `d ≤ 0`, 0 for `d ≥ d̂`.
#[inline]
pub fn barrier_value(p: &BarrierParams, area: f64, d: f64) -> f64 {
    if d >= p.dhat {
        return 0.0;
    }
    if d <= 0.0 {
        return f64::INFINITY;
    }
    let s = d / p.dhat;
    match p.kind {
        BarrierKind::Book => area * p.dhat * p.kappa / 2.0 * (s - 1.0) * s.ln(),
        BarrierKind::Ipc => -p.kappa * area * (d - p.dhat) * (d - p.dhat) * s.ln(),
    }
}

/// First derivative `db/dd` (N) at distance `d`; 0 outside `(0, d̂)`.
#[inline]
pub fn barrier_gradient(p: &BarrierParams, area: f64, d: f64) -> f64 {
    if d >= p.dhat || d <= 0.0 {
        return 0.0;
    }
    let s = d / p.dhat;
    match p.kind {
        BarrierKind::Book => area * p.dhat * (p.kappa / 2.0 * (s.ln() / p.dhat + (s - 1.0) / d)),
        BarrierKind::Ipc => {
            let e = d - p.dhat;
            -p.kappa * area * (2.0 * e * s.ln() + e * e / d)
        }
    }
}

/// Second derivative `d²b/dd²` (N/m) at distance `d`, clamped at 0; 0 outside `(0, d̂)`.
#[inline]
pub fn barrier_hessian(p: &BarrierParams, area: f64, d: f64) -> f64 {
    if d >= p.dhat || d <= 0.0 {
        return 0.0;
    }
    let h = match p.kind {
        BarrierKind::Book => area * p.kappa * (d + p.dhat) / (2.0 * d * d),
        BarrierKind::Ipc => {
            let r = p.dhat / d;
            -p.kappa * area * (2.0 * (d / p.dhat).ln() + 3.0 - 2.0 * r - r * r)
        }
    };
    h.max(0.0)
}
