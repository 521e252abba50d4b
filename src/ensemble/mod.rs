//! Batched ensembles: many small scenes stepped together on one GPU, each variant
//! with its own Newton solve, line search and outputs, all of them sharing each
//! device round (one dispatch, one submission, one readback per round for the whole
//! batch). A variant's run is the ordinary run loop ([`crate::run::run`]) on a
//! [`member::Member`] backend, so its folder, `steps.csv` and `summary.json` are
//! exactly those of a run alone; a variant that fails or stalls ends on its own and
//! the others go on ([`lockstep`]). The device side is [`device`] with the kernel
//! `shaders/ensemble/round.wgsl` (one workgroup per variant).
//!
//! Scope: plane walls, springs, gravity, either integrator, block-Jacobi PCG;
//! [`device::unsupported`] names what a variant needs beyond that (it then runs
//! alone on the GPU backend).

pub mod device;
pub mod lockstep;
pub mod member;

use crate::precision::PrecisionChoice;
use crate::run::{RunOptions, Summary};
use crate::scene::Scene;
use device::EnsembleDevice;
use lockstep::Lockstep;
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
}

/// Stack of each variant's thread (bytes): the run loop is shallow.
const MEMBER_STACK: usize = 1 << 20;

/// Runs `jobs` as one batch on the GPU in `precision` (one dimension; every job
/// supported, see [`device::unsupported`]).
pub fn run_batch(jobs: &[Job], precision: PrecisionChoice) -> Result<BatchReport, String> {
    let start = std::time::Instant::now();
    for j in jobs {
        if let Some(why) = device::unsupported(&j.scene.model) {
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
    let outcomes = std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .iter()
            .enumerate()
            .map(|(v, job)| {
                let member =
                    Member::new(lock.clone(), v, shared.clone(), &job.scene.model, bytes[v]);
                std::thread::Builder::new()
                    .name(format!("variant {v}"))
                    .stack_size(MEMBER_STACK)
                    .spawn_scoped(scope, move || {
                        crate::run::run(&job.scene, Some(Box::new(member)), &job.opts)
                    })
            })
            .collect();
        // A thread that could not start dropped its member: rounds do not wait for it.
        lock.serve(&mut dev);
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|_| Err("the variant's thread panicked".into())),
                Err(e) => Err(format!("cannot start the variant's thread: {e}")),
            })
            .collect()
    });
    Ok(BatchReport {
        outcomes,
        submissions: dev.submissions,
        readbacks: dev.readbacks,
        bytes_per_variant: bytes,
        device: dev.describe(),
        seconds: start.elapsed().as_secs_f64(),
    })
}
