//! `springsim render DIR`: turns a run's `trajectory.csv` or `trajectory.npy`
//! (written by `springsim run --trajectory`) into `animation.gif` and PNG stills in the same
//! folder. Walls are drawn as the zero level set of their function (the sign changes
//! of W between neighbouring pixels, plane walls included), springs as lines, nodes
//! as dots and particles with a radius as discs; the time and the restitution (or
//! "IPC") sit in the top-left corner. 3D scenes are shown in an orthographic view
//! along −z (x to the right, y up; implicit walls cut at z = 0).

mod draw;
pub mod gif;
pub mod trajectory;

use crate::scene::{self, Scene};
use draw::{draw, fit_view, indices, palette, wall_mask};
use std::path::PathBuf;
use std::process::ExitCode;
pub use trajectory::{read_trajectory, read_trajectory_npy, Frame, Trajectory};

/// Arguments of `springsim render`.
#[derive(Clone, Debug, clap::Args)]
pub struct RenderArgs {
    /// A run's output folder (holding trajectory.csv or trajectory.npy, and summary.json).
    pub dir: PathBuf,
    /// The scene (file or bundled name); default: the one summary.json names.
    #[arg(long)]
    pub scene: Option<String>,
    /// Image width and height in pixels.
    #[arg(long, default_value_t = 400)]
    pub size: usize,
    /// Simulated seconds between animation frames (default: about 200 frames over the run).
    #[arg(long)]
    pub frame_time: Option<f64>,
    /// Only render up to this simulated time (s).
    #[arg(long)]
    pub until: Option<f64>,
    /// Number of PNG stills, evenly spread from the first to the last frame.
    #[arg(long, default_value_t = 3)]
    pub stills: usize,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

/// What [`prepare`] read and checked: the scene, the complete frames to draw, the
/// steps between them, and a warning about what was left out.
pub struct Prepared {
    /// The scene the run simulated.
    pub scene: Scene,
    /// The frames to draw, in step order.
    pub frames: Vec<Frame>,
    /// Steps between animation frames.
    pub every: u64,
    /// A one-line warning (an incomplete last step left out), if any.
    pub warning: Option<String>,
}

/// Reads and checks everything `springsim render` needs from `args.dir` and the
/// arguments; every error is one line naming the file (and line) or the option.
pub fn prepare(args: &RenderArgs) -> Result<Prepared, String> {
    if !(args.size >= 64 && args.size <= 4096) {
        return Err(format!(
            "--size must be between 64 and 4096, got {}",
            args.size
        ));
    }
    if let Some(t) = args.until {
        if !(t.is_finite() && t >= 0.0) {
            return Err(format!(
                "--until must be a finite number of seconds ≥ 0, got {}",
                crate::scene::format::fmt_num(t)
            ));
        }
    }
    let summary_path = args.dir.join("summary.json");
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&summary_path)
            .map_err(|e| format!("{}: {e}", summary_path.display()))?,
    )
    .map_err(|e| format!("{}: {e}", summary_path.display()))?;
    let source = match &args.scene {
        Some(s) => s.clone(),
        None => summary["source"]
            .as_str()
            .ok_or_else(|| format!("{}: no field `source`", summary_path.display()))?
            .trim_start_matches("bundled:")
            .to_string(),
    };
    let s = scene::load(&source).map_err(|e| e.to_string())?;
    let dt = s.model.solver.dt;
    let total = summary["steps"].as_u64().unwrap_or(1).max(1);
    let until = args.until.map(|t| (t / dt).round() as u64).unwrap_or(total);
    let every = match args.frame_time {
        Some(t) if t > 0.0 && t.is_finite() => ((t / dt).round() as u64).max(1),
        Some(t) => {
            return Err(format!(
                "--frame-time must be a positive number, got {}",
                crate::scene::format::fmt_num(t)
            ))
        }
        None => (until / 200).max(1),
    };
    let keep = |st: u64| st.is_multiple_of(every) && st <= until;
    let (dim, nodes) = (s.model.dim, s.model.num_nodes());
    let t = match trajectory_file(&args.dir) {
        TrajectoryFile::Npy => read_trajectory_npy(&args.dir, dim, nodes, dt, keep)?,
        TrajectoryFile::Csv => read_trajectory(&args.dir.join("trajectory.csv"), dim, nodes, keep)?,
    };
    Ok(Prepared {
        scene: s,
        frames: t.frames,
        every,
        warning: t.warning,
    })
}

