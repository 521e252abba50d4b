//! `springsim.Simulation`: a scene stepped on a backend, its state as numpy arrays.

use crate::arrays::{nodes_array, nodes_in};
use crate::errors::{DeviceError, SceneError, SimulationError};
use crate::options::solver_choice;
use crate::scene::Scene;
use crate::value::to_py;
use numpy::{PyArray2, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use springsim::backend::Backend;
use springsim::cli::run::{make_backend, BackendChoice};
use springsim::precision::PrecisionChoice;
use springsim::run::stepper::Stepper;
use springsim::run::Summary;
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

/// A scene's simulation on the CPU or the GPU backend, stepped from Python.
///
/// `positions` and `velocities` are new float64 arrays of shape (nodes, dimension)
/// on every read: copies the caller owns, never views of the simulation's state.
#[pyclass(module = "springsim._core", frozen)]
pub struct Simulation {
    inner: Mutex<State>,
}

/// What a simulation holds.
pub struct State {
    /// The stepped scene with its checks.
    pub stepper: Stepper<Arc<springsim::scene::Scene>>,
    /// The totals since the simulation began (`summary.json`'s keys).
    pub summary: Summary,
    /// Why the simulation cannot go on, once a step failed.
    pub failed: Option<String>,
    /// The process that opened the backend (a forked child must not use a GPU).
    pid: u32,
}

impl State {
    /// An error where the simulation cannot be used from here.
    pub fn usable(&self) -> PyResult<()> {
        if self.pid != std::process::id() && self.summary.backend == "gpu" {
            return Err(DeviceError::new_err(format!(
                "this Simulation's GPU device was opened in process {}, and a forked child cannot use it: create the Simulation in the child (or use the \"spawn\" start method)",
                self.pid
            )));
        }
        match &self.failed {
            Some(why) => Err(SimulationError::new_err(format!(
                "the simulation cannot go on: {why}"
            ))),
            None => Ok(()),
        }
    }

    /// Takes a step; a step that ends the simulation raises `SimulationError` and
    /// leaves it failed.
    fn step_once(&mut self) -> Result<springsim::sim::StepRecord, String> {
        let (rec, ends) = self.stepper.step(&mut self.summary).inspect_err(|e| {
            self.failed = Some(e.clone());
        })?;
        if let Some(why) = ends {
            self.failed = Some(why.clone());
            return Err(why);
        }
        Ok(rec)
    }
}

impl Simulation {
    /// The state, locked; while another thread holds it, this one waits without
    /// the GIL (the holder may need the GIL to finish).
    pub fn lock<'a>(&'a self, py: Python<'_>) -> MutexGuard<'a, State> {
        loop {
            match self.inner.try_lock() {
                Ok(g) => return g,
                Err(TryLockError::Poisoned(e)) => return e.into_inner(),
                Err(TryLockError::WouldBlock) => {
                    py.detach(|| std::thread::sleep(std::time::Duration::from_millis(1)))
                }
            }
        }
    }
}

/// Opens `choice` for `scene`, without the GIL (a GPU compiles its pipelines).
fn open(
    py: Python<'_>,
    choice: BackendChoice,
    scene: &springsim::scene::Scene,
    quiet: bool,
) -> PyResult<Box<dyn Backend>> {
    py.detach(|| make_backend(choice, scene, quiet))
        .map_err(|e| DeviceError::new_err(e.replacen("--backend gpu:", "backend=\"gpu\":", 1)))
}

#[pymethods]
impl Simulation {
    /// Starts `scene` at its initial state on `backend`: `"cpu"` (f64), `"gpu"`
    /// (raises `DeviceError` without one) or `"auto"` (a hardware GPU where there
    /// is one, else the CPU, with the command line's one-line note on stderr unless
    /// `quiet`). `precision` (`"f32"`, `"mixed"`, `"f64"`, `"auto"`) and
    /// `preconditioner` (`"block_jacobi"`, `"mas"`, `"multigrid"`, `"auto"`, …)
    /// override the scene's `[solver]` keys as the command line's options do.
    #[new]
    #[pyo3(signature = (scene, backend = "auto", precision = None, preconditioner = None, quiet = false))]
    fn new(
        py: Python<'_>,
        scene: &Scene,
        backend: &str,
        precision: Option<&str>,
        preconditioner: Option<&str>,
        quiet: bool,
    ) -> PyResult<Self> {
        let choice: BackendChoice = crate::options::choice("backend", backend)?;
        let mut s = (*scene.loaded().scene).clone();
        if let Some(p) = precision {
            s.model.solver.precision = solver_choice("precision", p)?;
        }
        if let Some(p) = preconditioner {
            s.model.solver.preconditioner = solver_choice("preconditioner", p)?;
        }
        if s.nonsmooth.is_some() {
            return Err(SceneError::new_err(format!(
                "scene `{}` uses contact.model = \"nonsmooth\", which steps its particles without a backend: run it with springsim.run(...)",
                s.name
            )));
        }
        let b = open(py, choice, &s, quiet)?;
        let (stepper, summary) = py.detach(|| Stepper::new(Arc::new(s), b));
        Ok(Self {
            inner: Mutex::new(State {
                stepper,
                summary,
                failed: None,
                pid: std::process::id(),
            }),
        })
    }

    /// Takes `n` steps and returns the statistics of the last one (the columns of
    /// `steps.csv`, as a dict). Raises `SimulationError` where a step fails (the
    /// steps before it stay taken) and `KeyboardInterrupt` on Ctrl-C after the step
    /// under way.
    #[pyo3(signature = (n = 1))]
    fn step<'py>(&self, py: Python<'py>, n: u64) -> PyResult<Bound<'py, PyAny>> {
        if n == 0 {
            return Err(PyValueError::new_err("step: n must be at least 1"));
        }
        let mut guard = self.lock(py);
        guard.usable()?;
        let st = &mut *guard;
        let mut last = None;
        for _ in 0..n {
            let rec = py
                .detach(|| st.step_once())
                .map_err(SimulationError::new_err)?;
            last = Some(rec);
            py.check_signals()?;
        }
        to_py(py, &last)
    }

    /// Node positions (m): a new (nodes, dimension) float64 array.
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let mut guard = self.lock(py);
        guard.usable()?;
        let st = &mut *guard;
        let dim = st.stepper.scene.model.dim;
        let x = py.detach(|| st.stepper.sim.backend().positions());
        nodes_array(py, x, dim)
    }

    /// Node velocities (m/s): a new (nodes, dimension) float64 array.
    #[getter]
    fn velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let mut guard = self.lock(py);
        guard.usable()?;
        let st = &mut *guard;
        let dim = st.stepper.scene.model.dim;
        let v = py.detach(|| st.stepper.sim.backend().velocities());
        nodes_array(py, v, dim)
    }

    /// Puts every node at `x` (m, shape (nodes, dimension)), keeping the velocities:
    /// the next step starts there, as a new initial state (fixed nodes are held at
    /// their new places; Newmark's acceleration starts again). Refused with
    /// `ValueError` where the state is not admissible: a node on or behind a wall, or
    /// surfaces that touch or cross.
    fn set_positions(&self, py: Python<'_>, x: PyReadonlyArray2<'_, f64>) -> PyResult<()> {
        let mut guard = self.lock(py);
        guard.usable()?;
        let st = &mut *guard;
        let m = &st.stepper.scene.model;
        let x = nodes_in(&x, m.num_nodes(), m.dim, "set_positions")?;
        let v = py.detach(|| st.stepper.sim.backend().velocities());
        restart(py, st, x, v, "set_positions")
    }

    /// Sets every node's velocity (m/s, shape (nodes, dimension)), keeping the
    /// positions, as a new initial state (see `set_positions`).
    fn set_velocities(&self, py: Python<'_>, v: PyReadonlyArray2<'_, f64>) -> PyResult<()> {
        let mut guard = self.lock(py);
        guard.usable()?;
        let st = &mut *guard;
        let m = &st.stepper.scene.model;
        let v = nodes_in(&v, m.num_nodes(), m.dim, "set_velocities")?;
        let x = py.detach(|| st.stepper.sim.backend().positions());
        restart(py, st, x, v, "set_velocities")
    }

    /// Sets where the fixed or driven `nodes` (indices) are to be at the end of each
    /// following step (m, shape (len(nodes), dimension)), until set again: before
    /// each step's solve they move there as far as nothing is in the way (a lag is
    /// reported in the step's `drive_lag`), in place of their scene motion. Refused
    /// with `ValueError` for a free node, an index out of range or a shape that
    /// does not match.
    fn set_targets(
        &self,
        py: Python<'_>,
        nodes: Vec<i64>,
        targets: PyReadonlyArray2<'_, f64>,
    ) -> PyResult<()> {
        let mut guard = self.lock(py);
        guard.usable()?;
        let st = &mut *guard;
        let m = &st.stepper.scene.model;
        let t = nodes_in(&targets, nodes.len(), m.dim, "set_targets")?;
        let n = m.num_nodes();
        let ids: Vec<u32> = nodes
            .iter()
            .map(|&i| match u32::try_from(i) {
                Ok(u) if (u as usize) < n => Ok(u),
                _ => Err(PyValueError::new_err(format!(
                    "set_targets: node {i} does not exist (the model has {n} nodes)"
                ))),
            })
            .collect::<PyResult<_>>()?;
        let scene = st.stepper.scene.clone();
        st.stepper
            .sim
            .set_targets(&scene.model, &ids, &t)
            .map_err(|e| PyValueError::new_err(format!("set_targets: {e}")))
    }

    /// Simulated time (s): steps taken × dt.
    #[getter]
    fn time(&self, py: Python<'_>) -> f64 {
        let st = self.lock(py);
        st.stepper.sim.steps_taken() as f64 * st.stepper.scene.model.solver.dt
    }

    /// Steps taken so far.
    #[getter]
    fn steps_taken(&self, py: Python<'_>) -> u64 {
        self.lock(py).stepper.sim.steps_taken()
    }

    /// The backend that computes: `"cpu"` or `"gpu"`.
    #[getter]
    fn backend(&self, py: Python<'_>) -> String {
        self.lock(py).summary.backend.clone()
    }

    /// The device it computes on, in words.
    #[getter]
    fn device(&self, py: Python<'_>) -> String {
        self.lock(py).summary.device.clone()
    }

    /// The precision of its arithmetic: `"f64"` on the CPU, the GPU's mode.
    #[getter]
    fn precision(&self, py: Python<'_>) -> String {
        self.lock(py).summary.precision.clone()
    }

    /// The simulation so far as a dict with the keys of `summary.json` (status
    /// `completed`, `stalled` or `failed` as a run ending now would have).
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut guard = self.lock(py);
        let st = &mut *guard;
        let s = py.detach(|| st.stepper.settled(&st.summary, st.failed.clone()));
        to_py(py, &s)
    }

    /// Takes `steps` steps (default: the scene's `[run]`, else 100) from where the
    /// simulation stands and writes into folder `out` (default `out/SCENE_NAME`)
    /// exactly what `springsim run` writes: `scene.toml`, `steps.csv` (this call's
    /// steps), `summary.json` (the simulation's totals), and on request the
    /// trajectory and frames. Options: `trajectory` (bool), `trajectory_format`
    /// ("csv" or "npy"), `trajectory_stride` (int), `trajectory_precision` ("f32" or
    /// "f64"), `frames` (every K steps), `frame_format` ("vtk", "vtu" or "ply"),
    /// `progress` (a bar on stderr). Returns the summary as written; a failed run
    /// raises `SimulationError` (its files stay), Ctrl-C `KeyboardInterrupt` after
    /// the summary is written with status `interrupted`.
    #[pyo3(signature = (steps = None, out = None, **options))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        steps: Option<u64>,
        out: Option<std::path::PathBuf>,
        options: Option<&Bound<'py, pyo3::types::PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::run_call::run(py, self, steps, out, options)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let st = self.lock(py);
        format!(
            "Simulation({:?} on {} ({}), {} steps taken)",
            st.summary.scene,
            st.summary.backend,
            st.summary.device,
            st.stepper.sim.steps_taken()
        )
    }
}

