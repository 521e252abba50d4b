//! `springsim render DIR`: turns a run's `trajectory.csv` (written by
//! `springsim run --trajectory`) into `animation.gif` and PNG stills in the same
//! folder. Walls are drawn as the zero level set of their function (the sign changes
//! of W between neighbouring pixels, plane walls included), springs as lines, nodes
//! as dots and particles with a radius as discs; the time and the restitution (or
//! "IPC") sit in the top-left corner. 3D scenes are shown in an orthographic view
//! along −z (x to the right, y up; implicit walls cut at z = 0).

pub mod gif;

use crate::plot::canvas::{Canvas, Rgb};
use crate::plot::PALETTE;
use crate::scene::{self, Scene};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `springsim render`.
#[derive(Clone, Debug, clap::Args)]
pub struct RenderArgs {
    /// A run's output folder (holding trajectory.csv and summary.json).
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

const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];
const SPRING: Rgb = [120, 120, 120];

/// The GIF palette: white, black, greys, and the plot palette for bodies and balls.
fn palette() -> Vec<Rgb> {
    let mut p = vec![
        WHITE,
        BLACK,
        SPRING,
        [200, 200, 200],
        [60, 60, 60],
        [160, 160, 160],
    ];
    p.extend_from_slice(&PALETTE);
    p
}

/// One frame's positions: `(step, nodes × dim coordinates)`.
pub type Frame = (u64, Vec<f64>);

/// The complete steps read from a `trajectory.csv`, and what was left out.
#[derive(Clone, Debug, PartialEq)]
pub struct Trajectory {
    /// The kept steps, each with every node's position, in step order.
    pub frames: Vec<Frame>,
    /// A one-line warning when the last step was incomplete (a run that was killed or
    /// ran out of disk) and was left out; `None` when every step was complete.
    pub warning: Option<String>,
}

