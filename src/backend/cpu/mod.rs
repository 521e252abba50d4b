//! The CPU reference backend (f64): the executable spec the GPU backend mirrors.
//!
//! The Hessian is never assembled as a sparse matrix. Per Newton iteration each
//! spring's PSD-projected `d × d` block and each node's diagonal block (mass plus
//! barrier) are computed once; the CG mat-vec gathers them per node over the
//! node → springs adjacency, exactly as the WGSL kernels do. Large meshes are
//! processed in parallel with a deterministic chunking ([`crate::par`]).

// Index loops over the d components mirror the WGSL kernels line for line.
#![allow(clippy::needless_range_loop)]

use super::{Backend, Diagnostics};
use crate::energy::add_outer;
use crate::energy::barrier::{barrier_gradient, barrier_hessian, barrier_value};
use crate::energy::friction::{
    friction_gradient, friction_hessian, friction_value, tangent_displacement,
};
use crate::energy::gravity::{gravity_gradient, gravity_value};
use crate::energy::inertia::{inertia_hessian, inertia_value};
use crate::energy::spring::{spring_gradient, spring_hessian, spring_value};
use crate::implicit::wall::{
    implicit_barrier_gradient, implicit_barrier_hessian, implicit_barrier_value,
};
use crate::integrator;
use crate::model::Model;
use crate::newton::{Direction, NewtonSystem};
use crate::par;
use crate::pcg::{invert_block, pcg, LinearOperator, PcgResult, PcgWork};
use crate::wall::plane_ccd_bound;

mod direct;
pub use crate::linear_solver::LinearSolver;

/// Largest supported dimension (for stack scratch arrays).
const MAX_DIM: usize = 3;

/// The CPU backend: state, scratch and the per-iteration Hessian blocks.
pub struct CpuBackend {
    model: Model,
    /// `c h²`, the factor in front of the potentials.
    h2c: f64,
    adj_offsets: Vec<u32>,
    adj_springs: Vec<u32>,
    x: Vec<f64>,
    xn: Vec<f64>,
    x_pred: Vec<f64>,
    v: Vec<f64>,
    a: Vec<f64>,
    p: Vec<f64>,
    trial: Vec<f64>,
    rhs: Vec<f64>,
    spring_grad: Vec<f64>,
    spring_hess: Vec<f64>,
    node_hess: Vec<f64>,
    /// Block-Jacobi preconditioner: inverse diagonal blocks of H, `nodes × dim²`.
    inv_block: Vec<f64>,
    work: PcgWork,
    current_energy: f64,
    last_pcg: Option<PcgResult>,
    linear_solver: LinearSolver,
    direct: Option<direct::DirectSolver>,
    /// Walls (plane, then implicit) per node in the friction arrays; 0 without friction.
    fric_walls: usize,
    /// Lagged normal force λ (N) per node and wall, from the start of the step.
    fric_lambda: Vec<f64>,
    /// Lagged unit normal per node and wall (`dim` components each).
    fric_normal: Vec<f64>,
    /// Friction smoothing length `ε_v h` (m).
    fric_eps: f64,
}

