//! Batched ensembles: many small scenes stepped together on one GPU, each variant
//! with its own Newton solve, line search and outputs, all of them sharing each
//! device round (one dispatch, one submission, one readback per round for the whole
//! batch). A variant's run is the ordinary run loop ([`crate::run::run`]) on a
//! [`member::Member`] backend, so its folder, `steps.csv` and `summary.json` are
//! exactly those of a run alone; a variant that fails or stalls ends on its own and
//! the others go on ([`lockstep`]). The device side is [`device`] with the kernel
//! `shaders/ensemble/round.wgsl` (one workgroup per variant).
//!
//! Scope: plane and implicit walls with their friction, springs, gravity, either
//! integrator, block-Jacobi PCG, 2D contact between and within bodies with its
//! friction ([`pairs`]); 3D contact between and within bodies is watched
//! ([`watch`]): a variant runs in the batch until its surfaces may come within d̂,
//! then goes on alone from that step;
//! [`why_alone`] names what a variant needs beyond that (it then runs
//! alone on the GPU backend).

pub mod device;
pub mod layout;
pub mod lockstep;
pub mod member;
pub mod pairs;
mod slots;
pub mod watch;

use crate::precision::PrecisionChoice;
use crate::run::{RunOptions, Summary};
use crate::scene::Scene;
use device::EnsembleDevice;
use lockstep::Lockstep;
pub use lockstep::RoundTimes;
use member::{Member, Shared};
use std::sync::Arc;

/// One variant to run: its scene and where and how long.
pub struct Job {
    /// The scene (parameters already set).
    pub scene: Scene,
    /// Steps, output folder and extras, as for a run alone.
    pub opts: RunOptions,
}

/// How a batch went.
#[derive(Debug)]
pub struct BatchReport {
    /// Each variant's summary or error, in job order.
    pub outcomes: Vec<Result<Summary, String>>,
    /// Device submissions of the whole batch.
    pub submissions: u64,
    /// Blocking readbacks of the whole batch.
    pub readbacks: u64,
    /// Device memory of each variant's share of the buffers (bytes).
    pub bytes_per_variant: Vec<u64>,
    /// Adapter and precision, in words.
    pub device: String,
    /// Wall-clock seconds of the batch (device set-up included).
    pub seconds: f64,
    /// How the rounds' share of those seconds divides between the variants' host
    /// work, the device and the hand-out.
    pub rounds: RoundTimes,
}

/// Most variants in one batch by default (`sweep --batch`).
pub const DEFAULT_BATCH: usize = 1024;

/// Most bytes of device memory one batch's variants may hold together: wgpu's
/// default largest storage binding (128 MiB), so a batch opens on any adapter;
/// larger batches are split.
pub const BATCH_BYTES: u64 = 128 << 20;

/// Runs every job on the GPU: the supported ones ([`why_alone`]) in
/// batches of one dimension and precision, at most `cap` variants and
/// [`BATCH_BYTES`] each; the others alone on the GPU backend. `done` is called
/// with each job's index and outcome as its batch (or its run alone) ends.
pub fn run_jobs(
    jobs: &[Job],
    cap: usize,
    mut done: impl FnMut(usize, &Result<Summary, String>),
) -> BatchTotals {
    let mut totals = BatchTotals::default();
    let mut groups: Vec<(usize, PrecisionChoice, Vec<usize>)> = Vec::new();
    for (i, j) in jobs.iter().enumerate() {
        let m = &j.scene.model;
        if why_alone(j).is_some() {
            let out = run_alone(j);
            totals.alone += 1;
            done(i, &out);
            continue;
        }
        let key = (m.dim, m.solver.precision);
        match groups.iter_mut().find(|g| (g.0, g.1) == key) {
            Some(g) => g.2.push(i),
            None => groups.push((key.0, key.1, vec![i])),
        }
    }
    // How variants left their batch and why, and how many each way.
    let mut left: Vec<(String, usize)> = Vec::new();
    let mut count = |how: String| match left.iter_mut().find(|(w, _)| *w == how) {
        Some((_, n)) => *n += 1,
        None => left.push((how, 1)),
    };
    for (_, precision, members) in groups {
        let mut start = 0;
        while start < members.len() {
            // As many as fit the cap and the byte budget (at least one).
            let mut end = start;
            let mut bytes = 0u64;
            while end < members.len() && end - start < cap.max(1) {
                // f64: an upper bound for every precision.
                let b = layout::variant_bytes(&jobs[members[end]].scene.model, 8);
                if end > start && bytes + b > BATCH_BYTES {
                    break;
                }
                bytes += b;
                end += 1;
            }
            let batch: Vec<&Job> = members[start..end].iter().map(|&i| &jobs[i]).collect();
            match run_batch_of(&batch, precision) {
                Ok(r) => {
                    totals.batches += 1;
                    totals.submissions += r.submissions;
                    for (k, out) in r.outcomes.into_iter().enumerate() {
                        let i = members[start + k];
                        // A variant whose loops the device cut short, or which could not
                        // go on alone where its surfaces may come near (3D), runs again
                        // alone.
                        let out = match out {
                            Err(e) => match [member::LOOP_CUT, watch::COME_NEAR]
                                .into_iter()
                                .find(|why| e.contains(why))
                            {
                                Some(why) => {
                                    eprintln!("variant {i}: {e}: running it alone");
                                    totals.alone += 1;
                                    count(format!("ran again alone: {why}"));
                                    run_alone(&jobs[i])
                                }
                                None => Err(e),
                            },
                            Ok(s) => {
                                if s.device.contains(crate::run::HANDED_OVER) {
                                    count(format!("went on alone: {}", watch::COME_NEAR));
                                }
                                Ok(s)
                            }
                        };
                        done(i, &out);
                    }
                }
                Err(e) => {
                    for &i in &members[start..end] {
                        done(i, &Err(e.clone()));
                    }
                }
            }
            start = end;
        }
    }
    // Once per reason, as a note (a sweep relays its child's notes to the user).
    for (how, n) in left {
        eprintln!(
            "note: {n} of {} variant(s) left their batch and {how}",
            jobs.len()
        );
    }
    totals
}

