//! Every compute kernel of the GPU backend as a typed name: one [`Kernel`] per WGSL
//! entry point, with the file it lives in and how many workgroups a dispatch covers.
//! A kernel that does not exist is a compile error, not a failed lookup at run time;
//! the pipelines ([`super::pipelines`]) are built from [`Kernel::ALL`], and a test
//! checks that every entry point of every kernel file is listed.

/// How many workgroups a dispatch covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Span {
    /// One thread per node.
    Nodes,
    /// One thread per element: max(nodes, springs).
    Elements,
    /// A single workgroup.
    Single,
    /// One thread per supernode of the multilevel preconditioner's level 1.
    Supernodes,
    /// One workgroup per domain of every level of the multilevel preconditioner.
    Domains,
    /// One thread per (level-1 supernode, domain slot) of the multilevel
    /// preconditioner: 16 per level-1 supernode.
    PartialSlots,
}

/// One compute kernel (a WGSL entry point).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Stores xⁿ and the prediction x̃ at the start of a step.
    StepBegin,
    /// Velocity (and acceleration) update from the accepted iterate.
    StepEnd,
    /// x ← x + α p with the host's α.
    Advance,
    /// Per node: r = −∇ of every node-local term and the Newton node block.
    NodeTerms,
    /// Adds the springs to r and forms the block-Jacobi preconditioner.
    Assemble,
    /// Lagged friction contacts at xⁿ.
    FrictionLagStart,
    /// Lagged friction contacts at the current iterate, with the largest change of λ.
    FrictionLagUpdate,
    /// Sticking and sliding contacts and the dissipation of the last step.
    FrictionStats,
    /// q = H d, gathered per node.
    NewtonMatvec,
    /// CG start: residual, preconditioned residual, direction.
    CgStart,
    /// CG start: the scalars rᵀz and bᵀb.
    CgStartScalars,
    /// CG step length α.
    CgAlpha,
    /// CG update of p, r and z.
    CgUpdate,
    /// CG β and the stopping test.
    CgBeta,
    /// CG search direction d = z + β d.
    CgDirection,
    /// The Newton stopping measure, the CCD bound and the resolution counts of p.
    DirectionStats,
    /// The incremental potential and the diagnostics at x.
    EnergyTotal,
    /// E(x + α p) − E(x), summed per element.
    EnergyChange,
    /// Second reduction pass over per-node partials.
    ReduceNodes,
    /// Second reduction pass over per-element partials.
    ReduceElements,
    /// α of the first line-search trial, min(1, CCD bound).
    LineSearchStart,
    /// Second reduction pass of the first trial into its own result slot.
    ReduceTrial,
    /// MAS: the level cursor to level 1.
    MasLevelFirst,
    /// MAS: the level cursor one level up.
    MasLevelUp,
    /// MAS: the level cursor one level down.
    MasLevelDown,
    /// MAS: the supernode frames of the cursor's level.
    MasFramesLevel,
    /// MAS: the domain matrices of levels 0 and 1 assembled.
    MasFactor,
    /// MAS: partial blocks of the cursor's level over level-1 supernodes.
    MasCoarsePartials,
    /// MAS: one step of the partial blocks' sums up the levels.
    MasCoarseTree,
    /// MAS: the cursor level's blocks into its domain matrices.
    MasCoarseStore,
    /// MAS: the grain cursor to level 1.
    MasGrainFirst,
    /// MAS: the grain cursor one level up.
    MasGrainUp,
    /// MAS: every domain matrix inverted.
    MasInvert,
    /// MAS: CG start (p = 0, d = 0, the solve reopened).
    MasCgStart,
    /// CG update of p and r only (MAS preconditions afterwards).
    CgUpdateResidual,
    /// MAS: the residual restricted to the cursor's level.
    MasRestrict,
    /// MAS: every domain's correction.
    MasSolve,
    /// MAS: the cursor level's corrections added to the level below.
    MasProlong,
    /// MAS: z and the partial sums of r·z and r·r.
    MasFinish,
}

