//! A sweep's records and tables: `variant.json` in each variant's folder (written when
//! its run has ended: the mark of a finished variant), the plan in `sweep-plan.json`,
//! and `sweep.csv` / `sweep.json` built from them, by a sweep itself or by
//! `springsim sweep collect` after shards ran apart.

use super::metrics::{self, RunFiles};
use super::spec::{Axis, Variant};
use crate::output::write_atomically;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The plan of a sweep, `OUT/sweep-plan.json`: what every shard and `--resume` must
/// agree on, and what `collect` tabulates.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// The scene as given (a file's absolute path, or a bundled scene's name).
    pub scene: String,
    /// `--set KEY=VALUE` overrides common to every variant.
    pub set: Vec<String>,
    /// The varied keys and their values.
    pub axes: Vec<Axis>,
    /// Whether the lists were zipped rather than crossed.
    pub zip: bool,
    /// Arguments every variant's `springsim run` gets (backend, steps, threads, extras).
    pub run_args: Vec<String>,
    /// Worker threads of each variant's CPU backend (not part of what must agree).
    #[serde(default)]
    pub threads: usize,
    /// Extra metrics for the table (`--metric`).
    pub metrics: Vec<String>,
    /// Every variant.
    pub variants: Vec<Variant>,
}

impl Plan {
    /// Why `other` (a plan found in the output folder) does not describe the same runs,
    /// or `None` when it does (metrics may differ).
    pub fn differs_from(&self, other: &Plan) -> Option<String> {
        let what = if self.scene != other.scene {
            "the scene"
        } else if self.set != other.set {
            "the --set overrides"
        } else if self.axes != other.axes || self.zip != other.zip {
            "the varied keys or values"
        } else if self.run_args != other.run_args {
            "the run options (backend, steps, threads or extra run arguments)"
        } else {
            return None;
        };
        Some(format!("{what} differ from the sweep already there"))
    }

    /// Reads `OUT/sweep-plan.json`; `Ok(None)` when there is none.
    pub fn read(out: &Path) -> Result<Option<Plan>, String> {
        let path = out.join(PLAN_FILE);
        match std::fs::read_to_string(&path) {
            Ok(t) => serde_json::from_str(&t)
                .map(Some)
                .map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// Writes `OUT/sweep-plan.json` atomically.
    pub fn write(&self, out: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        write_atomically(&out.join(PLAN_FILE), text.as_bytes())
    }
}

/// The plan's file name in the sweep's folder.
pub const PLAN_FILE: &str = "sweep-plan.json";

/// How one variant's run ended, `variant.json` in its folder.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    /// The variant.
    pub index: usize,
    /// `completed`, `stalled`, `failed` or `interrupted`.
    pub status: String,
    /// Why it failed or stalled.
    pub error: Option<String>,
    /// The run's exit status (`None` when it was killed by a signal).
    pub exit_code: Option<i32>,
    /// Wall-clock seconds of the whole `springsim run` (s).
    pub seconds: f64,
}

impl Record {
    /// Whether `--resume` keeps this result: completed and stalled runs would end the
    /// same again; failed and interrupted ones are run again.
    pub fn is_final(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "stalled")
    }

    /// The record in `OUT/DIR/variant.json`, if it is there and readable.
    pub fn read(out: &Path, v: &Variant) -> Option<Record> {
        let text = std::fs::read_to_string(out.join(&v.dir).join("variant.json")).ok()?;
        serde_json::from_str::<Record>(&text)
            .ok()
            .filter(|r| r.index == v.index)
    }

    /// Writes it atomically into `OUT/DIR/variant.json`.
    pub fn write(&self, out: &Path, v: &Variant) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        write_atomically(&out.join(&v.dir).join("variant.json"), text.as_bytes())
    }
}

/// Counts of a table's rows by status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Completed runs.
    pub completed: usize,
    /// Runs with stalled steps.
    pub stalled: usize,
    /// Failed runs.
    pub failed: usize,
    /// Interrupted runs (`--resume` runs them again).
    pub interrupted: usize,
    /// Variants with no result yet.
    pub missing: usize,
}

impl Tally {
    /// Counts one row of status `status` (`missing`: no result yet).
    pub fn add(&mut self, status: &str) {
        match status {
            "completed" => self.completed += 1,
            "stalled" => self.stalled += 1,
            "missing" => self.missing += 1,
            "interrupted" => self.interrupted += 1,
            _ => self.failed += 1,
        }
    }
}

/// A sweep's table: one row per variant (varied values, status, error, metrics).
pub struct Table {
    /// Column names.
    pub header: Vec<String>,
    /// Cells, as written to `sweep.csv` (empty where a figure is missing).
    pub rows: Vec<Vec<String>>,
    /// The same as JSON, for `sweep.json`.
    pub json: serde_json::Value,
    /// Rows by status.
    pub tally: Tally,
    /// Metric values by row, `metrics()` order (NaN where missing), for plots.
    pub values: Vec<Vec<f64>>,
}

