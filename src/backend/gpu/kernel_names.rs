//! Every [`Kernel`]'s WGSL entry point and the kernel file that defines it.

use super::kernels::Kernel;

impl Kernel {
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
            Kernel::CgAlphaUpdate => "cg_alpha_update",
            Kernel::CgBetaDirection => "cg_beta_direction",
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
            Kernel::VcCoarseFill => "vc_coarse_fill",
            Kernel::VcCoarseDomains => "vc_coarse_domains",
            Kernel::VcSmooth0First => "vc_smooth0_first",
            Kernel::VcSmooth0Again => "vc_smooth0_again",
            Kernel::VcSmoothFirst => "vc_smooth_first",
            Kernel::VcSmoothAgain => "vc_smooth_again",
            Kernel::VcResidual => "vc_residual",
            Kernel::VcRestrict => "vc_restrict",
            Kernel::VcFineZ => "vc_fine_z",
            Kernel::VcFineResidual => "vc_fine_residual",
            Kernel::BpResetStatic => "bp_reset_static",
            Kernel::BpResetSwept => "bp_reset_swept",
            Kernel::BpExtent => "bp_extent",
            Kernel::BpCountCells => "bp_count_cells",
            Kernel::BpScanCells => "bp_scan_cells",
            Kernel::BpFillCells => "bp_fill_cells",
            Kernel::BpCountPairs => "bp_count_pairs",
            Kernel::BpScanPairs => "bp_scan_pairs",
            Kernel::BpFillPairs => "bp_fill_pairs",
            Kernel::BpAppendLagged => "bp_append_lagged",
            Kernel::BpScanNodes => "bp_scan_nodes",
            Kernel::BpFillIncidence => "bp_fill_incidence",
            Kernel::BpSortIncidence => "bp_sort_incidence",
            Kernel::PairAssemble => "pair_assemble",
            Kernel::PairGather => "pair_gather",
            Kernel::NewtonMatvecPairs => "newton_matvec_pairs",
            Kernel::PairEnergyTotal => "pair_energy_total",
            Kernel::PairEnergyChange => "pair_energy_change",
            Kernel::PairStats => "pair_stats",
            Kernel::PairFrictionChange => "pair_friction_change",
            Kernel::PairFrictionLag => "pair_friction_lag",
            Kernel::NewtonBegin => "newton_begin",
            Kernel::NewtonGateSolve => "newton_gate_solve",
            Kernel::NewtonSetEta => "newton_set_eta",
            Kernel::NewtonGateCheck => "newton_gate_check",
            Kernel::NewtonGateTrial => "newton_gate_trial",
            Kernel::NewtonGateAdvance => "newton_gate_advance",
            Kernel::NewtonGateEnd => "newton_gate_end",
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
            Kernel::NewtonMatvec | Kernel::NewtonMatvecPairs => "kernels/newton_matvec.wgsl",
            Kernel::CgStart
            | Kernel::CgStartScalars
            | Kernel::CgAlpha
            | Kernel::CgUpdate
            | Kernel::CgBeta
            | Kernel::CgDirection
            | Kernel::CgAlphaUpdate
            | Kernel::CgBetaDirection => "kernels/cg.wgsl",
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
            Kernel::VcCoarseFill
            | Kernel::VcCoarseDomains
            | Kernel::VcSmooth0First
            | Kernel::VcSmooth0Again
            | Kernel::VcSmoothFirst
            | Kernel::VcSmoothAgain
            | Kernel::VcResidual
            | Kernel::VcRestrict
            | Kernel::VcFineZ
            | Kernel::VcFineResidual => "kernels/mas_cycle.wgsl",
            Kernel::BpResetStatic
            | Kernel::BpResetSwept
            | Kernel::BpExtent
            | Kernel::BpCountCells
            | Kernel::BpScanCells
            | Kernel::BpFillCells
            | Kernel::BpCountPairs
            | Kernel::BpScanPairs
            | Kernel::BpFillPairs
            | Kernel::BpAppendLagged
            | Kernel::BpScanNodes
            | Kernel::BpFillIncidence
            | Kernel::BpSortIncidence => "kernels/broad_phase.wgsl",
            Kernel::PairAssemble => "kernels/pair_assemble.wgsl",
            Kernel::PairGather
            | Kernel::PairEnergyTotal
            | Kernel::PairEnergyChange
            | Kernel::PairStats => "kernels/pairs.wgsl",
            Kernel::PairFrictionChange | Kernel::PairFrictionLag => "kernels/pair_friction.wgsl",
            Kernel::NewtonBegin
            | Kernel::NewtonGateSolve
            | Kernel::NewtonSetEta
            | Kernel::NewtonGateCheck
            | Kernel::NewtonGateTrial
            | Kernel::NewtonGateAdvance
            | Kernel::NewtonGateEnd => "kernels/device_newton.wgsl",
        }
    }
}
