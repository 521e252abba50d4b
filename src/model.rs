//! The discretised system both backends simulate: nodes, springs, walls and the
//! solver parameters, built from a scene by [`crate::scene`].

use crate::energy::barrier::BarrierParams;
use crate::wall::PlaneWall;
use serde::{Deserialize, Serialize};

/// One spring between nodes `a` and `b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring {
    /// First node index.
    pub a: u32,
    /// Second node index.
    pub b: u32,
    /// Squared rest length l² (m²).
    pub rest_length_sq: f64,
    /// Stiffness k (N/m).
    pub stiffness: f64,
}

/// Time integrator, as minimisation of an incremental potential (docs/PHYSICS.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Integrator {
    /// Implicit Euler: `E = ½|x − (xⁿ + h vⁿ)|²_M + h² Ψ`.
    #[default]
    ImplicitEuler,
    /// Newmark β = ¼, γ = ½: `E = ½|x − x̂|²_M + (h²/4) Ψ`, `x̂ = xⁿ + h vⁿ + (h²/4) aⁿ`.
    Newmark,
}

impl Integrator {
    /// The factor `c` in front of `h² Ψ` in the incremental potential (1 or ¼).
    pub fn potential_scale(self) -> f64 {
        match self {
            Integrator::ImplicitEuler => 1.0,
            Integrator::Newmark => 0.25,
        }
    }
}

/// How the relative CG tolerance of each Newton direction is chosen (`solver.forcing`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Forcing {
    /// Every direction to `solver.cg_tolerance` (the course's exact Newton).
    #[default]
    Fixed,
    /// Eisenstat–Walker choice 2: `η_k = γ (‖g_k‖/‖g_{k−1}‖)²`, safeguarded and clamped
    /// to `[solver.cg_tolerance, ETA_MAX]`; the first direction of a step to `solver.forcing_start`.
    EisenstatWalker,
    /// A scene's default: `eisenstat_walker` from [`EW_AUTO_NODES`] nodes on, `fixed`
    /// below; resolved when the scene is built ([`Forcing::resolve`]). The Newton
    /// driver treats an unresolved `auto` as `fixed`.
    Auto,
}

/// Nodes from which `solver.forcing = "auto"` takes Eisenstat–Walker forcing: where
/// CG dominates a step's cost (3× fewer CG iterations on the 1089-node square, 3.3× on
/// the 4225-node one, benchmarks/NOTES.md). Smaller scenes, among them every reference and
/// GPU-agreement scene, keep exact Newton directions.
pub const EW_AUTO_NODES: usize = 1000;

impl Forcing {
    /// The rule a scene of `nodes` nodes runs with (`auto` resolved).
    pub fn resolve(self, nodes: usize) -> Forcing {
        match self {
            Forcing::Auto if nodes >= EW_AUTO_NODES => Forcing::EisenstatWalker,
            Forcing::Auto => Forcing::Fixed,
            other => other,
        }
    }

    /// The rule the Newton driver applies: an unresolved `auto` runs as `fixed`.
    pub fn as_run(self) -> Forcing {
        match self {
            Forcing::Auto => Forcing::Fixed,
            other => other,
        }
    }

    /// The name used in scene files and tables.
    pub fn name(self) -> &'static str {
        match self {
            Forcing::Fixed => "fixed",
            Forcing::EisenstatWalker => "eisenstat_walker",
            Forcing::Auto => "auto",
        }
    }
}

