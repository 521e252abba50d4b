//! The coarse basis of a supernode: its rigid motions. A supernode's `q` coarse
//! unknowns are a translation (`dim`) and a small rotation (1 in 2D, 3 in 3D) about
//! its centroid; node i of it then moves by `P_i c` with `P_i = [I | rotation of
//! (x_i − centroid) / radius]`. Piecewise translations alone miss rotations and
//! bending, the slowest modes of a stiff spring body.

/// Coarse unknowns per supernode in `dim` dimensions: translations and rotations.
pub fn coarse_dofs(dim: usize) -> usize {
    if dim == 2 {
        3
    } else {
        6
    }
}

/// Centroid and radius of every supernode of one level, `supernodes × (dim + 1)`.
#[derive(Clone, Debug, Default)]
pub struct Frames {
    dim: usize,
    data: Vec<f64>,
}

impl Frames {
    /// The frames of supernodes of `span` consecutive ranks, from positions `x` (m)
    /// ordered by `order` (`order[rank]` = node); fixed nodes count too.
    pub fn new(x: &[f64], dim: usize, order: &[u32], span: usize) -> Self {
        let count = order.len().div_ceil(span);
        let mut data = vec![0.0; count * (dim + 1)];
        crate::parallel::for_each_piece(&mut data, dim + 1, |a, f| {
            let ranks = a * span..((a + 1) * span).min(order.len());
            let n = ranks.len() as f64;
            for r in ranks.clone() {
                let i = order[r] as usize;
                for k in 0..dim {
                    f[k] += x[i * dim + k] / n;
                }
            }
            let mut rad2: f64 = 0.0;
            for r in ranks {
                let i = order[r] as usize;
                let d2: f64 = (0..dim).map(|k| (x[i * dim + k] - f[k]).powi(2)).sum();
                rad2 = rad2.max(d2);
            }
            f[dim] = if rad2 > 0.0 { rad2.sqrt() } else { 1.0 };
        });
        Self { dim, data }
    }

    /// Components per node.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Supernode `a`'s centroid (m).
    pub fn centroid(&self, a: usize) -> &[f64] {
        &self.data[a * (self.dim + 1)..a * (self.dim + 1) + self.dim]
    }

    /// Supernode `a`'s radius (m; 1 for a single node): rotations are per unit radius.
    pub fn radius(&self, a: usize) -> f64 {
        self.data[a * (self.dim + 1) + self.dim]
    }

    /// `P_i` of the node at `xi` in supernode `a`, row-major `dim × q`.
    pub fn basis(&self, a: usize, xi: &[f64], out: &mut [f64; 18]) {
        let dim = self.dim;
        let q = coarse_dofs(dim);
        let f = &self.data[a * (dim + 1)..(a + 1) * (dim + 1)];
        let mut r = [0.0; 3];
        for k in 0..dim {
            r[k] = (xi[k] - f[k]) / f[dim];
        }
        out.iter_mut().for_each(|v| *v = 0.0);
        for k in 0..dim {
            out[k * q + k] = 1.0;
        }
        if dim == 2 {
            // ω × r in the plane: (−ω r_y, ω r_x)
            out[2] = -r[1];
            out[q + 2] = r[0];
        } else {
            // ω × r = (ω_y r_z − ω_z r_y, ω_z r_x − ω_x r_z, ω_x r_y − ω_y r_x)
            out[4] = r[2];
            out[5] = -r[1];
            out[q + 3] = -r[2];
            out[q + 5] = r[0];
            out[2 * q + 3] = r[1];
            out[2 * q + 4] = -r[0];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_basis_moves_nodes_rigidly() {
        // 3D: a rotation about z by ω moves (1, 0, 0) from the centroid along +y.
        let x = [1.0, 0.0, 0.0, -1.0, 0.0, 0.0];
        let frames = Frames::new(&x, 3, &[0, 1], 2);
        let mut p = [0.0; 18];
        frames.basis(0, &x[0..3], &mut p);
        let c = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0];
        let u: Vec<f64> = (0..3)
            .map(|k| (0..6).map(|j| p[k * 6 + j] * c[j]).sum())
            .collect();
        assert_eq!(u, vec![0.0, 1.0, 0.0]);
        // 2D: a translation moves every node alike.
        let x2 = [0.0, 0.0, 2.0, 0.0];
        let f2 = Frames::new(&x2, 2, &[0, 1], 2);
        f2.basis(0, &x2[2..4], &mut p);
        assert_eq!(&p[..6], &[1.0, 0.0, 0.0, 0.0, 1.0, 1.0]);
    }
}
