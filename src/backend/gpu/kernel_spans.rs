//! How many workgroups a dispatch of each [`Kernel`] covers ([`Span`]), which the
//! engine turns into a dispatch size per scene ([`super::engine::Dispatch`]).

use super::kernels::Kernel;

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
    /// One workgroup per domain of the multilevel preconditioner's level 1.
    CoarseDomains,
    /// The V-cycle's fill of a coarse Galerkin matrix: a thread per block of level 1
    /// or per entry of a coarser level's blocks, the more.
    CoarseBlocks,
    /// One thread per slot of the broad phase's largest array: max(hash slots + 1,
    /// collision vertices + 1, nodes + 1, edges).
    ContactSlots,
}

impl Kernel {
    /// How many workgroups a dispatch of it covers.
    pub fn span(self) -> Span {
        match self {
            Kernel::EnergyTotal
            | Kernel::EnergyChange
            | Kernel::DirectionStats
            | Kernel::BpFillIncidence
            | Kernel::BpAppendLagged
            | Kernel::PairFrictionChange
            | Kernel::PairFrictionLag
            | Kernel::PairAssemble
            | Kernel::PairEnergyTotal
            | Kernel::PairEnergyChange
            | Kernel::PairStats => Span::Elements,
            Kernel::BpResetStatic
            | Kernel::BpResetSwept
            | Kernel::BpExtent
            | Kernel::BpCountCells
            | Kernel::BpFillCells
            | Kernel::BpCountPairs
            | Kernel::BpFillPairs => Span::ContactSlots,
            Kernel::CgStartScalars
            | Kernel::CgAlpha
            | Kernel::CgBeta
            | Kernel::ReduceNodes
            | Kernel::ReduceElements
            | Kernel::LineSearchStart
            | Kernel::ReduceTrial
            | Kernel::NewtonBegin
            | Kernel::NewtonGateSolve
            | Kernel::NewtonSetEta
            | Kernel::NewtonGateCheck
            | Kernel::NewtonGateTrial
            | Kernel::NewtonGateAdvance
            | Kernel::NewtonGateEnd
            | Kernel::MasLevelFirst
            | Kernel::MasLevelUp
            | Kernel::MasLevelDown
            | Kernel::MasGrainFirst
            | Kernel::MasGrainUp
            | Kernel::BpScanCells
            | Kernel::BpScanPairs
            | Kernel::BpScanNodes => Span::Single,
            Kernel::MasCoarsePartials | Kernel::MasCoarseTree | Kernel::MasCoarseStore => {
                Span::PartialSlots
            }
            Kernel::MasFramesLevel | Kernel::MasRestrict | Kernel::MasProlong => Span::Supernodes,
            Kernel::MasFactor
            | Kernel::MasInvert
            | Kernel::MasSolve
            | Kernel::VcSmooth0First
            | Kernel::VcSmooth0Again
            | Kernel::VcCoarseDomains => Span::Domains,
            Kernel::VcSmoothFirst | Kernel::VcSmoothAgain => Span::CoarseDomains,
            Kernel::VcCoarseFill => Span::CoarseBlocks,
            Kernel::VcResidual | Kernel::VcRestrict => Span::Supernodes,
            _ => Span::Nodes,
        }
    }
}
