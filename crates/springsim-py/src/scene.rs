//! `springsim.Scene`: a loaded, validated scene, changed key by key with the checks
//! of `springsim run --set`.

use crate::errors::SceneError;
use pyo3::prelude::*;
use springsim::scene::{self, Override};
use std::sync::Arc;

/// A validated scene: a bundled one by name, a TOML file, TOML text or a dict.
///
/// Every change goes through the same parser and checks as the scene file itself, so
/// a scene that exists is one that `springsim run` would accept.
#[pyclass(module = "springsim._core", frozen)]
pub struct Scene {
    inner: std::sync::RwLock<Loaded>,
}

/// The scene and where its text came from (to re-parse it after a change).
#[derive(Clone)]
pub struct Loaded {
    /// The TOML text, changes included.
    pub text: String,
    /// The name errors give the text (a path, `bundled:NAME` or `<toml>`); mesh files
    /// are found relative to a path's folder.
    pub file: String,
    /// The name a scene without `name` takes.
    pub stem: String,
    /// The parsed scene.
    pub scene: Arc<scene::Scene>,
}

fn scene_error(e: impl std::fmt::Display) -> PyErr {
    SceneError::new_err(e.to_string())
}

impl Scene {
    fn parsed(text: String, file: String, stem: String) -> PyResult<Self> {
        let scene = scene::parse(&text, &file, &stem).map_err(scene_error)?;
        Ok(Self::of(Loaded {
            text,
            file,
            stem,
            scene: Arc::new(scene),
        }))
    }

    fn of(loaded: Loaded) -> Self {
        Self {
            inner: std::sync::RwLock::new(loaded),
        }
    }

    /// The scene as it stands (shared: changing this `Scene` later does not change it).
    pub fn loaded(&self) -> Loaded {
        self.inner.read().expect("scene lock").clone()
    }

    fn with<T>(&self, f: impl FnOnce(&scene::Scene) -> T) -> T {
        f(&self.inner.read().expect("scene lock").scene)
    }
}

#[pymethods]
impl Scene {
    /// Loads a scene file, or a bundled scene by name (`"square_drop"`) when no such
    /// file exists (`springsim.scenes()` lists them). Raises `SceneError` with the
    /// command line's one-line message (file, line, field, reason).
    #[staticmethod]
    fn load(path_or_name: std::path::PathBuf) -> PyResult<Self> {
        let arg = path_or_name.to_string_lossy().into_owned();
        let (text, file, stem) = scene::read_text(&arg).map_err(scene_error)?;
        Self::parsed(text, file, stem)
    }

    /// A scene from TOML text; mesh `file` keys are relative to the working folder.
    #[staticmethod]
    #[pyo3(signature = (text, name = "scene"))]
    fn from_toml(text: String, name: &str) -> PyResult<Self> {
        Self::parsed(text, "<toml>".into(), name.into())
    }

    /// A scene from a dict of the scene file's tables and keys (`{"solver": {"dt":
    /// 1e-3}, "bodies": [...]}`), checked as a file is.
    #[staticmethod]
    #[pyo3(signature = (d, name = "scene"))]
    fn from_dict(d: &Bound<'_, pyo3::types::PyDict>, name: &str) -> PyResult<Self> {
        let table = crate::toml_value::table(d, "")?;
        let text = toml::to_string(&table).map_err(scene_error)?;
        Self::from_toml(text, name)
    }