/// Parameters of the Newton solve of each time step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SolverParams {
    /// Time step h (s).
    pub dt: f64,
    /// Time integrator.
    pub integrator: Integrator,
    /// Newton stops when `max_i Σ_k |p_ik| / h < tolerance` (m/s).
    pub tolerance: f64,
    /// Directions applied per time step before the stopping rule may end Newton: 1
    /// (the default) applies the first direction even when it already meets the
    /// tolerance, so a body at rest with `|g| h < tolerance` still falls; 0 is the
    /// course's rule (seed 003), which stops before applying such a direction.
    pub min_newton_iterations: u32,
    /// Newton iterations allowed per time step before the step is accepted as is.
    pub max_newton_iterations: u32,
    /// Relative residual `|r| / |g|` at which CG stops.
    pub cg_tolerance: f64,
    /// CG iterations allowed per Newton iteration.
    pub cg_max_iterations: u32,
    /// Line-search halvings allowed before the Newton iteration gives up.
    pub max_line_search_halvings: u32,
    /// Extra friction lagging updates per step: after the Newton solve, λ and the
    /// tangent bases are recomputed at the solution and the step is solved again,
    /// this many times at most (0: λ and T from the step start only).
    pub friction_updates: u32,
    /// Preconditioner of the PCG direction solve.
    pub preconditioner: crate::linear_solver::PreconditionerKind,
    /// Float precision of the GPU backend (the CPU backend is f64 throughout).
    pub precision: crate::precision::PrecisionChoice,
    /// How each direction's relative CG tolerance is chosen: `Fixed` (every one to
    /// `cg_tolerance`) or Eisenstat–Walker forcing terms (inexact Newton).
    pub forcing: Forcing,
    /// Relative CG tolerance of the first direction of each step under
    /// Eisenstat–Walker forcing (dimensionless, at least `cg_tolerance`).
    pub forcing_start: f64,
    /// Whether the additive MAS preconditioner keeps its factors through a time step's
    /// later Newton directions while CG keeps its pace ([`crate::mas::reuse`]); the
    /// V-cycle factors at every direction regardless.
    pub mas_reuse: bool,
}

impl SolverParams {
    /// The factor `c h²` in front of the potentials in the incremental potential
    /// (s²): the integrator's [`Integrator::potential_scale`] times `dt²`.
    pub fn potential_weight(&self) -> f64 {
        self.integrator.potential_scale() * self.dt * self.dt
    }
}

/// Default `solver.forcing_start`: the first direction of a step to a relative CG
/// residual of 0.1 under Eisenstat–Walker forcing.
pub const DEFAULT_FORCING_START: f64 = 0.01;

impl Default for SolverParams {
    /// The defaults a scene gets for every `[solver]` key it leaves out (dt has none
    /// in a scene; 0.01 s here): the course's tolerance 1e-2 m/s, at least one and at
    /// most 200 Newton iterations, CG to 1e-6 in at most 10 000 iterations, 60
    /// line-search halvings, no friction lagging updates, block-Jacobi PCG.
    fn default() -> Self {
        Self {
            dt: 0.01,
            integrator: Integrator::ImplicitEuler,
            tolerance: 1e-2,
            min_newton_iterations: 1,
            max_newton_iterations: 200,
            cg_tolerance: 1e-6,
            cg_max_iterations: 10_000,
            max_line_search_halvings: 60,
            friction_updates: 0,
            preconditioner: crate::linear_solver::PreconditionerKind::Auto,
            precision: crate::precision::PrecisionChoice::Auto,
            forcing: Forcing::Fixed,
            forcing_start: DEFAULT_FORCING_START,
            mas_reuse: true,
        }
    }
}

/// A node range belonging to one body of the scene (for output and checks).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BodyInfo {
    /// The body's name from the scene.
    pub name: String,
    /// First node index.
    pub first_node: usize,
    /// Number of nodes.
    pub nodes: usize,
    /// Number of springs.
    pub springs: usize,
}

/// Everything a backend needs to simulate a scene.
#[derive(Clone, Debug)]
pub struct Model {
    /// Spatial dimension d (2 or 3).
    pub dim: usize,
    /// Initial positions, `nodes × dim` (m).
    pub x0: Vec<f64>,
    /// Initial velocities, `nodes × dim` (m/s).
    pub v0: Vec<f64>,
    /// Lumped node masses (kg).
    pub mass: Vec<f64>,
    /// Barrier weight per node (m in 2D, m² in 3D).
    pub contact_area: Vec<f64>,
    /// Whether a node is fixed (Dirichlet): it never moves.
    pub fixed: Vec<bool>,
    /// The springs.
    pub springs: Vec<Spring>,
    /// Plane walls.
    pub walls: Vec<PlaneWall>,
    /// Implicit walls `W(x) ≥ 0` (seed 004), after the plane walls.
    pub implicit_walls: Vec<crate::implicit::ImplicitWall>,
    /// Gravity (m/s²), `dim` components.
    pub gravity: Vec<f64>,
    /// Barrier function and its parameters.
    pub barrier: BarrierParams,
    /// Wall friction coefficients and ε_v (all μ = 0: no friction).
    pub friction: crate::energy::friction::FrictionParams,
    /// Newton / CG / integrator parameters.
    pub solver: SolverParams,
    /// Bodies and their node ranges.
    pub bodies: Vec<BodyInfo>,
    /// Surface triangles (node indices) of the bodies that have them (imported
    /// meshes; cloth), for output cells and rendering only: physics uses `springs`.
    pub triangles: Vec<[u32; 3]>,
    /// Tetrahedra (node indices) of 3D volume bodies that have them (imported
    /// meshes), for output cells only.
    pub tetrahedra: Vec<[u32; 4]>,
    /// The primitives through which bodies touch each other and themselves.
    pub collision: crate::collision::CollisionMesh,
    /// Whether and how they do (`contact.self_contact`, `contact.self_friction`).
    pub self_contact: crate::collision::SelfContactParams,
    /// The restitution law of barrier contact (`contact.restitution`, a wall's
    /// `restitution`; [`crate::rebound`]), `None` where no contact has one: IPC's own
    /// bounce, whatever h, d̂ and κ make of it.
    pub restitution: Option<RestitutionParams>,
    /// Node sets that follow a prescribed motion (`bodies.N.drive`; docs/SCRIPTED.md).
    /// Their nodes are also `fixed`: the Newton solve never moves them, the drive
    /// stage before it does ([`crate::drive`]).
    pub drives: Vec<crate::script::Drive>,
    /// Plane walls that translate (`walls.N.drive`): the drive stage moves them too.
    pub moving_walls: Vec<crate::script::MovingWall>,
}

