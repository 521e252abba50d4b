//! The benchmark's outputs: a text table, `bench.csv` and `bench.json`.

use super::BenchRow;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// Columns of `bench.csv`, in order.
pub const CSV_COLUMNS: [&str; 28] = [
    "scene",
    "dimension",
    "nodes",
    "springs",
    "backend",
    "device",
    "precision",
    "status",
    "steps",
    "warmup",
    "ms_per_step",
    "newton_per_step",
    "cg_per_newton",
    "preconditioner_ms_per_step",
    "preconditioner_mib",
    "gpu_memory_mib",
    "host_rss_mib",
    "node_steps_per_s",
    "min_wall_distance",
    "gpu_cg_bytes_per_iter",
    "submissions_per_step",
    "dispatches_per_step",
    "readbacks_per_step",
    "dispatches_per_cg_iteration",
    "empty_dispatches_per_step",
    "record_us_per_dispatch",
    "model_ms_per_step",
    "date_utc",
];

/// Everything `bench.json` holds.
#[derive(Serialize)]
pub struct BenchReport<'a> {
    /// The command line that produced the figures.
    pub command: String,
    /// When the run started (UTC, `YYYY-MM-DD hh:mm`).
    pub date_utc: String,
    /// The rows.
    pub rows: &'a [BenchRow],
}

fn opt(v: Option<f64>) -> String {
    v.map_or(String::new(), |x| format!("{x}"))
}

fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The rows as CSV text with [`CSV_COLUMNS`] (empty cells where a figure is absent).
pub fn csv(rows: &[BenchRow], date_utc: &str) -> String {
    let mut out = CSV_COLUMNS.join(",");
    out.push('\n');
    for r in rows {
        let cells = [
            quote(&r.scene),
            r.dimension.to_string(),
            r.nodes.to_string(),
            r.springs.to_string(),
            r.backend.clone(),
            quote(&r.device),
            r.precision.clone(),
            quote(&r.status),
            r.steps.to_string(),
            r.warmup.to_string(),
            opt(r.ms_per_step),
            opt(r.newton_per_step),
            opt(r.cg_per_newton),
            opt(r.preconditioner_ms_per_step),
            opt(r.preconditioner_mib),
            opt(r.gpu_memory_mib),
            opt(r.host_rss_mib),
            opt(r.node_steps_per_s),
            opt(r.min_wall_distance),
            r.gpu_cg_bytes_per_iter.to_string(),
            opt(r.submissions_per_step),
            opt(r.dispatches_per_step),
            opt(r.readbacks_per_step),
            opt(r.dispatches_per_cg_iteration),
            opt(r.empty_dispatches_per_step),
            opt(r.record_us_per_dispatch),
            opt(r.model_ms_per_step),
            date_utc.to_string(),
        ];
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// One line of the text table for `r` (the header is [`header`]).
pub fn line(r: &BenchRow) -> String {
    let f = |v: Option<f64>, prec: usize| v.map_or("-".to_string(), |x| format!("{x:.prec$}"));
    let mut s = format!(
        "{:<16} {:>9} {:>9} {:<7} {:<5} {:>11} {:>8} {:>8} {:>8} {:>10} {:>9} {:>9} {:>12}",
        r.scene,
        r.nodes,
        r.springs,
        r.backend,
        r.precision,
        f(r.ms_per_step, 3),
        f(r.newton_per_step, 2),
        f(r.cg_per_newton, 1),
        f(r.preconditioner_ms_per_step, 2),
        f(
            r.preconditioner_mib
                .map(|m| m * 1048576.0 / r.nodes.max(1) as f64),
            0
        ),
        f(r.gpu_memory_mib, 1),
        f(r.host_rss_mib, 0),
        r.node_steps_per_s
            .map_or("-".into(), |x| format!("{x:.3e}")),
    );
    if r.status != "ok" {
        let _ = write!(s, "  {}", r.status);
    }
    s
}

/// The text table's header line.
pub fn header() -> String {
    format!(
        "{:<16} {:>9} {:>9} {:<7} {:<5} {:>11} {:>8} {:>8} {:>8} {:>10} {:>9} {:>9} {:>12}",
        "scene",
        "nodes",
        "springs",
        "backend",
        "prec",
        "ms/step",
        "newton",
        "cg/newt",
        "pre ms",
        "pre B/node",
        "gpu MiB",
        "rss MiB",
        "node-steps/s"
    )
}

/// Writes `bench.csv` and `bench.json` into `dir` (created if missing).
pub fn write(dir: &Path, report: &BenchReport) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| crate::output::io_error(dir, e))?;
    let csv_path = dir.join("bench.csv");
    std::fs::write(&csv_path, csv(report.rows, &report.date_utc))
        .map_err(|e| crate::output::io_error(&csv_path, e))?;
    let json_path = dir.join("bench.json");
    let json = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
    std::fs::write(&json_path, json + "\n").map_err(|e| crate::output::io_error(&json_path, e))?;
    if report.rows.iter().any(|r| !r.kernel_times.is_empty()) {
        let path = dir.join("kernels.csv");
        std::fs::write(&path, kernels_csv(report.rows))
            .map_err(|e| crate::output::io_error(&path, e))?;
    }
    Ok(())
}

/// `kernels.csv` (`--profile-kernels`): per row and kernel, dispatches and GPU time
/// per timed step and per dispatch.
pub fn kernels_csv(rows: &[BenchRow]) -> String {
    let mut out = String::from(
        "scene,nodes,backend,precision,kernel,calls_per_step,ms_per_step,us_per_call\n",
    );
    for r in rows {
        let steps = r.steps.max(1) as f64;
        for k in &r.kernel_times {
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{}",
                r.scene,
                r.nodes,
                r.backend,
                r.precision,
                k.kernel,
                k.calls as f64 / steps,
                k.seconds * 1e3 / steps,
                k.seconds * 1e6 / k.calls.max(1) as f64
            );
        }
    }
    out
}

/// `YYYY-MM-DD hh:mm` (UTC) of a Unix time in seconds (days to a civil date, proleptic Gregorian).
pub fn utc_string(unix_secs: u64) -> String {
    let days = (unix_secs / 86400) as i64;
    let (hh, mm) = ((unix_secs % 86400) / 3600, (unix_secs % 3600) / 60);
    // Shift the epoch to 0000-03-01 so leap days fall at the end of a 400-year era.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {hh:02}:{mm:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        assert_eq!(utc_string(0), "1970-01-01 00:00");
        assert_eq!(utc_string(951_782_400), "2000-02-29 00:00");
        assert_eq!(utc_string(1_795_350_000), "2026-11-22 12:20");
    }
}