impl CpuBackend {
    /// Sets up the backend at the model's initial state.
    pub fn new(model: Model) -> Self {
        let dim = model.dim;
        assert!(dim == 2 || dim == 3, "dimension must be 2 or 3");
        let n = model.num_nodes();
        let ns = model.springs.len();
        let (adj_offsets, adj_springs) = model.node_springs();
        let h = model.solver.dt;
        let h2c = model.solver.integrator.potential_scale() * h * h;
        let mut v = model.v0.clone();
        for (i, f) in model.fixed.iter().enumerate() {
            if *f {
                v[i * dim..(i + 1) * dim].iter_mut().for_each(|c| *c = 0.0);
            }
        }
        let fric_walls = if model.friction.any() {
            model.walls.len() + model.implicit_walls.len()
        } else {
            0
        };
        let mut me = Self {
            fric_walls,
            fric_lambda: vec![0.0; n * fric_walls],
            fric_normal: vec![0.0; n * fric_walls * dim],
            fric_eps: model.friction.eps_v * h,
            h2c,
            adj_offsets,
            adj_springs,
            x: model.x0.clone(),
            xn: model.x0.clone(),
            x_pred: model.x0.clone(),
            v,
            a: vec![0.0; n * dim],
            p: vec![0.0; n * dim],
            trial: vec![0.0; n * dim],
            rhs: vec![0.0; n * dim],
            spring_grad: vec![0.0; ns * dim],
            spring_hess: vec![0.0; ns * dim * dim],
            node_hess: vec![0.0; n * dim * dim],
            inv_block: vec![0.0; n * dim * dim],
            work: PcgWork::default(),
            current_energy: 0.0,
            last_pcg: None,
            linear_solver: LinearSolver::Pcg,
            direct: None,
            model,
        };
        // Newmark needs a consistent initial acceleration a⁰ = −M⁻¹∇Ψ(x⁰).
        me.spring_pass(false);
        let mut acc = vec![0.0; n * dim];
        let this = &me;
        par::for_each_piece(&mut acc, dim, |i, out| {
            if !this.model.fixed[i] {
                this.potential_gradient(&this.x, i, out);
                let m = this.model.mass[i];
                out.iter_mut().for_each(|c| *c = -*c / m);
            } else {
                out.iter_mut().for_each(|c| *c = 0.0);
            }
        });
        me.a = acc;
        me
    }

    /// Chooses how Newton directions are solved (PCG by default; `Direct` is the
    /// sparse Cholesky baseline of [`crate::linear_solver`]).
    pub fn with_linear_solver(mut self, solver: LinearSolver) -> Self {
        self.linear_solver = solver;
        self
    }

    /// The Newton direction solver in use.
    pub fn linear_solver(&self) -> LinearSolver {
        self.linear_solver
    }

    /// The model this backend simulates.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Accelerations (m/s²), `nodes × dim`: `a⁰ = −M⁻¹∇Ψ(x⁰)` at the start, then
    /// Newmark's `aⁿ` (unused by implicit Euler).
    pub fn accelerations(&self) -> &[f64] {
        &self.a
    }

    /// The result of the last CG solve.
    pub fn last_pcg(&self) -> Option<PcgResult> {
        self.last_pcg
    }

    /// The current search direction p (m), `nodes × dim`.
    pub fn direction(&self) -> &[f64] {
        &self.p
    }

    /// Overwrites the current iterate (m); for tests that probe the energy.
    pub fn set_positions(&mut self, x: &[f64]) {
        self.x.copy_from_slice(x);
    }

    /// Overwrites the predicted positions x̃ (m); for tests that probe the energy.
    pub fn set_prediction(&mut self, x_pred: &[f64]) {
        self.x_pred.copy_from_slice(x_pred);
    }

    /// Incremental potential E(y) (J) with the current prediction.
    pub fn incremental_potential(&self, y: &[f64]) -> f64 {
        let m = &self.model;
        let dim = m.dim;
        let nodes = par::sum(m.num_nodes(), |i| {
            let yi = &y[i * dim..(i + 1) * dim];
            let mut pot = gravity_value(m.mass[i], &m.gravity, yi);
            for w in &m.walls {
                pot += barrier_value(&m.barrier, m.contact_area[i], w.distance(yi));
            }
            for w in &m.implicit_walls {
                pot += implicit_barrier_value(w, &m.barrier, m.contact_area[i], yi);
            }
            self.for_each_friction(i, yi, |mu, lam, n, dx| {
                pot += friction_value(mu, lam, self.fric_eps, n, dx)
            });
            inertia_value(m.mass[i], yi, &self.x_pred[i * dim..(i + 1) * dim]) + self.h2c * pot
        });
        nodes + self.h2c * self.spring_energy(y)
    }

