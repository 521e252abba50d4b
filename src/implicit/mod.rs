//! Walls given by implicit functions `W(x) ≥ 0` (seed 004): a small expression
//! language parsed once ([`expr`]), differentiated exactly by second-order forward
//! mode ([`dual`]), bounded over boxes by interval arithmetic ([`interval`]) and
//! turned into WGSL for the GPU kernels ([`wgsl`]); built-in container shapes are
//! expressions too ([`shapes`]), and [`wall`] holds the barrier and CCD on them.
//!
//! The distance measure is `d = W(x)` itself (metres): built-in shapes are written so
//! that `|∇W| = 1` on (most of) their boundary, and user expressions are asked to be
//! distance-like near the wall. See [`wall`] for the barrier and the CCD bound.

pub mod dual;
pub mod expr;
pub mod frame;
pub mod interval;
pub mod shapes;
pub mod wall;
pub mod wgsl;

pub use expr::{parse, Expr, ParseError};
pub use frame::{Carry, Frame};
pub use wall::ImplicitWall;
