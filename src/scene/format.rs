//! The TOML scene format as serde structures. Every key is documented in
//! `scenes/README.md`; unknown keys are errors, never silently ignored.

use crate::energy::barrier::BarrierKind;
use crate::model::Integrator;
use serde::Deserialize;

/// A whole scene file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// Scene name (defaults to the file stem).
    pub name: Option<String>,
    /// One line saying what the scene shows.
    #[serde(default)]
    pub description: String,
    /// Spatial dimension: 2 or 3.
    pub dimension: u32,
    /// Time stepping and Newton solver.
    pub solver: SolverSection,
    /// Barrier contact parameters.
    pub contact: ContactSection,
    /// Default run length.
    #[serde(default)]
    pub run: RunSection,
    /// Walls.
    #[serde(default)]
    pub walls: Vec<WallSection>,
    /// Bodies, each made by a generator.
    pub bodies: Vec<BodySection>,
}

/// `[solver]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolverSection {
    /// Time step h (s).
    pub dt: f64,
    /// `implicit_euler` (default) or `newmark`.
    #[serde(default)]
    pub integrator: Integrator,
    /// Newton stopping tolerance on `max_i Σ_k |p_ik| / h` (m/s); default 1e-2.
    pub tolerance: Option<f64>,
    /// Directions applied per step before Newton may stop; default 1, 0 = the
    /// course's rule (a first direction within the tolerance is never applied).
    pub min_newton_iterations: Option<u32>,
    /// Newton iterations per step; default 200.
    pub max_newton_iterations: Option<u32>,
    /// CG relative residual tolerance; default 1e-6.
    pub cg_tolerance: Option<f64>,
    /// CG iterations per solve; default 10 000.
    pub cg_max_iterations: Option<u32>,
    /// Line-search halvings before giving up a Newton iteration; default 60.
    pub max_line_search_halvings: Option<u32>,
    /// Extra friction lagging updates (re-solves with λ, T from the solution); default 0.
    pub friction_updates: Option<u32>,
    /// Gravity (m/s²); default (0, −9.81[, 0]).
    pub gravity: Option<Vec<f64>>,
    /// Newton direction solver of the CPU backend: `pcg` (default) or `direct`.
    pub linear_solver: Option<crate::linear_solver::LinearSolver>,
    /// Preconditioner of the PCG solve: `block_jacobi` (default) or `mas`.
    pub preconditioner: Option<crate::linear_solver::PreconditionerKind>,
    /// Float precision of the GPU backend: `auto` (default), `f32`, `f64` or `mixed`.
    pub precision: Option<crate::precision::PrecisionChoice>,
    /// CG tolerance per Newton direction: `fixed` or `eisenstat_walker` (inexact Newton).
    pub forcing: Option<crate::newton::Forcing>,
    /// Relative CG tolerance of each step's first direction under `eisenstat_walker`.
    pub forcing_start: Option<f64>,
    /// Whether the additive MAS keeps its factors through a step while CG keeps its pace.
    pub mas_reuse: Option<bool>,
}

/// `[contact]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactSection {
    /// `barrier` (default: IPC log-barrier) or `nonsmooth` (seed 002, particle scenes only).
    #[serde(default)]
    pub model: ContactModel,
    /// Barrier activation distance d̂ (m); required by the barrier model.
    pub dhat: Option<f64>,
    /// Barrier stiffness κ; required by the barrier model.
    pub kappa: Option<f64>,
    /// `book` (default, seed 003) or `ipc`.
    pub barrier: Option<BarrierKind>,
    /// Restitution coefficient e in [0, 1]: required by the nonsmooth model; with the
    /// barrier model, the restitution law of every wall and of contact between bodies.
    pub restitution: Option<f64>,
    /// Barrier model with restitution: the approach speed (m/s) below which a contact
    /// is resting and gets no bounce; default `2 |g| h`.
    pub restitution_min_speed: Option<f64>,
    /// Friction: velocity ε_v (m/s) below which friction is static; default 1e-3.
    pub friction_eps_v: Option<f64>,
    /// Contact between and within bodies (IPC self-contact); default true.
    pub self_contact: Option<bool>,
    /// Friction coefficient μ ≥ 0 of contacts between bodies' primitives; default 0.
    pub self_friction: Option<f64>,
}

/// How contact with walls is modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactModel {
    /// The IPC log-barrier inside the implicit time step (both backends).
    #[default]
    Barrier,
    /// Seed 002's nonsmooth Newmark scheme with a velocity-level restitution impulse.
    Nonsmooth,
}

/// `[run]`: how long `springsim run` simulates when the command line does not say.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// Number of time steps.
    pub steps: Option<u64>,
    /// Simulated time (s); `steps = ceil(duration / dt)`.
    pub duration: Option<f64>,
}

/// Kinds of wall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WallKind {
    /// The half-space `n·(x − point) ≥ 0`.
    Plane,
    /// `W(x) ≥ 0` for a built-in shape or an expression (seed 004).
    Implicit,
}

