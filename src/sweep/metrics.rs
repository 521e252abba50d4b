//! The figures a sweep tabulates for each variant, read back from its run's
//! `summary.json` and `steps.csv`: summary fields, two contact figures, and
//! statistics of any `steps.csv` column.

use crate::output::STEP_COLUMNS;
use serde_json::Value;
use std::path::Path;

/// The metrics every sweep table has.
pub const DEFAULT_METRICS: &[&str] = &[
    "steps",
    "simulated_time",
    "nodes",
    "newton_iterations",
    "cg_iterations",
    "capped_steps",
    "stalled_steps",
    "min_wall_distance",
    "first_contact_time",
    "wall_clock_seconds",
    "ms_per_step",
];

/// The numeric fields of `summary.json` a metric may name (`final_centroid` and
/// `final_min_along_normal` with a component: `final_centroid.1`).
pub const SUMMARY_FIELDS: &[&str] = &[
    "dimension",
    "nodes",
    "springs",
    "walls",
    "steps",
    "dt",
    "simulated_time",
    "newton_iterations",
    "cg_iterations",
    "cg_unconverged_directions",
    "direct_solves",
    "preconditioner_factorisations",
    "line_search_halvings",
    "unconverged_steps",
    "resolution_limited_steps",
    "capped_steps",
    "stalled_steps",
    "first_stalled_step",
    "wall_clock_seconds",
    "ms_per_step",
    "min_wall_distance",
    "min_wall_distance_step",
    "first_contact_step",
    "final_centroid",
    "final_min_along_normal",
    "final_max_speed",
    "final_kinetic_energy",
    "device_submissions",
    "device_readbacks",
    "device_memory_bytes",
    "device_dispatches",
    "device_dispatches_per_cg_iteration",
    "device_empty_dispatches",
    "device_record_us_per_dispatch",
    "max_contact_pairs",
    "min_pair_distance",
    "min_pair_distance_step",
    "first_pair_contact_step",
    "intersection_checked_steps",
    "intersection_check_seconds",
];

/// Figures derived from a run's files rather than read from one field.
pub const DERIVED: &[(&str, &str)] = &[
    (
        "first_contact_time",
        "time of the first step with a node within d̂ of a wall (s)",
    ),
    (
        "rebound_height",
        "after the first contact, the largest smallest node–wall distance: how high the body's lowest node rises again (m)",
    ),
    (
        "cor",
        "the first rebound's coefficient of restitution on the centre of mass (summary.json's first_rebound.cor; 0 while stuck; CPU runs and runs with the restitution law)",
    ),
];

/// Statistics of a `steps.csv` column: `max:COL`, `min:COL`, `mean:COL`, `last:COL`.
pub const STATS: &[&str] = &["max", "min", "mean", "last"];

/// Checks a metric name; the error says which names exist.
pub fn check(name: &str) -> Result<(), String> {
    if DERIVED.iter().any(|d| d.0 == name) {
        return Ok(());
    }
    if let Some((stat, col)) = name.split_once(':') {
        if !STATS.contains(&stat) {
            return Err(format!(
                "--metric {name}: `{stat}` is not a statistic (one of {})",
                STATS.join(", ")
            ));
        }
        if !STEP_COLUMNS.contains(&col) || crate::output::TEXT_COLUMNS.contains(&col) {
            return Err(format!(
                "--metric {name}: `{col}` is not a numeric column of steps.csv"
            ));
        }
        return Ok(());
    }
    let (field, component) = split_component(name);
    let vector = matches!(field, "final_centroid" | "final_min_along_normal");
    if SUMMARY_FIELDS.contains(&field) && (component.is_some() == vector) {
        return Ok(());
    }
    Err(format!(
        "--metric {name}: not a metric; use a summary.json field ({}; final_centroid.I, final_min_along_normal.I), {}, or STAT:COLUMN of steps.csv with STAT one of {}",
        SUMMARY_FIELDS
            .iter()
            .filter(|f| !f.starts_with("final_centroid") && !f.starts_with("final_min"))
            .copied()
            .collect::<Vec<_>>()
            .join(", "),
        DERIVED.iter().map(|d| d.0).collect::<Vec<_>>().join(", "),
        STATS.join(", ")
    ))
}

/// `final_centroid.1` or `final_centroid[1]` → (`final_centroid`, Some(1)).
fn split_component(name: &str) -> (&str, Option<usize>) {
    let trimmed = name.trim_end_matches(']');
    for sep in ['.', '['] {
        if let Some((f, i)) = trimmed.rsplit_once(sep) {
            if let Ok(i) = i.parse() {
                return (f, Some(i));
            }
        }
    }
    (name, None)
}

/// A run's files, read on demand.
pub struct RunFiles<'a> {
    dir: &'a Path,
    summary: Option<Value>,
    steps: Option<Option<csv_columns::Columns>>,
}

