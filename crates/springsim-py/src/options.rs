//! Option strings from Python (`backend="gpu"`, `precision="f32"`) as the command
//! line's choices, with the command line's error for a bad one.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// `value` as choice `T` of option `what` (the names `springsim run --help` lists).
pub fn choice<T: clap::ValueEnum>(what: &str, value: &str) -> PyResult<T> {
    T::from_str(value, true).map_err(|_| {
        let names: Vec<String> = T::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
            .collect();
        PyValueError::new_err(format!(
            "{what}={value:?}: expected one of {}",
            names.join(", ")
        ))
    })
}

/// A `[solver]` key's choice by name (`precision`, `preconditioner`), as
/// `SceneError` where it is not one (a bad value for a scene key).
pub fn solver_choice<T: clap::ValueEnum>(what: &str, value: &str) -> PyResult<T> {
    choice(what, value).map_err(|e| crate::errors::SceneError::new_err(e.to_string()))
}