/// `[[walls]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WallSection {
    /// Wall kind (`plane` or `implicit`).
    #[serde(rename = "type")]
    pub kind: WallKind,
    /// Plane walls: a point on the plane (m).
    pub point: Option<Vec<f64>>,
    /// Plane walls: normal towards the allowed side (normalised on load).
    pub normal: Option<Vec<f64>>,
    /// Implicit walls: a built-in shape (`circle`, `sphere`, `box`, `diamond`,
    /// `octahedron`, `ellipse`, `ellipsoid`, `superellipse`, `sextic`).
    pub shape: Option<String>,
    /// Implicit walls: the function `f(x, y[, z])` instead of a shape.
    pub expression: Option<String>,
    /// Implicit walls with an expression: which sign of `f` is the allowed side
    /// (`positive` or `negative`).
    pub inside: Option<String>,
    /// Shapes: centre (m); default origin.
    pub center: Option<Vec<f64>>,
    /// `circle`, `sphere`, `diamond`, `octahedron` (vertex distance), `sextic` (size R): radius (m).
    pub radius: Option<f64>,
    /// `box`: half-extents (m).
    pub half_extents: Option<Vec<f64>>,
    /// `ellipse`, `ellipsoid`, `superellipse`: semi-axes (m).
    pub semi_axes: Option<Vec<f64>>,
    /// `superellipse`: exponent n ≥ 1.
    pub exponent: Option<f64>,
    /// Friction coefficient μ ≥ 0 (dimensionless); default 0 (frictionless).
    pub friction: Option<f64>,
    /// Coefficient of restitution e in [0, 1] of this wall (barrier model); default
    /// `contact.restitution`.
    pub restitution: Option<f64>,
    /// Plane walls: a translation over time (`[walls.drive]`: `velocity`, `start`,
    /// `stop`, or `keyframes` with `translate`).
    pub drive: Option<DriveSection>,
}

/// Body generators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Generator {
    /// 2D grid square/rectangle with the course's springs.
    Grid,
    /// 3D lattice box.
    Lattice,
    /// 3D cloth sheet in the x–z plane.
    Cloth,
    /// A single node (a ball) with a mass and an optional radius, 2D or 3D.
    Particle,
    /// A mesh read from a file (`file`: Wavefront OBJ or Gmsh MSH 4.1), 2D or 3D.
    Mesh,
}

/// `[[bodies]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodySection {
    /// Body name; default `body<i>`.
    pub name: Option<String>,
    /// `grid` (2D), `lattice` or `cloth` (3D), `particle` or `mesh` (2D or 3D).
    pub generator: Generator,
    /// Mesh bodies: the mesh file (`.obj` or `.msh`), relative to the scene file's folder.
    pub file: Option<String>,
    /// Mesh bodies given inline instead of by `file`: the node positions (m), one
    /// array of `dimension` numbers per node.
    pub nodes: Option<Vec<Vec<f64>>>,
    /// Inline mesh bodies' elements, as 0-based indices into `nodes`: exactly one of
    /// `segments` (2 nodes each), `triangles` (3) and `tetrahedra` (4).
    pub segments: Option<Vec<Vec<i64>>>,
    /// See `segments`.
    pub triangles: Option<Vec<Vec<i64>>>,
    /// See `segments`.
    pub tetrahedra: Option<Vec<Vec<i64>>>,
    /// Mesh bodies: scale factor of the file's coordinates, one number or one per axis.
    pub scale: Option<toml::Value>,
    /// Mesh bodies: rotation (degrees) after scaling, about the origin: one angle
    /// (about z) in 2D; three angles about x, then y, then z (fixed axes) in 3D.
    pub rotate: Option<toml::Value>,
    /// Mesh bodies: displacement (m) added after rotating, instead of `center`.
    pub translate: Option<Vec<f64>>,
    /// Every body: nodes whose initial position satisfies this condition over
    /// `x, y[, z]` (m) are fixed, in addition to `fixed`.
    pub fixed_where: Option<String>,
    /// Every body: only the nodes whose initial position satisfies this condition
    /// get `velocity` (or their random velocity); the others start at rest.
    pub velocity_where: Option<String>,
    /// Extent (m): 2 numbers for grid and cloth, 3 for lattice; not for particles.
    pub size: Option<Vec<f64>>,
    /// Cells along each extent (each ≥ 1); not for particles.
    pub cells: Option<Vec<u64>>,
    /// Centre (m), `dimension` numbers; default origin. A particle's position; for a
    /// mesh, where its bounding box's centre is moved (default: where the file puts it).
    pub center: Option<Vec<f64>>,
    /// Density: kg/m² for grid and cloth, kg/m³ for lattice. Mass is split evenly over the nodes.
    pub density: Option<f64>,
    /// Stiffness k of every spring (N/m); not for particles.
    pub spring_stiffness: Option<f64>,
    /// Resolution-independent material stiffness E (N/m for grid and cloth, Pa for
    /// lattice), the alternative to `spring_stiffness`: each spring stores the strain
    /// energy of an equal share of the body (`scenes/README.md`).
    pub material_stiffness: Option<f64>,
    /// Particles only: mass (kg).
    pub mass: Option<f64>,
    /// Particles only: radius (m, default 0); contact acts on the distance minus the radius.
    pub radius: Option<f64>,
    /// Initial velocity (m/s) of every node; default zero.
    pub velocity: Option<Vec<f64>>,
    /// Barrier weight per node: `"boundary"` (default: contact surface measure split over
    /// the surface nodes, applied to every node as in seed 003) or a number (m or m²).
    pub contact_area: Option<toml::Value>,
    /// Coefficient of restitution e in [0, 1] of this body's contacts (barrier
    /// model): with walls in place of the wall's e, with other bodies the mean of
    /// the two bodies' e (each defaulting to `contact.restitution`).
    pub restitution: Option<f64>,
    /// Body-local indices of fixed nodes.
    #[serde(default)]
    pub fixed: Vec<i64>,
    /// Cloth only: add skip-one bending springs.
    #[serde(default)]
    pub bending: bool,
    /// What the body collides with: `all` (default: other bodies and itself),
    /// `others` (never itself) or `walls` (walls only). Particles: walls only.
    pub collide: Option<crate::collision::Collide>,
    /// Particles only: how many balls to draw at random (needs `seed`); default 1.
    pub count: Option<u64>,
    /// Particles only: seed of the random positions and velocities.
    pub seed: Option<u64>,
    /// Random particles: positions are drawn uniformly in `center ± spread` (m).
    pub spread: Option<Vec<f64>>,
    /// Random particles: velocity components are drawn uniformly in `[−speed, speed]` (m/s).
    pub speed: Option<f64>,
    /// Node sets of this body that follow a prescribed motion (`[[bodies.drive]]`).
    #[serde(default)]
    pub drive: Vec<DriveSection>,
}

