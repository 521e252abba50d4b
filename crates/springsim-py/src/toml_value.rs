//! Python values as TOML values, for `Scene.set` and `Scene.from_dict`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString, PyTuple};

/// `v` as a TOML value: bool, int, float, str, a list or tuple (or anything with
/// `tolist()`, such as a numpy array or scalar) of them, a dict with str keys.
pub fn to_toml(v: &Bound<'_, PyAny>, key: &str) -> PyResult<toml::Value> {
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(v.extract()?));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if let Ok(i) = v.extract::<i64>() {
        return Ok(toml::Value::Integer(i));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return Ok(toml::Value::Table(table(d, key)?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: PyResult<Vec<_>> = v
            .try_iter()?
            .enumerate()
            .map(|(i, x)| to_toml(&x?, &format!("{key}[{i}]")))
            .collect();
        return Ok(toml::Value::Array(items?));
    }
    if v.hasattr("tolist")? {
        return to_toml(&v.call_method0("tolist")?, key);
    }
    if let Ok(f) = v.extract::<f64>() {
        return Ok(toml::Value::Float(f));
    }
    Err(PyTypeError::new_err(format!(
        "{key}: a {} has no TOML value (use bool, int, float, str, list or dict)",
        v.get_type().name()?
    )))
}

/// `d` as a TOML table; `key` names where it is, for errors.
pub fn table(d: &Bound<'_, PyDict>, key: &str) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    for (k, v) in d.iter() {
        let name: String = k.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "{key}: dict keys must be str, got {}",
                k.repr().map_or("?".into(), |r| r.to_string())
            ))
        })?;
        let here = if key.is_empty() {
            name.clone()
        } else {
            format!("{key}.{name}")
        };
        if v.is_none() {
            continue;
        }
        t.insert(name, to_toml(&v, &here)?);
    }
    Ok(t)
}

/// `k` as a TOML key: bare where it can be, else quoted.
pub fn key(k: &str) -> String {
    let bare = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match bare {
        true => k.to_string(),
        false => toml::Value::String(k.to_string()).to_string(),
    }
}
