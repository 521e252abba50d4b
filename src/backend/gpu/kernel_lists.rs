//! The kernel sequences the GPU backend records: one constant per job (assembly,
//! a CG iteration, the direction check, …), and [`with_contact`], which puts the
//! kernels of contact pairs into any of them; and the kernel files with their entry
//! points ([`Kernel::files`]).

use super::kernels::Kernel;

/// The largest change of the contact pairs' friction λ that a lag at x would make
/// (the list built at x), into result slot 0.
pub const PAIR_FRICTION_CHANGE: [Kernel; 2] = [Kernel::PairFrictionChange, Kernel::ReduceElements];

/// E and the diagnostics at the current iterate, reduced into result slot 0.
pub const ENERGY_TOTAL: [Kernel; 2] = [Kernel::EnergyTotal, Kernel::ReduceElements];

/// The Newton system at the current iterate: r = −∇E, the node blocks and the
/// block-Jacobi preconditioner.
pub const ASSEMBLE: [Kernel; 2] = [Kernel::NodeTerms, Kernel::Assemble];

/// The start of a CG solve.
pub const CG_START: [Kernel; 2] = [Kernel::CgStart, Kernel::CgStartScalars];

/// One CG iteration, split (each kernel idles once the solve is done): a
/// one-workgroup kernel takes α, another β.
pub const CG_ITERATION: [Kernel; 5] = [
    Kernel::NewtonMatvec,
    Kernel::CgAlpha,
    Kernel::CgUpdate,
    Kernel::CgBeta,
    Kernel::CgDirection,
];

/// One CG iteration, fused: every workgroup of the update takes α, and every one of
/// the direction's β, from the partials of the kernel before (`kernels/cg.wgsl`).
pub const CG_ITERATION_FUSED: [Kernel; 3] = [
    Kernel::NewtonMatvec,
    Kernel::CgAlphaUpdate,
    Kernel::CgBetaDirection,
];

/// The most per-node partials (workgroups of a per-node dispatch, 256 nodes each)
/// for which the CG iteration is fused by default. Each workgroup of a fused kernel
/// folds all of them, so its reads grow as partials²: at 512 (131,072 nodes) that
/// is 512 × 512 × 64 B = 16 MiB from cache per fused kernel in f64, against about
/// 3 MiB per node vector streamed from memory; past it the split form's two extra
/// dispatches are the cheaper side. Chosen from that arithmetic, not measured on a
/// device: `bench --cg-form fused|split` measures either form.
pub const FUSED_CG_MAX_PARTIALS: u32 = 512;

/// Whether the CG iteration is fused by default with `partials` per-node partials.
pub fn fused_cg(partials: u32) -> bool {
    partials <= FUSED_CG_MAX_PARTIALS
}

/// One block-Jacobi CG iteration, fused or split.
pub fn cg_iteration(fused: bool) -> Vec<Kernel> {
    match fused {
        true => CG_ITERATION_FUSED.to_vec(),
        false => CG_ITERATION.to_vec(),
    }
}

/// Workgroup partials the `partials` buffer holds: two regions of per-node partials
/// (the mat-vec's d·q, then r·z and r·r from `residual_partials()` in
/// `shaders/state.wgsl`, which the fused CG kernels read and write in one dispatch)
/// or the per-element partials, whichever is more.
pub fn partial_slots(node_partials: u32, element_partials: u32) -> u64 {
    (2 * node_partials as u64).max(element_partials as u64)
}

/// The direction's statistics into result slot 0 and, speculatively, the first
/// line-search trial at α = min(1, CCD bound) into slot 1.
pub const DIRECTION_CHECK: [Kernel; 5] = [
    Kernel::DirectionStats,
    Kernel::ReduceElements,
    Kernel::LineSearchStart,
    Kernel::EnergyChange,
    Kernel::ReduceTrial,
];

/// The direction's statistics alone, into result slot 0.
pub const DIRECTION_STATS: [Kernel; 2] = [Kernel::DirectionStats, Kernel::ReduceElements];

/// E(x + α p) − E(x) for the host's α, into result slot 0.
pub const ENERGY_CHANGE: [Kernel; 2] = [Kernel::EnergyChange, Kernel::ReduceElements];