/// What [`run_jobs`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchTotals {
    /// Batches run.
    pub batches: u64,
    /// Jobs run alone (not supported in a batch).
    pub alone: u64,
    /// Device submissions of the batches.
    pub submissions: u64,
}

/// Why `job` cannot run in a batch, or `None`: what the batch's kernel lacks
/// ([`device::unsupported`]), the direct solver and the nonsmooth scheme (which have
/// no GPU form at all: alone, the run says so).
pub fn why_alone(job: &Job) -> Option<String> {
    if job.scene.linear_solver == crate::linear_solver::LinearSolver::Direct {
        return Some("the direct linear solver runs on the CPU backend only".into());
    }
    if job.scene.nonsmooth.is_some() {
        return Some("contact.model = \"nonsmooth\" runs on the CPU backend only".into());
    }
    device::unsupported(&job.scene.model)
}

/// One job alone on the GPU backend.
fn run_alone(job: &Job) -> Result<Summary, String> {
    let gpu = crate::backend::gpu::GpuBackend::new(job.scene.model.clone())?;
    crate::run::run(&job.scene, Some(Box::new(gpu)), &job.opts)
}

/// Stack of each variant's thread (bytes): the run loop is shallow.
const MEMBER_STACK: usize = 1 << 20;

/// Runs `jobs` as one batch on the GPU in `precision` (one dimension; every job
/// supported, see [`why_alone`]).
pub fn run_batch(jobs: &[Job], precision: PrecisionChoice) -> Result<BatchReport, String> {
    let refs: Vec<&Job> = jobs.iter().collect();
    run_batch_of(&refs, precision)
}

fn run_batch_of(jobs: &[&Job], precision: PrecisionChoice) -> Result<BatchReport, String> {
    let start = std::time::Instant::now();
    for j in jobs {
        if let Some(why) = why_alone(j) {
            return Err(format!("scene `{}`: {why}", j.scene.name));
        }
    }
    let models: Vec<_> = jobs.iter().map(|j| &j.scene.model).collect();
    let mut dev = EnsembleDevice::new(&models, precision)?;
    let shared = Arc::new(Shared {
        device: format!("{}, batch of {}", dev.describe(), jobs.len()),
        precision: dev.precision(),
    });
    let lock = Arc::new(Lockstep::new(jobs.len()));
    let bytes = dev.bytes_per_variant.clone();
    let places = dev.watch_places.clone();
    let (outcomes, rounds) = std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .iter()
            .enumerate()
            .map(|(v, job)| {
                let member = Member::new(
                    lock.clone(),
                    v,
                    shared.clone(),
                    &job.scene.model,
                    bytes[v],
                    places[v],
                );
                std::thread::Builder::new()
                    .name(format!("variant {v}"))
                    .stack_size(MEMBER_STACK)
                    .spawn_scoped(scope, move || {
                        crate::run::run(&job.scene, Some(Box::new(member)), &job.opts)
                    })
            })
            .collect();
        // A thread that could not start dropped its member: rounds do not wait for it.
        let rounds = lock.serve(&mut dev);
        let outcomes = handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|_| Err("the variant's thread panicked".into())),
                Err(e) => Err(format!("cannot start the variant's thread: {e}")),
            })
            .collect();
        (outcomes, rounds)
    });
    Ok(BatchReport {
        outcomes,
        submissions: dev.submissions,
        readbacks: dev.readbacks,
        bytes_per_variant: bytes,
        device: dev.describe(),
        seconds: start.elapsed().as_secs_f64(),
        rounds,
    })
}
