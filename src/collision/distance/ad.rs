//! Second-order forward-mode automatic differentiation for the distance formulas.
//!
//! [`Scalar`] is the arithmetic the distance formulas are written against: `f64`
//! gives the plain value and [`Dual<N>`] carries the value, the gradient and the
//! Hessian with respect to `N` seeded variables, so a formula written once yields
//! values and exact derivatives that cannot disagree. Everything lives on the
//! stack (no heap allocation); each operation costs O(N²).

use std::ops::{Add, Div, Mul, Sub};

/// Arithmetic the distance formulas are generic over: `f64` (value only) or
/// [`Dual<N>`] (value, gradient, Hessian).
pub trait Scalar:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    /// The square `self · self`.
    #[inline]
    fn sq(self) -> Self {
        self * self
    }
}

impl Scalar for f64 {}

/// A value with its gradient and Hessian with respect to `N` variables.
///
/// Only the upper triangle of the (symmetric) Hessian is computed and stored:
/// `h[i][j] = ∂²v/∂x_i∂x_j` for `j ≥ i`, the entries below the diagonal stay 0;
/// read it through [`Dual::hessian`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dual<const N: usize> {
    /// The value.
    pub v: f64,
    /// The gradient ∂v/∂x_i.
    pub g: [f64; N],
    /// The Hessian ∂²v/∂x_i∂x_j.
    pub h: [[f64; N]; N],
}

impl<const N: usize> Dual<N> {
    /// The independent variables `x_0 … x_{N−1}` at `x`: variable `i` has the unit
    /// gradient `e_i` and a zero Hessian.
    pub fn variables(x: &[f64; N]) -> [Self; N] {
        std::array::from_fn(|i| {
            let mut g = [0.0; N];
            g[i] = 1.0;
            Dual {
                v: x[i],
                g,
                h: [[0.0; N]; N],
            }
        })
    }

    /// The Hessian entry `∂²v/∂x_i∂x_j` (either triangle).
    #[inline]
    pub fn hessian(&self, i: usize, j: usize) -> f64 {
        if i <= j {
            self.h[i][j]
        } else {
            self.h[j][i]
        }
    }

    /// `f(self)` for a scalar function `f` given by its value `f0 = f(v)` and its
    /// first and second derivatives `f1 = f'(v)`, `f2 = f''(v)` at `v = self.v`
    /// (chain rule).
    pub fn compose(self, f0: f64, f1: f64, f2: f64) -> Self {
        let mut r = Dual {
            v: f0,
            g: [0.0; N],
            h: [[0.0; N]; N],
        };
        for i in 0..N {
            r.g[i] = f1 * self.g[i];
            for j in i..N {
                r.h[i][j] = f1 * self.h[i][j] + f2 * (self.g[i] * self.g[j]);
            }
        }
        r
    }
}

impl<const N: usize> Add for Dual<N> {
    type Output = Self;
    #[inline]
    fn add(mut self, b: Self) -> Self {
        self.v += b.v;
        for i in 0..N {
            self.g[i] += b.g[i];
            for j in i..N {
                self.h[i][j] += b.h[i][j];
            }
        }
        self
    }
}

impl<const N: usize> Sub for Dual<N> {
    type Output = Self;
    #[inline]
    fn sub(mut self, b: Self) -> Self {
        self.v -= b.v;
        for i in 0..N {
            self.g[i] -= b.g[i];
            for j in i..N {
                self.h[i][j] -= b.h[i][j];
            }
        }
        self
    }
}

impl<const N: usize> Mul for Dual<N> {
    type Output = Self;
    /// Product rule: ∇²(ab) = b∇²a + a∇²b + ∇a∇bᵀ + ∇b∇aᵀ.
    #[inline]
    fn mul(self, b: Self) -> Self {
        let a = self;
        let mut r = Dual {
            v: a.v * b.v,
            g: [0.0; N],
            h: [[0.0; N]; N],
        };
        for i in 0..N {
            r.g[i] = a.g[i] * b.v + b.g[i] * a.v;
            for j in i..N {
                r.h[i][j] = a.h[i][j] * b.v + b.h[i][j] * a.v + (a.g[i] * b.g[j] + b.g[i] * a.g[j]);
            }
        }
        r
    }
}

impl<const N: usize> Div for Dual<N> {
    type Output = Self;
    /// Quotient `q = a/b` from `a = q·b`: ∇q = (∇a − q∇b)/b and
    /// ∇²q = (∇²a − q∇²b − ∇q∇bᵀ − ∇b∇qᵀ)/b.
    #[inline]
    fn div(self, b: Self) -> Self {
        let a = self;
        let q = a.v / b.v;
        let mut r = Dual {
            v: q,
            g: [0.0; N],
            h: [[0.0; N]; N],
        };
        for i in 0..N {
            r.g[i] = (a.g[i] - q * b.g[i]) / b.v;
        }
        for i in 0..N {
            for j in i..N {
                r.h[i][j] = (a.h[i][j] - q * b.h[i][j] - (r.g[i] * b.g[j] + b.g[i] * r.g[j])) / b.v;
            }
        }
        r
    }
}

impl<const N: usize> Scalar for Dual<N> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// f(x, y) = (x·y − x) / (y·y) against hand derivatives.
    #[test]
    fn rational_function_matches_hand_derivatives() {
        let (x, y) = (0.7, -1.3);
        let [a, b] = Dual::<2>::variables(&[x, y]);
        let f = (a * b - a) / b.sq();
        // f = x(y − 1)/y² = x(1/y − 1/y²)
        let val = x * (y - 1.0) / (y * y);
        let fx = (y - 1.0) / (y * y);
        let fy = x * (-1.0 / (y * y) + 2.0 / (y * y * y));
        let fxx = 0.0;
        let fxy = -1.0 / (y * y) + 2.0 / (y * y * y);
        let fyy = x * (2.0 / (y * y * y) - 6.0 / (y * y * y * y));
        let close = |p: f64, q: f64| (p - q).abs() <= 1e-14 * (1.0 + q.abs());
        assert!(close(f.v, val));
        assert!(close(f.g[0], fx) && close(f.g[1], fy));
        assert!(close(f.hessian(0, 0), fxx) && close(f.hessian(1, 1), fyy));
        assert!(close(f.hessian(0, 1), fxy) && f.hessian(1, 0) == f.hessian(0, 1));
        assert_eq!(f.h[1][0], 0.0);
    }

    #[test]
    fn compose_is_the_chain_rule() {
        // g(x, y) = exp(x·y) through compose on u = x·y.
        let [a, b] = Dual::<2>::variables(&[0.3, 0.5]);
        let u = a * b;
        let e = u.v.exp();
        let g = u.compose(e, e, e);
        let close = |p: f64, q: f64| (p - q).abs() <= 1e-14 * (1.0 + q.abs());
        assert!(close(g.g[0], 0.5 * e) && close(g.g[1], 0.3 * e));
        assert!(close(g.hessian(0, 0), 0.25 * e));
        assert!(close(g.hessian(1, 0), e + 0.15 * e));
        assert!(close(g.hessian(1, 1), 0.09 * e));
    }
}