/// The coefficients of restitution a scene asks of barrier contact
/// ([`crate::rebound`]). `None` for a contact kind leaves it to the barrier alone.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RestitutionParams {
    /// e of each wall, in the contact layer's order (plane walls, then implicit
    /// walls: [`crate::contact::walls`]).
    pub walls: Vec<Option<f64>>,
    /// e between collision primitives (bodies against bodies and themselves).
    pub pairs: Option<f64>,
    /// e of each scene body's contacts, where the body sets one (in
    /// [`Model::bodies`] order): against a wall it replaces the wall's, between two
    /// bodies the pair takes the mean of theirs (each falling back to `pairs`).
    pub bodies: Vec<Option<f64>>,
    /// Approach speed (m/s, of the contact's distance) below which a contact is
    /// resting and gets no bounce; default `2 |g| h`.
    pub min_speed: f64,
}

impl Model {
    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.mass.len()
    }

    /// `√d / m_min` (m/N), the bound on a Newton direction's error per unit CG
    /// residual ([`crate::newton::Direction::error_bound`]): ‖p* − p‖₂ ≤ ‖r‖₂ / λ_min(H),
    /// λ_min(H) ≥ m_min, the smallest mass of a free node (H − M is PSD-projected),
    /// and the stopping measure adds at most √d times a node's 2-norm error; 0
    /// without free nodes (p = 0 exactly).
    pub fn error_per_residual(&self) -> f64 {
        let floor = (0..self.num_nodes())
            .filter(|&i| !self.fixed[i])
            .map(|i| self.mass[i])
            .fold(f64::INFINITY, f64::min);
        if floor == f64::INFINITY {
            0.0
        } else {
            (self.dim as f64).sqrt() / floor
        }
    }

    /// The pairs of primitives never treated as contacts: mesh neighbours closer
    /// than `REST_EXCLUSION` d̂ at x⁰ (`collision::pairs::rest_neighbours`).
    pub fn rest_exclusions(&self) -> Vec<crate::collision::pairs::Pair> {
        crate::collision::pairs::rest_neighbours(
            &self.collision,
            &self.x0,
            crate::collision::REST_EXCLUSION * self.barrier.dhat,
        )
    }

    /// Node → incident springs adjacency in CSR form: `(offsets, entries)`, where the
    /// entries of node i are `entries[offsets[i]..offsets[i + 1]]`, each a spring
    /// index. Gathering over it needs no atomics (the GPU layout, too).
    pub fn node_springs(&self) -> (Vec<u32>, Vec<u32>) {
        let n = self.num_nodes();
        let mut counts = vec![0u32; n + 1];
        for s in &self.springs {
            counts[s.a as usize + 1] += 1;
            counts[s.b as usize + 1] += 1;
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let mut fill = counts.clone();
        let mut entries = vec![0u32; counts[n] as usize];
        for (si, s) in self.springs.iter().enumerate() {
            for node in [s.a, s.b] {
                let slot = &mut fill[node as usize];
                entries[*slot as usize] = si as u32;
                *slot += 1;
            }
        }
        (counts, entries)
    }
}
