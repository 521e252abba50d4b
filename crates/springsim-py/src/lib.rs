//! `springsim._core`: the Python package's compiled module (built by maturin from
//! `pyproject.toml`). The package `python/springsim/` re-exports it with its stubs;
//! DESIGN.md §8 and docs/PYTHON.md say how it is built and what it promises.

mod arrays;
mod batch;
mod ctrl_c;
mod errors;
mod options;
mod run_call;
mod scene;
mod simulation;
mod toml_value;
mod tools;
mod value;

use pyo3::prelude::*;

/// springsim's compiled core: scenes, simulations, devices and checks.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<scene::Scene>()?;
    m.add_class::<simulation::Simulation>()?;
    m.add_function(wrap_pyfunction!(scene::scenes, m)?)?;
    m.add_function(wrap_pyfunction!(tools::devices, m)?)?;
    m.add_function(wrap_pyfunction!(tools::check_intersections, m)?)?;
    m.add_function(wrap_pyfunction!(tools::check_run, m)?)?;
    m.add_function(wrap_pyfunction!(batch::run_batch, m)?)?;
    m.add_function(wrap_pyfunction!(tools::compare, m)?)?;
    m.add_function(wrap_pyfunction!(run_call::run_nonsmooth, m)?)?;
    m.add("SceneError", py.get_type::<errors::SceneError>())?;
    m.add("SimulationError", py.get_type::<errors::SimulationError>())?;
    m.add("DeviceError", py.get_type::<errors::DeviceError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
