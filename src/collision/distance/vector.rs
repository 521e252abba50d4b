//! Small fixed-size vector helpers generic over [`Scalar`], shared by the distance
//! formulas (so the same code runs on `f64` and on AD values).

use super::ad::Scalar;

/// `a − b` for the first `D` coordinates of two slices.
#[inline]
pub(super) fn sub<S: Scalar, const D: usize>(a: &[S], b: &[S]) -> [S; D] {
    std::array::from_fn(|i| a[i] - b[i])
}

/// The dot product `a · b`.
#[inline]
pub(super) fn dot<S: Scalar, const D: usize>(a: &[S; D], b: &[S; D]) -> S {
    let mut s = a[0] * b[0];
    for i in 1..D {
        s = s + a[i] * b[i];
    }
    s
}

/// The squared norm `|a|²`.
#[inline]
pub(super) fn norm_sq<S: Scalar, const D: usize>(a: &[S; D]) -> S {
    dot(a, a)
}

/// The cross product `a × b` (3D).
#[inline]
pub(super) fn cross<S: Scalar>(a: &[S; 3], b: &[S; 3]) -> [S; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
