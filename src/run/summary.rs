//! `summary.json`, shared by both kinds of run ([`super::barrier`] and
//! [`super::nonsmooth`]): the [`Summary`] itself, and the [`SummaryFile`] that writes
//! it at the start (status `running`), every [`SUMMARY_INTERVAL_S`] and at the end,
//! where it fills in the final state and settles the status.

use super::solver_label::linear_solver_label;
pub use super::solver_label::Chosen;
use super::SUMMARY_INTERVAL_S;
use crate::output::write_atomically;
use crate::scene::Scene;
use crate::wall::PlaneWall;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The run's `summary.json`.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Summary {
    /// Scene name.
    pub scene: String,
    /// Scene file or `bundled:NAME`.
    pub source: String,
    /// `running` (the run is under way, or was killed), `completed`, `stalled` (some
    /// steps could make no progress: see `stalled_steps`), `interrupted` (stopped by
    /// Ctrl-C or SIGTERM) or `failed` (with `error` set).
    pub status: String,
    /// Why the run stopped early, or why it is not a success.
    pub error: Option<String>,
    /// Backend name (`cpu`, `gpu`).
    pub backend: String,
    /// Device in words.
    pub device: String,
    /// Float precision of the arithmetic: `f64` on the CPU, the GPU's mode (`f32`,
    /// `mixed`, `f64`; `solver.precision = "auto"` resolved).
    #[serde(default)]
    pub precision: String,
    /// The Newton direction solver as run (`--linear-solver auto` and the
    /// preconditioner's `auto` resolved): `direct`, `pcg` with its preconditioner and
    /// CG tolerance rule (e.g. `pcg, mas, fixed`), `auto: pcg, … / direct` where the
    /// CPU switches between the two; `none` for the impulse scheme.
    #[serde(default)]
    pub linear_solver: String,
    /// Spatial dimension.
    pub dimension: usize,
    /// Node count.
    pub nodes: usize,
    /// Spring count.
    pub springs: usize,
    /// Wall count: plane walls plus implicit walls (after splitting top-level `min`s).
    pub walls: usize,
    /// Steps completed.
    pub steps: u64,
    /// Time step (s).
    pub dt: f64,
    /// Simulated time (s).
    pub simulated_time: f64,
    /// Newton iterations over the run.
    pub newton_iterations: u64,
    /// CG iterations over the run.
    pub cg_iterations: u64,
    /// Directions whose CG stopped short of its tolerance (`steps.csv`'s `cg_unconverged`).
    #[serde(default)]
    pub cg_unconverged_directions: u64,
    /// Newton directions solved by the sparse factorisation instead of PCG (all of
    /// them with `direct`, some with a switching `auto`, 0 with `pcg`).
    #[serde(default)]
    pub direct_solves: u64,
    /// Factorisations of the multilevel preconditioner (MAS or V-cycle) over the run:
    /// one per Newton direction for the V-cycle, fewer for the additive MAS, which
    /// keeps its factors through a step while CG keeps its pace (`solver.mas_reuse`).
    #[serde(default)]
    pub preconditioner_factorisations: u64,
    /// Line-search halvings over the run.
    pub line_search_halvings: u64,
    /// Steps whose Newton solve stopped before its tolerance.
    pub unconverged_steps: u64,
    /// Of those, steps stopped at the backend's floating-point resolution.
    pub resolution_limited_steps: u64,
    /// Of those, steps stopped at `solver.max_newton_iterations`.
    pub capped_steps: u64,
    /// Steps that could make no progress (CCD bound 0, no decrease, a direction that
    /// is not finite); the run's status is then `stalled`.
    pub stalled_steps: u64,
    /// The first stalled step.
    pub first_stalled_step: Option<u64>,
    /// Why the first stalled step stalled (`code: description`).
    pub first_stall: Option<String>,
    /// Wall-clock time of the stepping (s), without output.
    pub wall_clock_seconds: f64,
    /// Wall-clock per step (ms).
    pub ms_per_step: f64,
    /// Smallest node–wall distance over the run, initial state included (m; `null`
    /// in the file, +∞ here, for a scene without walls).
    #[serde(deserialize_with = "null_as_infinity")]
    pub min_wall_distance: f64,
    /// Step at which that smallest distance occurred (0 = initial state).
    pub min_wall_distance_step: u64,
    /// First step at which some node was within d̂ of a wall.
    pub first_contact_step: Option<u64>,
    /// Centroid of all nodes at the end (m).
    pub final_centroid: Vec<f64>,
    /// Per wall, the smallest `n·x` over all nodes at the end (m): the lowest point along its normal.
    pub final_min_along_normal: Vec<f64>,
    /// Largest node speed at the end (m/s).
    pub final_max_speed: f64,
    /// Kinetic energy at the end (J).
    pub final_kinetic_energy: f64,
    /// What the device did: submissions, readbacks, memory, dispatches (0 on the CPU).
    #[serde(flatten)]
    pub device_totals: super::device_totals::DeviceTotals,
    /// Whether bodies collide with each other and themselves (`contact.self_contact`,
    /// with collision primitives to watch).
    pub self_contact: bool,
    /// Most contact pairs (primitives within d̂) at the end of any step.
    pub max_contact_pairs: u64,
    /// Smallest distance between two primitives near each other over the run,
    /// initial state included (m; `null` where no pair ever came within d̂).
    pub min_pair_distance: Option<f64>,
    /// Step of that smallest distance (0 = initial state).
    pub min_pair_distance_step: u64,
    /// First step that ended with a contact pair.
    pub first_pair_contact_step: Option<u64>,
    /// What contact between and within bodies cost over the run (seconds, counts).
    pub contact_costs: crate::backend::ContactStats,
    /// Steps after which the exact intersection checker ran (every step of a run with
    /// self-contact): it found no two primitives crossing, or the run failed.
    pub intersection_checked_steps: u64,
    /// Seconds those checks took (outside the stepping time of `ms_per_step`).
    pub intersection_check_seconds: f64,
    /// The first rebound off the walls, on the centre of mass
    /// ([`super::first_rebound`]): measured on the CPU backend and wherever the
    /// restitution law runs (which reads the velocities anyway); `null` elsewhere
    /// and before any contact.
    pub first_rebound: Option<super::first_rebound::FirstRebound>,
    /// What each driven node set did ([`crate::drive`]): its lag behind its script
    /// and its work; empty without driven nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drives: Vec<crate::drive::DriveSummary>,
}