/// `[[bodies.drive]]`: a set of the body's nodes that follows a prescribed motion
/// (docs/SCRIPTED.md): a rigid motion (`velocity`, `angular_velocity`) or keyframes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveSection {
    /// Name in outputs and messages; default `<body>.drive<j>`.
    pub name: Option<String>,
    /// The driven nodes: those whose initial position satisfies this condition over
    /// `x, y[, z]` (m); default (and without `nodes`) every node of the body.
    #[serde(rename = "where")]
    pub condition: Option<String>,
    /// The driven nodes by body-local index, instead of `where`.
    pub nodes: Option<Vec<i64>>,
    /// Constant velocity (m/s), `dimension` numbers.
    pub velocity: Option<Vec<f64>>,
    /// Constant angular velocity (rad/s) about `center`: one number (about z) in 2D,
    /// a vector along the axis in 3D.
    pub angular_velocity: Option<toml::Value>,
    /// Rotation centre at t = 0 (m); default the driven nodes' centroid. It moves
    /// with the translation.
    pub center: Option<Vec<f64>>,
    /// When the rigid motion starts (s); default 0.
    pub start: Option<f64>,
    /// When it stops (s), the set holding its pose after; default never.
    pub stop: Option<f64>,
    /// Keyframes instead of a rigid motion: poses at times, linear in between.
    pub keyframes: Option<Vec<KeyframeSection>>,
    /// 3D keyframes: the rotation axis of their `rotate` angles; default z.
    pub axis: Option<Vec<f64>>,
}

/// One `bodies.N.drive.M.keyframes` entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyframeSection {
    /// Time (s).
    pub time: f64,
    /// Translation from the start (m), `dimension` numbers; default zero.
    pub translate: Option<Vec<f64>>,
    /// Rotation from the start about the drive's centre and axis (degrees); default 0.
    pub rotate: Option<f64>,
}

/// A number as a short string for messages: plain decimals for magnitudes in
/// `[1e-4, 1e12)`, `m e k` notation outside, at most 12 significant digits and no
/// trailing zeros (`1e300` rather than a 1 followed by 300 zeros; `0.3` for `0.1 + 0.2`).
/// Zero, infinities and NaN print as `{}` prints them.
pub fn fmt_num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    let a = x.abs();
    if (1e-4..1e12).contains(&a) {
        let decimals = (11 - a.log10().floor() as i32).max(0) as usize;
        trim(&format!("{x:.decimals$}"))
    } else {
        let s = format!("{x:.11e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        format!("{}e{e}", trim(m))
    }
}

#[cfg(test)]
mod tests {
    use super::fmt_num;

    #[test]
    fn numbers_in_messages_are_short() {
        assert_eq!(fmt_num(1e300), "1e300");
        assert_eq!(fmt_num(-1e300), "-1e300");
        assert_eq!(fmt_num(f64::MAX), "1.79769313486e308");
        assert_eq!(fmt_num(0.1 + 0.2), "0.3");
        assert_eq!(fmt_num(-0.01), "-0.01");
        assert_eq!(fmt_num(123456.0), "123456");
        assert_eq!(fmt_num(1.5e-7), "1.5e-7");
        assert_eq!(fmt_num(5e-324), "4.94065645841e-324");
        assert_eq!(fmt_num(0.0), "0");
        assert_eq!(fmt_num(f64::NEG_INFINITY), "-inf");
        assert_eq!(fmt_num(f64::NAN), "NaN");
        assert!(fmt_num(999_999_999_999.9).len() <= 14);
    }
}
