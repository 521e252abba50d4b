//! The host side of the GPU's V-cycle (`preconditioner = "multigrid"`,
//! `shaders/kernels/mas_cycle.wgsl`; CPU twin [`crate::mas::VCycle`]): the coarse
//! levels' whole Galerkin matrices as block CSR tables behind the node ranking in
//! `mas_index`, their blocks behind the domain matrices in `mas_matrices`, and the
//! kernel sequence of one application.

use super::kernels::Kernel;
use super::mas::{up_the_levels, MasPlan, MAS_DOMAIN};
use crate::model::Model;

impl MasPlan {
    /// Appends the coarse levels' block patterns (from the springs and the ranking)
    /// to `index` and room for their blocks to `matrix_reals`: per coarse level l,
    /// the header's two words (where its row offsets start in `mas_index`, where its
    /// blocks start in `mas_matrices`), then every level's row offsets and columns.
    pub(super) fn add_coarse_matrices(&mut self, model: &Model) -> Result<(), String> {
        let n = model.num_nodes();
        let rank: Vec<u32> = self.index[n..2 * n].iter().map(|r| r & !FIXED).collect();
        let levels = self.levels.len();
        let csr = crate::mas::coarse_csr(&model.springs, &rank, MAS_DOMAIN, levels);
        let header = 2 * n;
        self.index.resize(header + 2 * csr.len(), 0);
        let mut blocks = self.matrix_reals;
        for (k, (offsets, cols)) in csr.iter().enumerate() {
            let q = self.levels[k + 1].dofs as u64;
            let at = u32::try_from(self.index.len()).map_err(|_| too_big(n))?;
            self.index[header + 2 * k] = at;
            self.index[header + 2 * k + 1] = u32::try_from(blocks).map_err(|_| too_big(n))?;
            self.index.extend_from_slice(offsets);
            self.index.extend_from_slice(cols);
            blocks += cols.len() as u64 * q * q;
        }
        u32::try_from(blocks).map_err(|_| too_big(n))?;
        self.matrix_reals = blocks;
        self.coarse_nonzeros = csr.first().map_or(0, |(_, cols)| cols.len() as u32);
        let q = crate::mas::basis::coarse_dofs(model.dim) as u64;
        let entries = csr
            .iter()
            .skip(1)
            .map(|(_, cols)| cols.len() as u64 * q * q);
        let most = entries.max().unwrap_or(0).max(self.coarse_nonzeros as u64);
        self.fill_threads = u32::try_from(most).map_err(|_| too_big(n))?;
        Ok(())
    }

    /// Reals of the coarse levels' whole matrices as the cost model expects them
    /// where the pattern is not built ([`Self::shape`]): 9 blocks per row in 2D, 27
    /// in 3D (a supernode's neighbours on a grid or in a lattice); the pattern's own
    /// count where it is.
    pub fn coarse_block_estimate(&self) -> u64 {
        let dim = self.levels[0].dofs as u64;
        let per_row = if dim == 2 { 9 } else { 27 };
        let coarse: u64 = self.levels[1..]
            .iter()
            .map(|l| l.count as u64 * per_row * (l.dofs as u64).pow(2))
            .sum();
        if self.coarse_nonzeros > 0 {
            let q = self.levels[1].dofs as u64;
            // level 1's blocks as built, the coarser levels as estimated
            let level1 = self.levels[1].count as u64 * per_row * q * q;
            return coarse - level1 + self.coarse_nonzeros as u64 * q * q;
        }
        coarse
    }

    /// Domains of level 1 (workgroups of the coarse levels' smoothing).
    pub fn coarse_domains(&self) -> u32 {
        self.levels
            .get(1)
            .map_or(0, |l| l.count.div_ceil(MAS_DOMAIN as u32))
    }

    /// The V-cycle's factorisation: the frames level by level, every coarse level's
    /// whole matrix (level 1 from H, the coarser ones from it), the domain matrices
    /// of levels 0 and 1 directly and those above cut from the whole matrices (no
    /// partial blocks), then every domain matrix inverted.
    pub(super) fn cycle_factor(&self) -> Vec<Kernel> {
        let coarse = self.levels.len().saturating_sub(1);
        let mut k = up_the_levels(Kernel::MasFramesLevel, coarse);
        k.extend(up_the_levels(Kernel::VcCoarseFill, coarse));
        k.push(Kernel::MasFactor);
        if coarse >= 2 {
            k.push(Kernel::VcCoarseDomains);
        }
        k.push(Kernel::MasInvert);
        k
    }

