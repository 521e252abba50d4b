//! When a particle's free flight leaves an implicit wall `W ≥ 0` within a step: the
//! time of impact along the parabola `x(s) = x + s v + ½ s² g`, found with the walls'
//! interval machinery ([`crate::implicit::interval`]) and narrowed by bisection.
//!
//! [`first_exit`] cuts the flight into halves, earliest first, and drops every piece
//! whose bounding box the interval evaluation of `W` certifies to be inside
//! (`W ≥ 0` on the whole box); a piece that cannot be certified is halved again down
//! to [`MAX_DEPTH`] levels. The first piece whose end lies outside brackets the exit,
//! which bisection then narrows to round-off, keeping the inside end. A flight that
//! dips out and back in within one deepest piece (`2⁻⁴⁰` of the step) is not seen,
//! and neither is anything past [`BUDGET`] interval evaluations, after which only the
//! ends of the remaining pieces are tested: either way the exit that matters, the one
//! that would leave the particle outside at the end, is always found.

use crate::implicit::interval::eval_interval;
use crate::implicit::ImplicitWall;

/// Levels of halving before a piece of flight is judged by its end point alone.
pub const MAX_DEPTH: u32 = 40;
/// Interval evaluations one search may spend before judging pieces by their ends.
pub const BUDGET: u32 = 4096;

/// Free flight under constant gravity from position `x` (m) at velocity `v` (m/s)
/// with acceleration `g` (m/s²); `dim` of the three components are used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flight {
    /// Spatial dimension (1, 2 or 3).
    pub dim: usize,
    /// Start position (m).
    pub x: [f64; 3],
    /// Start velocity (m/s).
    pub v: [f64; 3],
    /// Gravity (m/s²).
    pub g: [f64; 3],
}

impl Flight {
    /// Position (m) after `s` seconds: `x + s v + ½ s² g`.
    pub fn at(&self, s: f64) -> [f64; 3] {
        std::array::from_fn(|k| {
            if k < self.dim {
                self.x[k] + s * self.v[k] + 0.5 * s * s * self.g[k]
            } else {
                0.0
            }
        })
    }

    /// Velocity (m/s) after `s` seconds: `v + s g`.
    pub fn velocity(&self, s: f64) -> [f64; 3] {
        std::array::from_fn(|k| {
            if k < self.dim {
                self.v[k] + s * self.g[k]
            } else {
                0.0
            }
        })
    }

    /// The box (m) holding the flight for `a ≤ s ≤ b`: per coordinate the ends and,
    /// where it lies inside, the apex of the parabola.
    pub fn bounds(&self, a: f64, b: f64) -> ([f64; 3], [f64; 3]) {
        let (pa, pb) = (self.at(a), self.at(b));
        let mut lo = [0.0; 3];
        let mut hi = [0.0; 3];
        for k in 0..self.dim {
            lo[k] = pa[k].min(pb[k]);
            hi[k] = pa[k].max(pb[k]);
            if self.g[k] != 0.0 {
                let apex = -self.v[k] / self.g[k];
                if apex > a && apex < b {
                    let y = self.x[k] + apex * self.v[k] + 0.5 * apex * apex * self.g[k];
                    lo[k] = lo[k].min(y);
                    hi[k] = hi[k].max(y);
                }
            }
        }
        (lo, hi)
    }
}

struct Search<'a> {
    wall: &'a ImplicitWall,
    flight: &'a Flight,
    budget: u32,
}

