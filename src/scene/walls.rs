//! `[[walls]]` of type `implicit`: built-in shapes and user expressions, and the
//! check that no node starts within d̂ of one.

use super::format::WallSection;
use super::{Builder, SceneError};
use crate::implicit::expr::{parse, Expr};
use crate::implicit::shapes::{shape_expr, split_min, Shape};
use crate::implicit::ImplicitWall;
use crate::model::Model;

impl Builder<'_> {
    /// Rejects the implicit-wall keys on a plane wall.
    pub(super) fn plane_only(&self, i: usize, w: &WallSection) -> Result<(), SceneError> {
        self.reject_given(
            &format!("walls.{i}"),
            &[
                ("shape", w.shape.is_some()),
                ("expression", w.expression.is_some()),
                ("inside", w.inside.is_some()),
                ("center", w.center.is_some()),
                ("radius", w.radius.is_some()),
                ("half_extents", w.half_extents.is_some()),
                ("semi_axes", w.semi_axes.is_some()),
                ("exponent", w.exponent.is_some()),
            ],
            |_| {
                "plane walls take only point and normal (this key is for type = \"implicit\")"
                    .into()
            },
        )
    }

    /// Builds implicit wall `i`: `W` with the inside positive, minus the particles'
    /// radius, split at top-level `min`s into one wall per argument.
    pub(super) fn implicit_wall(
        &self,
        i: usize,
        w: &WallSection,
        dim: usize,
        radius: f64,
    ) -> Result<Vec<ImplicitWall>, SceneError> {
        let f = |k: &str| format!("walls.{i}.{k}");
        self.reject_given(
            &format!("walls.{i}"),
            &[("point", w.point.is_some()), ("normal", w.normal.is_some())],
            |_| "implicit walls take a shape or an expression, not a point and normal".into(),
        )?;
        let (expr, label) = match (&w.shape, &w.expression) {
            (Some(_), Some(_)) => {
                return Err(self.err(
                    &f("expression"),
                    "give either shape or expression, not both",
                ))
            }
            (None, None) => {
                return Err(self.err(
                    &format!("walls.{i}"),
                    "missing field `shape` or `expression` (required by implicit walls)",
                ))
            }
            (None, Some(src)) => {
                self.reject_given(
                    &format!("walls.{i}"),
                    &shape_keys(w),
                    |_| "this key sizes a shape; an expression wall takes only expression and inside (write the shift or size into the expression)".into(),
                )?;
                let e = parse(src, dim)
                    .map_err(|e| self.err(&f("expression"), format!("{e} in \"{}\"", clip(src))))?;
                let inside = self.required(
                    &format!("walls.{i}"),
                    "inside",
                    w.inside.as_deref(),
                    "implicit walls with an expression",
                )?;
                let e = match inside {
                    "positive" => e,
                    "negative" => Expr::Neg(Box::new(e)),
                    other => {
                        return Err(self.err(
                            &f("inside"),
                            format!("must be \"positive\" or \"negative\", got \"{other}\""),
                        ))
                    }
                };
                (e, format!("{} ({inside} inside)", clip(src)))
            }
            (Some(name), None) => {
                if w.inside.is_some() {
                    return Err(self.err(
                        &f("inside"),
                        "shapes have a fixed inside; `inside` is for expressions",
                    ));
                }
                let center = self.vector_or_zero(&f("center"), w.center.as_ref(), dim)?;
                let shape = self.shape(i, w, name, dim)?;
                (
                    shape_expr(&shape, &center),
                    format!("{name} {shape:?} at {center:?}"),
                )
            }
        };
        let parts = split_min(expr);
        let n = parts.len();
        Ok(parts
            .into_iter()
            .enumerate()
            .map(|(k, e)| ImplicitWall {
                expr: if radius > 0.0 {
                    Expr::minus(e, Expr::Const(radius))
                } else {
                    e
                },
                label: if n > 1 {
                    format!("walls[{i}] {label}, part {} of {n}", k + 1)
                } else {
                    format!("walls[{i}] {label}")
                },
                frame: None,
            })
            .collect())
    }

    fn shape(
        &self,
        i: usize,
        w: &WallSection,
        name: &str,
        dim: usize,
    ) -> Result<Shape, SceneError> {
        let f = |k: &str| format!("walls.{i}.{k}");
        let sec = format!("walls.{i}");
        let by = format!("shape = \"{name}\"");
        let radius = || -> Result<f64, SceneError> {
            self.positive(&f("radius"), self.required(&sec, "radius", w.radius, &by)?)
        };
        let axes = |key: &str, v: Option<&Vec<f64>>| -> Result<Vec<f64>, SceneError> {
            let v = self.vector(&f(key), self.required(&sec, key, v, &by)?, dim)?;
            for (k, a) in v.iter().enumerate() {
                self.positive(&format!("{}.{k}", f(key)), *a)?;
            }
            Ok(v)
        };
        let need_dim = |d: usize| -> Result<(), SceneError> {
            if d != dim {
                return Err(self.err(
                    &f("shape"),
                    format!("`{name}` is a {d}D shape but the scene has dimension {dim}"),
                ));
            }
            Ok(())
        };
        let takes: &[&str] = match name {
            "box" => &["center", "half_extents"],
            "ellipse" | "ellipsoid" => &["center", "semi_axes"],
            "superellipse" => &["center", "semi_axes", "exponent"],
            _ => &["center", "radius"],
        };
        let stray: Vec<(&str, bool)> = shape_keys(w)
            .into_iter()
            .filter(|(k, _)| !takes.contains(k))
            .collect();
        self.reject_given(&sec, &stray, |_| {
            format!("shape = \"{name}\" takes only {}", takes.join(" and "))
        })?;
        Ok(match name {
            "circle" => {
                need_dim(2)?;
                Shape::Ball(radius()?)
            }
            "sphere" => {
                need_dim(3)?;
                Shape::Ball(radius()?)
            }
            "diamond" => {
                need_dim(2)?;
                Shape::Diamond(radius()?)
            }
            "octahedron" => {
                need_dim(3)?;
                Shape::Diamond(radius()?)
            }
            "sextic" => {
                need_dim(2)?;
                Shape::Sextic(radius()?)
            }
            "box" => Shape::Box(axes("half_extents", w.half_extents.as_ref())?),
            "ellipse" => {
                need_dim(2)?;
                Shape::Ellipsoid(axes("semi_axes", w.semi_axes.as_ref())?)
            }
            "ellipsoid" => {
                need_dim(3)?;
                Shape::Ellipsoid(axes("semi_axes", w.semi_axes.as_ref())?)
            }
            "superellipse" => {
                let a = axes("semi_axes", w.semi_axes.as_ref())?;
                let n = self.required(&sec, "exponent", w.exponent, &by)?;
                if !(n.is_finite() && n >= 1.0) {
                    return Err(self.err(&f("exponent"), format!("must be a number ≥ 1, got {n}")));
                }
                Shape::Superellipse(a, n)
            }
            other => {
                return Err(self.err(
                    &f("shape"),
                    format!("unknown shape \"{other}\" (circle, sphere, box, diamond, octahedron, ellipse, ellipsoid, superellipse, sextic)"),
                ))
            }
        })
    }

    /// No node may start at, behind, or within d̂ of an implicit wall, and every wall
    /// must be a finite number at every node: a wall that is undefined (NaN) or
    /// infinite there is refused first, at the wall's own field, since no placement
    /// of the body cures it (and an infinite `W` leaves the CCD bound no room: α = 0).
    pub(super) fn check_implicit_start(&self, model: &Model) -> Result<(), SceneError> {
        let dim = model.dim;
        for (wi, w) in model.implicit_walls.iter().enumerate() {
            let nodes = model.bodies.iter().enumerate().flat_map(|(bi, body)| {
                (body.first_node..body.first_node + body.nodes).map(move |i| (bi, body, i))
            });
            for (bi, body, i) in nodes.clone() {
                let x = &model.x0[i * dim..(i + 1) * dim];
                let d = w.distance(x);
                let (field, expression) = wall_source(&w.label);
                let (what, state, hint) = match (expression, d) {
                    (_, d) if d.is_finite() => continue,
                    (true, d) if d.is_nan() => (
                        "the expression",
                        "undefined (NaN)",
                        "ln or sqrt of a negative number, 0/0 or ∞ − ∞?",
                    ),
                    (true, d) => (
                        "the expression",
                        if d < 0.0 { "−inf" } else { "+inf" },
                        "a division by zero or ln(0)?",
                    ),
                    (false, d) => (
                        "the shape",
                        if d.is_nan() {
                            "undefined (NaN)"
                        } else if d < 0.0 {
                            "−inf"
                        } else {
                            "+inf"
                        },
                        "are its sizes too large or too small for f64?",
                    ),
                };
                return Err(self.err(
                    &field,
                    format!(
                        "{what} is {state} at node {} of bodies[{bi}] (x = ({})): {hint} An implicit wall must be a finite number wherever a body is",
                        i - body.first_node,
                        x.iter().map(|c| num(*c)).collect::<Vec<_>>().join(", "),
                    ),
                ));
            }
            for (bi, body, i) in nodes {
                let d = w.distance(&model.x0[i * dim..(i + 1) * dim]);
                if d <= model.barrier.dhat {
                    return Err(self.err(
                        &format!("bodies.{bi}.center"),
                        format!(
                            "node {} starts at distance measure W = {} m from implicit wall {wi} ({}), which is not beyond contact.dhat = {}; move the body inside the wall",
                            i - body.first_node,
                            num(d),
                            w.label,
                            num(model.barrier.dhat)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The scene field a wall part came from (`walls.i.expression` for an expression,
/// `walls.i` for a shape, whose sizes are at fault) and whether it is an expression,
/// read back from the label [`Builder::implicit_wall`] gives it (`walls[i] …`).
fn wall_source(label: &str) -> (String, bool) {
    let i = label
        .strip_prefix("walls[")
        .and_then(|r| r.split(']').next())
        .unwrap_or("0");
    if label.contains(" inside)") {
        (format!("walls.{i}.expression"), true)
    } else {
        (format!("walls.{i}"), false)
    }
}

/// `v` in at most 7 significant digits (scientific beyond 1e6 or below 1e-3), so a
/// huge or tiny number stays short in a message.
fn num(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || (1e-3..1e6).contains(&a) {
        let s = format!("{v:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    } else {
        format!("{v:.6e}")
    }
}

/// `src` on one line, cut to its first 60 characters (and `…`) when longer than 80, so
/// that a long expression does not flood a message or a label.
fn clip(src: &str) -> String {
    let one_line = src.replace(['\n', '\r'], " ");
    if one_line.chars().count() <= 80 {
        one_line
    } else {
        format!("{}…", one_line.chars().take(60).collect::<String>())
    }
}

/// The keys that size or place a shape, and whether wall `w` gives each.
fn shape_keys(w: &WallSection) -> Vec<(&'static str, bool)> {
    vec![
        ("center", w.center.is_some()),
        ("radius", w.radius.is_some()),
        ("half_extents", w.half_extents.is_some()),
        ("semi_axes", w.semi_axes.is_some()),
        ("exponent", w.exponent.is_some()),
    ]
}