impl Kernel {
    /// Every kernel, grouped by file.
    pub const ALL: [Kernel; 39] = [
        Kernel::StepBegin,
        Kernel::StepEnd,
        Kernel::Advance,
        Kernel::NodeTerms,
        Kernel::Assemble,
        Kernel::FrictionLagStart,
        Kernel::FrictionLagUpdate,
        Kernel::FrictionStats,
        Kernel::NewtonMatvec,
        Kernel::CgStart,
        Kernel::CgStartScalars,
        Kernel::CgAlpha,
        Kernel::CgUpdate,
        Kernel::CgBeta,
        Kernel::CgDirection,
        Kernel::DirectionStats,
        Kernel::EnergyTotal,
        Kernel::EnergyChange,
        Kernel::ReduceNodes,
        Kernel::ReduceElements,
        Kernel::LineSearchStart,
        Kernel::ReduceTrial,
        Kernel::MasLevelFirst,
        Kernel::MasLevelUp,
        Kernel::MasLevelDown,
        Kernel::MasFramesLevel,
        Kernel::MasFactor,
        Kernel::MasCoarsePartials,
        Kernel::MasCoarseTree,
        Kernel::MasCoarseStore,
        Kernel::MasGrainFirst,
        Kernel::MasGrainUp,
        Kernel::MasInvert,
        Kernel::MasCgStart,
        Kernel::CgUpdateResidual,
        Kernel::MasRestrict,
        Kernel::MasSolve,
        Kernel::MasProlong,
        Kernel::MasFinish,
    ];

    /// Its position in [`Self::ALL`] (an index into per-kernel tables).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The WGSL entry point's name.
    pub fn entry_point(self) -> &'static str {
        match self {
            Kernel::StepBegin => "step_begin",
            Kernel::StepEnd => "step_end",
            Kernel::Advance => "advance",
            Kernel::NodeTerms => "node_terms",
            Kernel::Assemble => "assemble",
            Kernel::FrictionLagStart => "friction_lag_start",
            Kernel::FrictionLagUpdate => "friction_lag_update",
            Kernel::FrictionStats => "friction_stats",
            Kernel::NewtonMatvec => "newton_matvec",
            Kernel::CgStart => "cg_start",
            Kernel::CgStartScalars => "cg_start_scalars",
            Kernel::CgAlpha => "cg_alpha",
            Kernel::CgUpdate => "cg_update",
            Kernel::CgBeta => "cg_beta",
            Kernel::CgDirection => "cg_direction",
            Kernel::DirectionStats => "direction_stats",
            Kernel::EnergyTotal => "energy_total",
            Kernel::EnergyChange => "energy_change",
            Kernel::ReduceNodes => "reduce_nodes",
            Kernel::ReduceElements => "reduce_elements",
            Kernel::LineSearchStart => "line_search_start",
            Kernel::ReduceTrial => "reduce_trial",
            Kernel::MasLevelFirst => "mas_level_first",
            Kernel::MasLevelUp => "mas_level_up",
            Kernel::MasLevelDown => "mas_level_down",
            Kernel::MasFramesLevel => "mas_frames_level",
            Kernel::MasFactor => "mas_factor",
            Kernel::MasCoarsePartials => "mas_coarse_partials",
            Kernel::MasCoarseTree => "mas_coarse_tree",
            Kernel::MasCoarseStore => "mas_coarse_store",
            Kernel::MasGrainFirst => "mas_grain_first",
            Kernel::MasGrainUp => "mas_grain_up",
            Kernel::MasInvert => "mas_invert",
            Kernel::MasCgStart => "mas_cg_start",
            Kernel::CgUpdateResidual => "cg_update_residual",
            Kernel::MasRestrict => "mas_restrict",
            Kernel::MasSolve => "mas_solve",
            Kernel::MasProlong => "mas_prolong",
            Kernel::MasFinish => "mas_finish",
        }
    }

    /// The kernel file under `shaders/` that defines it.
    pub fn file(self) -> &'static str {
        match self {
            Kernel::StepBegin | Kernel::StepEnd | Kernel::Advance => "kernels/step.wgsl",
            Kernel::NodeTerms | Kernel::Assemble => "kernels/assemble.wgsl",
            Kernel::FrictionLagStart | Kernel::FrictionLagUpdate | Kernel::FrictionStats => {
                "kernels/friction.wgsl"
            }
            Kernel::NewtonMatvec => "kernels/newton_matvec.wgsl",
            Kernel::CgStart
            | Kernel::CgStartScalars
            | Kernel::CgAlpha
            | Kernel::CgUpdate
            | Kernel::CgBeta
            | Kernel::CgDirection => "kernels/cg.wgsl",
            Kernel::DirectionStats => "kernels/direction_stats.wgsl",
            Kernel::EnergyTotal | Kernel::EnergyChange => "kernels/energy.wgsl",
            Kernel::ReduceNodes | Kernel::ReduceElements => "kernels/reduce_final.wgsl",
            Kernel::LineSearchStart | Kernel::ReduceTrial => "kernels/line_search.wgsl",
            Kernel::MasLevelFirst
            | Kernel::MasLevelUp
            | Kernel::MasLevelDown
            | Kernel::MasFramesLevel
            | Kernel::MasFactor
            | Kernel::MasCoarsePartials
            | Kernel::MasCoarseTree
            | Kernel::MasCoarseStore
            | Kernel::MasGrainFirst
            | Kernel::MasGrainUp
            | Kernel::MasInvert => "kernels/mas_factor.wgsl",
            Kernel::MasCgStart
            | Kernel::CgUpdateResidual
            | Kernel::MasRestrict
            | Kernel::MasSolve
            | Kernel::MasProlong
            | Kernel::MasFinish => "kernels/mas_apply.wgsl",
        }
    }

    /// How many workgroups a dispatch of it covers.
    pub fn span(self) -> Span {
        match self {
            Kernel::EnergyTotal | Kernel::EnergyChange => Span::Elements,
            Kernel::CgStartScalars
            | Kernel::CgAlpha
            | Kernel::CgBeta
            | Kernel::ReduceNodes
            | Kernel::ReduceElements
            | Kernel::LineSearchStart
            | Kernel::ReduceTrial
            | Kernel::MasLevelFirst
            | Kernel::MasLevelUp
            | Kernel::MasLevelDown
            | Kernel::MasGrainFirst
            | Kernel::MasGrainUp => Span::Single,
            Kernel::MasCoarsePartials | Kernel::MasCoarseTree | Kernel::MasCoarseStore => {
                Span::PartialSlots
            }
            Kernel::MasFramesLevel | Kernel::MasRestrict | Kernel::MasProlong => Span::Supernodes,
            Kernel::MasFactor | Kernel::MasInvert | Kernel::MasSolve => Span::Domains,
            _ => Span::Nodes,
        }
    }

    /// The kernel files and their entry points, in the order of [`Self::ALL`].
    pub fn files() -> Vec<(&'static str, Vec<Kernel>)> {
        let mut out: Vec<(&'static str, Vec<Kernel>)> = Vec::new();
        for k in Self::ALL {
            match out.iter_mut().find(|(f, _)| *f == k.file()) {
                Some((_, ks)) => ks.push(k),
                None => out.push((k.file(), vec![k])),
            }
        }
        out
    }
}

