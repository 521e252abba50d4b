//! The host side of the GPU's multilevel additive Schwarz preconditioner
//! (`shaders/mas.wgsl`, `shaders/kernels/mas_factor.wgsl` and `mas_apply.wgsl`; the
//! CPU twin is [`crate::mas`]): the Morton ranking of the nodes, the level table the
//! kernels read from `Params`, the sizes of the preconditioner's buffers and the
//! kernel sequences that factor and apply it.

use super::kernels::Kernel;
use super::layout::MAX_MAS_LEVELS;
use crate::model::Model;

/// Supernodes per domain on every level (`MAS_B` in WGSL: a workgroup of 256
/// threads forms the 16 × 16 blocks of a domain matrix).
pub const MAS_DOMAIN: usize = 16;

/// Bit of a rank entry in `mas_index` that marks a fixed node (`MAS_FIXED`).
const FIXED_BIT: u32 = 0x8000_0000;

/// One level of the hierarchy as the kernels read it (`MasLevel` in WGSL).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Level {
    /// Supernodes (level 0: nodes).
    pub count: u32,
    /// Nodes per supernode, 16ˡ.
    pub span: u32,
    /// Index of the level's first domain among the domains of all levels.
    pub first_domain: u32,
    /// Unknowns per supernode: `dim` on level 0, 3 (2D) or 6 (3D) above.
    pub dofs: u32,
    /// Offset (reals) of the level's domain matrices in `mas_matrices`.
    pub matrix_offset: u32,
    /// Offset (reals) of the level's restricted residual in `mas_vectors`.
    pub v_offset: u32,
    /// Offset (reals) of the level's correction in `mas_vectors`.
    pub y_offset: u32,
    /// Index of the level's first frame in `mas_frames` (level 0: of the saved node
    /// positions).
    pub frame_offset: u32,
}

/// The hierarchy of one scene and what the device needs for it.
#[derive(Clone, Debug)]
pub struct MasPlan {
    /// The levels, finest first.
    pub levels: Vec<Level>,
    /// Domains over all levels (workgroups of the factor and solve kernels).
    pub domains: u32,
    /// `order[rank]` = node, then `rank[node]` with `FIXED_BIT` for fixed nodes.
    pub index: Vec<u32>,
    /// Reals of the domain matrices, all levels.
    pub matrix_reals: u64,
    /// Reals of the restricted residuals and corrections, all levels.
    pub vector_reals: u64,
    /// `vec4` entries of `mas_frames`: the frames of levels 1 and up, then (with two
    /// levels or more) each node's position at the last factorisation.
    pub frames: u64,
    /// Reals of the coarse levels' partial blocks: 16 blocks of 6 × 6 per
    /// supernode of levels 1 and 2.
    pub partial_reals: u64,
    /// Whether the levels are applied as a V-cycle (`preconditioner = "multigrid"`,
    /// [`super::mas_cycle`]) rather than additively.
    pub cycle: bool,
    /// The V-cycle's block nonzeros of level 1's whole Galerkin matrix; 0 for the
    /// additive form.
    pub coarse_nonzeros: u32,
    /// Threads of `vc_coarse_fill`: level 1's nonzeros or a coarser level's entries
    /// (nonzeros × q²), the more.
    pub fill_threads: u32,
}

impl MasPlan {
    /// The hierarchy of `model`'s nodes at their initial positions, applied as a
    /// V-cycle where `cycle` is set, else additively.
    pub fn new(model: &Model, cycle: bool) -> Result<Self, String> {
        let (n, dim) = (model.num_nodes(), model.dim);
        let mut plan = Self::shape(n, dim, cycle)?;
        let order = crate::mas::morton::morton_order(&model.x0, dim);
        let mut index = order.clone();
        index.resize(2 * n, 0);
        for (rank, &i) in order.iter().enumerate() {
            index[n + i as usize] = rank as u32
                | if model.fixed[i as usize] {
                    FIXED_BIT
                } else {
                    0
                };
        }
        plan.index = index;
        if cycle {
            plan.add_coarse_matrices(model)?;
        }
        Ok(plan)
    }

