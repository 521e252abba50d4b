//! `--linear-solver auto`'s switching between block-Jacobi PCG, V-cycle PCG and the
//! sparse factorisation, step by step ([`SwitchingSolver`]), with the costs of
//! [`super::auto_solver`]. After [`PROBE_EVERY`] steps on one route the others run
//! one step each, so a cost that went stale as the state changed is measured again;
//! each probe that finds the old route still the cheapest doubles the wait before
//! the next (up to [`PROBE_MAX`]), so a run that stays on one route pays for a few
//! probes only.

use super::auto_solver::{
    FACTOR_ENTRY_WEIGHT, FACTOR_OPERATION_WEIGHT, SYMBOLIC_COST, VCYCLE_ITERATION, VCYCLE_SETUP,
};
use super::direct_cost::FactorCost;
use crate::model::Model;
use crate::newton::efolds;

/// Steps on a route before the others are probed for one step each.
pub const PROBE_EVERY: u32 = 16;

/// Most steps between two probes.
pub const PROBE_MAX: u32 = 1024;

/// A probe skips a measured route whose predicted cost for the last step's
/// directions is over this many times the current route's: its rate would have to
/// fall that much to win, and a probe of it costs as much (`tet_drop`'s four
/// block-Jacobi probes, each 5× the factorisation, made its run 7–18 % slower than
/// the factorisation alone).
pub const PROBE_CEILING: f64 = 3.0;

/// How a direction is solved on one step of a switching `auto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// PCG with block-Jacobi.
    Jacobi,
    /// PCG with the multilevel V-cycle.
    VCycle,
    /// The sparse factorisation.
    Direct,
}

impl Route {
    /// The cost in block-Jacobi iterations of `n` directions on this PCG route
    /// taking `cg` iterations in all.
    fn cost(self, n: f64, cg: f64) -> f64 {
        match self {
            Route::Jacobi => cg,
            Route::VCycle => n * VCYCLE_SETUP + VCYCLE_ITERATION * cg,
            Route::Direct => unreachable!("the factorisation's cost is fixed"),
        }
    }
}

/// The switching state of a CPU backend whose linear solver is `auto`: which route
/// solves the current step's directions, and what each would cost on the last step.
#[derive(Clone, Debug)]
pub struct SwitchingSolver {
    /// A factorisation's cost in block-Jacobi CG iterations.
    pub direct_cost: f64,
    /// The route of the current step.
    pub route: Route,
    /// Whether the V-cycle is one of the routes (the preconditioner's `auto` picks
    /// it at this size).
    vcycle: bool,
    /// Per PCG route (indexed by the route), its CG iterations per e-fold
    /// ([`efolds`]) when last run, and the step that was.
    rate: [Option<(f64, u64)>; 2],
    /// Steps begun so far.
    steps: u64,
    /// Directions and their e-folds on the last step that solved any: the next
    /// step's are expected to be alike.
    last: (f64, f64),
    /// Of the factorisation's directions on its last step, the share that needed a
    /// new symbolic analysis (the contact pairs had changed).
    analysis_share: f64,
    /// Steps left on the current route before the next probe.
    probe_in: u32,
    /// The wait before the next probe after this one (doubling while probes lose).
    probe_wait: u32,
    /// Where the current step is a probe: the route it left.
    probing: Option<Route>,
    /// The routes still to probe, one step each, after the current one.
    probe_queue: Vec<Route>,
    /// The current step's directions, their e-folds, CG iterations and symbolic
    /// analyses.
    step_directions: u64,
    step_efolds: f64,
    step_cg: u64,
    step_analyses: u64,
    /// Whether the factorisation has analysed the pattern once: that first analysis
    /// is the route's set-up, paid once a run, not a sign of changing contact pairs.
    analysed_once: bool,
}

impl SwitchingSolver {
    /// The state for `model` whose factorisation costs `factor`
    /// ([`super::direct_cost::factor_cost`]), starting on the route the
    /// preconditioner's `auto` would take: the V-cycle where `vcycle`, else
    /// block-Jacobi.
    pub fn new(model: &Model, factor: FactorCost, vcycle: bool) -> Self {
        let n = model.num_nodes().max(1) as f64;
        let dim = model.dim as f64;
        // Per node and CG iteration: the node block and two blocks per spring end
        // applied (the product and the preconditioner), and a few vector updates.
        let cg_flops = dim * dim * (1.0 + 2.0 * model.springs.len() as f64 / n) + 8.0 * dim;
        let direct = (factor.entries_per_node * FACTOR_ENTRY_WEIGHT
            + factor.flops_per_node * FACTOR_OPERATION_WEIGHT)
            / cg_flops;
        Self::starting(direct, vcycle)
    }

    /// The state before the first step, on PCG (the V-cycle where `vcycle`), with a
    /// factorisation costing `direct_cost` block-Jacobi iterations.
    fn starting(direct_cost: f64, vcycle: bool) -> Self {
        Self {
            direct_cost,
            route: if vcycle { Route::VCycle } else { Route::Jacobi },
            vcycle,
            rate: [None; 2],
            steps: 0,
            last: (1.0, 1.0),
            analysis_share: 0.0,
            probe_in: PROBE_EVERY,
            probe_wait: PROBE_EVERY,
            probing: None,
            probe_queue: Vec::new(),
            step_directions: 0,
            step_efolds: 0.0,
            step_cg: 0,
            step_analyses: 0,
            analysed_once: false,
        }
    }

    /// Whether the current step runs the factorisation.
    pub fn direct(&self) -> bool {
        self.route == Route::Direct
    }