    /// One V-cycle z = M⁻¹ r, ending with the partial sums of r·z and r·r:
    /// level 0 smooths r; its residual goes up, each coarse level smoothing and
    /// passing its residual on; the top level solves; on the way down each level
    /// adds its parent's correction and smooths its new residual; level 0 smooths
    /// the last residual.
    pub(super) fn cycle_apply(&self) -> Vec<Kernel> {
        let levels = self.levels.len();
        if levels == 1 {
            return vec![Kernel::VcSmooth0First, Kernel::MasFinish];
        }
        let fine_residual = [Kernel::VcFineZ, Kernel::VcFineResidual];
        let mut k = vec![Kernel::VcSmooth0First];
        k.extend(fine_residual);
        k.extend([Kernel::MasLevelFirst, Kernel::VcRestrict]);
        for _ in 1..levels - 1 {
            k.extend([
                Kernel::VcSmoothFirst,
                Kernel::VcResidual,
                Kernel::MasLevelUp,
                Kernel::VcRestrict,
            ]);
        }
        k.push(Kernel::VcSmoothFirst);
        for _ in 2..levels {
            k.extend([
                Kernel::MasProlong,
                Kernel::MasLevelDown,
                Kernel::VcResidual,
                Kernel::VcSmoothAgain,
            ]);
        }
        k.extend(fine_residual);
        k.extend([Kernel::VcSmooth0Again, Kernel::MasFinish]);
        k
    }
}

/// Bit of a rank entry in `mas_index` that marks a fixed node.
const FIXED: u32 = 0x8000_0000;

fn too_big(n: usize) -> String {
    format!("the V-cycle's coarse matrices for {n} nodes exceed 32-bit indices on the GPU; use solver.preconditioner = \"mas\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cycle visits every coarse level twice but the top, and level 0's
    /// residual twice; its tables describe each level's pattern.
    #[test]
    fn a_cycle_goes_up_and_down_every_level() {
        let scene = crate::scene::parse(
            "dimension = 2\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n[[walls]]\ntype = \"plane\"\npoint = [0, -1]\nnormal = [0, 1]\n[[bodies]]\ngenerator = \"grid\"\nsize = [1, 1]\ncells = [20, 20]\ndensity = 1\nspring_stiffness = 10\n",
            "t.toml",
            "t",
        )
        .unwrap();
        let plain = MasPlan::new(&scene.model, false).unwrap();
        let plan = MasPlan::new(&scene.model, true).unwrap();
        // 441 nodes in 3 levels (441, 28, 2 supernodes).
        let count = |k: Kernel| plan.apply().iter().filter(|x| **x == k).count();
        assert_eq!(count(Kernel::VcSmoothFirst), 2);
        assert_eq!(count(Kernel::VcSmoothAgain), 1);
        assert_eq!(count(Kernel::VcResidual), 2);
        assert_eq!(count(Kernel::VcRestrict), 2);
        assert_eq!(count(Kernel::MasProlong), 1);
        assert_eq!(count(Kernel::VcFineResidual), 2);
        assert_eq!(plan.apply().last(), Some(&Kernel::MasFinish));
        let factor = plan.factor();
        let fills = factor
            .iter()
            .filter(|x| **x == Kernel::VcCoarseFill)
            .count();
        assert_eq!(fills, 2);
        // The coarse domain matrices come from the whole matrices, after them.
        assert!(!factor.contains(&Kernel::MasCoarsePartials));
        let at = |k: Kernel| factor.iter().position(|x| *x == k).unwrap();
        assert!(at(Kernel::VcCoarseFill) < at(Kernel::VcCoarseDomains));
        assert!(at(Kernel::VcCoarseDomains) < at(Kernel::MasInvert));
        // A third vector per coarse level (28 and 2 supernodes in 2 and 1 domains).
        assert_eq!(plan.vector_reals, plain.vector_reals + (2 + 1) * 48);
        // Level 1's 28 rows each hold their diagonal; level 2 is two rows.
        let n = 441;
        let (rows1, blocks1) = (plan.index[2 * n] as usize, plan.index[2 * n + 1] as u64);
        assert_eq!(blocks1, plain.matrix_reals);
        assert_eq!(plan.index[rows1], 0);
        let nnz1 = plan.index[rows1 + 28] as usize;
        assert_eq!(nnz1 as u32, plan.coarse_nonzeros);
        assert_eq!(plan.fill_threads, plan.coarse_nonzeros.max(4 * 9));
        let cols1 = &plan.index[rows1 + 29..rows1 + 29 + nnz1];
        for a in 0..28 {
            let row = &cols1[plan.index[rows1 + a] as usize..plan.index[rows1 + a + 1] as usize];
            assert!(row.contains(&(a as u32)), "row {a} lacks its diagonal");
            assert!(row.windows(2).all(|w| w[0] < w[1]));
        }
        let (rows2, blocks2) = (plan.index[2 * n + 2] as usize, plan.index[2 * n + 3] as u64);
        assert_eq!(rows2, rows1 + 29 + nnz1);
        assert_eq!(blocks2, blocks1 + nnz1 as u64 * 9);
        // Two supernodes on level 2, coupled: 4 blocks.
        assert_eq!(plan.index[rows2 + 2], 4);
        assert_eq!(plan.matrix_reals, blocks2 + 4 * 9);
    }
}