/// E and the diagnostics at the current iterate, reduced into result slot 0.
pub const ENERGY_TOTAL: [Kernel; 2] = [Kernel::EnergyTotal, Kernel::ReduceElements];

/// The Newton system at the current iterate: r = −∇E, the node blocks and the
/// block-Jacobi preconditioner.
pub const ASSEMBLE: [Kernel; 2] = [Kernel::NodeTerms, Kernel::Assemble];

/// The start of a CG solve.
pub const CG_START: [Kernel; 2] = [Kernel::CgStart, Kernel::CgStartScalars];

/// One CG iteration (each kernel idles once the solve is done).
pub const CG_ITERATION: [Kernel; 5] = [
    Kernel::NewtonMatvec,
    Kernel::CgAlpha,
    Kernel::CgUpdate,
    Kernel::CgBeta,
    Kernel::CgDirection,
];

/// The direction's statistics into result slot 0 and, speculatively, the first
/// line-search trial at α = min(1, CCD bound) into slot 1.
pub const DIRECTION_CHECK: [Kernel; 5] = [
    Kernel::DirectionStats,
    Kernel::ReduceNodes,
    Kernel::LineSearchStart,
    Kernel::EnergyChange,
    Kernel::ReduceTrial,
];

/// The direction's statistics alone, into result slot 0.
pub const DIRECTION_STATS: [Kernel; 2] = [Kernel::DirectionStats, Kernel::ReduceNodes];

/// E(x + α p) − E(x) for the host's α, into result slot 0.
pub const ENERGY_CHANGE: [Kernel; 2] = [Kernel::EnergyChange, Kernel::ReduceElements];

/// A friction lagging update with the largest change of λ, into result slot 0.
pub const FRICTION_LAG_UPDATE: [Kernel; 2] = [Kernel::FrictionLagUpdate, Kernel::ReduceNodes];

/// The friction statistics of the last step, into result slot 0.
pub const FRICTION_STATS: [Kernel; 2] = [Kernel::FrictionStats, Kernel::ReduceNodes];

/// `H d` and `dᵀ H d` (the mat-vec and its reduction), for probes.
pub const MATVEC: [Kernel; 3] = [Kernel::NodeTerms, Kernel::NewtonMatvec, Kernel::ReduceNodes];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_kernel_once_in_declaration_order() {
        for (i, k) in Kernel::ALL.iter().enumerate() {
            assert_eq!(k.index(), i, "{k:?}");
        }
        let mut names: Vec<_> = Kernel::ALL.iter().map(|k| k.entry_point()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Kernel::ALL.len());
    }
}