impl Search<'_> {
    fn inside(&self, s: f64) -> bool {
        self.wall.distance(&self.flight.at(s)[..self.flight.dim]) >= 0.0
    }

    /// The earliest piece `[a', b']` of `[a, b]` with its start inside and its end
    /// outside, given that `a` is inside; `None` when `b` and every earlier piece end
    /// inside.
    fn earliest(&mut self, a: f64, b: f64, depth: u32) -> Option<(f64, f64)> {
        if self.budget == 0 || depth >= MAX_DEPTH {
            return (!self.inside(b)).then_some((a, b));
        }
        self.budget -= 1;
        let d = self.flight.dim;
        let (lo, hi) = self.flight.bounds(a, b);
        if eval_interval(&self.wall.expr, &lo[..d], &hi[..d]).lo >= 0.0 {
            return None;
        }
        let m = 0.5 * (a + b);
        if m <= a || m >= b {
            return (!self.inside(b)).then_some((a, b));
        }
        // When the first half has no exit its end `m` is inside, as the second half needs.
        self.earliest(a, m, depth + 1)
            .or_else(|| self.earliest(m, b, depth + 1))
    }
}

/// The first time `s ∈ [0, span]` (s) at which `flight` leaves `wall`, as the last
/// time found inside (`W ≥ 0`) before the exit, narrowed to round-off; `None` when
/// the flight stays inside (see the module docs). The start must be inside.
pub fn first_exit(wall: &ImplicitWall, flight: &Flight, span: f64) -> Option<f64> {
    let mut search = Search {
        wall,
        flight,
        budget: BUDGET,
    };
    let (mut lo, mut hi) = search.earliest(0.0, span, 0)?;
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if search.inside(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::implicit::shapes::{shape_expr, Shape};

    fn circle(r: f64) -> ImplicitWall {
        ImplicitWall {
            expr: shape_expr(&Shape::Ball(r), &[0.0, 0.0]),
            label: "circle".into(),
            frame: None,
        }
    }

    #[test]
    fn finds_the_crossing_of_a_straight_flight() {
        let f = Flight {
            dim: 2,
            x: [0.0, 0.0, 0.0],
            v: [10.0, 0.0, 0.0],
            g: [0.0; 3],
        };
        let s = first_exit(&circle(1.0), &f, 1.0).unwrap();
        assert!((s - 0.1).abs() < 1e-15, "{s}");
        assert!(circle(1.0).distance(&f.at(s)[..2]) >= 0.0);
        assert_eq!(first_exit(&circle(1.0), &f, 0.09), None);
    }

    #[test]
    fn finds_the_first_exit_of_a_flight_that_ends_inside() {
        // Thrown straight up near the diamond's right corner, the ball rises 0.2 m above
        // its start, out through the face |x| + |y| = 1 at y = 0.1, and falls back in:
        // both ends are inside, the exit is on the way up.
        let diamond = ImplicitWall {
            expr: shape_expr(&Shape::Diamond(1.0), &[0.0, 0.0]),
            label: "diamond".into(),
            frame: None,
        };
        let g: f64 = 9.81;
        let v = (0.4 * g).sqrt();
        let f = Flight {
            dim: 2,
            x: [0.9, -0.05, 0.0],
            v: [0.0, v, 0.0],
            g: [0.0, -g, 0.0],
        };
        let span = 2.0 * v / g;
        assert!(diamond.distance(&f.at(span)[..2]) > 0.0);
        let s = first_exit(&diamond, &f, span).unwrap();
        let exact = (v - (v * v - 2.0 * g * 0.15).sqrt()) / g;
        assert!((s - exact).abs() < 1e-12, "{s} vs {exact}");
    }

    #[test]
    fn follows_gravity() {
        // Thrown up inside a circle of radius 1 from the centre: apex at v²/2g = 0.5 m,
        // so with v = √(2g) · 1.2 it reaches the top (y = 1) at the root of
        // y(s) = v s − ½ g s² = 1.
        let g: f64 = 9.81;
        let v = (2.0 * g).sqrt() * 1.2;
        let f = Flight {
            dim: 2,
            x: [0.0; 3],
            v: [0.0, v, 0.0],
            g: [0.0, -g, 0.0],
        };
        let s = first_exit(&circle(1.0), &f, 1.0).unwrap();
        let exact = (v - (v * v - 2.0 * g).sqrt()) / g;
        assert!((s - exact).abs() < 1e-12, "{s} vs {exact}");
    }
}