    /// `∇E(x)` (N·s² / s² = kg·m) at the current iterate, with fixed nodes' rows zeroed.
    pub fn gradient(&mut self) -> Vec<f64> {
        self.assemble();
        self.rhs.iter().map(|r| -r).collect()
    }

    /// The block-Jacobi preconditioner at the current iterate: per node the inverse of
    /// H's `dim × dim` diagonal block, row-major, `nodes × dim²` (1/kg; 0 for fixed nodes).
    pub fn preconditioner_blocks(&mut self) -> Vec<f64> {
        self.assemble();
        self.inv_block.clone()
    }

    /// `H u` with the PSD-projected Hessian assembled at the current iterate.
    pub fn hessian_times(&mut self, u: &[f64]) -> Vec<f64> {
        self.assemble();
        let mut out = vec![0.0; u.len()];
        self.operator().apply(u, &mut out);
        out
    }

    fn spring_energy(&self, y: &[f64]) -> f64 {
        let dim = self.model.dim;
        let springs = &self.model.springs;
        par::sum(springs.len(), |s| {
            let sp = &springs[s];
            let mut d = [0.0; MAX_DIM];
            diff(y, sp.a, sp.b, dim, &mut d);
            spring_value(&d[..dim], sp.rest_length_sq, sp.stiffness)
        })
    }

    /// Per-spring gradients `∂Ψ/∂x_a` and (optionally) `c h²`-scaled projected blocks.
    fn spring_pass(&mut self, with_hessian: bool) {
        let dim = self.model.dim;
        let springs = &self.model.springs;
        let x = &self.x;
        par::for_each_piece(&mut self.spring_grad, dim, |s, out| {
            let sp = &springs[s];
            let mut d = [0.0; MAX_DIM];
            diff(x, sp.a, sp.b, dim, &mut d);
            spring_gradient(&d[..dim], sp.rest_length_sq, sp.stiffness, out);
        });
        if with_hessian {
            let h2c = self.h2c;
            par::for_each_piece(&mut self.spring_hess, dim * dim, |s, out| {
                let sp = &springs[s];
                let mut d = [0.0; MAX_DIM];
                diff(x, sp.a, sp.b, dim, &mut d);
                spring_hessian(&d[..dim], sp.rest_length_sq, sp.stiffness, out);
                out.iter_mut().for_each(|c| *c *= h2c);
            });
        }
    }

    /// `∇Ψ` of node i (N) at positions y: gravity, barrier, and the gathered spring gradients.
    /// Needs [`Self::spring_pass`] at the same positions.
    fn potential_gradient(&self, y: &[f64], i: usize, out: &mut [f64]) {
        let m = &self.model;
        let dim = m.dim;
        let yi = &y[i * dim..(i + 1) * dim];
        gravity_gradient(m.mass[i], &m.gravity, out);
        for w in &m.walls {
            let g = barrier_gradient(&m.barrier, m.contact_area[i], w.distance(yi));
            for k in 0..dim {
                out[k] += g * w.normal[k];
            }
        }
        for w in &m.implicit_walls {
            implicit_barrier_gradient(w, &m.barrier, m.contact_area[i], yi, out);
        }
        self.for_each_friction(i, yi, |mu, lam, n, dx| {
            friction_gradient(mu, lam, self.fric_eps, n, dx, out)
        });
        for e in self.adj_offsets[i]..self.adj_offsets[i + 1] {
            let s = self.adj_springs[e as usize] as usize;
            let sign = if m.springs[s].a as usize == i {
                1.0
            } else {
                -1.0
            };
            for k in 0..dim {
                out[k] += sign * self.spring_grad[s * dim + k];
            }
        }
    }

