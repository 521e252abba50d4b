//! The scene builder's validation context and its field checks: every error names
//! the file, the dotted field, its line and the reason.

use super::error::{self, SceneError};
use super::format::{fmt_num, BodySection};
use crate::model::BodyInfo;

/// Validation context: knows the text to find line numbers of fields in.
pub(super) struct Builder<'a> {
    /// The scene text, to find line numbers of fields in.
    pub(super) text: &'a str,
    /// The file name errors name.
    pub(super) file: &'a str,
    /// What the scene was given that it fixed, one line each ([`super::Scene::warnings`]).
    pub(super) warnings: std::cell::RefCell<Vec<String>>,
}

impl Builder<'_> {
    /// The body-local node indices `fixed` (at `path`) of a body of `n` nodes as a
    /// flag per node, each index checked to be in range.
    pub(super) fn fixed_indices(
        &self,
        path: &str,
        fixed: &[i64],
        n: usize,
    ) -> Result<Vec<bool>, SceneError> {
        let mut flags = vec![false; n];
        for (k, &f) in fixed.iter().enumerate() {
            if f < 0 || f as usize >= n {
                return Err(self.err(
                    &format!("{path}.{k}"),
                    format!(
                        "node index {f} is out of range: this body has {n} nodes (0..{})",
                        n.saturating_sub(1)
                    ),
                ));
            }
            flags[f as usize] = true;
        }
        Ok(flags)
    }

    /// An error at the field with dotted `path` (array indices as numbers).
    pub(super) fn err(&self, path: &str, reason: impl Into<String>) -> SceneError {
        let segs: Vec<&str> = path.split('.').collect();
        let display = segs
            .iter()
            .map(|s| {
                if s.parse::<usize>().is_ok() {
                    format!("[{s}]")
                } else {
                    format!(".{s}")
                }
            })
            .collect::<String>();
        SceneError {
            file: self.file.to_string(),
            field: Some(display.trim_start_matches('.').to_string()),
            line: error::line_of_path(self.text, &segs),
            reason: reason.into(),
        }
    }

    /// `v` at `path` when it is a positive finite number.
    pub(super) fn positive(&self, path: &str, v: f64) -> Result<f64, SceneError> {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(self.err(
                path,
                format!("must be a positive finite number, got {}", fmt_num(v)),
            ))
        }
    }

    /// `v` at `path` when it has `len` finite components.
    pub(super) fn vector(&self, path: &str, v: &[f64], len: usize) -> Result<Vec<f64>, SceneError> {
        if v.len() != len {
            return Err(self.err(path, format!("must have {len} components, got {}", v.len())));
        }
        if let Some(c) = v.iter().find(|c| !c.is_finite()) {
            return Err(self.err(
                path,
                format!("must hold finite numbers, got {}", fmt_num(*c)),
            ));
        }
        Ok(v.to_vec())
    }

    /// The vector at `path` checked by [`Self::vector`], or zeros where it is absent.
    pub(super) fn vector_or_zero(
        &self,
        path: &str,
        v: Option<&Vec<f64>>,
        len: usize,
    ) -> Result<Vec<f64>, SceneError> {
        match v {
            Some(v) => self.vector(path, v, len),
            None => Ok(vec![0.0; len]),
        }
    }

    /// [`Self::reject_given`] for body `bi`: rejects the first of the body keys `keys`
    /// that `b` gives, at `bodies.{bi}.{key}`, with the reason `why(key)`.
    pub(super) fn reject_body_keys(
        &self,
        bi: usize,
        b: &BodySection,
        keys: &[&str],
        why: impl Fn(&str) -> String,
    ) -> Result<(), SceneError> {
        let given: Vec<(&str, bool)> = keys.iter().map(|k| (*k, body_key_given(b, k))).collect();
        self.reject_given(&format!("bodies.{bi}"), &given, why)
    }

    /// Rejects the first key of `keys` (name, whether the file gives it) that is
    /// given, at `{section}.{name}`, with the reason `why(name)`.
    pub(super) fn reject_given(
        &self,
        section: &str,
        keys: &[(&str, bool)],
        why: impl Fn(&str) -> String,
    ) -> Result<(), SceneError> {
        match keys.iter().find(|(_, given)| *given) {
            Some((key, _)) => Err(self.err(&format!("{section}.{key}"), why(key))),
            None => Ok(()),
        }
    }

    /// A body's `contact_area` at `path` (m² per contact node; m in 2D): `default`
    /// where it is absent (or, when `boundary`, the string `"boundary"`), else a
    /// positive number.
    pub(super) fn contact_area(
        &self,
        path: &str,
        v: Option<&toml::Value>,
        default: f64,
        boundary: bool,
    ) -> Result<f64, SceneError> {
        match v {
            None => Ok(default),
            Some(toml::Value::String(s)) if boundary && s == "boundary" => Ok(default),
            Some(v) => match v.as_float().or_else(|| v.as_integer().map(|i| i as f64)) {
                Some(a) => self.positive(path, a),
                None if boundary => Err(self.err(
                    path,
                    format!("must be \"boundary\" or a positive number, got {v}"),
                )),
                None => Err(self.err(path, format!("must be a positive number, got {v}"))),
            },
        }
    }
}