/// Reads `trajectory.csv` (`step,node,x,y[,z]`, every step's `nodes` rows in node
/// order, steps increasing), keeping the complete steps that `keep` accepts.
///
/// An incomplete last step (fewer rows than nodes, or a last line cut off without its
/// newline) is left out with a warning. Anything else that is wrong is an error of
/// one line naming the file, the line and the reason: a wrong number of fields, a
/// field that is not a number, a node index out of range, a duplicate or missing
/// node row, a step that does not increase, an incomplete step that is not the last.
pub fn read_trajectory(
    path: &Path,
    dim: usize,
    nodes: usize,
    keep: impl Fn(u64) -> bool,
) -> Result<Trajectory, String> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).map_err(|e| {
        format!(
            "{}: {e} (run the scene with --trajectory first)",
            path.display()
        )
    })?;
    let mut input = std::io::BufReader::new(file);
    let at = |ln: usize, why: String| format!("{}:{ln}: {why}", path.display());
    /// The step being read: its number, the rows seen, its positions when kept.
    struct Step {
        step: u64,
        rows: usize,
        pos: Option<Vec<f64>>,
    }
    let mut frames: Vec<Frame> = Vec::new();
    let mut cur: Option<Step> = None;
    let mut cut_off = false;
    let mut buf = Vec::new();
    let mut ln = 0;
    loop {
        buf.clear();
        let n = input
            .read_until(b'\n', &mut buf)
            .map_err(|e| at(ln + 1, e.to_string()))?;
        if n == 0 {
            break;
        }
        ln += 1;
        if buf.last() != Some(&b'\n') {
            // The writer ends every row with a newline: this one was cut off.
            cut_off = true;
            break;
        }
        let line = std::str::from_utf8(&buf)
            .map_err(|_| at(ln, "not UTF-8 text".into()))?
            .trim_end_matches(['\n', '\r']);
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if ln == 1 {
            if fields.len() != 2 + dim {
                return Err(at(
                    ln,
                    format!(
                        "the header has {} columns where a {dim}D scene's trajectory has {} (step, node and {dim} coordinates)",
                        fields.len(),
                        2 + dim
                    ),
                ));
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        if fields.len() != 2 + dim {
            return Err(at(
                ln,
                format!(
                    "expected {} fields (step, node and {dim} coordinates), got {}",
                    2 + dim,
                    fields.len()
                ),
            ));
        }
        let step: u64 = fields[0]
            .parse()
            .map_err(|_| at(ln, format!("step `{}` is not a whole number", fields[0])))?;
        let node: usize = fields[1]
            .parse()
            .map_err(|_| at(ln, format!("node `{}` is not a whole number", fields[1])))?;
        if node >= nodes {
            return Err(at(
                ln,
                format!(
                    "node index {node} is out of range: the scene has {nodes} nodes (0..{})",
                    nodes.saturating_sub(1)
                ),
            ));
        }
        let mut coords = [0.0; 3];
        for (k, f) in fields[2..].iter().enumerate() {
            coords[k] = f.parse().map_err(|_| {
                at(
                    ln,
                    format!("coordinate {} `{f}` is not a number", ["x", "y", "z"][k]),
                )
            })?;
        }
        // A new step: the one before must be complete, and steps must increase.
        if cur.as_ref().map(|c| c.step) != Some(step) {
            if let Some(c) = cur.take() {
                if step < c.step {
                    return Err(at(
                        ln,
                        format!("step {step} after step {}: steps must increase", c.step),
                    ));
                }
                if c.rows < nodes {
                    return Err(at(
                        ln,
                        format!(
                            "step {} ends after {} of its {nodes} node rows (node {} is missing)",
                            c.step, c.rows, c.rows
                        ),
                    ));
                }
                if let Some(pos) = c.pos {
                    frames.push((c.step, pos));
                }
            }
            cur = Some(Step {
                step,
                rows: 0,
                pos: keep(step).then(|| Vec::with_capacity(nodes * dim)),
            });
        }
        let c = cur.as_mut().expect("set above");
        if node < c.rows {
            return Err(at(
                ln,
                format!("duplicate row for node {node} of step {step}"),
            ));
        }
        if node > c.rows {
            return Err(at(
                ln,
                format!(
                    "node {} of step {step} is missing (this row is node {node}; rows go in node order)",
                    c.rows
                ),
            ));
        }
        c.rows += 1;
        if let Some(pos) = &mut c.pos {
            pos.extend_from_slice(&coords[..dim]);
        }
    }
    if ln == 0 {
        return Err(format!("{}: the file is empty", path.display()));
    }
    let mut warning = cut_off.then(|| {
        format!(
            "{}:{ln}: the last line is cut off (no newline; the run was cut short?) and is left out",
            path.display()
        )
    });
    if let Some(c) = cur {
        if c.rows < nodes {
            warning = Some(format!(
                "{}: the last step ({}) is incomplete ({} of {nodes} node rows{}; the run was cut short?) and is left out",
                path.display(),
                c.step,
                c.rows,
                if cut_off { ", then a cut-off line" } else { "" }
            ));
        } else if let Some(pos) = c.pos {
            frames.push((c.step, pos));
        }
    }
    if frames.is_empty() {
        return Err(format!("{}: no complete states to render", path.display()));
    }
    Ok(Trajectory { frames, warning })
}

/// The world → pixel map of a square view.
struct View {
    min: [f64; 2],
    scale: f64,
    size: usize,
}

impl View {
    fn px(&self, p: &[f64]) -> (f64, f64) {
        (
            (p[0] - self.min[0]) * self.scale,
            self.size as f64 - (p[1] - self.min[1]) * self.scale,
        )
    }

    fn world(&self, x: f64, y: f64) -> [f64; 2] {
        [
            self.min[0] + x / self.scale,
            self.min[1] + (self.size as f64 - y) / self.scale,
        ]
    }
}

/// Every wall as a function of a 3-vector point (m, positive inside), radius added
/// back so that the drawn line is the wall itself.
/// A wall as a function of a point (m), positive inside.
type WallFn<'a> = Box<dyn Fn(&[f64]) -> f64 + 'a>;

fn wall_functions(s: &Scene) -> Vec<WallFn<'_>> {
    let dim = s.model.dim;
    let r = s.particle_radius;
    let mut out: Vec<WallFn<'_>> = Vec::new();
    for w in &s.model.walls {
        out.push(Box::new(move |p: &[f64]| w.distance(&p[..dim]) + r));
    }
    for w in &s.model.implicit_walls {
        out.push(Box::new(move |p: &[f64]| w.distance(&p[..dim]) + r));
    }
    out
}

