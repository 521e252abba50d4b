//! Every compute kernel of the GPU backend as a typed name: one [`Kernel`] per WGSL
//! entry point, with the file it lives in and how many workgroups a dispatch covers.
//! A kernel that does not exist is a compile error, not a failed lookup at run time;
//! the pipelines ([`super::pipelines`]) are built from [`Kernel::ALL`], and a test
//! checks that every entry point of every kernel file is listed.

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
    /// Fused CG: α from the mat-vec's partials, then the update of p and r, and
    /// with block-Jacobi of z (a multilevel preconditioner follows otherwise).
    CgAlphaUpdate,
    /// Fused CG: β and the stopping test from the update's partials, then d = z + β d.
    CgBetaDirection,
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
    /// V-cycle: the cursor level's whole Galerkin matrix, one thread per block.
    VcCoarseFill,
    /// V-cycle: the domain matrices of levels 2 and up cut from the whole matrices.
    VcCoarseDomains,
    /// V-cycle: level 0 smooths r (and level 1's correction is cleared).
    VcSmooth0First,
    /// V-cycle: level 0 smooths its last residual.
    VcSmooth0Again,
    /// V-cycle: the cursor level smooths its input on the way up.
    VcSmoothFirst,
    /// V-cycle: the cursor level smooths its residual on the way down.
    VcSmoothAgain,
    /// V-cycle: the cursor level's residual w = v − A y.
    VcResidual,
    /// V-cycle: the cursor level's input from the residual below.
    VcRestrict,
    /// V-cycle: the correction so far into z.
    VcFineZ,
    /// V-cycle: level 0's residual r − H z.
    VcFineResidual,
    /// Broad phase: counters zeroed, boxes at x.
    BpResetStatic,
    /// Broad phase: counters zeroed, boxes swept from x to x + p.
    BpResetSwept,
    /// Broad phase: the grid's cell size (largest box extent).
    BpExtent,
    /// Broad phase: edges counted per hashed cell.
    BpCountCells,
    /// Broad phase: cell starts by a scan.
    BpScanCells,
    /// Broad phase: edges into their cells.
    BpFillCells,
    /// Broad phase: candidates counted per collision vertex.
    BpCountPairs,
    /// Broad phase: list offsets by a scan, the total, the overflow test.
    BpScanPairs,
    /// Broad phase: the pair list written, each vertex's run sorted.
    BpFillPairs,
    /// Broad phase: the lagged friction pairs after the candidates.
    BpAppendLagged,
    /// Broad phase: per-node incidence starts by a scan.
    BpScanNodes,
    /// Broad phase: each pair entered at its nodes.
    BpFillIncidence,
    /// Broad phase: each node's incidence sorted.
    BpSortIncidence,
    /// Per pair: the weighted barrier gradient and PSD Hessian.
    PairAssemble,
    /// Per node: the pairs' gradients into r, their diagonal blocks into the node block.
    PairGather,
    /// q = H d with the contact pairs' couplings (replaces `NewtonMatvec`).
    NewtonMatvecPairs,
    /// The pairs' barrier added to the energy partials.
    PairEnergyTotal,
    /// The pairs' barrier change added to the line-search partials.
    PairEnergyChange,
    /// Active pairs and their smallest distance.
    PairStats,
    /// The largest change of the pairs' friction λ a lag at x would make.
    PairFrictionChange,
    /// The pairs' friction lagged at x.
    PairFrictionLag,
    /// Device Newton: E at the step's start starts the solve.
    NewtonBegin,
    /// Device Newton: a slot's start (an update taken; the solve and CG gates).
    NewtonGateSolve,
    /// Device Newton: a started solve's CG tolerance.
    NewtonSetEta,
    /// Device Newton: the direction check's gate after a CG batch.
    NewtonGateCheck,
    /// Device Newton: a checked direction or trial taken; a trial's gate.
    NewtonGateTrial,
    /// Device Newton: a trial taken; the update's gate.
    NewtonGateAdvance,
    /// Device Newton: the gate of the step's end after its last solve.
    NewtonGateEnd,
}

impl Kernel {
    /// Every kernel, grouped by file.
    pub const ALL: [Kernel; 79] = [
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
        Kernel::CgAlphaUpdate,
        Kernel::CgBetaDirection,
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
        Kernel::VcCoarseFill,
        Kernel::VcCoarseDomains,
        Kernel::VcSmooth0First,
        Kernel::VcSmooth0Again,
        Kernel::VcSmoothFirst,
        Kernel::VcSmoothAgain,
        Kernel::VcResidual,
        Kernel::VcRestrict,
        Kernel::VcFineZ,
        Kernel::VcFineResidual,
        Kernel::BpResetStatic,
        Kernel::BpResetSwept,
        Kernel::BpExtent,
        Kernel::BpCountCells,
        Kernel::BpScanCells,
        Kernel::BpFillCells,
        Kernel::BpCountPairs,
        Kernel::BpScanPairs,
        Kernel::BpFillPairs,
        Kernel::BpAppendLagged,
        Kernel::BpScanNodes,
        Kernel::BpFillIncidence,
        Kernel::BpSortIncidence,
        Kernel::PairAssemble,
        Kernel::PairGather,
        Kernel::NewtonMatvecPairs,
        Kernel::PairEnergyTotal,
        Kernel::PairEnergyChange,
        Kernel::PairStats,
        Kernel::PairFrictionChange,
        Kernel::PairFrictionLag,
        Kernel::NewtonBegin,
        Kernel::NewtonGateSolve,
        Kernel::NewtonSetEta,
        Kernel::NewtonGateCheck,
        Kernel::NewtonGateTrial,
        Kernel::NewtonGateAdvance,
        Kernel::NewtonGateEnd,
    ];

    /// Its position in [`Self::ALL`] (an index into per-kernel tables).
    pub fn index(self) -> usize {
        self as usize
    }
}