    /// Computes `rhs = −∇E`, the spring and node Hessian blocks and the block-Jacobi
    /// preconditioner at the current iterate. Fixed nodes get zero rows.
    fn assemble(&mut self) {
        self.spring_pass(true);
        let dim = self.model.dim;
        let mut rhs = std::mem::take(&mut self.rhs);
        let mut node_hess = std::mem::take(&mut self.node_hess);
        {
            let this = &*self;
            let m = &this.model;
            par::for_each_piece(&mut rhs, dim, |i, out| {
                if m.fixed[i] {
                    out.iter_mut().for_each(|c| *c = 0.0);
                    return;
                }
                this.potential_gradient(&this.x, i, out);
                for k in 0..dim {
                    let inertia = m.mass[i] * (this.x[i * dim + k] - this.x_pred[i * dim + k]);
                    out[k] = -(inertia + this.h2c * out[k]);
                }
            });
            par::for_each_piece(&mut node_hess, dim * dim, |i, out| {
                out.iter_mut().for_each(|c| *c = 0.0);
                let mi = inertia_hessian(m.mass[i]);
                for k in 0..dim {
                    out[k * dim + k] = mi;
                }
                let xi = &this.x[i * dim..(i + 1) * dim];
                for w in &m.walls {
                    let b = barrier_hessian(&m.barrier, m.contact_area[i], w.distance(xi));
                    if b > 0.0 {
                        add_outer(out, dim, this.h2c * b, &w.normal, &w.normal);
                    }
                }
                for w in &m.implicit_walls {
                    let area = m.contact_area[i];
                    implicit_barrier_hessian(w, &m.barrier, area, xi, this.h2c, out);
                }
                this.for_each_friction(i, xi, |mu, lam, n, dx| {
                    friction_hessian(mu, lam, this.fric_eps, n, dx, this.h2c, out)
                });
            });
        }
        self.rhs = rhs;
        self.node_hess = node_hess;
        let mut inv_block = std::mem::take(&mut self.inv_block);
        {
            let this = &*self;
            let dd = dim * dim;
            par::for_each_piece(&mut inv_block, dd, |i, out| {
                out.iter_mut().for_each(|c| *c = 0.0);
                if this.model.fixed[i] {
                    return;
                }
                let mut b = [0.0; MAX_DIM * MAX_DIM];
                b[..dd].copy_from_slice(&this.node_hess[i * dd..(i + 1) * dd]);
                for e in this.adj_offsets[i]..this.adj_offsets[i + 1] {
                    let s = this.adj_springs[e as usize] as usize;
                    for (bk, sk) in b[..dd]
                        .iter_mut()
                        .zip(&this.spring_hess[s * dd..(s + 1) * dd])
                    {
                        *bk += sk;
                    }
                }
                invert_block(dim, &b[..dd], out);
            });
        }
        self.inv_block = inv_block;
    }

    /// Calls `f(μ, λ, n, x_i − xⁿ_i)` for every wall node `i` has lagged friction with.
    #[inline]
    fn for_each_friction(&self, i: usize, yi: &[f64], mut f: impl FnMut(f64, f64, &[f64], &[f64])) {
        let nw = self.fric_walls;
        if nw == 0 {
            return;
        }
        let dim = self.model.dim;
        let planes = self.model.walls.len();
        let mut dx = [0.0; MAX_DIM];
        for k in 0..dim {
            dx[k] = yi[k] - self.xn[i * dim + k];
        }
        for w in 0..nw {
            let lam = self.fric_lambda[i * nw + w];
            let mu = self.model.friction.mu(w, planes);
            if lam > 0.0 && mu > 0.0 {
                let n = &self.fric_normal[(i * nw + w) * dim..(i * nw + w + 1) * dim];
                f(mu, lam, n, &dx[..dim]);
            }
        }
    }