/// Opens the backend again at positions `x` and velocities `v`, if that state is
/// admissible; the error names `what`.
fn restart(py: Python<'_>, st: &mut State, x: Vec<f64>, v: Vec<f64>, what: &str) -> PyResult<()> {
    let mut scene = (*st.stepper.scene).clone();
    scene.model.x0 = x;
    scene.model.v0 = v;
    // The same backend, in the precision it runs in (`auto` resolved).
    let backend = st.stepper.sim.backend();
    let choice = match backend.gpu_precision() {
        Some(mode) => {
            scene.model.solver.precision = PrecisionChoice::of(mode);
            BackendChoice::Gpu
        }
        None => BackendChoice::Cpu,
    };
    let mut b = open(py, choice, &scene, true)?;
    let why = py.detach(|| admissible(&scene, b.as_mut()));
    if let Some(why) = why {
        return Err(PyValueError::new_err(format!("{what}: {why}")));
    }
    st.stepper.sim.replace_backend(b);
    Ok(())
}

/// Why the state `backend` starts from is not one IPC can step from, if it is not.
fn admissible(scene: &springsim::scene::Scene, backend: &mut dyn Backend) -> Option<String> {
    let d = backend.diagnostics();
    let m = &scene.model;
    let has_walls = !(m.walls.is_empty() && m.implicit_walls.is_empty());
    // NaN counts as on the wall
    if has_walls && d.min_wall_distance.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return Some(format!(
            "a node is on or behind a wall (smallest wall distance {} m)",
            d.min_wall_distance
        ));
    }
    let total = d.total();
    if !total.is_finite() {
        return Some(format!("the energy of the state is not finite ({total})"));
    }
    if m.self_contact.enabled {
        // the scene builder's check of a start
        let x = backend.positions();
        if let Some(v) = springsim::collision::check::start_violation(&m.collision, &x) {
            return Some(match v.crossing {
                true => format!("{} and {} cross", v.a, v.b),
                false => format!("{} and {} are {} m apart", v.a, v.b, v.distance),
            });
        }
    }
    None
}
