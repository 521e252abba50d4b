//! Spring stiffness of a mesh body: per spring (the course's `k`), or from a material
//! stiffness so that the same body behaves the same at any resolution.

/// How a body's springs get their stiffness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stiffness {
    /// Every spring has this k (N/m), as in the course code.
    PerSpring(f64),
    /// Material stiffness E (N/m for sheets and 2D bodies, Pa for lattices).
    Material(f64),
}

impl Stiffness {
    /// The k (N/m) of one spring with squared rest length `l2` (m²) in a body of
    /// `measure` (m² or m³) with `springs` springs.
    ///
    /// With a material stiffness each spring stores the strain energy of an equal
    /// share `V/S` of the body: under a small strain ε along it, `Ψ ≈ 2 k l² ε²` must
    /// equal `½ E ε² V/S`, so `k = E V / (4 S l²)`. Halving the cell size of a 2D
    /// grid multiplies S by 4 and divides l² by 4, so k is unchanged; in a lattice
    /// (S × 8, l² / 4) k halves. The body's bulk stiffness is then independent of the
    /// resolution, equal to E times a factor of order one set by the mesh pattern.
    pub fn spring_k(self, measure: f64, springs: usize, l2: f64) -> f64 {
        match self {
            Stiffness::PerSpring(k) => k,
            Stiffness::Material(e) => e * measure / (4.0 * springs.max(1) as f64 * l2),
        }
    }

    /// The k (N/m) of one spring with squared rest length `l2` (m²) that stands for
    /// `share` (m, m² or m³) of its body's measure: `k = E · share / (4 l²)`, the rule
    /// of [`Self::spring_k`] with the equal share `V/S` replaced by the spring's own
    /// (imported meshes, whose springs are not alike).
    pub fn share_k(self, share: f64, l2: f64) -> f64 {
        match self {
            Stiffness::PerSpring(k) => k,
            Stiffness::Material(e) => e * share / (4.0 * l2),
        }
    }
}

impl super::Builder<'_> {
    /// Body `bi`'s `spring_stiffness` or `material_stiffness` (exactly one, positive);
    /// `what` names the kind of body in the error.
    pub(super) fn stiffness(
        &self,
        bi: usize,
        b: &super::format::BodySection,
        what: &str,
    ) -> Result<Stiffness, super::SceneError> {
        let p = |f: &str| format!("bodies.{bi}.{f}");
        match (b.spring_stiffness, b.material_stiffness) {
            (Some(k), None) => Ok(Stiffness::PerSpring(
                self.positive(&p("spring_stiffness"), k)?,
            )),
            (None, Some(e)) => Ok(Stiffness::Material(
                self.positive(&p("material_stiffness"), e)?,
            )),
            (Some(_), Some(_)) => Err(self.err(
                &p("material_stiffness"),
                "give either spring_stiffness or material_stiffness, not both",
            )),
            (None, None) => Err(self.err(
                &format!("bodies.{bi}"),
                format!(
                    "missing field `spring_stiffness` or `material_stiffness` (required by {what})"
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::generators::{grid, lattice};

    #[test]
    fn grid_springs_keep_their_k_when_refined_and_lattice_springs_scale_with_the_cell() {
        let k = |m: &crate::scene::generators::Mesh, s: usize| {
            let [a, b] = m.springs[s];
            let l2: f64 = (0..m.dim)
                .map(|c| (m.x[a as usize * m.dim + c] - m.x[b as usize * m.dim + c]).powi(2))
                .sum();
            Stiffness::Material(3.2e5).spring_k(m.measure, m.springs.len(), l2)
        };
        let (coarse, fine) = (
            grid([1.0, 1.0], [8, 8], [0.0; 2]),
            grid([1.0, 1.0], [64, 64], [0.0; 2]),
        );
        // Edge 0 is an x edge of length 1/n; grids with many cells approach k = E/16.
        let (kc, kf) = (k(&coarse, 0), k(&fine, 0));
        assert!((kf - 3.2e5 / 16.0).abs() < 0.02 * kf, "{kf}");
        assert!((kc - kf).abs() < 0.15 * kf, "{kc} vs {kf}");
        let (lc, lf) = (
            lattice([1.0; 3], [4; 3], [0.0; 3]),
            lattice([1.0; 3], [8; 3], [0.0; 3]),
        );
        let ratio = k(&lc, 0) / k(&lf, 0);
        assert!((ratio - 2.0).abs() < 0.3, "{ratio}");
        assert_eq!(Stiffness::PerSpring(2e4).spring_k(1.0, 72, 0.0625), 2e4);
    }
}
