//! `springsim plot DIR`: turns a run's `steps.csv` into PNG plots in the same folder:
//! `energies.png` (kinetic, gravity, elastic, barrier and total energy),
//! `iterations.png` (Newton iterations per step), `cg_iterations.png` (CG iterations
//! per step) and `min_distance.png` (smallest distance to a wall); for a run with
//! friction contacts also `friction_contacts.png` (sticking and sliding contacts per
//! step) and `friction_dissipation.png` (friction dissipation per step).

use crate::plot::{Chart, Series};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `springsim plot`.
#[derive(Clone, Debug, clap::Args)]
pub struct PlotArgs {
    /// A run's output folder (holding steps.csv).
    pub dir: PathBuf,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Numeric columns of a CSV file, by header name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Columns {
    /// Column name → values, one per data row.
    pub data: HashMap<String, Vec<f64>>,
    /// Data rows read.
    pub rows: usize,
    /// A one-line warning when the last line was cut off (no newline: a run that was
    /// killed or ran out of disk) and was left out.
    pub warning: Option<String>,
}

impl Columns {
    /// The column `name`, or an error naming the file and the column.
    pub fn get(&self, path: &Path, name: &str) -> Result<&[f64], String> {
        self.data
            .get(name)
            .map(|v| v.as_slice())
            .ok_or_else(|| format!("{}: no column `{name}`", path.display()))
    }
}

/// Reads a comma-separated file with a header line; every field must be a number
/// (`NaN` and `inf` included), except in the columns that hold words
/// ([`crate::output::TEXT_COLUMNS`], left out of the result). Errors name the file, the line and the column. A last
/// line without its newline (cut off) is left out with a warning in [`Columns`].
pub fn read_csv(path: &Path) -> Result<Columns, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut warning = None;
    let text = match text.rfind('\n') {
        Some(end) if end + 1 < text.len() => {
            warning = Some(format!(
                "{}:{}: the last line is cut off (no newline; the run was cut short?) and is left out",
                path.display(),
                text.matches('\n').count() + 1
            ));
            &text[..end + 1]
        }
        _ => &text[..],
    };
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .iter()
        .map(str::to_string)
        .collect();
    if text.trim().is_empty() {
        return Err(format!("{}: the file is empty", path.display()));
    }
    let mut cols: Vec<Vec<f64>> = vec![Vec::new(); header.len()];
    let mut rows = 0;
    for record in reader.records() {
        let record = record.map_err(|e| format!("{}: {e}", path.display()))?;
        let line = record.position().map_or(0, |p| p.line());
        if record.len() != header.len() {
            return Err(format!(
                "{}:{line}: {} fields where the header has {}",
                path.display(),
                record.len(),
                header.len()
            ));
        }
        for (k, f) in record.iter().enumerate() {
            if crate::output::TEXT_COLUMNS.contains(&header[k].as_str()) {
                continue;
            }
            let v = f.parse::<f64>().map_err(|_| {
                format!(
                    "{}:{line}: column `{}`: `{f}` is not a number",
                    path.display(),
                    header[k]
                )
            })?;
            cols[k].push(v);
        }
        rows += 1;
    }
    Ok(Columns {
        data: header
            .into_iter()
            .zip(cols)
            .filter(|(h, _)| !crate::output::TEXT_COLUMNS.contains(&h.as_str()))
            .collect(),
        rows,
        warning,
    })
}

/// Reads and checks `dir/steps.csv` (every column the plots need present).
pub fn read_steps(dir: &Path) -> Result<Columns, String> {
    let path = dir.join("steps.csv");
    let c = read_csv(&path)?;
    if c.rows == 0 {
        return Err(format!("{}: no steps to plot", path.display()));
    }
    for col in [
        "time",
        "kinetic",
        "gravity",
        "elastic",
        "barrier",
        "total",
        "newton_iterations",
        "cg_iterations",
        "min_wall_distance",
    ] {
        c.get(&path, col)?;
    }
    Ok(c)
}

/// Draws the plots of `dir/steps.csv` into `dir`; returns their paths.
pub fn plot_steps(dir: &Path) -> Result<Vec<PathBuf>, String> {
    draw_steps(dir, &read_steps(dir)?)
}

/// Draws the plots of the columns `c` read by [`read_steps`] into `dir`; returns their paths.
pub fn draw_steps(dir: &Path, c: &Columns) -> Result<Vec<PathBuf>, String> {
    let path = dir.join("steps.csv");
    let t = c.get(&path, "time")?;
    // The scene's name from summary.json where there is one, else the folder's.
    let name = std::fs::read_to_string(dir.join("summary.json"))
        .ok()
        .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
        .and_then(|v| v.get("scene")?.as_str().map(str::to_string))
        .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "run".into());
    let mut charts = Vec::new();
    let mut e = Chart::new(format!("{name}: energies"), "t (s)", "energy (J)");
    for col in ["kinetic", "gravity", "elastic", "barrier", "total"] {
        e.series.push(Series::line(col, t, c.get(&path, col)?));
    }
    charts.push(("energies", e));
    for (file, col, what) in [
        ("iterations", "newton_iterations", "Newton iterations"),
        ("cg_iterations", "cg_iterations", "CG iterations"),
    ] {
        let mut ch = Chart::new(format!("{name}: {what} per step"), "t (s)", what);
        ch.series.push(Series::line("", t, c.get(&path, col)?));
        charts.push((file, ch));
    }
    let mut d = Chart::new(
        format!("{name}: smallest distance to a wall"),
        "t (s)",
        "distance (m)",
    );
    d.series
        .push(Series::line("", t, c.get(&path, "min_wall_distance")?));
    charts.push(("min_distance", d));
    // Friction, where the run had contacts (older steps.csv files lack the columns).
    if let (Ok(stick), Ok(slide), Ok(diss)) = (
        c.get(&path, "sticking"),
        c.get(&path, "sliding"),
        c.get(&path, "friction_dissipation"),
    ) {
        if stick.iter().chain(slide).any(|v| *v > 0.0) {
            let mut f = Chart::new(format!("{name}: friction contacts"), "t (s)", "contacts");
            f.series.push(Series::line("sticking", t, stick));
            f.series.push(Series::line("sliding", t, slide));
            charts.push(("friction_contacts", f));
            let mut f = Chart::new(
                format!("{name}: friction dissipation per step"),
                "t (s)",
                "energy (J)",
            );
            f.series.push(Series::line("", t, diss));
            charts.push(("friction_dissipation", f));
        }
    }
    let mut paths = Vec::new();
    for (file, chart) in charts {
        let p = dir.join(format!("{file}.png"));
        chart.save(&p)?;
        paths.push(p);
    }
    Ok(paths)
}

/// Runs the command: exit status 2 with one error line when steps.csv is missing or
/// damaged, 1 when a plot cannot be written; a cut-off last line is left out with a
/// warning (unless `--quiet`).
pub fn main(args: PlotArgs) -> ExitCode {
    let columns = match read_steps(&args.dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {}", crate::scene::error::one_line(&e));
            return ExitCode::from(2);
        }
    };
    if let (Some(w), false) = (&columns.warning, args.quiet) {
        eprintln!("warning: {w}");
    }
    match draw_steps(&args.dir, &columns) {
        Ok(paths) => {
            if !args.quiet {
                let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                let _ = writeln!(std::io::stdout().lock(), "wrote {}", names.join(", "));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}", crate::scene::error::one_line(&e));
            ExitCode::from(1)
        }
    }
}