/// The metrics of a table: the defaults, then the plan's extras not among them.
pub fn metric_names(plan: &Plan) -> Vec<String> {
    let mut names: Vec<String> = metrics::DEFAULT_METRICS
        .iter()
        .map(|s| s.to_string())
        .collect();
    for m in &plan.metrics {
        if !names.contains(m) {
            names.push(m.clone());
        }
    }
    names
}

/// Builds the table of `plan` from the variant folders under `out`.
pub fn build(out: &Path, plan: &Plan) -> Table {
    build_where(out, plan, |_| true)
}

/// The table of the variants of `plan` whose index passes `keep` (a shard's).
pub fn build_where(out: &Path, plan: &Plan, keep: impl Fn(usize) -> bool) -> Table {
    let names = metric_names(plan);
    let mut header: Vec<String> = vec!["index".into(), "dir".into()];
    header.extend(plan.axes.iter().map(|a| a.key.clone()));
    header.extend(["status".into(), "error".into()]);
    header.extend(names.iter().cloned());
    let mut rows = Vec::new();
    let mut values = Vec::new();
    let mut json_rows = Vec::new();
    let mut tally = Tally::default();
    for v in plan.variants.iter().filter(|v| keep(v.index)) {
        let record = Record::read(out, v);
        let dir = out.join(&v.dir);
        let mut files = RunFiles::open(&dir);
        let (status, error) = match &record {
            Some(r) => (r.status.clone(), r.error.clone().unwrap_or_default()),
            None => ("missing".to_string(), String::new()),
        };
        tally.add(&status);
        let figures: Vec<f64> = names
            .iter()
            .map(|m| {
                record
                    .as_ref()
                    .and_then(|_| files.metric(m))
                    .unwrap_or(f64::NAN)
            })
            .collect();
        let mut row = vec![v.index.to_string(), v.dir.clone()];
        row.extend(v.values.iter().map(|(_, val)| val.clone()));
        row.extend([status.clone(), error.clone()]);
        row.extend(figures.iter().map(|f| cell(*f)));
        let mut obj = serde_json::Map::new();
        obj.insert("index".into(), v.index.into());
        obj.insert("dir".into(), v.dir.clone().into());
        let vals: serde_json::Map<String, serde_json::Value> = v
            .values
            .iter()
            .map(|(k, val)| (k.clone(), toml_to_json(val)))
            .collect();
        obj.insert("values".into(), vals.into());
        obj.insert("status".into(), status.into());
        obj.insert("error".into(), (!error.is_empty()).then_some(error).into());
        let m: serde_json::Map<String, serde_json::Value> = names
            .iter()
            .zip(&figures)
            .map(|(n, f)| (n.clone(), json_number(*f)))
            .collect();
        obj.insert("metrics".into(), m.into());
        json_rows.push(serde_json::Value::Object(obj));
        rows.push(row);
        values.push(figures);
    }
    let json = serde_json::json!({
        "scene": plan.scene,
        "set": plan.set,
        "varied": plan.axes.iter().map(|a| a.key.clone()).collect::<Vec<_>>(),
        "zip": plan.zip,
        "run_args": plan.run_args,
        "metrics": names,
        "variants": json_rows,
    });
    Table {
        header,
        rows,
        json,
        tally,
        values,
    }
}

/// Whether `f` is a whole number that prints exactly as one.
fn whole(f: f64) -> bool {
    f.fract() == 0.0 && f.abs() < 9.0e15
}

/// A figure as a CSV cell: whole numbers without a fraction, others in full
/// precision, missing ones empty.
fn cell(f: f64) -> String {
    if !f.is_finite() {
        String::new()
    } else if whole(f) {
        format!("{}", f as i64)
    } else {
        format!("{f:?}")
    }
}

/// A figure as JSON: an integer when whole, null when missing.
fn json_number(f: f64) -> serde_json::Value {
    if !f.is_finite() {
        serde_json::Value::Null
    } else if whole(f) {
        (f as i64).into()
    } else {
        f.into()
    }
}

/// A value in TOML syntax as JSON (a number stays a number); the text itself where
/// it is no TOML value.
fn toml_to_json(text: &str) -> serde_json::Value {
    let doc = format!("v = {text}");
    match doc.parse::<toml::Table>() {
        Ok(t) => serde_json::to_value(&t["v"]).unwrap_or_else(|_| text.into()),
        Err(_) => text.into(),
    }
}

/// Writes `OUT/sweep.csv` and `OUT/sweep.json`, each atomically.
pub fn write(out: &Path, table: &Table) -> Result<(), String> {
    write_csv(&out.join("sweep.csv"), table)?;
    let text = serde_json::to_string_pretty(&table.json).map_err(|e| e.to_string())?;
    write_atomically(&out.join("sweep.json"), text.as_bytes())
}

/// Writes `table` as CSV to `path`, atomically.
pub fn write_csv(path: &Path, table: &Table) -> Result<(), String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in std::iter::once(&table.header).chain(&table.rows) {
        w.write_record(r).map_err(|e| e.to_string())?;
    }
    write_atomically(path, &w.into_inner().map_err(|e| e.to_string())?)
}
