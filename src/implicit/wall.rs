//! Implicit walls `W(x) ≥ 0` in the model: the barrier on the distance measure and the
//! CCD step bound, the CPU twins of `shaders/implicit/wall.wgsl`.
//!
//! **Distance measure.** `d = W(x)` (m), with `W` already moved inwards by a particle
//! radius (`W − r`). Built-in shapes have `|∇W| = 1` on their faces, so `d` is the
//! distance there; where `|∇W| < 1` (the sextic's cusps, the diamond's corners seen
//! along a diagonal) `d` underestimates the distance and the barrier acts earlier.
//! `d` needs no normalisation by `|∇W|`, which vanishes at cusps, and its Hessian
//! needs only second derivatives of `W`.
//!
//! **Barrier.** `b(d)` is the plane walls' barrier ([`crate::energy::barrier`]);
//! gradient `b′(d) ∇W`; exact Hessian `b″(d) ∇W ∇Wᵀ + b′(d) ∇²W`. Newton uses the
//! Gauss–Newton part `b″(d) ∇W ∇Wᵀ`, which is PSD because `b″ ≥ 0` (the term
//! `b′ ∇²W` is dropped: `b′ < 0`, so it is PSD only where `W` is concave). Both
//! backends use the same form; the exact one is checked by finite differences.
//!
//! **CCD bound.** [`implicit_ccd_bound`] returns α ∈ [0, 1] such that every point of
//! the segment `x + t p`, `0 ≤ t ≤ α`, has `W ≥ (1 − 0.9) W(x) > 0` (0.9 the plane
//! walls' [`CCD_SAFETY`]): the interval evaluation of `W` over the box spanned by the
//! segment ([`super::interval`]) contains every value on it, and α is accepted
//! when its lower end is at least `0.1 W(x)`, or when the mean-value form
//! `W(x) + α min(0, D)` is, `D` the range of the derivative `d/dt W(x + t p)` over
//! the same box ([`super::interval::slope`]). The second test is what holds near a
//! wall: there `W` is a small difference of large numbers (`R − |x|` at `|x| ≈ R`),
//! whose interval carries their rounding (in f32 it is wider than `0.9 W` within
//! millimetres of a 15 m circle, so the first test alone halves α to 0 and freezes
//! the scene), while `D` has no such cancellation. α starts at 1 and is halved until
//! accepted (at most [`CCD_HALVINGS`] times, else 0), then refined by
//! [`CCD_REFINE`] bisections between the accepted α and the rejected 2α. Nothing
//! in this needs `W` to be differentiable, so corners and cusps are covered.

use super::dual::{eval_dual, Dual};
use super::expr::eval;
use super::expr::Expr;
use super::frame::Frame;
use super::interval::eval_interval;
use super::interval::slope::eval_slope;
use crate::energy::barrier::{barrier_gradient, barrier_hessian, barrier_value, BarrierParams};
use crate::wall::CCD_SAFETY;

/// Halvings of α before the CCD bound gives up and returns 0.
pub const CCD_HALVINGS: u32 = 40;
/// Bisection steps refining an accepted α towards the rejected 2α.
pub const CCD_REFINE: u32 = 4;

/// A wall `W(x) ≥ 0`: `expr` is `W` with the inside positive and the particles'
/// radius already subtracted (m).
#[derive(Clone, Debug, PartialEq)]
pub struct ImplicitWall {
    /// `W` (m); the allowed side is `W > 0`.
    pub expr: Expr,
    /// What the wall is, in words (the shape and its sizes, or the expression).
    pub label: String,
    /// Where a moving wall stands now ([`Frame`]); `None` where the scene put it.
    pub frame: Option<Frame>,
}

impl ImplicitWall {
    /// The distance measure `d = W(x)` (m).
    pub fn distance(&self, x: &[f64]) -> f64 {
        match &self.frame {
            None => eval(&self.expr, x),
            Some(f) => eval(&self.expr, &f.to_wall(x)[..x.len()]),
        }
    }

    /// `W`, `∇W` and `∇²W` at `x` (world coordinates).
    pub fn dual(&self, x: &[f64]) -> Dual {
        match &self.frame {
            None => eval_dual(&self.expr, x),
            Some(f) => {
                let d = eval_dual(&self.expr, &f.to_wall(x)[..x.len()]);
                Dual {
                    v: d.v,
                    g: f.to_world(&d.g, x.len()),
                    h: f.hessian_to_world(&d.h, x.len()),
                }
            }
        }
    }

    /// The unit normal `∇W/|∇W|` at `x` (into the allowed side); zero where `∇W = 0`.
    pub fn normal(&self, x: &[f64]) -> [f64; 3] {
        let g = self.dual(x).g;
        let n = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
        if n > 0.0 && n.is_finite() {
            [g[0] / n, g[1] / n, g[2] / n]
        } else {
            [0.0; 3]
        }
    }

    /// The CCD step bound along `p` from `x` (see the module docs).
    pub fn ccd_bound(&self, x: &[f64], p: &[f64]) -> f64 {
        match &self.frame {
            None => implicit_ccd_bound(&self.expr, x, p),
            Some(f) => {
                let d = x.len();
                implicit_ccd_bound(&self.expr, &f.to_wall(x)[..d], &f.dir_to_wall(p)[..d])
            }
        }
    }

