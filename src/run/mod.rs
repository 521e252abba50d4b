//! A whole run of a scene: step it, write its outputs, report progress.
//!
//! [`run`] picks the loop: [`barrier`] steps an IPC scene on a [`Backend`] through
//! Newton, [`nonsmooth`] steps a particle scene with `contact.model = "nonsmooth"`
//! through [`crate::nonsmooth::scheme`]. Both write `steps.csv` and `summary.json`
//! ([`summary`], the one place the summary is started, rewritten and finished) and,
//! on request, the trajectory and frames ([`crate::output`]); [`plots`] is `springsim plot`, the pictures of a
//! run's `steps.csv`.

pub mod barrier;
pub mod device_totals;
pub mod first_rebound;
pub mod nonsmooth;
pub mod plots;
mod solver_label;
pub mod stepper;
pub mod summary;

use crate::backend::Backend;
use crate::output::frames::{FrameFormat, FrameWriter};
use crate::output::trajectory::{TrajectorySpec, TrajectoryWriter};
use crate::scene::Scene;
use std::path::PathBuf;
pub use summary::Summary;

/// What to run and what to write.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Time steps to take.
    pub steps: u64,
    /// Output folder (created if missing).
    pub out_dir: PathBuf,
    /// Write the trajectory (every node's position, see `trajectory_spec`).
    pub trajectory: bool,
    /// Format, stride and precision of the trajectory.
    pub trajectory_spec: TrajectorySpec,
    /// Write a frame every this many steps (and the initial state).
    pub frames: Option<u64>,
    /// The frames' file format.
    pub frame_format: FrameFormat,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// End the run this many steps after its first contact (a node within d̂ of a
    /// wall, or two primitives within d̂ of each other), if that comes before
    /// `steps`: a horizon that includes the contacts.
    pub stop_after_contact: Option<u64>,
}

/// Consecutive stalled steps after which a run stops: the simulation is frozen.
pub const MAX_CONSECUTIVE_STALLS: u64 = 100;

/// What a run's `device` says where another backend took over from a step of it
/// (`Backend::handover`: a batch's variant that went on alone), before the step.
pub const HANDED_OVER: &str = "; alone from step ";

/// Seconds of wall-clock time between rewrites of `summary.json` during a run, so
/// that a long run's summary shows its progress and a killed run keeps its totals.
pub const SUMMARY_INTERVAL_S: f64 = 5.0;

/// Runs `scene` and writes its outputs into `opts.out_dir` (first `scene.toml`, the
/// scene as run, loadable on its own: see [`crate::scene::resolved::resolved_toml`]): a scene with
/// `contact.model = "nonsmooth"` through [`nonsmooth::run`], which needs no backend
/// (`backend` must be `None`), any other through [`barrier::run`] on `backend` (which
/// must be `Some`). `summary.json` is written at the start (status `running`), every
/// [`SUMMARY_INTERVAL_S`] and at the end, when its status is `completed`, `stalled`
/// (some steps made no progress; the run goes on unless [`MAX_CONSECUTIVE_STALLS`]
/// steps in a row stall), `interrupted` (Ctrl-C, see [`crate::interrupt`]) or
/// `failed`; on a failure the files written so far stay and the error is returned.
pub fn run(
    scene: &Scene,
    backend: Option<Box<dyn Backend>>,
    opts: &RunOptions,
) -> Result<Summary, String> {
    std::fs::create_dir_all(&opts.out_dir)
        .map_err(|e| crate::output::io_error(&opts.out_dir, e))?;
    let resolved = crate::scene::resolved::resolved_toml(scene);
    crate::output::write_atomically(&opts.out_dir.join("scene.toml"), resolved.as_bytes())?;
    match (scene.nonsmooth.is_some(), backend) {
        (true, None) => nonsmooth::run(scene, opts),
        (false, Some(b)) => barrier::run(scene, b, opts),
        (true, Some(_)) => Err(format!(
            "scene `{}` uses contact.model = \"nonsmooth\", which steps its particles without a backend",
            scene.name
        )),
        (false, None) => Err(format!(
            "scene `{}` uses the IPC contact model, which needs a backend",
            scene.name
        )),
    }
}

/// The trajectory writer of `model` into `opts.out_dir` when `opts.trajectory` asks
/// for one.
fn trajectory_writer(
    opts: &RunOptions,
    model: &crate::model::Model,
) -> Result<Option<TrajectoryWriter>, String> {
    opts.trajectory
        .then(|| TrajectoryWriter::create(&opts.out_dir, model, opts.trajectory_spec))
        .transpose()
}

/// The frame writer into `opts.out_dir` when `opts.frames` asks for frames.
fn frame_writer(opts: &RunOptions) -> Result<Option<FrameWriter>, String> {
    opts.frames
        .map(|_| FrameWriter::create(&opts.out_dir, opts.frame_format))
        .transpose()
}

/// A progress bar over `steps` steps on stderr.
pub fn progress_bar(steps: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(steps);
    let style = indicatif::ProgressStyle::with_template(
        "{bar:40} {pos}/{len} steps [{elapsed_precise} < {eta_precise}] {msg}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}
