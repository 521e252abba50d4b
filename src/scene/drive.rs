//! A body's driven node sets (`[[bodies.drive]]`, docs/SCRIPTED.md) into
//! [`crate::script::Drive`]s: which nodes, and their rigid motion or keyframes.

use super::format::{fmt_num, BodySection, DriveSection};
use super::{Builder, SceneError};
use crate::model::Model;
use crate::script::{Drive, Keyframe, Motion, MovingWall, WallParts};

impl Builder<'_> {
    /// Adds the drives of body `bi` (its nodes `first..`, just added to `model`) and
    /// fixes their nodes for the solve. `nonsmooth`: the scene uses the nonsmooth
    /// model, which has no drive stage.
    pub(super) fn drives(
        &self,
        model: &mut Model,
        bi: usize,
        b: &BodySection,
        first: usize,
        nonsmooth: bool,
    ) -> Result<(), SceneError> {
        for (j, d) in b.drive.iter().enumerate() {
            let path = format!("bodies.{bi}.drive.{j}");
            if nonsmooth {
                return Err(self.err(
                    &path,
                    "driven nodes need the barrier contact model (contact.model = \"barrier\")",
                ));
            }
            let nodes = self.driven_nodes(model, &path, d, first)?;
            if let Some(other) = model
                .drives
                .iter()
                .find(|o| o.nodes.iter().any(|i| nodes.contains(i)))
            {
                let i = nodes
                    .iter()
                    .find(|i| other.nodes.contains(i))
                    .copied()
                    .unwrap_or(0);
                return Err(self.err(
                    &path,
                    format!(
                        "node {} of this body is driven by {} already",
                        i as usize - first,
                        other.name
                    ),
                ));
            }
            let dim = model.dim;
            let rest: Vec<f64> = nodes
                .iter()
                .flat_map(|&i| model.x0[i as usize * dim..(i as usize + 1) * dim].to_vec())
                .collect();
            let center = match &d.center {
                Some(c) => self.vector(&format!("{path}.center"), c, dim)?,
                None => (0..dim)
                    .map(|c| rest.iter().skip(c).step_by(dim).sum::<f64>() / nodes.len() as f64)
                    .collect(),
            };
            let motion = self.motion(&path, d, dim)?;
            for &i in &nodes {
                model.fixed[i as usize] = true;
            }
            let body = model.bodies.last().map_or("body", |b| b.name.as_str());
            model.drives.push(Drive {
                name: d.name.clone().unwrap_or_else(|| format!("{body}.drive{j}")),
                nodes,
                rest,
                center,
                motion,
            });
        }
        Ok(())
    }

    /// The motion of wall `i` (`walls.i.drive`): a plane wall (`parts` a plane
    /// index; `origin` its point at t = 0, m) translates, and takes the keys of a
    /// body's drive less those that choose nodes or turn; an implicit wall (`parts`
    /// its implicit walls; `origin` its default rotation centre, m) translates and
    /// turns about `center`.
    pub(super) fn wall_drive(
        &self,
        i: usize,
        d: &DriveSection,
        dim: usize,
        parts: WallParts,
        origin: Vec<f64>,
    ) -> Result<MovingWall, SceneError> {
        let path = format!("walls.{i}.drive");
        let plane = matches!(parts, WallParts::Plane(_));
        let given = [
            ("name", d.name.is_some()),
            ("where", d.condition.is_some()),
            ("nodes", d.nodes.is_some()),
        ];
        self.reject_given(&path, &given, |k| {
            format!("a wall moves as a whole: `{k}` is for the drives of bodies")
        })?;
        if plane {
            let turns = [
                ("center", d.center.is_some()),
                ("angular_velocity", d.angular_velocity.is_some()),
                ("axis", d.axis.is_some()),
            ];
            self.reject_given(&path, &turns, |k| {
                format!("a plane wall translates (its normal stays): `{k}` turns, which implicit walls and the drives of bodies do")
            })?;
        }
        let motion = self.motion(&path, d, dim)?;
        if let (true, Motion::Keyframes { frames, .. }) = (plane, &motion) {
            if let Some(k) = frames.iter().position(|f| f.angle != 0.0) {
                return Err(self.err(
                    &format!("{path}.keyframes.{k}.rotate"),
                    "a plane wall translates: its keyframes take no rotate",
                ));
            }
        }
        let origin = match &d.center {
            Some(c) => self.vector(&format!("{path}.center"), c, dim)?,
            None => origin,
        };
        Ok(MovingWall {
            name: format!("walls[{i}]"),
            parts,
            origin,
            motion,
        })
    }

    /// The nodes (model indices) a drive at `path` selects.
    fn driven_nodes(
        &self,
        model: &Model,
        path: &str,
        d: &DriveSection,
        first: usize,
    ) -> Result<Vec<u32>, SceneError> {
        let n = model.num_nodes() - first;
        let flags = match (&d.condition, &d.nodes) {
            (Some(_), Some(_)) => {
                return Err(self.err(
                    &format!("{path}.nodes"),
                    "give `where` or `nodes`, not both",
                ))
            }
            (Some(src), None) => self.select(model, &format!("{path}.where"), src, first)?,
            (None, Some(list)) if list.is_empty() => {
                return Err(self.err(&format!("{path}.nodes"), "must list at least one node"))
            }
            (None, Some(list)) => self.fixed_indices(&format!("{path}.nodes"), list, n)?,
            (None, None) => vec![true; n],
        };
        Ok(flags
            .iter()
            .enumerate()
            .filter(|(_, f)| **f)
            .map(|(k, _)| (first + k) as u32)
            .collect())
    }

    /// The motion of the drive at `path`: keyframes, or a rigid motion.
    fn motion(&self, path: &str, d: &DriveSection, dim: usize) -> Result<Motion, SceneError> {
        let rigid_keys = [
            ("velocity", d.velocity.is_some()),
            ("angular_velocity", d.angular_velocity.is_some()),
            ("start", d.start.is_some()),
            ("stop", d.stop.is_some()),
        ];
        if let Some(frames) = &d.keyframes {
            self.reject_given(path, &rigid_keys, |k| {
                format!(
                    "a drive gives keyframes or a rigid motion, not both: `{k}` with `keyframes`"
                )
            })?;
            return self.keyframes(path, d, frames, dim);
        }
        if d.axis.is_some() {
            return Err(self.err(
                &format!("{path}.axis"),
                "is the axis of keyframes' `rotate`: a rigid motion's axis is its angular_velocity",
            ));
        }
        if d.velocity.is_none() && d.angular_velocity.is_none() {
            return Err(self.err(
                path,
                "a drive needs a motion: velocity and/or angular_velocity, or keyframes",
            ));
        }
        let mut velocity = [0.0; 3];
        if let Some(v) = &d.velocity {
            let v = self.vector(&format!("{path}.velocity"), v, dim)?;
            velocity[..dim].copy_from_slice(&v);
        }
        let omega = self.angular_velocity(&format!("{path}.angular_velocity"), d, dim)?;
        let start = d.start.unwrap_or(0.0);
        if !start.is_finite() || start < 0.0 {
            return Err(self.err(
                &format!("{path}.start"),
                format!("must be a finite time ≥ 0 s, got {}", fmt_num(start)),
            ));
        }
        let stop = d.stop.unwrap_or(f64::INFINITY);
        if d.stop.is_some() && !(stop.is_finite() && stop > start) {
            return Err(self.err(
                &format!("{path}.stop"),
                format!(
                    "must be a finite time after start ({} s), got {}",
                    fmt_num(start),
                    fmt_num(stop)
                ),
            ));
        }
        Ok(Motion::Rigid {
            velocity,
            omega,
            start,
            stop,
        })
    }

    /// `angular_velocity` (rad/s) as a 3D vector: one number about z in 2D, three
    /// numbers in 3D; zero where absent.
    fn angular_velocity(
        &self,
        path: &str,
        d: &DriveSection,
        dim: usize,
    ) -> Result<[f64; 3], SceneError> {
        let Some(value) = &d.angular_velocity else {
            return Ok([0.0; 3]);
        };
        let number = |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
        let w: Vec<f64> = match (dim, value) {
            (2, v) => match number(v) {
                Some(w) => vec![0.0, 0.0, w],
                None => return Err(self.err(path, "must be one number in 2D (rad/s about z)")),
            },
            (_, toml::Value::Array(a)) => {
                let w: Option<Vec<f64>> = a.iter().map(number).collect();
                let w = w.ok_or_else(|| self.err(path, "must hold numbers (rad/s)"))?;
                self.vector(path, &w, 3)?
            }
            _ => {
                return Err(self.err(
                    path,
                    "must be a vector of 3 numbers in 3D (rad/s, along the axis)",
                ))
            }
        };
        if let Some(c) = w.iter().find(|c| !c.is_finite()) {
            return Err(self.err(path, format!("must be finite, got {}", fmt_num(*c))));
        }
        Ok([w[0], w[1], w[2]])
    }

    /// Keyframes at `path`: times finite, ≥ 0 and increasing; translations of `dim`
    /// numbers; angles in degrees about `axis` (3D; z in 2D).
    fn keyframes(
        &self,
        path: &str,
        d: &DriveSection,
        frames: &[super::format::KeyframeSection],
        dim: usize,
    ) -> Result<Motion, SceneError> {
        if frames.is_empty() {
            return Err(self.err(
                &format!("{path}.keyframes"),
                "must hold at least one keyframe",
            ));
        }
        let axis = match (&d.axis, dim) {
            (Some(_), 2) => {
                return Err(self.err(
                    &format!("{path}.axis"),
                    "2D keyframes rotate about z: give no axis",
                ))
            }
            (Some(a), _) => {
                let a = self.vector(&format!("{path}.axis"), a, 3)?;
                let len = a.iter().map(|c| c * c).sum::<f64>().sqrt();
                if len == 0.0 {
                    return Err(self.err(&format!("{path}.axis"), "must not be the zero vector"));
                }
                [a[0] / len, a[1] / len, a[2] / len]
            }
            (None, _) => [0.0, 0.0, 1.0],
        };
        let mut out: Vec<Keyframe> = Vec::with_capacity(frames.len());
        for (k, f) in frames.iter().enumerate() {
            let at = format!("{path}.keyframes.{k}");
            let after = out.last().map_or(0.0, |p| p.time);
            let ok = f.time.is_finite() && f.time >= 0.0 && (k == 0 || f.time > after);
            if !ok {
                let want = match k {
                    0 => "a finite time ≥ 0 s".to_string(),
                    _ => format!(
                        "a finite time after the previous keyframe's {} s",
                        fmt_num(after)
                    ),
                };
                return Err(self.err(
                    &format!("{at}.time"),
                    format!("must be {want}, got {}", fmt_num(f.time)),
                ));
            }
            let mut translate = [0.0; 3];
            let u = self.vector_or_zero(&format!("{at}.translate"), f.translate.as_ref(), dim)?;
            translate[..dim].copy_from_slice(&u);
            let angle = f.rotate.unwrap_or(0.0);
            if !angle.is_finite() {
                return Err(self.err(&format!("{at}.rotate"), "must be a finite angle (degrees)"));
            }
            out.push(Keyframe {
                time: f.time,
                translate,
                angle: angle.to_radians(),
            });
        }
        Ok(Motion::Keyframes { axis, frames: out })
    }
}