/// A distance written as `null` (JSON has no ∞) read back as +∞.
fn null_as_infinity<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let v: Option<f64> = serde::Deserialize::deserialize(d)?;
    Ok(v.unwrap_or(f64::INFINITY))
}

impl Summary {
    /// The first step in contact with a wall or between primitives, if any.
    pub fn first_any_contact_step(&self) -> Option<u64> {
        match (self.first_contact_step, self.first_pair_contact_step) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The summary of a run that has not taken a step yet: status `running`, every
    /// total zero, `min_wall_distance` (m) that of the initial state, `precision`
    /// the backend's ([`crate::backend::Backend::precision_name`]), `chosen` what
    /// the backend chose for its direction solve ([`Chosen::of`]).
    pub fn start(
        scene: &Scene,
        backend: String,
        device: String,
        precision: &str,
        chosen: Chosen,
        min_wall_distance: f64,
    ) -> Self {
        let model = &scene.model;
        Self {
            scene: scene.name.clone(),
            source: scene.source.clone(),
            status: "running".into(),
            error: None,
            linear_solver: linear_solver_label(scene, &backend, chosen),
            backend,
            device,
            precision: precision.into(),
            dimension: model.dim,
            nodes: model.num_nodes(),
            springs: model.springs.len(),
            walls: model.walls.len() + model.implicit_walls.len(),
            steps: 0,
            dt: model.solver.dt,
            simulated_time: 0.0,
            newton_iterations: 0,
            cg_iterations: 0,
            cg_unconverged_directions: 0,
            direct_solves: 0,
            preconditioner_factorisations: 0,
            line_search_halvings: 0,
            unconverged_steps: 0,
            resolution_limited_steps: 0,
            capped_steps: 0,
            stalled_steps: 0,
            first_stalled_step: None,
            first_stall: None,
            wall_clock_seconds: 0.0,
            ms_per_step: 0.0,
            min_wall_distance,
            min_wall_distance_step: 0,
            first_contact_step: None,
            final_centroid: vec![],
            final_min_along_normal: vec![],
            final_max_speed: 0.0,
            final_kinetic_energy: 0.0,
            device_totals: Default::default(),
            self_contact: model.self_contact.enabled && !model.collision.is_empty(),
            max_contact_pairs: 0,
            min_pair_distance: None,
            min_pair_distance_step: 0,
            first_pair_contact_step: None,
            intersection_checked_steps: 0,
            intersection_check_seconds: 0.0,
            first_rebound: None,
            drives: vec![],
            contact_costs: Default::default(),
        }
    }

    /// Takes in the contact pairs `pairs` and the smallest pair distance `distance`
    /// (m) at the end of `step`.
    pub fn record_pairs(&mut self, step: u64, pairs: u64, distance: f64) {
        self.max_contact_pairs = self.max_contact_pairs.max(pairs);
        if distance.is_finite() && self.min_pair_distance.is_none_or(|d| distance < d) {
            self.min_pair_distance = Some(distance);
            self.min_pair_distance_step = step;
        }
        if self.first_pair_contact_step.is_none() && pairs > 0 {
            self.first_pair_contact_step = Some(step);
        }
    }

    /// Writes the summary as pretty JSON to `path`, atomically: a reader (or a killed
    /// run) sees the previous summary or this one, never a partial file.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        write_atomically(path, (text + "\n").as_bytes())
    }

