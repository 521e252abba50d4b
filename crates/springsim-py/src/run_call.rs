//! `Simulation.run(...)`: steps written out exactly as `springsim run` writes them.

use crate::errors::SimulationError;
use crate::options::choice;
use crate::simulation::Simulation;
use crate::value::to_py;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use springsim::output::trajectory::TrajectorySpec;
use springsim::run::RunOptions;
use std::path::PathBuf;

/// The options `run` takes besides `steps` and `out`.
pub const OPTIONS: &[&str] = &[
    "trajectory",
    "trajectory_format",
    "trajectory_stride",
    "trajectory_precision",
    "frames",
    "frame_format",
    "progress",
];

/// `run`'s options as the command line's [`RunOptions`] (steps and folder filled in
/// by the caller).
fn options(kw: Option<&Bound<'_, PyDict>>) -> PyResult<RunOptions> {
    let mut o = RunOptions::default();
    let mut spec = TrajectorySpec {
        stride: 1,
        ..Default::default()
    };
    let Some(kw) = kw else {
        o.trajectory_spec = spec;
        return Ok(o);
    };
    for (k, v) in kw.iter() {
        let k: String = k.extract()?;
        let text = || -> PyResult<String> { v.extract() };
        match k.as_str() {
            "trajectory" => o.trajectory = v.extract()?,
            "trajectory_format" => spec.format = choice(&k, &text()?)?,
            "trajectory_precision" => spec.precision = choice(&k, &text()?)?,
            "trajectory_stride" => {
                spec.stride = v.extract()?;
                if spec.stride == 0 {
                    return Err(PyValueError::new_err(
                        "trajectory_stride must be at least 1",
                    ));
                }
            }
            "frames" => {
                o.frames = v.extract()?;
                if o.frames == Some(0) {
                    return Err(PyValueError::new_err("frames must be at least 1"));
                }
            }
            "frame_format" => o.frame_format = choice(&k, &text()?)?,
            "progress" => o.progress = v.extract()?,
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "run() got an unexpected keyword argument {k:?} (it takes steps, out, {})",
                    OPTIONS.join(", ")
                )))
            }
        }
    }
    o.trajectory_spec = spec;
    Ok(o)
}

/// Runs `sim` for `steps` steps into `out` (default `out/SCENE_NAME`) and returns the
/// summary it wrote. A failed run raises `SimulationError` (its files stay); Ctrl-C
/// stops after the step under way, writes the summary (status `interrupted`) and
/// raises `KeyboardInterrupt`.
pub fn run<'py>(
    py: Python<'py>,
    sim: &Simulation,
    steps: Option<u64>,
    out: Option<PathBuf>,
    kw: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut guard = sim.lock(py);
    guard.usable()?;
    let st = &mut *guard;
    let scene = st.stepper.scene.clone();
    let opts = options_of(&scene, steps, out, kw)?;
    let mut interrupt: Option<PyErr> = None;
    let result = py.detach(|| {
        std::fs::create_dir_all(&opts.out_dir)
            .map_err(|e| springsim::output::io_error(&opts.out_dir, e))?;
        let resolved = springsim::scene::resolved::resolved_toml(&scene);
        springsim::output::write_atomically(&opts.out_dir.join("scene.toml"), resolved.as_bytes())?;
        // Ctrl-C is Python's: asked between steps, with the GIL taken for a moment.
        let mut stop = || {
            let err = Python::attach(|py| py.check_signals().err());
            let stop = err.is_some();
            interrupt = interrupt.take().or(err);
            stop
        };
        springsim::run::barrier::run_on(&mut st.stepper, st.summary.clone(), &opts, &mut stop)
    });
    let written = result.map_err(SimulationError::new_err)?;
    // The simulation goes on from here: its own summary takes the run's totals.
    st.summary = written.clone();
    match written.status.as_str() {
        "failed" => {
            let why = written.error.clone().unwrap_or_default();
            st.failed = Some(why.clone());
            return Err(SimulationError::new_err(format!(
                "{why} (outputs so far are in {})",
                opts.out_dir.display()
            )));
        }
        _ => {
            st.summary.status = "running".into();
            st.summary.error = None;
        }
    }
    if let Some(e) = interrupt {
        return Err(e);
    }
    to_py(py, &written)
}

/// Runs a scene with `contact.model = "nonsmooth"` (seed 002's impulse scheme for
/// particles, which needs no backend) for `steps` steps (default: the scene's
/// `[run]`, else 100) into `out` (default `out/SCENE_NAME`), writing what
/// `springsim run` writes; takes `run`'s options. Returns the summary; a failed run
/// raises `SimulationError`, Ctrl-C `KeyboardInterrupt` once the summary says
/// `interrupted`.
#[pyfunction]
#[pyo3(signature = (scene, steps = None, out = None, **options))]
pub fn run_nonsmooth<'py>(
    py: Python<'py>,
    scene: &crate::scene::Scene,
    steps: Option<u64>,
    out: Option<PathBuf>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let s = scene.loaded().scene;
    if s.nonsmooth.is_none() {
        return Err(PyValueError::new_err(format!(
            "scene `{}` uses the IPC contact model: step it with springsim.Simulation",
            s.name
        )));
    }
    let opts = options_of(&s, steps, out, options)?;
    let summary = crate::ctrl_c::run_interruptible(py, || springsim::run::run(&s, None, &opts))?
        .map_err(|e| {
            SimulationError::new_err(format!(
                "{e} (outputs so far are in {})",
                opts.out_dir.display()
            ))
        })?;
    to_py(py, &summary)
}

/// `run`'s options with the steps and folder of `scene` resolved as the command
/// line resolves them.
fn options_of(
    scene: &springsim::scene::Scene,
    steps: Option<u64>,
    out: Option<PathBuf>,
    kw: Option<&Bound<'_, PyDict>>,
) -> PyResult<RunOptions> {
    let mut opts = options(kw)?;
    opts.steps = scene
        .run_steps(steps, None)
        .map_err(|e| PyValueError::new_err(e.replace("--steps", "steps")))?;
    opts.out_dir = out.unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
    if let Some(e) = springsim::cli::out_dir_error(&opts.out_dir) {
        return Err(PyValueError::new_err(e.replace("--out", "out")));
    }
    Ok(opts)
}
