//! Scenes: TOML files that describe bodies, walls and parameters (documented in
//! `scenes/README.md`), parsed with every error naming file, field, line and reason,
//! then turned into a [`Model`].

mod balls;
pub mod error;
pub mod format;
pub mod generators;
mod material;
pub mod memory;
mod particles;
mod walls;

use crate::energy::barrier::{BarrierKind, BarrierParams};
use crate::energy::friction::FrictionParams;
use crate::model::{BodyInfo, Model, SolverParams, Spring};
use crate::wall::PlaneWall;
pub use error::SceneError;
use format::{fmt_num, BodySection, Generator, SceneFile};
use material::Stiffness;
use std::path::Path;

/// Scenes shipped inside the binary (also in `scenes/`), by name.
pub const BUNDLED: &[(&str, &str)] = &[
    ("square_drop", include_str!("../../scenes/square_drop.toml")),
    (
        "lattice_drop",
        include_str!("../../scenes/lattice_drop.toml"),
    ),
    ("cloth_drop", include_str!("../../scenes/cloth_drop.toml")),
    ("square_64", include_str!("../../scenes/square_64.toml")),
    ("square_256", include_str!("../../scenes/square_256.toml")),
    ("ball_bounce", include_str!("../../scenes/ball_bounce.toml")),
    ("balls_3d", include_str!("../../scenes/balls_3d.toml")),
    (
        "circle_balls",
        include_str!("../../scenes/circle_balls.toml"),
    ),
    (
        "circle_balls_impulse",
        include_str!("../../scenes/circle_balls_impulse.toml"),
    ),
    (
        "diamond_balls",
        include_str!("../../scenes/diamond_balls.toml"),
    ),
    (
        "diamond_balls_impulse",
        include_str!("../../scenes/diamond_balls_impulse.toml"),
    ),
    (
        "sextic_balls",
        include_str!("../../scenes/sextic_balls.toml"),
    ),
    (
        "sextic_balls_impulse",
        include_str!("../../scenes/sextic_balls_impulse.toml"),
    ),
    (
        "square_in_bowl",
        include_str!("../../scenes/square_in_bowl.toml"),
    ),
    (
        "lattice_in_sphere",
        include_str!("../../scenes/lattice_in_sphere.toml"),
    ),
    (
        "square_on_slope",
        include_str!("../../scenes/square_on_slope.toml"),
    ),
    (
        "cube_on_slope",
        include_str!("../../scenes/cube_on_slope.toml"),
    ),
    (
        "block_thrown",
        include_str!("../../scenes/block_thrown.toml"),
    ),
    (
        "ball_in_bowl_friction",
        include_str!("../../scenes/ball_in_bowl_friction.toml"),
    ),
];

/// Most time steps one run may take (`[run] steps`, `[run] duration / dt`, `--steps`,
/// `--duration`): 10⁹, weeks of wall-clock time for the smallest scene.
pub const MAX_STEPS: u64 = 1_000_000_000;

/// Longest scene `name`, in characters.
pub const MAX_NAME_CHARS: usize = 100;

