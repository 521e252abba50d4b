//! Driven nodes on any backend (docs/SCRIPTED.md): before each Newton solve the
//! drive stage moves every driven node towards its target at the step's end
//! ([`crate::script::Drive::targets`], or a target set from outside), as far as
//! continuous collision detection lets it ([`bound::move_bound`]: the line search's
//! CCD over the driven nodes' move, with the free nodes where the step starts), and
//! writes the iterate back ([`crate::backend::Backend::set_iterate`]). The solve
//! then treats the driven nodes as fixed where they are, so they enter the step
//! exactly as the script asks where nothing is in the way, and never push anything
//! through anything where something is: they lag, and the lag is reported. Moving
//! walls ([`walls`]: plane walls translate, implicit walls translate and turn) move
//! in the same stage, under the same bound ([`bound::turn_bound`] for implicit
//! walls), and reach the backend through [`crate::backend::Backend::set_walls`].
//!
//! After the solve [`Driver::after_solve`] measures the script's work
//! ([`work::Reactions`]) and keeps the driven nodes' own velocities and
//! accelerations as the integrator updates them (their predictions x̃ enter the
//! reaction forces). Positions are read once per step, after the solve; they serve
//! the next step's drive stage too.

pub mod bound;
pub mod friction;
pub mod walls;
pub mod work;

use crate::model::Model;
use serde::Serialize;
use std::collections::BTreeMap;

/// A driven set lags its script when a node is farther than this many d̂ from its
/// target after the drive stage.
pub const LAG_DHAT: f64 = 1e-3;

/// What one driven set did over a run (`summary.json`'s `drives`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct DriveSummary {
    /// The set's name (`<body>.drive<j>`, `walls[i]` for a moving wall, or `targets`
    /// for nodes given targets from outside that no drive of the scene moves).
    pub name: String,
    /// Its nodes (0 for a wall).
    pub nodes: usize,
    /// The largest distance (m) of any of its nodes from its target after a drive
    /// stage, over the run.
    pub max_lag: f64,
    /// The step of `max_lag`.
    pub max_lag_step: u64,
    /// Steps after which it lagged (by more than `LAG_DHAT` d̂).
    pub lagged_steps: u64,
    /// The first such step.
    pub first_lagged_step: Option<u64>,
    /// Its lag (m) after the last step.
    pub final_lag: f64,
    /// The work its script did over the run (J).
    pub work: f64,
}

impl DriveSummary {
    /// One line where the set could not follow its script, for the end of a run.
    pub fn lag_note(&self) -> Option<String> {
        let first = self.first_lagged_step?;
        Some(format!(
            "drive {} could not follow its script from step {first} on ({} steps lagged, largest lag {:.3e} m at step {}): it stopped short of what was in its way, and nothing passed through anything (see drive_lag in steps.csv)",
            self.name, self.lagged_steps, self.max_lag, self.max_lag_step
        ))
    }
}

/// One step of the drive stage, for `steps.csv`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DriveStep {
    /// The largest lag (m) of any driven node after the drive stage.
    pub lag: f64,
    /// The work (J) every script did over the step.
    pub work: f64,
}

/// The drive stage's state over a run.
#[derive(Debug)]
pub struct Driver {
    dim: usize,
    /// Every driven node, set after set.
    nodes: Vec<u32>,
    /// Per entry of `nodes`, its set (an index into `summaries`).
    set_of: Vec<usize>,
    /// Per node of the model, its entry in `nodes`.
    entry: BTreeMap<u32, usize>,
    /// Targets (m) set from outside, per node; they replace the scene's.
    external: BTreeMap<u32, Vec<f64>>,
    /// Positions (m) at the step's start, as the backend holds them (read after the
    /// last step's solve); `None` until read.
    x: Option<Vec<f64>>,
    /// The driven nodes' xⁿ, x̃, velocities and accelerations, `nodes × dim`.
    xn: Vec<f64>,
    pred: Vec<f64>,
    v: Vec<f64>,
    a: Vec<f64>,
    reactions: work::Reactions,
    /// Per set, what it did so far.
    pub summaries: Vec<DriveSummary>,
    /// The current step's targets, `nodes × dim` (m).
    targets: Vec<f64>,
    /// Per set, its lag (m) after the current step's drive stage.
    lags: Vec<f64>,
    /// The walls as they are now (moving ones where the drive stage took them).
    walls: walls::Walls,
    /// Per moving wall (`Model::moving_walls`), its set in `summaries`.
    wall_sets: Vec<usize>,
    /// The current step's friction contacts with moving walls.
    wall_friction: friction::WallFriction,
    lag_tolerance: f64,
}

