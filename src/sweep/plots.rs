//! PNG plots of a sweep's metrics against a varied key (`--plot METRIC`): the key is
//! the first varied key whose values are all numbers, one line per combination of the
//! other keys' values.

use super::table::{metric_names, Plan, Table};
use crate::plot::{Chart, Series, Style};
use std::path::{Path, PathBuf};

/// A value's number, when it is one (`1e5`, `3`).
fn number(text: &str) -> Option<f64> {
    let doc = format!("v = {text}");
    let t: toml::Table = doc.parse().ok()?;
    match &t["v"] {
        toml::Value::Float(f) => Some(*f),
        toml::Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

/// Checks that `plan` can plot `metric`: the metric is in the table and some varied
/// key takes only numbers.
pub fn check(plan: &Plan, metric: &str) -> Result<(), String> {
    if !metric_names(plan).iter().any(|m| m == metric) {
        super::metrics::check(metric).map_err(|e| e.replacen("--metric", "--plot", 1))?;
    }
    x_axis(plan).map(|_| ()).ok_or_else(|| {
        format!("--plot {metric}: no varied key takes only numbers, so there is no x axis")
    })
}

/// The index of the first varied key whose values are all numbers.
fn x_axis(plan: &Plan) -> Option<usize> {
    plan.axes
        .iter()
        .position(|a| a.values.iter().all(|v| number(v).is_some()))
}

/// Draws `metric` against the x key into `OUT/METRIC_vs_KEY.png`; returns its path.
pub fn draw(out: &Path, plan: &Plan, table: &Table, metric: &str) -> Result<PathBuf, String> {
    let names = metric_names(plan);
    let m = names
        .iter()
        .position(|n| n == metric)
        .ok_or_else(|| format!("--plot {metric}: add it with --metric {metric}"))?;
    let xi = x_axis(plan).ok_or_else(|| format!("--plot {metric}: no numeric varied key"))?;
    let x_key = &plan.axes[xi].key;
    let mut groups: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (v, figures) in plan.variants.iter().zip(&table.values) {
        let label: Vec<String> = v
            .values
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != xi)
            .map(|(_, (k, val))| format!("{}={val}", k.rsplit('.').next().unwrap_or(k)))
            .collect();
        let label = label.join(", ");
        let x = number(&v.values[xi].1).unwrap_or(f64::NAN);
        let point = (x, figures[m]);
        match groups.iter_mut().find(|g| g.0 == label) {
            Some(g) => g.1.push(point),
            None => groups.push((label, vec![point])),
        }
    }
    let mut chart = Chart::new(
        format!("{metric} vs {x_key} ({})", plan.scene),
        x_key.clone(),
        metric,
    );
    let xs: Vec<f64> = plan.axes[xi]
        .values
        .iter()
        .filter_map(|v| number(v))
        .collect();
    let (lo, hi) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    chart.x_log = lo > 0.0 && hi / lo >= 10.0;
    for (label, mut points) in groups {
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart.series.push(Series {
            label,
            points,
            style: Style::LineMarkers,
        });
    }
    let name: String = format!("{metric}_vs_{x_key}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let path = out.join(format!("{name}.png"));
    chart.save(&path)?;
    Ok(path)
}