impl<'a> RunFiles<'a> {
    /// The run in folder `dir` (its `summary.json` is read now, `steps.csv` when a
    /// metric needs it).
    pub fn open(dir: &'a Path) -> Self {
        let summary = std::fs::read_to_string(dir.join("summary.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        Self {
            dir,
            summary,
            steps: None,
        }
    }

    /// The run's `summary.json`, when it has a readable one.
    pub fn summary(&self) -> Option<&Value> {
        self.summary.as_ref()
    }

    fn column(&mut self, col: &str) -> Option<Vec<f64>> {
        let dir = self.dir;
        self.steps
            .get_or_insert_with(|| csv_columns::Columns::read(&dir.join("steps.csv")))
            .as_ref()?
            .get(col)
    }

    /// Metric `name` (checked by [`check`]) of this run; `None` where the run has no
    /// such figure (no contact, no summary, an empty column).
    pub fn metric(&mut self, name: &str) -> Option<f64> {
        let s = self.summary.as_ref()?;
        match name {
            "first_contact_time" => {
                return Some(s["first_contact_step"].as_f64()? * s["dt"].as_f64()?)
            }
            "cor" => return s["first_rebound"]["cor"].as_f64(),
            "rebound_height" => {
                let first = s["first_contact_step"].as_u64()?;
                let step = self.column("step")?;
                let d = self.column("min_wall_distance")?;
                return step
                    .iter()
                    .zip(&d)
                    .filter(|(st, _)| **st > first as f64)
                    .map(|(_, d)| *d)
                    .reduce(f64::max);
            }
            _ => {}
        }
        if let Some((stat, col)) = name.split_once(':') {
            let v = self.column(col)?;
            return match stat {
                "max" => v.iter().copied().reduce(f64::max),
                "min" => v.iter().copied().reduce(f64::min),
                "mean" => (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64),
                _ => v.last().copied(),
            };
        }
        let (field, component) = split_component(name);
        match component {
            Some(i) => s[field][i].as_f64(),
            None => s[field].as_f64(),
        }
    }
}

/// The numeric columns of a `steps.csv`.
mod csv_columns {
    use std::path::Path;

    /// Header and rows of a CSV file of numbers (empty or non-numeric cells are NaN).
    pub struct Columns {
        header: Vec<String>,
        rows: Vec<Vec<f64>>,
    }

    impl Columns {
        /// Reads `path`; `None` when it cannot be read.
        pub fn read(path: &Path) -> Option<Self> {
            let mut r = csv::Reader::from_path(path).ok()?;
            let header = r.headers().ok()?.iter().map(str::to_string).collect();
            let rows = r
                .records()
                .map_while(Result::ok)
                .map(|rec| {
                    rec.iter()
                        .map(|c| c.trim().parse::<f64>().unwrap_or(f64::NAN))
                        .collect()
                })
                .collect();
            Some(Self { header, rows })
        }

        /// Column `name`'s finite values (rows too short are skipped).
        pub fn get(&self, name: &str) -> Option<Vec<f64>> {
            let j = self.header.iter().position(|h| h == name)?;
            Some(
                self.rows
                    .iter()
                    .filter_map(|r| r.get(j).copied())
                    .filter(|v| v.is_finite())
                    .collect(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_names_are_checked() {
        for ok in DEFAULT_METRICS.iter().chain(&[
            "rebound_height",
            "cor",
            "max:kinetic",
            "last:total",
            "final_centroid.1",
            "final_centroid[0]",
        ]) {
            check(ok).unwrap();
        }
        for bad in [
            "nope",
            "max:nope",
            "median:kinetic",
            "max:stall",
            "final_centroid",
            "nodes.1",
        ] {
            assert!(
                check(bad)
                    .unwrap_err()
                    .starts_with(&format!("--metric {bad}:")),
                "{bad}"
            );
        }
    }

    #[test]
    fn summary_fields_are_those_of_a_summary() {
        let scene = crate::scene::load("square_drop").unwrap();
        let s = crate::run::Summary::start(
            &scene,
            "cpu".into(),
            "x".into(),
            "f64",
            Default::default(),
            1.0,
        );
        let v = serde_json::to_value(&s).unwrap();
        let obj = v.as_object().unwrap();
        for f in SUMMARY_FIELDS {
            assert!(obj.contains_key(*f), "summary.json has no `{f}`");
        }
        let numeric_or_null = |v: &Value| v.is_number() || v.is_null() || v.is_array();
        let missing: Vec<&String> = obj
            .iter()
            .filter(|(k, v)| numeric_or_null(v) && !SUMMARY_FIELDS.contains(&k.as_str()))
            .map(|(k, _)| k)
            // first_rebound is an object (its COR is the derived metric `cor`).
            .filter(|k| !matches!(k.as_str(), "first_stall" | "error" | "first_rebound"))
            .collect();
        assert!(
            missing.is_empty(),
            "numeric summary fields not offered as metrics: {missing:?}"
        );
    }
}
