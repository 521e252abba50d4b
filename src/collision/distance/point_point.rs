//! Point–point squared distance `|p − q|²` (2D or 3D) and its derivatives.

use super::ad::Scalar;
use super::{derivatives_of, diff, Derivatives};

/// The point–point formula `|d|²` of the difference `d = p − q` (2 or 3
/// coordinates), generic over the scalar type.
#[inline]
pub(super) fn formula<S: Scalar>(d: &[S]) -> S {
    let mut s = d[0].sq();
    for x in &d[1..] {
        s = s + x.sq();
    }
    s
}

/// [`formula`] at the points `p` and `q`.
#[inline]
pub(super) fn value(p: &[f64], q: &[f64]) -> f64 {
    formula(&diff(p, q)[..p.len()])
}

/// Squared distance `|p − q|²` (m²) between two points of the same dimension
/// (coordinates in m).
pub fn point_point_distance_sq(p: &[f64], q: &[f64]) -> f64 {
    debug_assert_eq!(p.len(), q.len());
    value(p, q)
}

/// Derivatives of `|x_a − x_b|²` for the nodes `a`, `b` of `x` (`dim` coordinates
/// each, `n` in all).
pub(super) fn derivatives(x: &[f64], dim: usize, [a, b]: [usize; 2], n: usize) -> Derivatives {
    match dim {
        2 => derivatives_of::<2>(x, 2, &[[a, b]], n, formula),
        3 => derivatives_of::<3>(x, 3, &[[a, b]], n, formula),
        _ => panic!("point-point distance: dim must be 2 or 3, got {dim}"),
    }
}

/// Value (m²), gradient (m) and Hessian of `|p − q|²` with respect to the stacked
/// coordinates `x = [p, q]` (length `2·dim`, `dim` 2 or 3).
///
/// # Panics
/// If `dim` is not 2 or 3.
pub fn point_point_distance_sq_derivatives(x: &[f64], dim: usize) -> Derivatives {
    derivatives(x, dim, [0, 1], 2 * dim)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::check_derivatives;
    use super::*;

    #[test]
    fn derivatives_match_finite_differences() {
        for x in [
            vec![0.1, -0.4, 1.2, 0.3],
            vec![0.1, -0.4, 0.7, 1.2, 0.3, -0.2],
        ] {
            let dim = x.len() / 2;
            let d = point_point_distance_sq_derivatives(&x, dim);
            check_derivatives(
                &x,
                &d,
                |y| point_point_distance_sq(&y[..dim], &y[dim..]),
                |y| point_point_distance_sq_derivatives(y, dim),
                1.0,
                1e-6,
            );
            // The Hessian is [[2I, −2I], [−2I, 2I]].
            for i in 0..2 * dim {
                for j in 0..2 * dim {
                    let e = match (i % dim == j % dim, i / dim == j / dim) {
                        (true, true) => 2.0,
                        (true, false) => -2.0,
                        _ => 0.0,
                    };
                    assert_eq!(d.hessian_entry(i, j), e);
                }
            }
        }
        assert_eq!(
            point_point_distance_sq(&[1.0, 2.0, 3.0], &[0.0, 0.0, 1.0]),
            9.0
        );
    }
}
