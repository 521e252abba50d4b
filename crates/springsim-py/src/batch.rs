//! `run_batch`: scenes run on the GPU as batched ensembles ([`springsim::ensemble`]),
//! each into its own folder, as `springsim sweep --backend gpu` runs its variants.

use crate::scene::Scene;
use crate::value::to_py;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use springsim::ensemble::{run_jobs, Job};
use springsim::output::npy::Precision;
use springsim::output::trajectory::{TrajectoryFormat, TrajectorySpec};
use springsim::run::{RunOptions, Summary};
use std::path::PathBuf;

/// Runs `scenes[i]` for `steps` steps into folder `dirs[i]` (each holds what
/// `springsim run` writes; with `trajectory`, `trajectory.npy` in f64 every `stride`
/// steps) on the GPU, at most `batch` variants per batch; a variant the batch
/// kernel cannot hold runs alone (the note says why). Returns `(results, totals)`:
/// per scene a dict `{"summary": dict or None, "error": str or None}`, and the
/// batches' `batches`, `alone` and `submissions`. Ctrl-C stops every variant after
/// its step under way (their summaries say `interrupted`) and raises
/// `KeyboardInterrupt`.
#[pyfunction]
#[pyo3(signature = (scenes, dirs, steps, trajectory = false, stride = 1, batch = 1024))]
pub fn run_batch<'py>(
    py: Python<'py>,
    scenes: Vec<PyRef<'py, Scene>>,
    dirs: Vec<PathBuf>,
    steps: u64,
    trajectory: bool,
    stride: u64,
    batch: usize,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyDict>)> {
    if scenes.len() != dirs.len() {
        return Err(PyValueError::new_err(format!(
            "run_batch: {} scenes but {} folders",
            scenes.len(),
            dirs.len()
        )));
    }
    if steps == 0 || stride == 0 || batch == 0 {
        return Err(PyValueError::new_err(
            "run_batch: steps, stride and batch must be at least 1",
        ));
    }
    let jobs: Vec<Job> = scenes
        .iter()
        .zip(&dirs)
        .map(|(s, dir)| Job {
            scene: (*s.loaded().scene).clone(),
            opts: RunOptions {
                steps,
                out_dir: dir.clone(),
                trajectory,
                trajectory_spec: TrajectorySpec {
                    format: TrajectoryFormat::Npy,
                    stride,
                    precision: Precision::F64,
                },
                ..Default::default()
            },
        })
        .collect();
    let mut outcomes: Vec<Option<Result<Summary, String>>> = vec![None; jobs.len()];
    let totals = crate::ctrl_c::run_interruptible(py, || {
        run_jobs(&jobs, batch, |i, out| outcomes[i] = Some(out.clone()))
    })?;
    let results = PyList::empty(py);
    for out in outcomes {
        let d = PyDict::new(py);
        match out {
            Some(Ok(s)) => {
                d.set_item("summary", to_py(py, &s)?)?;
                d.set_item("error", py.None())?;
            }
            Some(Err(e)) => {
                d.set_item("summary", py.None())?;
                d.set_item("error", e)?;
            }
            None => {
                d.set_item("summary", py.None())?;
                d.set_item("error", "not run")?;
            }
        }
        results.append(d)?;
    }
    let t = PyDict::new(py);
    t.set_item("batches", totals.batches)?;
    t.set_item("alone", totals.alone)?;
    t.set_item("submissions", totals.submissions)?;
    Ok((results, t))
}