    /// Whether a node going from `x0` with the wall at `from` to `x1` with the wall
    /// at `to` keeps `W ≥ 0.1 W(start)` on the straight path between the two points as
    /// the wall sees them (the drive stage's test of a moving wall; m).
    pub fn path_clear(&self, from: &Frame, x0: &[f64], to: &Frame, x1: &[f64]) -> bool {
        let d = x0.len();
        let (y0, y1) = (from.to_wall(x0), to.to_wall(x1));
        let p: Vec<f64> = (0..d).map(|k| y1[k] - y0[k]).collect();
        implicit_ccd_bound(&self.expr, &y0[..d], &p) >= 1.0
    }
}

/// Whether every point of `x + t p`, `0 ≤ t ≤ alpha`, has `W ≥ floor`, by the
/// interval of `W` over the segment's box or by the mean-value form from `w0 = W(x)`.
fn segment_clear(e: &Expr, x: &[f64], p: &[f64], alpha: f64, w0: f64, floor: f64) -> bool {
    let mut lo = [0.0; 3];
    let mut hi = [0.0; 3];
    for k in 0..x.len().min(3) {
        let end = x[k] + alpha * p[k];
        lo[k] = x[k].min(end);
        hi[k] = x[k].max(end);
    }
    let (lo, hi) = (&lo[..x.len()], &hi[..x.len()]);
    eval_interval(e, lo, hi).lo >= floor
        || w0 + alpha * eval_slope(e, lo, hi, p).d.lo.min(0.0) >= floor
}

/// Largest α ≤ 1 (up to the refinement) keeping `x + t p` at `W ≥ 0.1 W(x)` for all
/// `t ∈ [0, α]`; 0 when `W(x) ≤ 0` or no α > 2⁻⁴⁰ is found.
pub fn implicit_ccd_bound(e: &Expr, x: &[f64], p: &[f64]) -> f64 {
    let w0 = eval(e, x);
    if w0.is_nan() || w0 <= 0.0 {
        return 0.0;
    }
    let floor = (1.0 - CCD_SAFETY) * w0;
    let mut alpha = 1.0;
    let mut halvings = 0;
    while !segment_clear(e, x, p, alpha, w0, floor) {
        alpha *= 0.5;
        halvings += 1;
        if halvings > CCD_HALVINGS {
            return 0.0;
        }
    }
    if halvings > 0 {
        let mut bad = 2.0 * alpha;
        for _ in 0..CCD_REFINE {
            let mid = 0.5 * (alpha + bad);
            if segment_clear(e, x, p, mid, w0, floor) {
                alpha = mid;
            } else {
                bad = mid;
            }
        }
    }
    alpha
}

/// Barrier energy (J, without h²) of a node at `x` with area `area` against wall `w`.
pub fn implicit_barrier_value(w: &ImplicitWall, b: &BarrierParams, area: f64, x: &[f64]) -> f64 {
    barrier_value(b, area, w.distance(x))
}

/// Adds the barrier gradient `b′(d) ∇W` (N) to `out[..dim]`.
pub fn implicit_barrier_gradient(
    w: &ImplicitWall,
    b: &BarrierParams,
    area: f64,
    x: &[f64],
    out: &mut [f64],
) {
    let d = w.distance(x);
    if d >= b.dhat || d <= 0.0 {
        return;
    }
    let g = w.dual(x).g;
    let s = barrier_gradient(b, area, d);
    for (k, o) in out.iter_mut().enumerate() {
        *o += s * g[k];
    }
}

/// Adds `scale · b″(d) ∇W ∇Wᵀ` (the PSD Gauss–Newton block Newton uses, N/m) to the
/// row-major `dim × dim` block `out`.
pub fn implicit_barrier_hessian(
    w: &ImplicitWall,
    b: &BarrierParams,
    area: f64,
    x: &[f64],
    scale: f64,
    out: &mut [f64],
) {
    let d = w.distance(x);
    if d >= b.dhat || d <= 0.0 {
        return;
    }
    let dim = x.len();
    let g = w.dual(x).g;
    let s = scale * barrier_hessian(b, area, d);
    for r in 0..dim {
        for c in 0..dim {
            out[r * dim + c] += s * g[r] * g[c];
        }
    }
}

/// The exact Hessian `b″ ∇W ∇Wᵀ + b′ ∇²W` (N/m, row-major, not projected), for tests.
pub fn implicit_barrier_hessian_exact(
    w: &ImplicitWall,
    b: &BarrierParams,
    area: f64,
    x: &[f64],
) -> Vec<f64> {
    let dim = x.len();
    let mut out = vec![0.0; dim * dim];
    let d = w.distance(x);
    if d >= b.dhat || d <= 0.0 {
        return out;
    }
    let du = w.dual(x);
    let (b1, b2) = (barrier_gradient(b, area, d), barrier_hessian(b, area, d));
    for r in 0..dim {
        for c in 0..dim {
            out[r * dim + c] = b2 * du.g[r] * du.g[c] + b1 * du.h[r][c];
        }
    }
    out
}
