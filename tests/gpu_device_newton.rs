//! The Newton solve decided on the device (`src/backend/gpu/device_newton.rs`,
//! `shaders/kernels/device_newton.wgsl`) against the host's driver
//! (`crate::newton::solve`, the specification): the same iterates to the bit and
//! the same Newton, CG and line-search figures at every step, with contact between
//! bodies, friction, CG solves that outrun their slots and pair lists that grow
//! mid-solve; and one read per solve where the host's driver reads once per
//! direction and trial.

mod common;

use springsim::backend::gpu::GpuOptions;
use springsim::backend::DeviceCounters;
use springsim::sim::Simulation;

/// Bundled scene `name` on the GPU, decided on the device or the host; `None`
/// without an adapter outside CI.
fn open(name: &str, device: bool, opts: GpuOptions) -> Option<Simulation> {
    let opts = GpuOptions {
        device_newton: device,
        ..opts
    };
    let model = springsim::scene::load(name).expect("bundled scene").model;
    common::gpu_simulation(&model, opts)
}

/// What `steps` steps leave: every step's figures (bits of the reals), the final
/// positions' bits and the device's counters.
struct Ran {
    steps: Vec<String>,
    bits: Vec<u64>,
    counters: DeviceCounters,
    /// Growths of the pair list while stepping (not at the start).
    growths: u64,
    /// The contact statistics at the end.
    contact: springsim::backend::ContactStats,
}

fn run(mut sim: Simulation, steps: u64) -> Ran {
    let growths_at_start = sim.backend().contact_stats().list_growths;
    let mut rows = Vec::new();
    for _ in 0..steps {
        let r = sim.step().expect("a step");
        assert!(r.stall.is_none(), "step {} stalled: {:?}", r.step, r.stall);
        rows.push(format!(
            "step {}: newton {} cg {} halvings {} alpha_min {:x} ccd {:x} residual {:x} converged {} capped {} E {:x} cg_unconverged {}",
            r.step,
            r.newton_iterations,
            r.cg_iterations,
            r.line_search_halvings,
            r.alpha_min.to_bits(),
            r.ccd_alpha_min.to_bits(),
            r.residual.to_bits(),
            r.converged,
            r.newton_capped,
            r.incremental_potential.to_bits(),
            r.cg_unconverged,
        ));
    }
    let b = sim.backend();
    Ran {
        steps: rows,
        bits: b.positions().iter().map(|x| x.to_bits()).collect(),
        counters: b.counters(),
        growths: b.contact_stats().list_growths - growths_at_start,
        contact: b.contact_stats(),
    }
}

/// Runs `name` decided on the device and on the host with `opts` and checks they
/// agree to the bit at every step; returns (device, host).
fn both(name: &str, steps: u64, opts: GpuOptions) -> Option<(Ran, Ran)> {
    let device = run(open(name, true, opts)?, steps);
    let host = run(open(name, false, opts)?, steps);
    for (d, h) in device.steps.iter().zip(&host.steps) {
        assert_eq!(d, h, "{name}: device (left) and host (right) decided apart");
    }
    assert!(device.bits == host.bits, "{name}: positions differ");
    Some((device, host))
}

/// The reference scenes, with and without contact between bodies and friction:
/// the device takes the host's decisions, with fewer reads.
#[test]
fn the_device_decides_as_the_host_does() {
    // reads per step at most (cloth_drop's step 15 needs 84 CG iterations where the
    // last step needed 1: its batch doubles at each read until it is through)
    for (name, steps, most) in [
        ("square_drop", 40, 1.2),
        ("cloth_drop", 25, 1.3),
        ("two_squares", 40, 1.6),
    ] {
        let Some((device, host)) = both(name, steps, GpuOptions::default()) else {
            return;
        };
        let (d, h) = (&device.counters, &host.counters);
        assert!(d.readbacks < h.readbacks, "{name}: {d:?} against {h:?}");
        let per_step = d.readbacks as f64 / steps as f64;
        assert!(per_step <= most, "{name}: {per_step} reads per step: {d:?}");
        assert_eq!(d.cg_iterations_done, h.cg_iterations_done, "{name}");
    }
}

/// One CG iteration per slot: every solve outruns its slots and the device goes
/// on from where it stood in the next submission; nothing changes.
#[test]
fn solves_that_outrun_their_slots_go_on() {
    let opts = GpuOptions {
        cg_batch: Some(1),
        ..Default::default()
    };
    let Some((device, _)) = both("square_drop", 12, opts) else {
        return;
    };
    let c = &device.counters;
    // two slots of one iteration per submission: about one read per two CG iterations
    assert!(
        c.readbacks * 2 >= c.cg_iterations_done,
        "{c:?}: the continuation was not exercised"
    );
}

/// A pair list that starts with room for one pair grows mid-solve, a host event
/// between two submissions, and the solve goes on as the host's would.
#[test]
fn pair_lists_grow_mid_solve() {
    let opts = GpuOptions {
        pair_capacity: Some(1),
        ..Default::default()
    };
    let Some((device, host)) = both("two_squares", 30, opts) else {
        return;
    };
    assert!(device.growths > 0, "the list never grew while stepping");
    assert_eq!(device.growths, host.growths);
}

