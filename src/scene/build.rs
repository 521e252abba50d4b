//! Building a [`Scene`] from the parsed file: name, dimension, `[solver]`,
//! `[contact]`, plane walls (implicit ones in `walls.rs`), bodies and `[run]`.

use super::format::{self, fmt_num, SceneFile};
use super::name::{check_name, name_from_stem};
use super::{Builder, Scene, SceneError, MAX_STEPS};
use crate::energy::barrier::{BarrierKind, BarrierParams};
use crate::energy::friction::FrictionParams;
use crate::model::{Model, SolverParams};
use crate::script::WallParts;
use crate::wall::PlaneWall;

impl Builder<'_> {
    /// `contact.friction_eps_v` (m/s), positive; rejected with the nonsmooth model.
    fn friction_params(
        &self,
        c: &format::ContactSection,
        nonsmooth: bool,
    ) -> Result<FrictionParams, SceneError> {
        let mut p = FrictionParams::default();
        if let Some(e) = c.friction_eps_v {
            if nonsmooth {
                return Err(self.err(
                    "contact.friction_eps_v",
                    "friction needs the barrier contact model",
                ));
            }
            p.eps_v = self.positive("contact.friction_eps_v", e)?;
        }
        Ok(p)
    }

    /// `walls.i.friction`: μ ≥ 0 and finite; rejected with the nonsmooth model.
    fn wall_friction(
        &self,
        i: usize,
        w: &format::WallSection,
        nonsmooth: bool,
    ) -> Result<f64, SceneError> {
        let path = format!("walls.{i}.friction");
        match w.friction {
            None => Ok(0.0),
            Some(_) if nonsmooth => {
                Err(self.err(&path, "friction needs the barrier contact model"))
            }
            Some(mu) if mu.is_finite() && mu >= 0.0 => Ok(mu),
            Some(mu) => Err(self.err(
                &path,
                format!("must be a finite number ≥ 0, got {}", fmt_num(mu)),
            )),
        }
    }

    /// Checks `raw` section by section and builds the scene; `stem` gives the default
    /// name.
    pub(super) fn build(&self, raw: SceneFile, stem: &str) -> Result<Scene, SceneError> {
        let name = match &raw.name {
            Some(n) => {
                check_name(n).map_err(|why| self.err("name", why))?;
                n.clone()
            }
            None => name_from_stem(stem),
        };
        let dim = match raw.dimension {
            2 | 3 => raw.dimension as usize,
            d => return Err(self.err("dimension", format!("must be 2 or 3, got {d}"))),
        };
        let s = &raw.solver;
        let def = SolverParams::default();
        let dt = self.positive("solver.dt", s.dt)?;
        let tolerance = self.positive("solver.tolerance", s.tolerance.unwrap_or(def.tolerance))?;
        let cg_tolerance = self.positive(
            "solver.cg_tolerance",
            s.cg_tolerance.unwrap_or(def.cg_tolerance),
        )?;
        if cg_tolerance >= 1.0 {
            return Err(self.err(
                "solver.cg_tolerance",
                format!("must be below 1, got {}", fmt_num(cg_tolerance)),
            ));
        }
        let count = |path: &str, v: Option<u32>, default: u32| match v.unwrap_or(default) {
            0 => Err(self.err(path, "must be at least 1")),
            n => Ok(n),
        };
        let max_newton_iterations = count(
            "solver.max_newton_iterations",
            s.max_newton_iterations,
            def.max_newton_iterations,
        )?;
        let min_newton_iterations = s.min_newton_iterations.unwrap_or(def.min_newton_iterations);
        if min_newton_iterations > max_newton_iterations {
            return Err(self.err(
                "solver.min_newton_iterations",
                format!(
                    "must not exceed solver.max_newton_iterations ({max_newton_iterations}), got {min_newton_iterations}"
                ),
            ));
        }
        let solver = SolverParams {
            dt,
            integrator: s.integrator,
            tolerance,
            min_newton_iterations,
            max_newton_iterations,
            cg_tolerance,
            cg_max_iterations: count(
                "solver.cg_max_iterations",
                s.cg_max_iterations,
                def.cg_max_iterations,
            )?,
            max_line_search_halvings: count(
                "solver.max_line_search_halvings",
                s.max_line_search_halvings,
                def.max_line_search_halvings,
            )?,
            friction_updates: s.friction_updates.unwrap_or(def.friction_updates),
            preconditioner: s.preconditioner.unwrap_or(def.preconditioner),
            precision: s.precision.unwrap_or(def.precision),
            forcing: s.forcing.unwrap_or(def.forcing),
            forcing_start: self.positive(
                "solver.forcing_start",
                s.forcing_start.unwrap_or(def.forcing_start),
            )?,
            mas_reuse: s.mas_reuse.unwrap_or(def.mas_reuse),
        };
        if solver.forcing_start >= 1.0 {
            return Err(self.err(
                "solver.forcing_start",
                format!("must be below 1, got {}", fmt_num(solver.forcing_start)),
            ));
        }
        let gravity = match &s.gravity {
            Some(g) => self.vector("solver.gravity", g, dim)?,
            None => {
                let mut g = vec![0.0; dim];
                g[1] = -9.81;
                g
            }
        };
        let nonsmooth = self.nonsmooth_params(&raw.contact)?;
        let barrier = match nonsmooth {
            Some(_) => BarrierParams {
                kind: BarrierKind::Book,
                dhat: 0.0,
                kappa: 0.0,
            },
            None => BarrierParams {
                kind: raw.contact.barrier.unwrap_or(BarrierKind::Book),
                dhat: self.positive(
                    "contact.dhat",
                    self.required(
                        "contact",
                        "dhat",
                        raw.contact.dhat,
                        "the barrier contact model",
                    )?,
                )?,
                kappa: self.positive(
                    "contact.kappa",
                    self.required(
                        "contact",
                        "kappa",
                        raw.contact.kappa,
                        "the barrier contact model",
                    )?,
                )?,
            },
        };
        let particle_radius = self.particle_radius(&raw.bodies, nonsmooth.is_some())?;
        let mut walls = Vec::new();
        let mut implicit_walls = Vec::new();
        let mut moving = Vec::new();
        let mut friction = self.friction_params(&raw.contact, nonsmooth.is_some())?;
        let (mut plane_e, mut implicit_e) = (Vec::new(), Vec::new());
        for (i, w) in raw.walls.iter().enumerate() {
            let mu = self.wall_friction(i, w, nonsmooth.is_some())?;
            let e = self.wall_restitution(&raw, i, nonsmooth.is_some())?;
            if let (Some(_), Some(_)) = (&w.drive, &nonsmooth) {
                return Err(self.err(
                    &format!("walls.{i}.drive"),
                    "moving walls need the barrier contact model (contact.model = \"barrier\")",
                ));
            }
            if w.kind == format::WallKind::Implicit {
                let parts = self.implicit_wall(i, w, dim, particle_radius)?;
                if let Some(d) = &w.drive {
                    let range = implicit_walls.len()..implicit_walls.len() + parts.len();
                    let center =
                        self.vector_or_zero(&format!("walls.{i}.center"), w.center.as_ref(), dim)?;
                    moving.push(self.wall_drive(i, d, dim, WallParts::Implicit(range), center)?);
                }
                friction.implicit_mu.extend(parts.iter().map(|_| mu));
                implicit_e.extend(parts.iter().map(|_| e));
                implicit_walls.extend(parts);
                continue;
            }
            friction.plane_mu.push(mu);
            plane_e.push(e);
            self.plane_only(i, w)?;
            let point = self.required(
                &format!("walls.{i}"),
                "point",
                w.point.as_ref(),
                "plane walls",
            )?;
            let normal = self.required(
                &format!("walls.{i}"),
                "normal",
                w.normal.as_ref(),
                "plane walls",
            )?;
            let point = self.vector(&format!("walls.{i}.point"), point, dim)?;
            let normal = self.vector(&format!("walls.{i}.normal"), normal, dim)?;
            let mut wall = PlaneWall::new(&point, &normal).ok_or_else(|| {
                self.err(&format!("walls.{i}.normal"), "must not be the zero vector")
            })?;
            // Contact acts on the distance minus the particles' radius.
            for (o, n) in wall.origin.iter_mut().zip(&wall.normal) {
                *o += particle_radius * n;
            }
            if let Some(d) = &w.drive {
                let (plane, origin) = (WallParts::Plane(walls.len()), wall.origin.clone());
                moving.push(self.wall_drive(i, d, dim, plane, origin)?);
            }
            walls.push(wall);
        }
        if raw.bodies.is_empty() {
            return Err(self.err("bodies", "a scene needs at least one body"));
        }
        let mut model = Model {
            dim,
            x0: vec![],
            v0: vec![],
            mass: vec![],
            contact_area: vec![],
            fixed: vec![],
            springs: vec![],
            walls,
            implicit_walls,
            gravity,
            barrier,
            friction,
            solver,
            bodies: vec![],
            triangles: vec![],
            tetrahedra: vec![],
            collision: crate::collision::CollisionMesh::new(dim),
            self_contact: self.self_contact_params(&raw.contact, nonsmooth.is_some())?,
            restitution: None,
            drives: vec![],
            moving_walls: moving,
        };
        if nonsmooth.is_none() {
            plane_e.extend(implicit_e);
            model.restitution = self.restitution_params(&raw, plane_e, &model)?;
            if let (Some(_), Some(w)) = (
                &model.restitution,
                raw.walls.iter().position(|w| w.drive.is_some()),
            ) {
                return Err(self.err(
                    &format!("walls.{w}.drive"),
                    "the restitution law (contact.restitution) follows walls that stay put: moving walls and restitution do not go together yet",
                ));
            }
        } else {
            self.nonsmooth_body_restitution(&raw)?;
        }
        for (bi, body) in raw.bodies.iter().enumerate() {
            let first = model.num_nodes();
            self.add_body(&mut model, super::builder::Body { bi, b: body })?;
            self.fixed_where(&mut model, bi, body, first)?;
            self.drives(&mut model, bi, body, first, nonsmooth.is_some())?;
        }
        // `forcing = "auto"` (the default) picks by size, once the nodes are known.
        let forcing = raw.solver.forcing.unwrap_or(crate::model::Forcing::Auto);
        model.solver.forcing = forcing.resolve(model.num_nodes());
        self.check_implicit_start(&model)?;
        self.check_self_contact_start(&model)?;
        if model.num_nodes() > u32::MAX as usize / 4 {
            return Err(self.err(
                "bodies",
                format!(
                    "{} nodes is more than springsim can index",
                    model.num_nodes()
                ),
            ));
        }
        let default_steps = match (raw.run.steps, raw.run.duration) {
            (Some(_), Some(_)) => {
                return Err(self.err(
                    "run.duration",
                    "give either run.steps or run.duration, not both",
                ))
            }
            (Some(n), None) if n == 0 || n > MAX_STEPS => {
                return Err(self.err(
                    "run.steps",
                    format!("must be between 1 and {MAX_STEPS}, got {n}"),
                ))
            }
            (Some(n), None) => Some(n),
            (None, Some(t)) => {
                let t = self.positive("run.duration", t)?;
                let n = (t / dt).ceil();
                if n > MAX_STEPS as f64 {
                    return Err(self.err(
                        "run.duration",
                        format!(
                            "{} s at solver.dt = {} s is {} steps, more than the {MAX_STEPS} a run may take",
                            fmt_num(t),
                            fmt_num(dt),
                            fmt_num(n)
                        ),
                    ));
                }
                Some((n as u64).max(1))
            }
            (None, None) => None,
        };
        Ok(Scene {
            name,
            description: raw.description.clone(),
            source: self.file.to_string(),
            model,
            default_steps,
            nonsmooth,
            particle_radius,
            linear_solver: s.linear_solver.unwrap_or_default(),
            toml: String::new(),
            warnings: vec![],
        })
    }
}
