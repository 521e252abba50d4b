//! The package's functions that mirror a command: `devices()` and
//! `check_intersections()`.

use crate::arrays::nodes_in;
use crate::errors::SimulationError;
use crate::scene::Scene;
use crate::value::to_py;
use numpy::PyReadonlyArray2;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use springsim::backend::gpu::{context, cost_model, profiles};

/// The GPU adapters wgpu sees, as `springsim devices` lists them: for each a dict
/// with `name` (in words), `primary` (on Vulkan, Metal or DX12: springsim can open
/// it), `software` (a CPU rasteriser such as lavapipe), `f64` (has f64 shaders) and
/// `measured` (the cached `springsim devices --calibrate` figures, or `None`) with
/// `profile` (the cost model's figures for it: measured, else fitted).
#[pyfunction]
pub fn devices(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let found = py.detach(|| {
        context::list_adapters()
            .into_iter()
            .map(|desc| {
                let adapter = context::adapter_described(&desc);
                let info = adapter.as_ref().map(|a| {
                    (
                        a.get_info().device_type == wgpu::DeviceType::Cpu,
                        a.features().contains(wgpu::Features::SHADER_F64),
                    )
                });
                let measured = profiles::load(&desc);
                (desc, info, measured)
            })
            .collect::<Vec<_>>()
    });
    let list = PyList::empty(py);
    for (desc, info, measured) in found {
        let d = PyDict::new(py);
        d.set_item("name", &desc)?;
        d.set_item("primary", info.is_some())?;
        let (software, f64) = info.unwrap_or((false, false));
        d.set_item("software", software)?;
        d.set_item("f64", f64)?;
        d.set_item("measured", to_py(py, &measured)?)?;
        d.set_item("profile", cost_model::fixture_for(&desc, software).name)?;
        list.append(d)?;
    }
    Ok(list)
}

/// A crossing pair: each primitive's kind (`edge`, `triangle`, …) and nodes.
type Crossing = (String, Vec<u32>, String, Vec<u32>);

/// The pairs of collision primitives that cross in state `positions` (m, shape
/// (nodes, dimension)) of `scene`'s bodies, by the exact intersection checker that
/// every self-contact run applies after each step: a list of
/// `(kind, nodes, kind, nodes)` tuples, empty where nothing crosses. With
/// `positions=None` the scene's initial state is checked.
#[pyfunction]
#[pyo3(signature = (scene, positions = None))]
pub fn check_intersections<'py>(
    py: Python<'py>,
    scene: &Scene,
    positions: Option<PyReadonlyArray2<'py, f64>>,
) -> PyResult<Vec<Crossing>> {
    let s = scene.loaded().scene;
    let m = &s.model;
    let x = match positions {
        Some(p) => nodes_in(&p, m.num_nodes(), m.dim, "positions")?,
        None => m.x0.clone(),
    };
    let found = py.detach(|| springsim::collision::check::intersections(&m.collision, &x));
    Ok(found
        .into_iter()
        .map(|(a, b)| {
            (
                a.kind.to_string(),
                a.nodes.to_vec(),
                b.kind.to_string(),
                b.nodes.to_vec(),
            )
        })
        .collect())
}

/// Checks every stored state of a finished run's folder (its `scene.toml` and
/// trajectory), as `springsim check DIR` does: a dict with `states` (checked),
/// `crossings` (a list of `(step, pairs, first pair in words)`) and `warning`.
#[pyfunction]
pub fn check_run(py: Python<'_>, dir: std::path::PathBuf) -> PyResult<Bound<'_, PyDict>> {
    let r = py
        .detach(|| springsim::cli::check::check_run(&dir))
        .map_err(|e| SimulationError::new_err(springsim::scene::error::one_line(&e)))?;
    let d = PyDict::new(py);
    d.set_item("states", r.states)?;
    d.set_item("crossings", r.crossings)?;
    d.set_item("warning", r.warning)?;
    Ok(d)
}

/// Runs `scene` on the CPU and the GPU backends side by side for `steps` steps
/// (default: the scene's `[run]`, else 100), as `springsim compare` does, and
/// returns its report (`compare.json`'s keys: the largest and RMS position
/// differences, each backend's iterations and time, whether the GPU stayed within
/// its precision's tolerance). With `out`, `compare.json` and `compare_steps.csv`
/// are written there. Raises `DeviceError` without a GPU.
#[pyfunction]
#[pyo3(signature = (scene, steps = None, out = None, precision = None))]
pub fn compare<'py>(
    py: Python<'py>,
    scene: &Scene,
    steps: Option<u64>,
    out: Option<std::path::PathBuf>,
    precision: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut s = (*scene.loaded().scene).clone();
    if let Some(p) = precision {
        s.model.solver.precision = crate::options::solver_choice("precision", p)?;
    }
    if s.nonsmooth.is_some() {
        return Err(crate::errors::SceneError::new_err(format!(
            "compare runs the IPC model on both backends; scene `{}` uses contact.model = \"nonsmooth\" (CPU only)",
            s.name
        )));
    }
    let steps = s
        .run_steps(steps, None)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.replace("--steps", "steps")))?;
    let report = py.detach(|| {
        let gpu = springsim::backend::gpu::GpuBackend::new(s.model.clone())
            .map_err(|e| (true, format!("compare needs the GPU backend: {e}")))?;
        let cpu = springsim::backend::cpu::CpuBackend::new(s.model.clone());
        springsim::compare::compare(
            &s,
            Box::new(cpu),
            Box::new(gpu),
            steps,
            out.as_deref(),
            |_| {},
        )
        .map_err(|e| (false, e))
    });
    match report {
        Ok(r) => to_py(py, &r),
        Err((true, e)) => Err(crate::errors::DeviceError::new_err(e)),
        Err((false, e)) => Err(SimulationError::new_err(e)),
    }
}
