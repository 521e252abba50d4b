//! Built-in container shapes as expressions `W(x)` (m), positive inside, with
//! `|∇W| = 1` on their faces so that `W` is the distance there:
//!
//! - `circle` (2D) / `sphere` (3D), radius R: `R − |x − c|`;
//! - `box`, half-extents h: `min_k min(h_k − (x_k − c_k), h_k + (x_k − c_k))`;
//! - `diamond` (2D) / `octahedron` (3D), vertex distance R: `(R − Σ|x_k − c_k|)/√dim`,
//!   written as the `min` over the 2^dim sign choices s of `(R − Σ s_k (x_k − c_k))/√dim`;
//! - `ellipse` / `ellipsoid`, semi-axes a: `(a_min/2)(1 − Σ((x_k − c_k)/a_k)²)`;
//! - `superellipse`, semi-axes a, exponent n: `(a_min/n)(1 − Σ|(x_k − c_k)/a_k|ⁿ)`;
//! - `sextic` (2D, seed 004), size R: `−(R/5.0625) g((x − c)/R)` with
//!   `g(u, v) = (u² + v² − 1)³ + 27u²v²` (an astroid; 5.0625 = |∇g| where the
//!   diagonal meets the curve, so `|∇W| = 1` there and tends to 0 at the cusps).
//!
//! A wall whose expression is a `min` at the top is an intersection: the scene splits
//! it into one wall per argument ([`split_min`]), each with its own barrier, so the
//! box's and the diamond's corners are two smooth constraints meeting (as IPC treats
//! polytope corners) rather than one barrier on a function with a kink, on which
//! Newton cannot converge when a body rests in the corner.

use super::expr::{Expr, Func};

/// A built-in shape and its sizes (m).
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Circle or sphere of this radius.
    Ball(f64),
    /// Box with these half-extents.
    Box(Vec<f64>),
    /// Diamond or octahedron with this vertex distance.
    Diamond(f64),
    /// Ellipse or ellipsoid with these semi-axes.
    Ellipsoid(Vec<f64>),
    /// Superellipse with these semi-axes and exponent.
    Superellipse(Vec<f64>, f64),
    /// Seed 004's sextic of this size.
    Sextic(f64),
}

fn shifted(k: usize, center: &[f64]) -> Expr {
    Expr::minus(Expr::Var(k), Expr::Const(center[k]))
}

fn sum(terms: impl Iterator<Item = Expr>) -> Expr {
    terms.reduce(Expr::plus).unwrap_or(Expr::Const(0.0))
}

/// `W` of `shape` centred at `center` (`dim` = `center.len()` coordinates).
pub fn shape_expr(shape: &Shape, center: &[f64]) -> Expr {
    let dim = center.len();
    match shape {
        Shape::Ball(r) => Expr::minus(
            Expr::Const(*r),
            Expr::call(
                Func::Sqrt,
                sum((0..dim).map(|k| Expr::powi(shifted(k, center), 2))),
            ),
        ),
        Shape::Box(h) => (0..dim)
            .flat_map(|k| {
                [
                    Expr::minus(Expr::Const(h[k]), shifted(k, center)),
                    Expr::plus(Expr::Const(h[k]), shifted(k, center)),
                ]
            })
            .reduce(Expr::min)
            .unwrap_or(Expr::Const(0.0)),
        Shape::Diamond(r) => (0..1usize << dim)
            .map(|signs| {
                let face = sum((0..dim).map(|k| {
                    if signs >> k & 1 == 1 {
                        Expr::Neg(Box::new(shifted(k, center)))
                    } else {
                        shifted(k, center)
                    }
                }));
                Expr::times(
                    Expr::Const(1.0 / (dim as f64).sqrt()),
                    Expr::minus(Expr::Const(*r), face),
                )
            })
            .reduce(Expr::min)
            .unwrap_or(Expr::Const(0.0)),
        Shape::Ellipsoid(a) => {
            let amin = a.iter().copied().fold(f64::INFINITY, f64::min);
            Expr::times(
                Expr::Const(amin / 2.0),
                Expr::minus(
                    Expr::Const(1.0),
                    sum((0..dim).map(|k| {
                        Expr::powi(Expr::times(Expr::Const(1.0 / a[k]), shifted(k, center)), 2)
                    })),
                ),
            )
        }
        Shape::Superellipse(a, n) => {
            let amin = a.iter().copied().fold(f64::INFINITY, f64::min);
            let term = |k: usize| {
                let u = Expr::call(
                    Func::Abs,
                    Expr::times(Expr::Const(1.0 / a[k]), shifted(k, center)),
                );
                if *n == n.round() {
                    Expr::powi(u, *n as i32)
                } else {
                    Expr::PowC(Box::new(u), *n)
                }
            };
            Expr::times(
                Expr::Const(amin / n),
                Expr::minus(Expr::Const(1.0), sum((0..dim).map(term))),
            )
        }
        Shape::Sextic(r) => {
            let u = Expr::times(Expr::Const(1.0 / r), shifted(0, center));
            let v = Expr::times(Expr::Const(1.0 / r), shifted(1, center));
            let rho = Expr::minus(
                Expr::plus(Expr::powi(u.clone(), 2), Expr::powi(v.clone(), 2)),
                Expr::Const(1.0),
            );
            let g = Expr::plus(
                Expr::powi(rho, 3),
                Expr::times(
                    Expr::Const(27.0),
                    Expr::times(Expr::powi(u, 2), Expr::powi(v, 2)),
                ),
            );
            Expr::times(Expr::Const(-r / 5.0625), g)
        }
    }
}

/// The arguments of the `min`s at the top of `e` (`e` itself when it is no `min`):
/// `W = min(W₁, …, W_k) ≥ 0` exactly when every `W_j ≥ 0`.
pub fn split_min(e: Expr) -> Vec<Expr> {
    match e {
        Expr::Min(a, b) => {
            let mut v = split_min(*a);
            v.extend(split_min(*b));
            v
        }
        e => vec![e],
    }
}