    /// Lagged λ (N) and unit normals of every node's wall contacts at `xⁿ` (or at
    /// the current iterate `x` with `at_current`):
    /// `λ = −b′(d)` for plane walls, `λ = −b′(W) |∇W|` and `n = ∇W/|∇W|` for implicit
    /// walls (the barrier force's magnitude and direction). Fixed nodes get none.
    fn compute_friction_lag(&mut self, at_current: bool) {
        let nw = self.fric_walls;
        if nw == 0 {
            return;
        }
        let m = &self.model;
        let dim = m.dim;
        let xn = if at_current { &self.x } else { &self.xn };
        let mut lam = std::mem::take(&mut self.fric_lambda);
        let mut nrm = std::mem::take(&mut self.fric_normal);
        for i in 0..m.num_nodes() {
            let xi = &xn[i * dim..(i + 1) * dim];
            let area = m.contact_area[i];
            for w in 0..nw {
                let slot = i * nw + w;
                let out = &mut nrm[slot * dim..(slot + 1) * dim];
                lam[slot] = 0.0;
                out.iter_mut().for_each(|c| *c = 0.0);
                if m.fixed[i] {
                    continue;
                }
                if w < m.walls.len() {
                    let wall = &m.walls[w];
                    lam[slot] = -barrier_gradient(&m.barrier, area, wall.distance(xi));
                    out.copy_from_slice(&wall.normal);
                } else {
                    let dual = m.implicit_walls[w - m.walls.len()].dual(xi);
                    let g = &dual.g[..dim];
                    let len = g.iter().map(|c| c * c).sum::<f64>().sqrt();
                    if len > 0.0 && len.is_finite() {
                        lam[slot] = -barrier_gradient(&m.barrier, area, dual.v) * len;
                        for k in 0..dim {
                            out[k] = g[k] / len;
                        }
                    }
                }
            }
        }
        self.fric_lambda = lam;
        self.fric_normal = nrm;
    }

    /// Friction statistics of the last step: (sticking, sliding, dissipation (J)).
    fn friction_stats(&self) -> (u64, u64, f64) {
        let m = &self.model;
        let dim = m.dim;
        let (mut stick, mut slide, mut diss) = (0u64, 0u64, 0.0);
        for i in 0..m.num_nodes() {
            self.for_each_friction(i, &self.x[i * dim..(i + 1) * dim], |mu, lam, n, dx| {
                let mut u = [0.0; MAX_DIM];
                tangent_displacement(n, dx, &mut u[..dim]);
                let y = u[..dim].iter().map(|c| c * c).sum::<f64>().sqrt();
                if y < self.fric_eps {
                    stick += 1;
                } else {
                    slide += 1;
                }
                diss += mu * lam * y;
            });
        }
        (stick, slide, diss)
    }

    /// Lagged friction normal forces λ (N), `nodes × walls` (plane walls, then
    /// implicit); empty when no wall has friction.
    pub fn friction_lambda(&self) -> &[f64] {
        &self.fric_lambda
    }

    /// Recomputes the lagged λ and normals at `xⁿ` (what [`Backend::begin_step`]
    /// does); for tests that probe the friction energy.
    pub fn set_step_start(&mut self, xn: &[f64]) {
        self.xn.copy_from_slice(xn);
        self.compute_friction_lag(false);
    }

    fn operator(&self) -> NewtonMatrix<'_> {
        NewtonMatrix {
            model: &self.model,
            adj_offsets: &self.adj_offsets,
            adj_springs: &self.adj_springs,
            spring_hess: &self.spring_hess,
            node_hess: &self.node_hess,
            inv_block: &self.inv_block,
        }
    }
}

/// Writes `x_a − x_b` into `out[..dim]`.
#[inline]
fn diff(x: &[f64], a: u32, b: u32, dim: usize, out: &mut [f64; MAX_DIM]) {
    let (a, b) = (a as usize * dim, b as usize * dim);
    for k in 0..dim {
        out[k] = x[a + k] - x[b + k];
    }
}

/// The projected Newton matrix as a gather-by-node operator (fixed rows are zero).
struct NewtonMatrix<'a> {
    model: &'a Model,
    adj_offsets: &'a [u32],
    adj_springs: &'a [u32],
    spring_hess: &'a [f64],
    node_hess: &'a [f64],
    inv_block: &'a [f64],
}

