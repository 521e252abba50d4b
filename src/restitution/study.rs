//! Runs sweeps of the particle experiment and writes, per sweep `NAME`:
//! `NAME_table.csv` (one row per run: COR, how the contact went, speeds, minimum
//! height, contact duration, Newton iterations; a run without contact has empty COR
//! and speeds and contact `none`), `NAME_trajectories.csv` (`t, x, v` of every run) and the plots
//! `NAME_height.png`, `NAME_velocity.png` and (for two or more values) `NAME_cor.png`.

use super::measure::{measure, Contact, Measurement};
use super::particle::{simulate, ParticleParams, Scheme, Trajectory};
use super::sweep::Sweep;
use crate::output::io_error;
use crate::plot::axis::fmt_g;
use crate::plot::{Chart, Series, Style};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// One simulated run of a sweep.
#[derive(Clone, Debug)]
pub struct Run {
    /// The swept parameter's value.
    pub value: f64,
    /// All parameters of the run.
    pub params: ParticleParams,
    /// The simulated states.
    pub trajectory: Trajectory,
    /// What was measured.
    pub measurement: Measurement,
}

/// Simulates every value of `sweep` with every scheme in `schemes`, other parameters from `base`.
/// The error names the parameter and the offending value.
pub fn run_sweep(
    base: &ParticleParams,
    sweep: &Sweep,
    schemes: &[Scheme],
) -> Result<Vec<Run>, String> {
    let mut runs = Vec::new();
    for &value in &sweep.values {
        for &scheme in schemes {
            let mut params = sweep.param.apply(base, value);
            params.scheme = scheme;
            let trajectory = match scheme {
                Scheme::Law => params
                    .validate()
                    .and_then(|()| super::law::simulate(&params)),
                _ => simulate(&params),
            }
            .map_err(|e| format!("{}={}: {e}", sweep.param, fmt_g(value)))?;
            let measurement = measure(&trajectory, params.dhat, params.h);
            runs.push(Run {
                value,
                params,
                trajectory,
                measurement,
            });
        }
    }
    Ok(runs)
}

/// Column names of `NAME_table.csv`; the first is the swept parameter's name.
pub const TABLE_COLUMNS: &[&str] = &[
    "integrator",
    "cor",
    "contact",
    "v_in",
    "v_out",
    "rebounded",
    "min_x",
    "contact_steps",
    "contact_duration",
    "newton_iterations",
    "contact_newton_iterations",
    "max_newton_per_step",
    "line_search_failures",
    "steps",
];

fn label(name: &str, r: &Run, several_schemes: bool) -> String {
    if several_schemes {
        format!("{name}={} ({})", fmt_g(r.value), r.params.scheme)
    } else {
        format!("{name}={}", fmt_g(r.value))
    }
}

/// The table of a sweep as aligned text for the terminal.
pub fn table_text(name: &str, runs: &[Run]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>10} {:>8} {:>11} {:>9} {:>9} {:>11} {:>13} {:>8} {:>9}",
        name, "integr.", "COR", "v_in", "v_out", "min x", "contact (s)", "Newton", "max/step"
    );
    for r in runs {
        let m = &r.measurement;
        let (cor, v_in, v_out) = match m.contact() {
            Contact::None => ("none".to_string(), "-".to_string(), "-".to_string()),
            Contact::Stuck => (
                "0 (stuck)".to_string(),
                format!("{:.4}", m.v_in),
                format!("{:.4}", m.v_out),
            ),
            Contact::Rebounded => (
                format!("{:.5}", m.cor),
                format!("{:.4}", m.v_in),
                format!("{:.4}", m.v_out),
            ),
        };
        let _ = writeln!(
            s,
            "{:>10} {:>8} {:>11} {:>9} {:>9} {:>11} {:>13} {:>8} {:>9}",
            fmt_g(r.value),
            r.params.scheme.to_string(),
            cor,
            v_in,
            v_out,
            fmt_g(m.min_x),
            fmt_g(m.contact_duration),
            m.newton_iterations,
            m.max_newton_per_step
        );
    }
    s
}

fn create(path: &Path) -> Result<BufWriter<File>, String> {
    File::create(path)
        .map(BufWriter::new)
        .map_err(|e| io_error(path, e))
}