    /// The scene file's tables and keys as a dict (what `from_dict` takes).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = self.to_toml();
        let table: toml::Table = toml::from_str(&text).map_err(scene_error)?;
        crate::value::to_py(py, &table)
    }

    /// Sets one scene key as `springsim run --set KEY=VALUE` does (`"solver.dt"`,
    /// `"bodies[0].cells"`, `"walls[1].normal"`) to `value` (bool, int, float, str,
    /// a list or a dict; numpy arrays and scalars too). The scene is checked again
    /// and stays as it was if the change is refused (`SceneError`, naming the key).
    fn set(&self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = crate::toml_value::to_toml(value, key)?;
        let o = Override::new("set", key, &v.to_string()).map_err(scene_error)?;
        let old = self.loaded();
        let (text, _) = scene::overrides::apply(&old.text, &old.file, std::slice::from_ref(&o))
            .map_err(scene_error)?;
        // Errors name the change as the command line names its --set.
        let parsed = scene::parse(&text, &old.file, &old.stem).map_err(|mut e| {
            e.reason = format!("{o}: {}", e.reason);
            e.line = None;
            scene_error(e)
        })?;
        *self.inner.write().expect("scene lock") = Loaded {
            text,
            scene: Arc::new(parsed),
            ..old
        };
        Ok(())
    }

    /// Adds a body: a dict of one `[[bodies]]` entry's keys (`springsim.mesh_body`
    /// builds one from numpy nodes and elements). The scene is checked again and
    /// stays as it was if the body is refused (`SceneError`).
    fn add_body(&self, body: &Bound<'_, pyo3::types::PyDict>) -> PyResult<()> {
        let old = self.loaded();
        let index = old.scene.model.bodies.len();
        let t = crate::toml_value::table(body, &format!("bodies[{index}]"))?;
        let mut text = old.text.clone();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("\n[[bodies]]\n");
        for (k, v) in &t {
            text += &format!("{} = {v}\n", crate::toml_value::key(k));
        }
        let parsed = scene::parse(&text, &old.file, &old.stem).map_err(scene_error)?;
        *self.inner.write().expect("scene lock") = Loaded {
            text,
            scene: Arc::new(parsed),
            ..old
        };
        Ok(())
    }

    /// The scene's TOML text, changes included.
    fn to_toml(&self) -> String {
        self.inner.read().expect("scene lock").text.clone()
    }

    /// The scene as `springsim run` writes it into a run's `scene.toml`: changes
    /// included, mesh files as absolute paths, loadable from any folder.
    fn resolved_toml(&self) -> String {
        self.with(scene::resolved::resolved_toml)
    }

    /// An independent copy (changing one does not change the other).
    fn copy(&self) -> Self {
        Self::of(self.loaded())
    }

    /// The scene's name (its `name` key, else the file's stem).
    #[getter]
    fn name(&self) -> String {
        self.with(|s| s.name.clone())
    }

    /// Its one-line description.
    #[getter]
    fn description(&self) -> String {
        self.with(|s| s.description.clone())
    }

    /// Where it came from: a path, `bundled:NAME` or `<toml>`.
    #[getter]
    fn source(&self) -> String {
        self.with(|s| s.source.clone())
    }

    /// The contact model: `"ipc"` (the barrier: `Simulation` steps it) or
    /// `"nonsmooth"` (seed 002's impulses for particles: `springsim.run` runs it).
    #[getter]
    fn contact_model(&self) -> &'static str {
        self.with(|s| match s.nonsmooth {
            Some(_) => "nonsmooth",
            None => "ipc",
        })
    }

    /// The spatial dimension, 2 or 3.
    #[getter]
    fn dimension(&self) -> usize {
        self.with(|s| s.model.dim)
    }

    /// The number of nodes.
    #[getter]
    fn nodes(&self) -> usize {
        self.with(|s| s.model.num_nodes())
    }

    /// The number of springs.
    #[getter]
    fn springs(&self) -> usize {
        self.with(|s| s.model.springs.len())
    }

    /// The time step `solver.dt` (s).
    #[getter]
    fn dt(&self) -> f64 {
        self.with(|s| s.model.solver.dt)
    }

    /// Steps a run takes when not told (the scene's `[run]`, else 100).
    #[getter]
    fn default_steps(&self) -> u64 {
        self.with(|s| s.default_steps.unwrap_or(100))
    }

    /// What loading fixed in the scene's input (a mesh's inverted tetrahedra), one
    /// line each.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.with(|s| s.warnings.clone())
    }

    /// The initial positions (m), a new `(nodes, dimension)` float64 array.
    #[getter]
    fn initial_positions<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        self.with(|s| crate::arrays::nodes_array(py, s.model.x0.clone(), s.model.dim))
    }

    fn __repr__(&self) -> String {
        self.with(|s| {
            format!(
                "Scene({:?}: {}D, {} nodes, {} springs, dt = {} s, from {})",
                s.name,
                s.model.dim,
                s.model.num_nodes(),
                s.model.springs.len(),
                s.model.solver.dt,
                s.source
            )
        })
    }
}

/// The names of the bundled scenes.
#[pyfunction]
pub fn scenes() -> Vec<&'static str> {
    scene::BUNDLED.iter().map(|(n, _)| *n).collect()
}