    /// Takes in the smallest wall distance `distance` (m) at `step`, and whether that
    /// step is in contact (the first such step is `first_contact_step`).
    pub fn record_distance(&mut self, step: u64, distance: f64, in_contact: bool) {
        if distance < self.min_wall_distance {
            self.min_wall_distance = distance;
            self.min_wall_distance_step = step;
        }
        if self.first_contact_step.is_none() && in_contact {
            self.first_contact_step = Some(step);
        }
    }

    /// Settles a run that ends now: the timing from `stepping` (s), the final state
    /// from `end`, the status (`failed` with `failure` when there is one; else
    /// `completed`, or `stalled` with an error that counts the stalled steps, unless
    /// it already says `interrupted`).
    pub fn settle(&mut self, end: &FinalState, stepping: f64, failure: Option<String>) {
        let s = self;
        s.wall_clock_seconds = stepping;
        s.ms_per_step = if s.steps > 0 {
            stepping * 1e3 / s.steps as f64
        } else {
            0.0
        };
        let dim = end.dim;
        let n = (end.x.len() / dim).max(1) as f64;
        s.final_centroid = (0..dim)
            .map(|k| end.x.chunks(dim).map(|p| p[k]).sum::<f64>() / n)
            .collect();
        s.final_min_along_normal = end
            .walls
            .iter()
            .map(|w| {
                end.x
                    .chunks(dim)
                    .map(|p| crate::energy::dot(&w.normal, p))
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        s.final_max_speed = end
            .v
            .chunks(dim)
            .map(|p| crate::energy::dot(p, p).sqrt())
            .fold(0.0, f64::max);
        s.final_kinetic_energy = end.kinetic;
        if let Some(e) = failure {
            s.status = "failed".into();
            s.error = Some(e);
        } else if s.status == "running" {
            s.status = match s.stalled_steps {
                0 => "completed".into(),
                _ => "stalled".into(),
            };
        }
        if s.status == "stalled" {
            s.error = Some(format!(
                "{} of {} steps stalled, the first at step {}: {}",
                s.stalled_steps,
                s.steps,
                s.first_stalled_step.unwrap_or(0),
                s.first_stall.as_deref().unwrap_or("")
            ));
        }
    }

    /// `Ok(self)`, or the error of a run whose status is `failed`.
    pub fn into_result(self) -> Result<Self, String> {
        match self.status.as_str() {
            "failed" => Err(self.error.unwrap_or_default()),
            _ => Ok(self),
        }
    }
}

/// The state a run ends in, for the summary's `final_*` fields.
pub struct FinalState<'a> {
    /// Spatial dimension.
    pub dim: usize,
    /// Node positions (m), `dim` per node.
    pub x: &'a [f64],
    /// Node velocities (m/s), `dim` per node.
    pub v: &'a [f64],
    /// The plane walls, for `final_min_along_normal`.
    pub walls: &'a [PlaneWall],
    /// Kinetic energy (J).
    pub kinetic: f64,
}

/// The `summary.json` of a run under way, in its output folder.
pub struct SummaryFile {
    /// The summary as it stands.
    pub summary: Summary,
    path: PathBuf,
    last_write: Instant,
}

impl SummaryFile {
    /// Writes `summary` (a [`Summary::start`]) to `dir/summary.json`, so that a run
    /// killed from here on leaves one.
    pub fn start(dir: &Path, summary: Summary) -> Result<Self, String> {
        let path = dir.join("summary.json");
        summary.write(&path)?;
        Ok(Self {
            summary,
            path,
            last_write: Instant::now(),
        })
    }

    /// Rewrites the summary, with `stepping` (s) of stepping so far, when
    /// [`SUMMARY_INTERVAL_S`] have passed since the last write.
    pub fn tick(&mut self, stepping: f64) -> Result<(), String> {
        if self.last_write.elapsed().as_secs_f64() >= SUMMARY_INTERVAL_S {
            self.summary.wall_clock_seconds = stepping;
            self.summary.write(&self.path)?;
            self.last_write = Instant::now();
        }
        Ok(())
    }

    /// Marks the run `interrupted` (Ctrl-C) after the steps taken so far.
    pub fn interrupt(&mut self) {
        self.summary.status = "interrupted".into();
        self.summary.error = Some(format!("interrupted after step {}", self.summary.steps));
    }

    /// Ends the run ([`Summary::settle`]), writes the summary and returns it.
    pub fn finish(
        mut self,
        end: &FinalState,
        stepping: f64,
        failure: Option<String>,
    ) -> Result<Summary, String> {
        self.summary.settle(end, stepping, failure);
        self.close()
    }

    /// Writes the summary as it stands (settled by the caller) and returns it.
    pub fn close(self) -> Result<Summary, String> {
        self.summary.write(&self.path)?;
        Ok(self.summary)
    }
}