/// Which trajectory file a run folder holds.
enum TrajectoryFile {
    Csv,
    Npy,
}

/// `trajectory.npy` when the folder has one newer than any `trajectory.csv`, else
/// `trajectory.csv` (whose absence [`read_trajectory`] reports).
fn trajectory_file(dir: &std::path::Path) -> TrajectoryFile {
    let modified = |name: &str| {
        std::fs::metadata(dir.join(name))
            .and_then(|m| m.modified())
            .ok()
    };
    match (modified("trajectory.npy"), modified("trajectory.csv")) {
        (Some(n), Some(c)) if n >= c => TrajectoryFile::Npy,
        (Some(_), None) => TrajectoryFile::Npy,
        _ => TrajectoryFile::Csv,
    }
}

/// Draws what [`prepare`] read into `args.dir`: `animation.gif` and `args.stills`
/// PNG stills (at most one per frame); returns the files written.
pub fn write(args: &RenderArgs, p: &Prepared) -> Result<Vec<PathBuf>, String> {
    let (s, frames) = (&p.scene, &p.frames);
    let dt = s.model.solver.dt;
    let view = fit_view(s, frames, args.size);
    let mut mask = wall_mask(s, &view, 0.0);
    let pal = palette();
    let mut gif = gif::GifWriter::new(args.size as u16, args.size as u16, &pal);
    let delay = ((p.every as f64 * dt * 100.0).round() as u16).clamp(2, 500);
    let mut written = Vec::new();
    let still_at: Vec<usize> = match args.stills.min(frames.len()) {
        0 => vec![],
        1 => vec![frames.len() - 1],
        k => (0..k).map(|j| j * (frames.len() - 1) / (k - 1)).collect(),
    };
    for (fi, (step, x)) in frames.iter().enumerate() {
        if !s.model.moving_walls.is_empty() {
            mask = wall_mask(s, &view, *step as f64 * dt);
        }
        let c = draw(s, &view, &mask, x, *step as f64 * dt);
        gif.frame(&indices(&c, &pal), delay);
        if still_at.contains(&fi) {
            let p = args.dir.join(format!("still_{step:06}.png"));
            c.save_png(&p)?;
            written.push(p);
        }
    }
    let p = args.dir.join("animation.gif");
    let bytes = gif
        .try_finish()
        .map_err(|e| format!("{}: {e}", p.display()))?;
    std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    written.push(p);
    Ok(written)
}

/// Renders `args.dir` ([`prepare`] then [`write()`]); returns the files written.
pub fn render(args: &RenderArgs) -> Result<Vec<PathBuf>, String> {
    write(args, &prepare(args)?)
}

/// The `springsim render` command: exit status 0; 2 with one error line for bad input
/// (arguments, summary.json, the scene, the trajectory); 1 when writing fails. An
/// incomplete last step is left out with a warning (unless `--quiet`).
pub fn main(args: RenderArgs) -> ExitCode {
    let prepared = match prepare(&args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {}", scene::error::one_line(&e));
            return ExitCode::from(2);
        }
    };
    if let (Some(w), false) = (&prepared.warning, args.quiet) {
        eprintln!("warning: {w}");
    }
    match write(&args, &prepared) {
        Ok(files) => {
            if !args.quiet {
                for f in files {
                    println!("wrote {}", f.display());
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}", scene::error::one_line(&e));
            ExitCode::FAILURE
        }
    }
}