impl Driver {
    /// The drive stage of `model`; `None` where the model drives no node and moves
    /// no wall.
    pub fn new(model: &Model) -> Option<Self> {
        if model.drives.is_empty() && model.moving_walls.is_empty() {
            return None;
        }
        Some(Self::with_sets(model))
    }

    /// The drive stage of `model` even where the scene drives nothing (targets will be
    /// set from outside).
    pub fn with_sets(model: &Model) -> Self {
        let dim = model.dim;
        let mut d = Self {
            dim,
            nodes: vec![],
            set_of: vec![],
            entry: BTreeMap::new(),
            external: BTreeMap::new(),
            x: None,
            xn: vec![],
            pred: vec![],
            v: vec![],
            a: vec![],
            reactions: work::Reactions::new(model),
            summaries: vec![],
            targets: vec![],
            lags: vec![],
            walls: walls::Walls::new(model),
            wall_sets: vec![],
            wall_friction: Default::default(),
            lag_tolerance: LAG_DHAT * model.barrier.dhat,
        };
        for drive in &model.drives {
            let set = d.new_set(&drive.name);
            for &i in &drive.nodes {
                d.add_node(model, i, set);
            }
        }
        for wall in &model.moving_walls {
            let set = d.new_set(&wall.name);
            d.wall_sets.push(set);
        }
        d
    }

    fn new_set(&mut self, name: &str) -> usize {
        self.summaries.push(DriveSummary {
            name: name.to_string(),
            ..Default::default()
        });
        self.lags.push(0.0);
        self.summaries.len() - 1
    }

    fn add_node(&mut self, model: &Model, i: u32, set: usize) {
        let (dim, r) = (self.dim, i as usize * self.dim..(i as usize + 1) * self.dim);
        self.entry.insert(i, self.nodes.len());
        self.nodes.push(i);
        self.set_of.push(set);
        self.summaries[set].nodes += 1;
        let x = self
            .x
            .as_ref()
            .map_or(&model.x0[r.clone()], |x| &x[r.clone()]);
        self.xn.extend_from_slice(x);
        self.pred.extend_from_slice(x);
        self.targets.extend_from_slice(x);
        // Newmark's a⁰ is zero at a fixed node; a fixed node that never moved has v = 0.
        let v0 = match self.x.is_some() {
            true => vec![0.0; dim],
            false => model.v0[r].to_vec(),
        };
        self.v.extend_from_slice(&v0);
        self.a.extend(std::iter::repeat_n(0.0, dim));
    }

    /// Sets the targets (m, `nodes.len() × dim`) that `nodes` follow from the next step
    /// on, in place of their scene motion. Each must be fixed or driven in the model.
    pub fn set_targets(
        &mut self,
        model: &Model,
        nodes: &[u32],
        targets: &[f64],
    ) -> Result<(), String> {
        let dim = self.dim;
        if targets.len() != nodes.len() * dim {
            return Err(format!(
                "{} target coordinates for {} nodes: give {dim} per node",
                targets.len(),
                nodes.len()
            ));
        }
        for (k, &i) in nodes.iter().enumerate() {
            let n = model.num_nodes();
            if i as usize >= n {
                return Err(format!("node {i} does not exist (the model has {n} nodes)"));
            }
            if !model.fixed[i as usize] {
                return Err(format!(
                    "node {i} is free: only fixed or driven nodes follow targets (a body's `fixed`, `fixed_where` or `drive`)"
                ));
            }
            let t = &targets[k * dim..(k + 1) * dim];
            if let Some(c) = t.iter().find(|c| !c.is_finite()) {
                return Err(format!("node {i}: target coordinate {c} is not finite"));
            }
        }
        for (k, &i) in nodes.iter().enumerate() {
            if !self.entry.contains_key(&i) {
                let set = match self.summaries.iter().position(|s| s.name == "targets") {
                    Some(s) => s,
                    None => self.new_set("targets"),
                };
                self.add_node(model, i, set);
            }
            self.external
                .insert(i, targets[k * dim..(k + 1) * dim].to_vec());
        }
        Ok(())
    }

    /// Forgets the positions read after the last step (a new backend holds the state).
    pub fn invalidate(&mut self) {
        self.x = None;
    }
}

mod stage;