    /// Counts one PCG direction of `cg` iterations, asked for relative tolerance `eta`.
    pub fn record(&mut self, cg: u32, eta: f64) {
        self.step_directions += 1;
        self.step_efolds += efolds(eta);
        self.step_cg += u64::from(cg);
    }

    /// Counts one direction solved by the factorisation where PCG would have been
    /// asked for `eta`, `analysed` where it needed a new symbolic analysis. The run's
    /// first analysis is not charged to the route's later steps: it is never repeated
    /// unless the contact pairs change (`square_256`'s first factored step, charged
    /// twice, sent the next step back to the V-cycle for one step at 1.4× the cost).
    pub fn record_direct(&mut self, analysed: bool, eta: f64) {
        self.step_directions += 1;
        self.step_efolds += efolds(eta);
        self.step_analyses += u64::from(analysed && self.analysed_once);
        self.analysed_once |= analysed;
    }

    /// A route's estimated cost of the last step's directions: the factorisation's
    /// (with its last share of symbolic analyses), or a PCG route's at its last
    /// iterations per e-fold, at least one iteration a direction (`None`: never run).
    fn known(&self, route: Route) -> Option<f64> {
        let (n, e) = self.last;
        match route {
            Route::Direct => {
                Some(n * self.direct_cost * (1.0 + SYMBOLIC_COST * self.analysis_share))
            }
            r => self.rate[r as usize].map(|(rate, _)| r.cost(n, (rate * e).max(n))),
        }
    }

    /// The routes this solver may take.
    fn routes(&self) -> impl Iterator<Item = Route> + '_ {
        [Route::Jacobi, Route::VCycle, Route::Direct]
            .into_iter()
            .filter(|r| *r != Route::VCycle || self.vcycle)
    }

    /// The cheapest route whose cost is known; `ran` where none is cheaper.
    fn cheapest_known(&self, ran: Route) -> Route {
        let mut best = (ran, self.known(ran).unwrap_or(f64::INFINITY));
        for r in self.routes() {
            if let Some(c) = self.known(r) {
                if c < best.1 {
                    best = (r, c);
                }
            }
        }
        best.0
    }

    /// The routes a probe from `ran` runs, one step each: every other PCG route
    /// never run or predicted within [`PROBE_CEILING`] of `ran`, the one measured
    /// longest ago first; from a PCG route also the factorisation
    /// where its last step needed symbolic analyses (otherwise its cost is known and
    /// a probe would learn nothing).
    fn probe_targets(&self, ran: Route) -> Vec<Route> {
        let current = self.known(ran).unwrap_or(f64::INFINITY);
        let mut targets: Vec<Route> = self
            .routes()
            .filter(|r| *r != ran && *r != Route::Direct)
            .filter(|r| self.known(*r).is_none_or(|c| c <= PROBE_CEILING * current))
            .collect();
        targets.sort_by_key(|r| self.rate[*r as usize].map_or(-1, |(_, step)| step as i64));
        if ran != Route::Direct && self.analysis_share > 0.0 {
            targets.push(Route::Direct);
        }
        targets
    }

    /// After a probe that lost, or one skipped: the wait before the next doubles (up
    /// to [`PROBE_MAX`]) and starts again.
    fn back_off(&mut self) {
        self.probe_wait = (2 * self.probe_wait).min(PROBE_MAX);
        self.probe_in = self.probe_wait;
    }

    /// Decides the route of the step about to begin from the one just ended: the
    /// step's directions become the yardstick, a PCG step updates its route's
    /// iterations per e-fold, and the cheapest known route follows. After
    /// [`PROBE_EVERY`] steps on one route (doubling while probes lose, up to
    /// [`PROBE_MAX`]) the other routes run one step each, so a rate that went stale
    /// as the state changed, or was never measured, is measured again.
    pub fn begin_step(&mut self) {
        let ran = self.route;
        self.steps += 1;
        let n = self.step_directions as f64;
        let measured = self.step_directions > 0;
        if measured {
            self.last = (n, self.step_efolds);
            match ran {
                Route::Direct => self.analysis_share = self.step_analyses as f64 / n,
                pcg => {
                    let rate = self.step_cg as f64 / self.step_efolds;
                    self.rate[pcg as usize] = Some((rate, self.steps));
                }
            }
        }
        self.step_directions = 0;
        self.step_efolds = 0.0;
        self.step_cg = 0;
        self.step_analyses = 0;
        if !measured {
            // A step with no direction measured nothing: the same route goes on.
            return;
        }
        let best = self.cheapest_known(ran);
        if let Some(left) = self.probing {
            if !self.probe_queue.is_empty() {
                self.route = self.probe_queue.remove(0);
                return;
            }
            self.probing = None;
            self.route = best;
            if best == left {
                self.back_off();
            } else {
                self.probe_wait = PROBE_EVERY;
                self.probe_in = PROBE_EVERY;
            }
            return;
        }
        if best != ran {
            self.route = best;
            self.probe_wait = PROBE_EVERY;
            self.probe_in = PROBE_EVERY;
            return;
        }
        self.probe_in = self.probe_in.saturating_sub(1);
        if self.probe_in == 0 {
            let mut targets = self.probe_targets(ran);
            if targets.is_empty() {
                // Nothing worth a step: as if a probe had lost.
                self.back_off();
            } else {
                self.route = targets.remove(0);
                self.probe_queue = targets;
                self.probing = Some(ran);
            }
        }
    }
}

#[cfg(test)]
mod tests;