impl LinearOperator for NewtonMatrix<'_> {
    fn len(&self) -> usize {
        self.model.num_nodes() * self.model.dim
    }

    fn apply(&self, u: &[f64], out: &mut [f64]) {
        let m = self.model;
        let dim = m.dim;
        let dd = dim * dim;
        par::for_each_piece(out, dim, |i, yi| {
            yi.iter_mut().for_each(|c| *c = 0.0);
            if m.fixed[i] {
                return;
            }
            let ui = &u[i * dim..(i + 1) * dim];
            let nh = &self.node_hess[i * dd..(i + 1) * dd];
            for r in 0..dim {
                for c in 0..dim {
                    yi[r] += nh[r * dim + c] * ui[c];
                }
            }
            for e in self.adj_offsets[i]..self.adj_offsets[i + 1] {
                let s = self.adj_springs[e as usize] as usize;
                let sp = &m.springs[s];
                let j = if sp.a as usize == i { sp.b } else { sp.a } as usize;
                let uj = &u[j * dim..(j + 1) * dim];
                let bh = &self.spring_hess[s * dd..(s + 1) * dd];
                for r in 0..dim {
                    for c in 0..dim {
                        yi[r] += bh[r * dim + c] * (ui[c] - uj[c]);
                    }
                }
            }
        });
    }

    fn precondition(&self, r: &[f64], z: &mut [f64]) {
        let dim = self.model.dim;
        let dd = dim * dim;
        par::for_each_piece(z, dim, |i, zi| {
            let b = &self.inv_block[i * dd..(i + 1) * dd];
            let ri = &r[i * dim..(i + 1) * dim];
            for (k, zk) in zi.iter_mut().enumerate() {
                *zk = (0..dim).map(|c| b[k * dim + c] * ri[c]).sum();
            }
        });
    }
}

impl NewtonSystem for CpuBackend {
    fn energy(&mut self) -> f64 {
        self.current_energy = self.incremental_potential(&self.x);
        self.current_energy
    }

    fn compute_direction(&mut self) -> Direction {
        self.assemble();
        let s = &self.model.solver;
        let (tol, max_iter) = (s.cg_tolerance, s.cg_max_iterations);
        let direct = match self.linear_solver {
            LinearSolver::Direct => self.solve_direct(),
            LinearSolver::Pcg => None,
        };
        let mut p = std::mem::take(&mut self.p);
        let mut work = std::mem::take(&mut self.work);
        // PCG also stands in should a factorisation ever fail (H is SPD, so it should not).
        let res = direct.unwrap_or_else(|| {
            pcg(
                &self.operator(),
                &self.rhs,
                &mut p,
                tol,
                max_iter,
                &mut work,
            )
        });
        self.p = p;
        self.work = work;
        self.last_pcg = Some(res);
        let dim = self.model.dim;
        let norm = par::min(self.model.num_nodes(), |i| {
            -self.p[i * dim..(i + 1) * dim]
                .iter()
                .map(|c| c.abs())
                .sum::<f64>()
        });
        let (x, p) = (&self.x, &self.p);
        let within_ulps = |ulps: f64| {
            (0..self.model.num_nodes()).all(|i| {
                let xi = &x[i * dim..(i + 1) * dim];
                let scale = xi.iter().fold(0.0f64, |m, c| m.max(c.abs()));
                p[i * dim..(i + 1) * dim]
                    .iter()
                    .all(|c| c.abs() <= ulps * f64::EPSILON * scale)
            })
        };
        let below_resolution = within_ulps(1.0);
        let near_resolution = within_ulps(crate::newton::NEAR_RESOLUTION_ULPS);
        Direction {
            norm: -norm.min(0.0),
            cg_iterations: res.iterations,
            cg_converged: res.converged,
            below_resolution,
            near_resolution,
        }
    }

    fn ccd_bound(&mut self) -> f64 {
        let m = &self.model;
        let dim = m.dim;
        let (x, p) = (&self.x, &self.p);
        par::min(m.num_nodes(), |i| {
            let xi = &x[i * dim..(i + 1) * dim];
            let pi = &p[i * dim..(i + 1) * dim];
            m.walls
                .iter()
                .map(|w| plane_ccd_bound(&w.normal, w.distance(xi), pi))
                .chain(m.implicit_walls.iter().map(|w| w.ccd_bound(xi, pi)))
                .fold(1.0, f64::min)
        })
        .min(1.0)
    }