/// Writes `NAME_table.csv` into `dir`.
pub fn write_table(dir: &Path, name: &str, runs: &[Run]) -> Result<PathBuf, String> {
    let path = dir.join(format!("{name}_table.csv"));
    let mut out = create(&path)?;
    let r: std::io::Result<()> = (|| {
        writeln!(out, "{name},{}", TABLE_COLUMNS.join(","))?;
        for r in runs {
            let m = &r.measurement;
            // Without contact there is no COR and no speeds: empty cells, never NaN.
            let cell = |v: f64| {
                if m.touched {
                    format!("{v:?}")
                } else {
                    String::new()
                }
            };
            writeln!(
                out,
                "{:?},{},{},{},{},{},{},{:?},{},{:?},{},{},{},{},{}",
                r.value,
                r.params.scheme,
                cell(m.cor),
                m.contact().name(),
                cell(m.v_in),
                cell(m.v_out),
                m.rebounded as u8,
                m.min_x,
                m.contact_steps,
                m.contact_duration,
                m.newton_iterations,
                m.contact_newton_iterations,
                m.max_newton_per_step,
                m.line_search_failures,
                m.steps
            )?;
        }
        out.flush()
    })();
    r.map_err(|e| io_error(&path, e))?;
    Ok(path)
}

/// Writes `NAME_trajectories.csv` (`NAME,integrator,step,t,x,v`) into `dir`.
pub fn write_trajectories(dir: &Path, name: &str, runs: &[Run]) -> Result<PathBuf, String> {
    let path = dir.join(format!("{name}_trajectories.csv"));
    let mut out = create(&path)?;
    let r: std::io::Result<()> = (|| {
        writeln!(out, "{name},integrator,step,t,x,v")?;
        for r in runs {
            let tr = &r.trajectory;
            for k in 0..tr.t.len() {
                writeln!(
                    out,
                    "{:?},{},{k},{:?},{:?},{:?}",
                    r.value, r.params.scheme, tr.t[k], tr.x[k], tr.v[k]
                )?;
            }
        }
        out.flush()
    })();
    r.map_err(|e| io_error(&path, e))?;
    Ok(path)
}

/// Draws `NAME_height.png`, `NAME_velocity.png` and, for two or more values,
/// `NAME_cor.png` into `dir`; `fixed` describes the parameters held fixed.
pub fn write_plots(
    dir: &Path,
    name: &str,
    fixed: &str,
    runs: &[Run],
) -> Result<Vec<PathBuf>, String> {
    let several = runs
        .iter()
        .any(|r| r.params.scheme != runs[0].params.scheme);
    let mut paths = Vec::new();
    for (file, what, unit) in [
        ("height", "Height", "x (m)"),
        ("velocity", "Velocity", "v (m/s)"),
    ] {
        let mut chart = Chart::new(format!("{what}, varying {name} ({fixed})"), "t (s)", unit);
        for r in runs {
            let tr = &r.trajectory;
            let y = if file == "height" { &tr.x } else { &tr.v };
            chart
                .series
                .push(Series::line(label(name, r, several), &tr.t, y));
        }
        let path = dir.join(format!("{name}_{file}.png"));
        chart.save(&path)?;
        paths.push(path);
    }
    let mut values: Vec<f64> = runs.iter().map(|r| r.value).collect();
    values.dedup();
    if values.len() >= 2 {
        let sweep_param = super::sweep::Param::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|e| e.0);
        let mut chart = Chart::new(
            format!("COR vs {name} ({fixed})"),
            name,
            "COR = v_out / v_in",
        );
        chart.x_log = sweep_param.is_some_and(|p| p.log_scale()) && values.iter().all(|v| *v > 0.0);
        let mut schemes: Vec<Scheme> = runs.iter().map(|r| r.params.scheme).collect();
        schemes.dedup();
        schemes.sort_by_key(|s| *s as u8);
        schemes.dedup();
        for s in schemes {
            let mut pts: Vec<(f64, f64)> = runs
                .iter()
                .filter(|r| r.params.scheme == s && r.measurement.touched)
                .map(|r| (r.value, r.measurement.cor))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart.series.push(Series {
                label: s.to_string(),
                points: pts,
                style: Style::LineMarkers,
            });
        }
        let path = dir.join(format!("{name}_cor.png"));
        chart.save(&path)?;
        paths.push(path);
    }
    Ok(paths)
}

/// The parameters other than the swept one, as `h=0.001, dhat=0.001, …` for titles.
pub fn fixed_text(base: &ParticleParams, swept: Option<super::sweep::Param>, law: bool) -> String {
    use super::sweep::Param;
    let mut parts: Vec<String> = Param::ALL
        .iter()
        .filter(|(p, _)| Some(*p) != swept && (law || *p != Param::E))
        .map(|(p, n)| format!("{n}={}", fmt_g(p.get(base))))
        .collect();
    if base.g != 0.0 {
        parts.push(format!("g={}", fmt_g(base.g)));
    }
    parts.join(", ")
}
