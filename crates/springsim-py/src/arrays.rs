//! numpy arrays in and out: every array handed out is a new one the caller owns.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// `flat` (`dim` values per node) as a new `(nodes, dim)` float64 array.
pub fn nodes_array(
    py: Python<'_>,
    flat: Vec<f64>,
    dim: usize,
) -> PyResult<Bound<'_, PyArray2<f64>>> {
    let nodes = flat.len() / dim.max(1);
    let a = Array2::from_shape_vec((nodes, dim), flat)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(a.into_pyarray(py))
}

/// The values of `a`, which must be `(nodes, dim)` and finite, row by row; the error
/// names `what`.
pub fn nodes_in(
    a: &PyReadonlyArray2<'_, f64>,
    nodes: usize,
    dim: usize,
    what: &str,
) -> PyResult<Vec<f64>> {
    let v = a.as_array();
    if v.shape() != [nodes, dim] {
        return Err(PyValueError::new_err(format!(
            "{what}: expected an array of shape ({nodes}, {dim}), got {:?}",
            v.shape()
        )));
    }
    if let Some((i, _)) = v.indexed_iter().find(|(_, x)| !x.is_finite()) {
        return Err(PyValueError::new_err(format!(
            "{what}: node {} has a value that is not finite",
            i.0
        )));
    }
    Ok(v.iter().copied().collect())
}