    /// The levels and buffer sizes of the hierarchy over `n` nodes in `dim` D, without
    /// the node order (`index` empty) nor the V-cycle's coarse matrices: what the cost
    /// model needs. A V-cycle (`cycle`) keeps a third vector per level (its residual).
    pub fn shape(n: usize, dim: usize, cycle: bool) -> Result<Self, String> {
        let coarse = crate::mas::basis::coarse_dofs(dim);
        let (mut levels, mut count, mut span) = (Vec::new(), n, 1usize);
        let (mut domains, mut matrix, mut vector, mut frames) = (0u64, 0u64, 0u64, 0u64);
        while count > 0 {
            let dofs = if levels.is_empty() { dim } else { coarse };
            let level_domains = count.div_ceil(MAS_DOMAIN) as u64;
            let m = (MAS_DOMAIN * dofs) as u64;
            let padded = level_domains * m;
            let too_big = |v: u64| u32::try_from(v).map_err(|_| too_big_error(n));
            let level = Level {
                count: too_big(count as u64)?,
                span: too_big(span as u64)?,
                first_domain: too_big(domains)?,
                dofs: dofs as u32,
                matrix_offset: too_big(matrix)?,
                v_offset: too_big(vector)?,
                y_offset: too_big(vector + padded)?,
                frame_offset: too_big(frames)?,
            };
            domains += level_domains;
            matrix += level_domains * m * m;
            vector += if cycle && !levels.is_empty() { 3 } else { 2 } * padded;
            if !levels.is_empty() {
                frames += count as u64;
            }
            too_big(matrix)?;
            too_big(vector)?;
            levels.push(level);
            if level_domains == 1 {
                break;
            }
            count = level_domains as usize;
            span *= MAS_DOMAIN;
        }
        if levels.len() > MAX_MAS_LEVELS {
            return Err(too_big_error(n));
        }
        if levels.len() > 1 {
            // Level 0 has no frames: its slot points at the node positions the last
            // factorisation saw, which restriction and prolongation use, so factors
            // kept through a step (`solver.mas_reuse`) meet the basis they were built
            // with (the CPU twin keeps its own copy of x).
            levels[0].frame_offset = u32::try_from(frames).map_err(|_| too_big_error(n))?;
            frames += n as u64;
        }
        let per_level = |l: usize| levels.get(l).map_or(0, |lv: &Level| lv.count as u64);
        let partial_reals = if levels.len() > 2 {
            (per_level(1) + per_level(2)) * (MAS_DOMAIN as u64) * 36
        } else {
            0
        };
        Ok(Self {
            partial_reals,
            levels,
            domains: domains as u32,
            index: Vec::new(),
            matrix_reals: matrix,
            vector_reals: vector,
            frames,
            cycle,
            coarse_nonzeros: 0,
            fill_threads: 0,
        })
    }

    /// The level table for `Params`: `[levels, domains, 0, 0]` and two `vec4<u32>`
    /// per level.
    pub fn params(&self) -> ([u32; 4], [[u32; 4]; 2 * MAX_MAS_LEVELS]) {
        let mut table = [[0u32; 4]; 2 * MAX_MAS_LEVELS];
        for (l, lv) in self.levels.iter().enumerate() {
            table[2 * l] = [lv.count, lv.span, lv.first_domain, lv.dofs];
            table[2 * l + 1] = [lv.matrix_offset, lv.v_offset, lv.y_offset, lv.frame_offset];
        }
        ([self.levels.len() as u32, self.domains, 0, 0], table)
    }

    /// Supernodes of level 1 (threads of the per-supernode kernels).
    pub fn supernodes(&self) -> u32 {
        self.levels.get(1).map_or(0, |l| l.count)
    }

    /// Kernels that factor the preconditioner at the current iterate (after the
    /// assembly): the frames level by level; the matrices of levels 2 and up from
    /// partial blocks over level-1 supernodes summed up level by level (top level
    /// first); those of levels 0 and 1 directly; then every domain matrix inverted.
    pub fn factor(&self) -> Vec<Kernel> {
        if self.cycle {
            return self.cycle_factor();
        }
        let coarse = self.levels.len().saturating_sub(1);
        let mut k = up_the_levels(Kernel::MasFramesLevel, coarse);
        // The level cursor is at the top level now.
        for l in (2..=coarse).rev() {
            k.extend([Kernel::MasGrainFirst, Kernel::MasCoarsePartials]);
            for _ in 1..l {
                k.extend([Kernel::MasCoarseTree, Kernel::MasGrainUp]);
            }
            k.push(Kernel::MasCoarseStore);
            if l > 2 {
                k.push(Kernel::MasLevelDown);
            }
        }
        k.extend([Kernel::MasFactor, Kernel::MasInvert]);
        k
    }

    /// Kernels of one application z = M⁻¹ r, ending with the partial sums of r·z and
    /// r·r: restriction up, every domain solved, prolongation down.
    pub fn apply(&self) -> Vec<Kernel> {
        if self.cycle {
            return self.cycle_apply();
        }
        let coarse = self.levels.len().saturating_sub(1);
        let mut k = up_the_levels(Kernel::MasRestrict, coarse);
        k.push(Kernel::MasSolve);
        for _ in 1..coarse {
            k.push(Kernel::MasProlong);
            k.push(Kernel::MasLevelDown);
        }
        k.push(Kernel::MasFinish);
        k
    }

