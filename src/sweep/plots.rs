//! PNG plots of a sweep's metrics against a varied key (`--plot METRIC`): the key is
//! `--plot-x KEY`, else the first varied key whose values are all numbers; one line
//! per combination of the other keys' values.

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

/// Checks that `plan` has an x axis for the plots `wanted` asks for (their metrics
/// are checked by [`super::TableArgs::add_to`]).
pub fn check(plan: &Plan, wanted: &super::TableArgs) -> Result<(), String> {
    if wanted.plot.is_empty() {
        return Ok(());
    }
    x_axis(plan, wanted.plot_x.as_deref()).map(|_| ())
}

/// The index of the x key: `x`, which must be a varied key taking only numbers, or
/// the first such key.
fn x_axis(plan: &Plan, x: Option<&str>) -> Result<usize, String> {
    let numeric = |i: usize| plan.axes[i].values.iter().all(|v| number(v).is_some());
    match x {
        Some(k) => {
            let i = plan.axes.iter().position(|a| a.key == k).ok_or_else(|| {
                format!(
                    "--plot-x {k}: not a varied key (varied: {})",
                    plan.axes
                        .iter()
                        .map(|a| a.key.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
            if numeric(i) {
                Ok(i)
            } else {
                Err(format!("--plot-x {k}: its values are not all numbers"))
            }
        }
        None => (0..plan.axes.len()).find(|&i| numeric(i)).ok_or_else(|| {
            "--plot: no varied key takes only numbers, so there is no x axis".into()
        }),
    }
}

/// Draws `metric` against the x key (see [`check`]) into `OUT/METRIC_vs_KEY.png`;
/// returns its path.
pub fn draw(
    out: &Path,
    plan: &Plan,
    table: &Table,
    metric: &str,
    x: Option<&str>,
) -> Result<PathBuf, String> {
    let names = metric_names(plan);
    let m = names
        .iter()
        .position(|n| n == metric)
        .ok_or_else(|| format!("--plot {metric}: add it with --metric {metric}"))?;
    let xi = x_axis(plan, x)?;
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
    let name = super::spec::plain(&format!("{metric}_vs_{x_key}"), "._-");
    let path = out.join(format!("{name}.png"));
    chart.save(&path)?;
    Ok(path)
}