/// A step of a scene without friction reads once: its solve (every direction,
/// trial and update recorded ahead), the step's end and its diagnostics in one
/// submission; a solve that outran its slots adds one, which the slots planned from
/// the last step make rare. The diagnostics are those a read after the step gives.
#[test]
fn a_step_reads_once_for_its_solve() {
    let Some(mut sim) = open("square_drop", true, GpuOptions::default()) else {
        return;
    };
    for _ in 0..5 {
        sim.step().expect("a warm-up step");
    }
    let before = sim.backend().counters();
    let mut directions = 0u64;
    let steps = 40u64;
    for _ in 0..steps {
        let r = sim.step().expect("a step");
        directions += r.newton_iterations as u64 + 1;
    }
    let c = sim.backend().counters().since(&before);
    assert!(
        c.readbacks >= steps && c.readbacks <= steps + steps / 4,
        "{} reads in {steps} steps ({directions} directions): {c:?}",
        c.readbacks
    );
    assert_eq!(c.submissions, c.readbacks, "{c:?}");
    assert!(
        directions > steps,
        "the steps took more than one direction each"
    );
    // the diagnostics read with the solve are those the device gives on request
    let r = sim.step().expect("a step");
    let again = sim.backend().diagnostics();
    assert_eq!(r.kinetic.to_bits(), again.kinetic.to_bits());
    assert_eq!(r.elastic.to_bits(), again.elastic.to_bits());
    assert_eq!(r.min_wall_distance, again.min_wall_distance);
}

/// A caller that reads the positions after every step (the run loop's intersection
/// checker) gets them with the solve's own read: a step still reads about once, and
/// the positions are those the host's driver reads on its own, to the bit.
#[test]
fn positions_come_with_the_solve() {
    let (Some(mut device), Some(mut host)) = (
        open("square_drop", true, GpuOptions::default()),
        open("square_drop", false, GpuOptions::default()),
    ) else {
        return;
    };
    device.backend().keep_end_positions(true);
    let before = device.backend().counters();
    let steps = 30u64;
    for k in 0..steps {
        device.step().expect("a step");
        host.step().expect("a step");
        let (d, h) = (device.positions(), host.positions());
        let bits = |x: &[f64]| x.iter().map(|c| c.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&d), bits(&h), "step {}: positions differ", k + 1);
    }
    let c = device.backend().counters().since(&before);
    assert!(
        c.readbacks >= steps && c.readbacks <= steps + steps / 4,
        "{} reads in {steps} steps with the positions read after each: {c:?}",
        c.readbacks
    );
    // positions written from the host are read from the device again
    let x = device.backend().positions();
    let moved: Vec<f64> = x.iter().map(|c| c + 1e-3).collect();
    device
        .backend()
        .set_iterate(&x, &moved)
        .expect("the GPU moves x");
    assert_eq!(device.backend().positions(), moved);
}

/// The step start's friction lag of contacts between bodies rides in the solve's
/// submission, its pair list checked by the device; where anything reads before the
/// solve, the host checks it first. Both ways the steps are the host driver's, to
/// the bit, and the broad phases and their candidates are counted alike.
#[test]
fn the_start_lag_rides_with_the_solve() {
    let steps = 25;
    let Some(host) = open("two_squares", false, GpuOptions::default()) else {
        return;
    };
    let host = run(host, steps);
    let mut sim = open("two_squares", true, GpuOptions::default()).expect("an adapter");
    let model = springsim::scene::load("two_squares").unwrap().model;
    let b = sim.backend();
    let before = b.counters();
    let mut rows = Vec::new();
    for k in 0..steps {
        b.begin_step();
        if k % 2 == 1 {
            // a read between the step's start and its solve takes the lag first
            b.velocities();
        }
        let stats = b.solve(&model.solver).expect("a solve");
        b.end_step();
        b.diagnostics();
        rows.push((stats.iterations, stats.cg_iterations, stats.halvings));
    }
    let c = b.counters().since(&before);
    let bits: Vec<u64> = b.positions().iter().map(|x| x.to_bits()).collect();
    assert!(
        bits == host.bits,
        "positions differ from the host's decisions"
    );
    let host_rows: Vec<_> = host
        .steps
        .iter()
        .map(|r| r.split(" halvings").next().unwrap().to_string())
        .collect();
    for (k, (row, h)) in rows.iter().zip(&host_rows).enumerate() {
        let mine = format!("step {}: newton {} cg {}", k + 1, row.0, row.1);
        assert_eq!(&mine, h, "step {}", k + 1);
    }
    let (d, h) = (b.contact_stats(), host.contact);
    assert_eq!(
        (d.broad_phases, d.candidate_pairs),
        (h.broad_phases, h.candidate_pairs)
    );
    // reads: one per solve, two more per step that read its velocities (theirs and
    // the lag's check), and the solves that outran their slots (two_squares' vary)
    let reads = steps + steps / 2 * 2;
    assert!(
        c.readbacks >= reads && c.readbacks <= reads + steps / 2,
        "{} reads in {steps} steps: {c:?}",
        c.readbacks
    );
}