    /// The start of a CG solve with MAS (the counterpart of `CG_START`).
    pub fn cg_start(&self) -> Vec<Kernel> {
        let mut k = vec![Kernel::MasCgStart];
        k.extend(self.apply());
        k.extend([Kernel::CgStartScalars, Kernel::CgDirection]);
        k
    }

    /// One CG iteration with MAS (the counterpart of `cg_iteration`), fused (α and
    /// β taken by the wide kernels) or split.
    pub fn cg_iteration(&self, fused: bool) -> Vec<Kernel> {
        let mut k = vec![Kernel::NewtonMatvec];
        match fused {
            true => k.push(Kernel::CgAlphaUpdate),
            false => k.extend([Kernel::CgAlpha, Kernel::CgUpdateResidual]),
        }
        k.extend(self.apply());
        match fused {
            true => k.push(Kernel::CgBetaDirection),
            false => k.extend([Kernel::CgBeta, Kernel::CgDirection]),
        }
        k
    }

    /// Bytes of device memory the preconditioner holds with `linear` bytes per
    /// matrix, vector and frame entry (`lreal`: 4 in f32 and mixed, 8 in f64) and 4
    /// per index.
    pub fn memory_bytes(&self, linear: u64) -> u64 {
        linear * (self.matrix_reals + self.vector_reals + self.partial_reals + 4 * self.frames)
            + 4 * self.index.len() as u64
    }

    /// Floating-point operations of inverting every domain matrix (Gauss–Jordan,
    /// about 2 m³ for an m × m matrix).
    pub fn invert_flops(&self) -> f64 {
        let mut f = 0.0;
        for (l, lv) in self.levels.iter().enumerate() {
            let domains = match self.levels.get(l + 1) {
                Some(next) => next.first_domain - lv.first_domain,
                None => self.domains - lv.first_domain,
            };
            let m = (MAS_DOMAIN as u32 * lv.dofs) as f64;
            f += domains as f64 * 2.0 * m * m * m;
        }
        f
    }
}

/// `kernel` on levels 1 … `coarse`, the level cursor moved up before each.
pub(super) fn up_the_levels(kernel: Kernel, coarse: usize) -> Vec<Kernel> {
    let mut k = Vec::new();
    for l in 0..coarse {
        k.push(if l == 0 {
            Kernel::MasLevelFirst
        } else {
            Kernel::MasLevelUp
        });
        k.push(kernel);
    }
    k
}

fn too_big_error(n: usize) -> String {
    format!("the multilevel preconditioner's tables for {n} nodes exceed 32-bit indices on the GPU; use solver.preconditioner = \"block_jacobi\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_group_sixteen_supernodes_up_to_one_domain() {
        let scene = crate::scene::parse(
            "dimension = 2\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 1e5\n[[walls]]\ntype = \"plane\"\npoint = [0, -1]\nnormal = [0, 1]\n[[bodies]]\ngenerator = \"grid\"\nsize = [1, 1]\ncells = [20, 20]\ndensity = 1\nspring_stiffness = 10\n",
            "t.toml",
            "t",
        )
        .unwrap();
        let plan = MasPlan::new(&scene.model, false).unwrap();
        // 441 nodes: 28 level-0 domains, 28 supernodes on level 1 in 2 domains, one
        // domain on level 2.
        let counts: Vec<u32> = plan.levels.iter().map(|l| l.count).collect();
        assert_eq!(counts, vec![441, 28, 2]);
        assert_eq!(plan.domains, 28 + 2 + 1);
        assert_eq!(plan.levels[1].first_domain, 28);
        assert_eq!(plan.levels[2].span, 256);
        assert_eq!(plan.matrix_reals, 28 * 32 * 32 + 2 * 48 * 48 + 48 * 48);
        // The coarse levels' frames, then the 441 node positions of the last
        // factorisation, which level 0's frame slot points at.
        assert_eq!(plan.frames, 28 + 2 + 441);
        assert_eq!(plan.levels[0].frame_offset, 28 + 2);
        // Every node once in the order, and the rank table its inverse.
        let n = 441;
        for rank in 0..n {
            let i = plan.index[rank] as usize;
            assert_eq!(plan.index[n + i] & !FIXED_BIT, rank as u32);
        }
        let apply = plan.apply();
        assert_eq!(apply.first(), Some(&Kernel::MasLevelFirst));
        assert_eq!(apply.last(), Some(&Kernel::MasFinish));
        assert_eq!(
            apply.iter().filter(|k| **k == Kernel::MasRestrict).count(),
            2
        );
        assert_eq!(
            apply.iter().filter(|k| **k == Kernel::MasProlong).count(),
            1
        );
    }
}
