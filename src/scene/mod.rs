//! Scenes: TOML files that describe bodies, walls and parameters (documented in
//! `scenes/README.md`), parsed with every error naming file, field, line and reason,
//! then turned into a [`Model`].

mod balls;
mod build;
mod builder;
mod drive;
pub mod error;
pub mod format;
pub mod generators;
mod inline_mesh;
mod material;
pub mod memory;
mod mesh_body;
mod mesh_import;
mod name;
pub mod overrides;
mod particles;
pub mod resolved;
mod restitution;
mod select;
mod self_contact;
mod walls;

use crate::model::Model;
use builder::Builder;
pub use error::SceneError;
use format::{fmt_num, SceneFile};
pub use name::{check_name, MAX_NAME_CHARS};
pub use overrides::Override;
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
    ("tet_drop", include_str!("../../scenes/tet_drop.toml")),
    (
        "obj_cloth_drape",
        include_str!("../../scenes/obj_cloth_drape.toml"),
    ),
    ("disk_drop", include_str!("../../scenes/disk_drop.toml")),
    (
        "restitution_balls",
        include_str!("../../scenes/restitution_balls.toml"),
    ),
    ("two_squares", include_str!("../../scenes/two_squares.toml")),
    ("tet_stack", include_str!("../../scenes/tet_stack.toml")),
    ("cloth_pile", include_str!("../../scenes/cloth_pile.toml")),
    (
        "cloth_on_sphere",
        include_str!("../../scenes/cloth_on_sphere.toml"),
    ),
    ("rope_pile", include_str!("../../scenes/rope_pile.toml")),
    (
        "ropes_parallel",
        include_str!("../../scenes/ropes_parallel.toml"),
    ),
    (
        "square_crush",
        include_str!("../../scenes/square_crush.toml"),
    ),
    ("box_crush", include_str!("../../scenes/box_crush.toml")),
    ("box_on_belt", include_str!("../../scenes/box_on_belt.toml")),
    (
        "container_spin",
        include_str!("../../scenes/container_spin.toml"),
    ),
    (
        "cloth_on_turning_sphere",
        include_str!("../../scenes/cloth_on_turning_sphere.toml"),
    ),
    ("rope_twist", include_str!("../../scenes/rope_twist.toml")),
    ("strip_twist", include_str!("../../scenes/strip_twist.toml")),
];

/// Meshes shipped inside the binary (also in `scenes/meshes/`), by their path
/// relative to `scenes/`: bundled scenes name them in `file`.
pub const BUNDLED_MESHES: &[(&str, &[u8])] = &[
    (
        "meshes/disk2d.msh",
        include_bytes!("../../scenes/meshes/disk2d.msh"),
    ),
    (
        "meshes/box3d.msh",
        include_bytes!("../../scenes/meshes/box3d.msh"),
    ),
    (
        "meshes/cloth.obj",
        include_bytes!("../../scenes/meshes/cloth.obj"),
    ),
    (
        "meshes/rope.obj",
        include_bytes!("../../scenes/meshes/rope.obj"),
    ),
    (
        "meshes/braid.obj",
        include_bytes!("../../scenes/meshes/braid.obj"),
    ),
];

/// Most time steps one run may take (`[run] steps`, `[run] duration / dt`, `--steps`,
/// `--duration`): 10⁹, weeks of wall-clock time for the smallest scene.
pub const MAX_STEPS: u64 = 1_000_000_000;

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
    /// The TOML the scene was parsed from, overrides included (written to a run's
    /// `scene.toml`).
    pub toml: String,
    /// What the scene's input had that springsim fixed (a mesh's inverted
    /// tetrahedra), one line each, for the command line to print as warnings.
    pub warnings: Vec<String>,
}

impl Scene {
    /// Prints [`Self::warnings`] to stderr, one `warning:` line each.
    pub fn print_warnings(&self) {
        for w in &self.warnings {
            eprintln!("warning: {w}");
        }
    }

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
    load_with(arg, &[])
}

/// The TOML text of scene `arg` (a path, or a bundled scene's name when no such file
/// exists), the name errors give it (`bundled:NAME` for a bundled one) and its stem.
pub fn read_text(arg: &str) -> Result<(String, String, String), SceneError> {
    let path = Path::new(arg);
    if path.exists() {
        let text = std::fs::read_to_string(path).map_err(|e| SceneError {
            file: arg.to_string(),
            field: None,
            line: None,
            reason: format!("cannot read the file: {e}"),
        })?;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("scene");
        return Ok((text, arg.to_string(), stem.to_string()));
    }
    let name = arg.strip_prefix("scenes/").unwrap_or(arg);
    let name = name.strip_suffix(".toml").unwrap_or(name);
    match BUNDLED.iter().find(|(n, _)| *n == name) {
        Some((n, text)) => Ok((text.to_string(), format!("bundled:{n}"), n.to_string())),
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

/// Loads scene `arg` (as [`load`]) with `overrides` written into its TOML first, so
/// they are validated exactly like the file. An error caused by an override names it
/// (`--set solver.dt=-1: …`); line numbers are dropped where overrides added lines.
pub fn load_with(arg: &str, overrides: &[Override]) -> Result<Scene, SceneError> {
    let (text, file, stem) = read_text(arg)?;
    let (new_text, added) = overrides::apply(&text, &file, overrides)?;
    parse(&new_text, &file, &stem).map_err(|mut e| {
        if overrides.is_empty() {
            return e;
        }
        let blamed: Vec<String> = match &e.field {
            Some(f) => overrides
                .iter()
                .filter(|o| o.concerns(f))
                .map(|o| o.to_string())
                .collect(),
            None => Vec::new(),
        };
        if blamed.is_empty() {
            let all: Vec<String> = overrides.iter().map(|o| o.to_string()).collect();
            e.reason = format!("with {}: {}", all.join(" "), e.reason);
            if added {
                e.line = None;
            }
        } else {
            e.reason = format!("{}: {}", blamed.join(" "), e.reason);
            e.line = None;
        }
        e
    })
}

/// Parses and validates scene `text`; `file` names it in errors, `stem` is the default name.
pub fn parse(text: &str, file: &str, stem: &str) -> Result<Scene, SceneError> {
    let de = toml::Deserializer::parse(text).map_err(|e| toml_error(text, file, None, &e))?;
    let raw: SceneFile = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let field = (path != "." && !path.is_empty()).then_some(path);
        toml_error(text, file, field, e.inner())
    })?;
    let builder = Builder {
        text,
        file,
        warnings: Default::default(),
    };
    let mut scene = builder.build(raw, stem)?;
    scene.warnings = builder.warnings.take();
    scene.toml = text.to_string();
    Ok(scene)
}

fn toml_error(text: &str, file: &str, field: Option<String>, e: &toml::de::Error) -> SceneError {
    SceneError {
        file: file.to_string(),
        field,
        line: e.span().map(|s| error::line_of_offset(text, s.start)),
        reason: error::one_line(e.message()),
    }
}
