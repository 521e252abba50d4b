//! The GPU's CG iteration in its two forms (`shaders/kernels/cg.wgsl`): fused (α
//! and β taken inside the wide kernels: 3 dispatches with block-Jacobi) and split
//! (5). Both give the same iterates to the bit and the same counts, with and without
//! contact between bodies and with the multilevel preconditioners, and the device
//! counts what it recorded.

mod common;

use springsim::backend::gpu::GpuOptions;
use springsim::backend::DeviceCounters;
use springsim::linear_solver::PreconditionerKind;
use springsim::sim::Simulation;

/// Bundled scene `name` on the GPU with the CG form `fused` and `pre` (None: the
/// scene's own preconditioner) and `batch` CG iterations per batch (None: the
/// policy); `None` without an adapter outside CI.
fn open(
    name: &str,
    fused: bool,
    pre: Option<PreconditionerKind>,
    batch: Option<u32>,
) -> Option<Simulation> {
    let mut model = springsim::scene::load(name).expect("bundled scene").model;
    if let Some(p) = pre {
        model.solver.preconditioner = p;
    }
    // the host's decisions: these tests count its reads and batches (the device's
    // are tests/gpu_device_newton.rs')
    let opts = GpuOptions {
        fused_cg: Some(fused),
        cg_batch: batch,
        device_newton: false,
        ..Default::default()
    };
    common::gpu_simulation(&model, opts)
}

/// What `steps` steps leave: the positions' bits, each step's Newton and CG counts,
/// and the device's counters.
struct Ran {
    bits: Vec<u64>,
    counts: Vec<(u32, u64)>,
    counters: DeviceCounters,
}

fn run(mut sim: Simulation, steps: u64) -> Ran {
    let mut counts = Vec::new();
    for _ in 0..steps {
        let r = sim.step().expect("a step");
        assert!(r.stall.is_none(), "step {} stalled: {:?}", r.step, r.stall);
        counts.push((r.newton_iterations, r.cg_iterations));
    }
    let b = sim.backend();
    Ran {
        bits: b.positions().iter().map(|x| x.to_bits()).collect(),
        counts,
        counters: b.counters(),
    }
}

/// Runs `name` in both forms and checks they agree to the bit; returns (fused, split).
fn both(name: &str, steps: u64, pre: Option<PreconditionerKind>) -> Option<(Ran, Ran)> {
    let fused = run(open(name, true, pre, None)?, steps);
    let split = run(open(name, false, pre, None)?, steps);
    assert_eq!(
        fused.counts, split.counts,
        "{name}: Newton and CG counts per step"
    );
    assert!(
        fused.bits == split.bits,
        "{name}: positions differ between the forms"
    );
    let (f, s) = (&fused.counters, &split.counters);
    assert_eq!(f.submissions, s.submissions, "{name}");
    assert_eq!(f.readbacks, s.readbacks, "{name}");
    assert_eq!(f.cg_iterations_recorded, s.cg_iterations_recorded, "{name}");
    // two dispatches fewer per recorded CG iteration, nothing else changes
    assert_eq!(
        s.dispatches - f.dispatches,
        2 * f.cg_iterations_recorded,
        "{name}"
    );
    assert_eq!(
        s.cg_dispatches - f.cg_dispatches,
        2 * f.cg_iterations_recorded
    );
    // the device's count of CG iterations is the driver's
    let done: u64 = fused.counts.iter().map(|c| c.1).sum();
    assert_eq!(f.cg_iterations_done, done, "{name}");
    assert!(f.cg_iterations_recorded >= done);
    Some((fused, split))
}

#[test]
fn fused_and_split_cg_agree_to_the_bit_with_block_jacobi() {
    // walls only (2D), contact between bodies (2D), a 3D cloth with self-contact
    for (name, steps) in [("square_drop", 30), ("two_squares", 8), ("cloth_drop", 6)] {
        let Some((fused, split)) = both(name, steps, Some(PreconditionerKind::BlockJacobi)) else {
            return;
        };
        let per = |c: &DeviceCounters| c.cg_dispatches as f64 / c.cg_iterations_recorded as f64;
        assert_eq!(per(&fused.counters), 3.0, "{name}");
        assert_eq!(per(&split.counters), 5.0, "{name}");
        assert!(fused.counters.record_ns_per_dispatch > 0);
    }
}

#[test]
fn fused_and_split_cg_agree_to_the_bit_with_the_multilevel_preconditioners() {
    for pre in [PreconditionerKind::Mas, PreconditionerKind::Multigrid] {
        if both("square_drop", 12, Some(pre)).is_none() {
            return;
        }
    }
}

/// With one CG iteration per batch the host reads the flags after each: nothing
/// is recorded past a solve's end, so every recorded iteration is one the solves
/// took, and the counters say so.
#[test]
fn one_iteration_batches_record_no_empty_iteration() {
    let Some(sim) = open("square_drop", true, None, Some(1)) else {
        return;
    };
    let ran = run(sim, 10);
    let c = &ran.counters;
    let done: u64 = ran.counts.iter().map(|c| c.1).sum();
    assert_eq!(c.cg_iterations_done, done);
    assert_eq!(c.cg_iterations_recorded, done);
    let totals = springsim::run::device_totals::DeviceTotals::of(c);
    assert_eq!(totals.device_empty_dispatches, 0);
    assert_eq!(totals.device_dispatches_per_cg_iteration, 3.0);
    // one readback per CG batch and at least one per step
    assert!(c.readbacks >= done + 10, "{c:?}");
}

/// The reads a step makes, counted: one per Newton direction (the first also
/// brings the step's starting energy), one per line-search trial past the first
/// (which rides with its direction), and one for the diagnostics at the step's end
/// (the energy, friction and contact pairs' figures together); with one CG batch
/// per solve, nothing else. Submissions match the reads. With and without contact
/// within the body.
#[test]
fn a_step_reads_once_per_direction_trial_and_diagnostics() {
    for self_contact in [false, true] {
        let mut model = springsim::scene::load("square_drop").unwrap().model;
        model.self_contact.enabled = self_contact;
        let opts = GpuOptions {
            cg_batch: Some(128),
            device_newton: false,
            ..Default::default()
        };
        let Some(mut sim) = common::gpu_simulation(&model, opts) else {
            return;
        };
        let before = sim.backend().counters();
        let mut expected = 0u64;
        for _ in 0..30 {
            let r = sim.step().expect("a step");
            assert!(r.stall.is_none());
            assert!(r.cg_iterations < 128 * (r.newton_iterations as u64 + 1));
            expected += r.newton_iterations as u64 + 1 + r.line_search_halvings as u64 + 1;
        }
        let c = sim.backend().counters().since(&before);
        assert_eq!(c.readbacks, expected, "self-contact {self_contact}: {c:?}");
        assert_eq!(
            c.submissions, expected,
            "self-contact {self_contact}: {c:?}"
        );
    }
}