/// Why `name` cannot be a scene name: it names the output folder `out/NAME`, so it
/// must be one path component of letters, digits, `_`, `-` and `.`, not starting
/// with `.`, non-empty and at most [`MAX_NAME_CHARS`] characters.
pub fn check_name(name: &str) -> Result<(), String> {
    let chars = name.chars().count();
    if name.is_empty() {
        return Err("must not be empty (it names the output folder out/NAME)".into());
    }
    if chars > MAX_NAME_CHARS {
        return Err(format!(
            "must be at most {MAX_NAME_CHARS} characters, got {chars}"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(format!(
            "may hold only letters, digits, `_`, `-` and `.` (it names the output folder out/NAME), found {c:?}"
        ));
    }
    if name.starts_with('.') {
        return Err("must not start with `.` (it names the output folder out/NAME)".into());
    }
    Ok(())
}

/// The default scene name from a file stem: characters [`check_name`] refuses become
/// `_`, leading dots are dropped, and it is cut to [`MAX_NAME_CHARS`]; `scene` when
/// nothing is left.
fn name_from_stem(stem: &str) -> String {
    let name: String = stem
        .trim_start_matches('.')
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(MAX_NAME_CHARS)
        .collect();
    if name.is_empty() {
        "scene".into()
    } else {
        name
    }
}

/// A loaded, validated scene.
#[derive(Clone, Debug)]
pub struct Scene {
    /// Scene name.
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Where it came from (a path, or `bundled:NAME`).
    pub source: String,
    /// The system to simulate.
    pub model: Model,
    /// Steps to run when the command line does not say (from `[run]`).
    pub default_steps: Option<u64>,
    /// Seed 002's nonsmooth contact model, when `contact.model = "nonsmooth"`.
    pub nonsmooth: Option<crate::nonsmooth::NonsmoothParams>,
    /// The particles' common radius (m); the walls of `model` are already moved by it.
    pub particle_radius: f64,
    /// How the CPU backend solves the Newton systems (`[solver] linear_solver`).
    pub linear_solver: crate::linear_solver::LinearSolver,
}

impl Scene {
    /// The number of steps a run takes: `steps` (`--steps`) or `duration` (`--duration`,
    /// seconds, rounded up to whole steps) from the command line, else the scene's
    /// `[run]`, else 100. The error (one line) says why the request is refused: zero
    /// steps, a duration that is not a positive finite number, or more than
    /// [`MAX_STEPS`] steps.
    pub fn run_steps(&self, steps: Option<u64>, duration: Option<f64>) -> Result<u64, String> {
        let dt = self.model.solver.dt;
        match (steps, duration) {
            (Some(_), Some(_)) => Err("give either --steps or --duration, not both".into()),
            (Some(n), None) if n == 0 || n > MAX_STEPS => Err(format!(
                "--steps must be between 1 and {MAX_STEPS}, got {n}"
            )),
            (Some(n), None) => Ok(n),
            (None, Some(t)) if !(t.is_finite() && t > 0.0) => Err(format!(
                "--duration must be a positive finite number of seconds, got {}",
                fmt_num(t)
            )),
            (None, Some(t)) => {
                let n = (t / dt).ceil();
                if n > MAX_STEPS as f64 {
                    return Err(format!(
                        "--duration {} s at solver.dt = {} s is {} steps, more than the {MAX_STEPS} a run may take",
                        fmt_num(t),
                        fmt_num(dt),
                        fmt_num(n)
                    ));
                }
                Ok((n as u64).max(1))
            }
            (None, None) => Ok(self.default_steps.unwrap_or(100)),
        }
    }
}

/// Loads a scene from a path, or from a bundled scene name when no such file exists.
pub fn load(arg: &str) -> Result<Scene, SceneError> {
    let path = Path::new(arg);
    if path.exists() {
        let text = std::fs::read_to_string(path).map_err(|e| SceneError {
            file: arg.to_string(),
            field: None,
            line: None,
            reason: format!("cannot read the file: {e}"),
        })?;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("scene");
        return parse(&text, arg, stem);
    }
    let name = arg.strip_prefix("scenes/").unwrap_or(arg);
    let name = name.strip_suffix(".toml").unwrap_or(name);
    match BUNDLED.iter().find(|(n, _)| *n == name) {
        Some((n, text)) => parse(text, &format!("bundled:{n}"), n),
        None => Err(SceneError {
            file: arg.to_string(),
            field: None,
            line: None,
            reason: format!(
                "no such file, and no bundled scene of that name (bundled: {})",
                BUNDLED
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
    }
}

/// Parses and validates scene `text`; `file` names it in errors, `stem` is the default name.
pub fn parse(text: &str, file: &str, stem: &str) -> Result<Scene, SceneError> {
    let de = toml::Deserializer::parse(text).map_err(|e| toml_error(text, file, None, &e))?;
    let raw: SceneFile = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let field = (path != "." && !path.is_empty()).then_some(path);
        toml_error(text, file, field, e.inner())
    })?;
    Builder { text, file }.build(raw, stem)
}

fn toml_error(text: &str, file: &str, field: Option<String>, e: &toml::de::Error) -> SceneError {
    SceneError {
        file: file.to_string(),
        field,
        line: e.span().map(|s| error::line_of_offset(text, s.start)),
        reason: error::one_line(e.message()),
    }
}

/// Validation context: knows the text to find line numbers of fields in.
struct Builder<'a> {
    text: &'a str,
    file: &'a str,
}

impl Builder<'_> {
    /// An error at the field with dotted `path` (array indices as numbers).
    fn err(&self, path: &str, reason: impl Into<String>) -> SceneError {
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

    fn positive(&self, path: &str, v: f64) -> Result<f64, SceneError> {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(self.err(
                path,
                format!("must be a positive finite number, got {}", fmt_num(v)),
            ))
        }
    }

    fn vector(&self, path: &str, v: &[f64], len: usize) -> Result<Vec<f64>, SceneError> {
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
    fn vector_or_zero(
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

    /// Rejects the first key of `keys` (name, whether the file gives it) that is
    /// given, at `{section}.{name}`, with the reason `why(name)`.
    fn reject_given(
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

    fn build(&self, raw: SceneFile, stem: &str) -> Result<Scene, SceneError> {
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
        };
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
        let mut friction = self.friction_params(&raw.contact, nonsmooth.is_some())?;
        for (i, w) in raw.walls.iter().enumerate() {
            let mu = self.wall_friction(i, w, nonsmooth.is_some())?;
            if w.kind == format::WallKind::Implicit {
                let parts = self.implicit_wall(i, w, dim, particle_radius)?;
                friction.implicit_mu.extend(parts.iter().map(|_| mu));
                implicit_walls.extend(parts);
                continue;
            }
            friction.plane_mu.push(mu);
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
        };
        for (bi, body) in raw.bodies.iter().enumerate() {
            self.add_body(&mut model, bi, body)?;
        }
        self.check_implicit_start(&model)?;
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
        })
    }

    /// Refuses, at `path`, a body of `counts` (nodes, springs; `None`: overflowed)
    /// that would take the scene past [`memory::MAX_NODES`] nodes or past the memory
    /// this machine has available (see [`memory`]).
    pub(super) fn check_memory(
        &self,
        model: &Model,
        path: &str,
        counts: Option<(u64, u64)>,
    ) -> Result<(), SceneError> {
        let total = counts.and_then(|(n, s)| {
            Some((
                n.checked_add(model.num_nodes() as u64)?,
                s.checked_add(model.springs.len() as u64)?,
            ))
        });
        memory::check(
            model.dim as u64,
            total.map(|t| t.0),
            total.map(|t| t.1),
            memory::available_bytes(),
        )
        .map_err(|why| self.err(path, why))
    }

    fn add_body(&self, model: &mut Model, bi: usize, b: &BodySection) -> Result<(), SceneError> {
        let dim = model.dim;
        let p = |f: &str| format!("bodies.{bi}.{f}");
        let (gen_dim, extents) = match b.generator {
            Generator::Grid => (2, 2),
            Generator::Lattice => (3, 3),
            Generator::Cloth => (3, 2),
            Generator::Particle if b.count.is_some() || b.seed.is_some() => {
                return self.add_balls(model, bi, b)
            }
            Generator::Particle => return self.add_particle(model, bi, b),
        };
        let what = format!("{:?} bodies", b.generator).to_lowercase();
        let body = format!("bodies.{bi}");
        self.reject_given(
            &body,
            &[
                ("mass", b.mass.is_some()),
                ("radius", b.radius.is_some()),
                ("count", b.count.is_some()),
                ("seed", b.seed.is_some()),
                ("spread", b.spread.is_some()),
                ("speed", b.speed.is_some()),
            ],
            |key| format!("only particle bodies take a {key}; {what} take a density"),
        )?;
        let b_size = self.required(&body, "size", b.size.as_ref(), &what)?;
        let b_cells = self.required(&body, "cells", b.cells.as_ref(), &what)?;
        if gen_dim != dim {
            return Err(self.err(
                &p("generator"),
                format!(
                    "{:?} makes {gen_dim}D bodies but the scene has dimension {dim}",
                    b.generator
                )
                .to_lowercase(),
            ));
        }
        let size = self.vector(&p("size"), b_size, extents)?;
        for (k, s) in size.iter().enumerate() {
            self.positive(&format!("{}.{k}", p("size")), *s)?;
        }
        if b_cells.len() != extents {
            return Err(self.err(
                &p("cells"),
                format!("must have {extents} components, got {}", b_cells.len()),
            ));
        }
        let mut cells = [0u64; 3];
        for (k, c) in b_cells.iter().enumerate() {
            if *c == 0 {
                return Err(self.err(
                    &format!("{}.{k}", p("cells")),
                    format!("must be at least 1, got {c}"),
                ));
            }
            cells[k] = *c;
        }
        if b.bending && b.generator != Generator::Cloth {
            return Err(self.err(&p("bending"), "only cloth bodies have bending springs"));
        }
        // Count before generating: refuse what overflows or does not fit in memory.
        let counts = match b.generator {
            Generator::Grid => generators::count_grid([cells[0], cells[1]]),
            Generator::Lattice => generators::count_lattice(cells),
            _ => generators::count_cloth([cells[0], cells[1]], b.bending),
        };
        self.check_memory(model, &p("cells"), counts)?;
        let cells = cells.map(|c| c as usize);
        let center = self.vector_or_zero(&p("center"), b.center.as_ref(), dim)?;
        let density = self.positive(
            &p("density"),
            self.required(&body, "density", b.density, &what)?,
        )?;
        let stiffness = match (b.spring_stiffness, b.material_stiffness) {
            (Some(k), None) => Stiffness::PerSpring(self.positive(&p("spring_stiffness"), k)?),
            (None, Some(e)) => Stiffness::Material(self.positive(&p("material_stiffness"), e)?),
            (Some(_), Some(_)) => {
                return Err(self.err(
                    &p("material_stiffness"),
                    "give either spring_stiffness or material_stiffness, not both",
                ))
            }
            (None, None) => {
                return Err(self.err(
                    &body,
                    format!(
                    "missing field `spring_stiffness` or `material_stiffness` (required by {what})"
                ),
                ))
            }
        };
        let velocity = self.vector_or_zero(&p("velocity"), b.velocity.as_ref(), dim)?;
        let mesh = match b.generator {
            Generator::Grid => generators::grid(
                [size[0], size[1]],
                [cells[0], cells[1]],
                [center[0], center[1]],
            ),
            Generator::Lattice => generators::lattice(
                [size[0], size[1], size[2]],
                [cells[0], cells[1], cells[2]],
                [center[0], center[1], center[2]],
            ),
            Generator::Cloth => generators::cloth(
                [size[0], size[1]],
                [cells[0], cells[1]],
                [center[0], center[1], center[2]],
                b.bending,
            ),
            Generator::Particle => unreachable!("particle bodies are built by add_particle"),
        };
        let n = mesh.num_nodes();
        let area = match &b.contact_area {
            None => mesh.contact_measure / mesh.contact_nodes as f64,
            Some(toml::Value::String(s)) if s == "boundary" => {
                mesh.contact_measure / mesh.contact_nodes as f64
            }
            Some(v) => match v.as_float().or_else(|| v.as_integer().map(|i| i as f64)) {
                Some(a) => self.positive(&p("contact_area"), a)?,
                None => {
                    return Err(self.err(
                        &p("contact_area"),
                        format!("must be \"boundary\" or a positive number, got {v}"),
                    ))
                }
            },
        };
        let first = model.num_nodes();
        let mut fixed = vec![false; n];
        for (k, &f) in b.fixed.iter().enumerate() {
            if f < 0 || f as usize >= n {
                return Err(self.err(
                    &format!("{}.{k}", p("fixed")),
                    format!(
                        "node index {f} is out of range: this body has {n} nodes (0..{})",
                        n - 1
                    ),
                ));
            }
            fixed[f as usize] = true;
        }
        // No node may start at, behind, or within d̂ of a wall.
        for (wi, w) in model.walls.iter().enumerate() {
            for (i, xi) in mesh.x.chunks(dim).enumerate() {
                let d = w.distance(xi);
                if d <= model.barrier.dhat {
                    return Err(self.err(
                        &p("center"),
                        format!(
                            "node {i} starts at distance {} m from walls[{wi}], which is not beyond contact.dhat = {}; move the body away from the wall",
                            fmt_num(d),
                            fmt_num(model.barrier.dhat)
                        ),
                    ));
                }
            }
        }
        let node_mass = density * mesh.measure / n as f64;
        model.x0.extend_from_slice(&mesh.x);
        for _ in 0..n {
            model.v0.extend_from_slice(&velocity);
            model.mass.push(node_mass);
            model.contact_area.push(area);
        }
        model.fixed.extend(fixed);
        for [a, c] in &mesh.springs {
            let (ia, ic) = (*a as usize, *c as usize);
            let l2: f64 = (0..dim)
                .map(|k| (mesh.x[ia * dim + k] - mesh.x[ic * dim + k]).powi(2))
                .sum();
            model.springs.push(Spring {
                a: a + first as u32,
                b: c + first as u32,
                rest_length_sq: l2,
                stiffness: stiffness.spring_k(mesh.measure, mesh.springs.len(), l2),
            });
        }
        model.bodies.push(BodyInfo {
            name: b.name.clone().unwrap_or_else(|| format!("body{bi}")),
            first_node: first,
            nodes: n,
            springs: mesh.springs.len(),
        });
        Ok(())
    }
}
