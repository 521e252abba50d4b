//! The exceptions the package raises, each with the command line's one-line message.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};

create_exception!(
    _core,
    SceneError,
    PyValueError,
    "A scene, mesh or override that springsim refuses; the message names the file, the field and the reason."
);
create_exception!(
    _core,
    SimulationError,
    PyRuntimeError,
    "A run that cannot go on: a failed step, an intersection found, a frozen simulation."
);
create_exception!(
    _core,
    DeviceError,
    PyRuntimeError,
    "No GPU that can run the scene, or a GPU used from a process it was not opened in."
);