/// A friction lagging update with the largest change of λ, into result slot 0.
pub const FRICTION_LAG_UPDATE: [Kernel; 2] = [Kernel::FrictionLagUpdate, Kernel::ReduceNodes];

/// The friction statistics of the last step, into result slot 0.
pub const FRICTION_STATS: [Kernel; 2] = [Kernel::FrictionStats, Kernel::ReduceNodes];

/// The active contact pairs and their smallest distance, into result slot 0.
pub const PAIR_STATS: [Kernel; 2] = [Kernel::PairStats, Kernel::ReduceElements];

/// `H d` and `dᵀ H d` (the mat-vec and its reduction), for probes.
pub const MATVEC: [Kernel; 3] = [Kernel::NodeTerms, Kernel::NewtonMatvec, Kernel::ReduceNodes];

/// The broad phase of contact pairs after its first kernel (which picks static or
/// swept boxes), from the cell size to the sorted incidence: the kernels from
/// `BpExtent` to `BpSortIncidence`, declared in that order.
fn broad_phase_rest() -> &'static [Kernel] {
    &Kernel::ALL[Kernel::BpExtent.index()..=Kernel::BpSortIncidence.index()]
}

/// The broad phase at x: a list every evaluation at x can read.
pub fn broad_phase_static() -> Vec<Kernel> {
    [&[Kernel::BpResetStatic][..], broad_phase_rest()].concat()
}

/// The broad phase over the segment from x to x + p: the list the CCD bound, the
/// line search and the next assembly read.
pub fn broad_phase_swept() -> Vec<Kernel> {
    [&[Kernel::BpResetSwept][..], broad_phase_rest()].concat()
}

/// `list` with the kernels of contact pairs where they belong: the pairs' terms after
/// `node_terms`, the mat-vec with their couplings for the plain one, their energies after the
/// element energies, and the swept broad phase before the direction statistics
/// (whose CCD bound covers the pairs). The one place a kernel list learns of pairs.
pub fn with_contact(list: &[Kernel]) -> Vec<Kernel> {
    let mut out = Vec::with_capacity(list.len() + 16);
    for &k in list {
        match k {
            Kernel::DirectionStats => {
                out.extend(broad_phase_swept());
                out.push(k);
            }
            Kernel::NodeTerms => out.extend([k, Kernel::PairAssemble, Kernel::PairGather]),
            Kernel::NewtonMatvec => out.push(Kernel::NewtonMatvecPairs),
            Kernel::EnergyTotal => out.extend([k, Kernel::PairEnergyTotal]),
            Kernel::EnergyChange => out.extend([k, Kernel::PairEnergyChange]),
            _ => out.push(k),
        }
    }
    out
}

impl Kernel {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs enter every job that reads them, right after what they extend, and the
    /// direction check builds the swept list before its CCD bound.
    #[test]
    fn with_contact_puts_the_pair_kernels_where_they_belong() {
        let a = with_contact(&ASSEMBLE);
        assert_eq!(
            a,
            [
                Kernel::NodeTerms,
                Kernel::PairAssemble,
                Kernel::PairGather,
                Kernel::Assemble
            ]
        );
        let it = with_contact(&CG_ITERATION);
        assert_eq!(it[0], Kernel::NewtonMatvecPairs);
        assert_eq!(it.len(), CG_ITERATION.len());
        let check = with_contact(&DIRECTION_CHECK);
        let stats = check.iter().position(|&k| k == Kernel::DirectionStats);
        let sweep = check.iter().position(|&k| k == Kernel::BpResetSwept);
        assert!(sweep < stats, "{check:?}");
        let change = check
            .iter()
            .position(|&k| k == Kernel::EnergyChange)
            .unwrap();
        assert_eq!(check[change + 1], Kernel::PairEnergyChange);
        assert_eq!(with_contact(&ENERGY_TOTAL)[1], Kernel::PairEnergyTotal);
        let rest = broad_phase_rest();
        assert_eq!(rest.len(), 11);
        assert_eq!(rest[0], Kernel::BpExtent);
        assert!(rest.contains(&Kernel::BpAppendLagged));
        assert_eq!(rest[10], Kernel::BpSortIncidence);
        // nothing changes for a list that reads no pairs
        assert_eq!(with_contact(&FRICTION_STATS), FRICTION_STATS.to_vec());
    }
}