    fn energy_change(&mut self, alpha: f64) -> f64 {
        let mut trial = std::mem::take(&mut self.trial);
        let (x, p) = (&self.x, &self.p);
        par::for_each_piece(&mut trial, 1, |i, t| t[0] = x[i] + alpha * p[i]);
        let e = self.incremental_potential(&trial);
        self.trial = trial;
        e - self.current_energy
    }

    fn advance(&mut self, alpha: f64) {
        let p = &self.p;
        par::for_each_piece(&mut self.x, 1, |i, x| x[0] += alpha * p[i]);
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn device(&self) -> String {
        format!(
            "{} ({} threads, f64)",
            cpu_model_name(),
            rayon::current_num_threads()
        )
    }

    fn begin_step(&mut self) {
        let s = &self.model.solver;
        let (integ, h) = (s.integrator, s.dt);
        self.xn.copy_from_slice(&self.x);
        let (xn, v, a) = (&self.xn, &self.v, &self.a);
        par::for_each_piece(&mut self.x_pred, 1, |i, o| {
            o[0] = integrator::predict(integ, h, xn[i], v[i], a[i])
        });
        self.compute_friction_lag(false);
    }

    fn end_step(&mut self) {
        let s = &self.model.solver;
        let (integ, h) = (s.integrator, s.dt);
        for i in 0..self.x.len() {
            let (v, a) = integrator::update(
                integ,
                h,
                self.xn[i],
                self.x[i],
                self.x_pred[i],
                self.v[i],
                self.a[i],
            );
            self.v[i] = v;
            self.a[i] = a;
        }
    }

    fn positions(&mut self) -> Vec<f64> {
        self.x.clone()
    }

    fn update_friction_lag(&mut self) -> f64 {
        let before = self.fric_lambda.clone();
        self.compute_friction_lag(true);
        before
            .iter()
            .zip(&self.fric_lambda)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
    }

    fn velocities(&mut self) -> Vec<f64> {
        self.v.clone()
    }

    fn diagnostics(&mut self) -> Diagnostics {
        let m = &self.model;
        let dim = m.dim;
        let (x, v) = (&self.x, &self.v);
        let node = |i: usize| &x[i * dim..(i + 1) * dim];
        let (sticking, sliding, dissipation) = self.friction_stats();
        Diagnostics {
            sticking,
            sliding,
            dissipation,
            kinetic: par::sum(m.num_nodes(), |i| {
                inertia_value(
                    m.mass[i],
                    &v[i * dim..(i + 1) * dim],
                    &[0.0; MAX_DIM][..dim],
                )
            }),
            gravity: par::sum(m.num_nodes(), |i| {
                gravity_value(m.mass[i], &m.gravity, node(i))
            }),
            elastic: self.spring_energy(x),
            barrier: par::sum(m.num_nodes(), |i| {
                m.walls
                    .iter()
                    .map(|w| barrier_value(&m.barrier, m.contact_area[i], w.distance(node(i))))
                    .chain(
                        m.implicit_walls.iter().map(|w| {
                            implicit_barrier_value(w, &m.barrier, m.contact_area[i], node(i))
                        }),
                    )
                    .sum::<f64>()
            }),
            min_wall_distance: par::min(m.num_nodes(), |i| {
                m.walls
                    .iter()
                    .map(|w| w.distance(node(i)))
                    .chain(m.implicit_walls.iter().map(|w| w.distance(node(i))))
                    .fold(f64::INFINITY, f64::min)
            }),
        }
    }
}

/// The CPU's model name from `/proc/cpuinfo`, or a generic word where there is none.
pub fn cpu_model_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|v| v.trim().to_string())
        })
        .unwrap_or_else(|| "CPU".to_string())
}