/// The [`BodyInfo`] of body `bi` (section `b`): its name (`body{bi}` by default), its
/// first node, node count and spring count.
pub(super) fn body_info(
    b: &BodySection,
    bi: usize,
    first_node: usize,
    nodes: usize,
    springs: usize,
) -> BodyInfo {
    BodyInfo {
        name: b.name.clone().unwrap_or_else(|| format!("body{bi}")),
        first_node,
        nodes,
        springs,
    }
}

/// The keys that shape and weigh the bodies of the `grid`, `lattice` and `cloth`
/// generators, which particle bodies do not take.
pub(super) const GENERATOR_KEYS: [&str; 4] = ["size", "cells", "density", "spring_stiffness"];

/// One `[[bodies]]` entry being built: where it is (for the keys errors name) and
/// its keys as the file gives them.
#[derive(Clone, Copy)]
pub(super) struct Body<'a> {
    /// Its index in `bodies`.
    pub bi: usize,
    /// Its section.
    pub b: &'a BodySection,
}

impl Body<'_> {
    /// The key `bodies.{bi}.{field}`, as errors name it.
    pub fn key(&self, field: &str) -> String {
        format!("bodies.{}.{field}", self.bi)
    }
}

/// The keys of particle bodies, which the other bodies do not take.
pub(super) const PARTICLE_KEYS: [&str; 6] = ["mass", "radius", "count", "seed", "spread", "speed"];

/// Whether `b` gives the body key `key` (for [`Builder::reject_body_keys`]): an
/// optional key when present, `fixed` when not empty, `bending` when true.
fn body_key_given(b: &BodySection, key: &str) -> bool {
    match key {
        "file" => b.file.is_some(),
        "nodes" => b.nodes.is_some(),
        "segments" => b.segments.is_some(),
        "triangles" => b.triangles.is_some(),
        "tetrahedra" => b.tetrahedra.is_some(),
        "scale" => b.scale.is_some(),
        "rotate" => b.rotate.is_some(),
        "translate" => b.translate.is_some(),
        "size" => b.size.is_some(),
        "cells" => b.cells.is_some(),
        "density" => b.density.is_some(),
        "spring_stiffness" => b.spring_stiffness.is_some(),
        "material_stiffness" => b.material_stiffness.is_some(),
        "mass" => b.mass.is_some(),
        "radius" => b.radius.is_some(),
        "velocity" => b.velocity.is_some(),
        "fixed" => !b.fixed.is_empty(),
        "bending" => b.bending,
        "count" => b.count.is_some(),
        "seed" => b.seed.is_some(),
        "spread" => b.spread.is_some(),
        "speed" => b.speed.is_some(),
        _ => unreachable!("body_key_given: no body key `{key}`"),
    }
}