/// A square view holding every state and the walls' zero sets near them.
fn fit_view(s: &Scene, frames: &[Frame], size: usize) -> View {
    let dim = s.model.dim;
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for (_, x) in frames {
        for p in x.chunks(dim) {
            for k in 0..2 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
    }
    // walls: sign changes on a coarse grid over a box four times as wide
    let c = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
    let half = ((hi[0] - lo[0]).max(hi[1] - lo[1]) / 2.0).max(0.5) * 4.0;
    let walls = wall_functions(s);
    let n = 160;
    let at = |i: usize, j: usize| {
        [
            c[0] - half + 2.0 * half * i as f64 / n as f64,
            c[1] - half + 2.0 * half * j as f64 / n as f64,
            0.0,
        ]
    };
    for f in &walls {
        for i in 0..n {
            for j in 0..n {
                let (a, b, d) = (f(&at(i, j)), f(&at(i + 1, j)), f(&at(i, j + 1)));
                if (a > 0.0) != (b > 0.0) || (a > 0.0) != (d > 0.0) {
                    let p = at(i, j);
                    for k in 0..2 {
                        lo[k] = lo[k].min(p[k]);
                        hi[k] = hi[k].max(p[k]);
                    }
                }
            }
        }
    }
    let span = (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1e-3) * 1.08;
    let mid = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
    View {
        min: [mid[0] - span / 2.0, mid[1] - span / 2.0],
        scale: size as f64 / span,
        size,
    }
}

/// The wall pixels: where some wall function changes sign to a neighbouring pixel.
fn wall_mask(s: &Scene, view: &View) -> Vec<bool> {
    let n = view.size;
    let mut mask = vec![false; n * n];
    for f in wall_functions(s) {
        let vals: Vec<bool> = (0..n * n)
            .map(|k| {
                let w = view.world((k % n) as f64 + 0.5, (k / n) as f64 + 0.5);
                f(&[w[0], w[1], 0.0]) > 0.0
            })
            .collect();
        for y in 0..n {
            for x in 0..n {
                let v = vals[y * n + x];
                if (x + 1 < n && vals[y * n + x + 1] != v)
                    || (y + 1 < n && vals[(y + 1) * n + x] != v)
                {
                    mask[y * n + x] = true;
                }
            }
        }
    }
    mask
}

/// Draws one state.
fn draw(s: &Scene, view: &View, mask: &[bool], x: &[f64], time: f64) -> Canvas {
    let n = view.size;
    let dim = s.model.dim;
    let mut c = Canvas::new(n, n, WHITE);
    for (k, m) in mask.iter().enumerate() {
        if *m {
            let (px, py) = ((k % n) as i64, (k / n) as i64);
            c.fill_rect(px, py, px + 2, py + 2, BLACK);
        }
    }
    for sp in &s.model.springs {
        let (a, b) = (sp.a as usize, sp.b as usize);
        c.line(view.px(&x[a * dim..]), view.px(&x[b * dim..]), 1.0, SPRING);
    }
    let r_px = s.particle_radius * view.scale;
    for (bi, body) in s.model.bodies.iter().enumerate() {
        for i in body.first_node..body.first_node + body.nodes {
            let color = if body.nodes > 1 && s.model.springs.is_empty() {
                PALETTE[(i - body.first_node) % PALETTE.len()]
            } else {
                PALETTE[bi % PALETTE.len()]
            };
            let (px, py) = view.px(&x[i * dim..]);
            let r = if s.model.springs.is_empty() {
                r_px.max(2.0)
            } else {
                1.5
            };
            disc(&mut c, px, py, r, color);
        }
    }
    let label = match &s.nonsmooth {
        Some(p) => format!("e = {:.2}", p.restitution),
        None => "IPC".to_string(),
    };
    c.text(8, 8, &format!("t = {time:.2} s"), 2, BLACK);
    c.text(8, 28, &label, 2, BLACK);
    if dim == 3 {
        c.text(8, 48, "x-y view", 1, BLACK);
    }
    c
}

fn disc(c: &mut Canvas, cx: f64, cy: f64, r: f64, color: Rgb) {
    // Clipped to the canvas: a huge radius (or a far node) costs no more than the image.
    let (w, h) = (c.width as i64, c.height as i64);
    let x0 = ((cx - r - 1.0).floor() as i64).max(-1);
    let x1 = ((cx + r + 1.0).ceil() as i64).min(w + 1);
    let y0 = ((cy - r - 1.0).floor() as i64).max(-1);
    let y1 = ((cy + r + 1.0).ceil() as i64).min(h + 1);
    for y in y0..=y1 {
        for x in x0..=x1 {
            let d = ((x as f64 + 0.5 - cx).powi(2) + (y as f64 + 0.5 - cy).powi(2)).sqrt();
            c.blend(x, y, color, (r + 0.5 - d).clamp(0.0, 1.0));
        }
    }
}

/// Nearest palette index of every pixel.
fn indices(c: &Canvas, pal: &[Rgb]) -> Vec<u8> {
    c.pixels
        .chunks(3)
        .map(|p| {
            let mut best = (u32::MAX, 0u8);
            for (k, q) in pal.iter().enumerate() {
                let d: u32 = (0..3)
                    .map(|i| (p[i] as i32 - q[i] as i32).pow(2) as u32)
                    .sum();
                if d < best.0 {
                    best = (d, k as u8);
                }
            }
            best.1
        })
        .collect()
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
    let t = read_trajectory(
        &args.dir.join("trajectory.csv"),
        s.model.dim,
        s.model.num_nodes(),
        |st| st % every == 0 && st <= until,
    )?;
    Ok(Prepared {
        scene: s,
        frames: t.frames,
        every,
        warning: t.warning,
    })
}

/// Draws what [`prepare`] read into `args.dir`: `animation.gif` and `args.stills`
/// PNG stills (at most one per frame); returns the files written.
pub fn write(args: &RenderArgs, p: &Prepared) -> Result<Vec<PathBuf>, String> {
    let (s, frames) = (&p.scene, &p.frames);
    let dt = s.model.solver.dt;
    let view = fit_view(s, frames, args.size);
    let mask = wall_mask(s, &view);
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
        let c = draw(s, &view, &mask, x, *step as f64 * dt);
        gif.frame(&indices(&c, &pal), delay);
        if still_at.contains(&fi) {
            let p = args.dir.join(format!("still_{step:06}.png"));
            c.save_png(&p)?;
            written.push(p);
        }
    }
    let p = args.dir.join("animation.gif");
    std::fs::write(&p, gif.finish()).map_err(|e| format!("{}: {e}", p.display()))?;
    written.push(p);
    Ok(written)
}

/// Renders `args.dir` ([`prepare`] then [`write()`]); returns the files written.
pub fn render(args: &RenderArgs) -> Result<Vec<PathBuf>, String> {
    write(args, &prepare(args)?)
}

/// The `springsim render` command: exit status 0; 2 with one error line for bad input
/// (arguments, summary.json, the scene, trajectory.csv); 1 when writing fails. An
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
