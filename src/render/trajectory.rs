//! Reading a run's `trajectory.csv` back into frames, checked line by line.

use std::path::Path;

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
    use std::io::{Read, Seek, SeekFrom};
    let open_error = |e: std::io::Error| {
        format!(
            "{}: {e} (run the scene with --trajectory first)",
            path.display()
        )
    };
    let mut file = std::fs::File::open(path).map_err(open_error)?;
    // The writer ends every row with a newline: a last byte that is not one means the
    // last line was cut off.
    let len = file.metadata().map_err(open_error)?.len();
    let mut last = [b'\n'];
    if len > 0 {
        file.seek(SeekFrom::Start(len - 1))
            .and_then(|_| file.read_exact(&mut last))
            .and_then(|_| file.seek(SeekFrom::Start(0)))
            .map_err(open_error)?;
    }
    let ends_cut = last[0] != b'\n';
    let reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(std::io::BufReader::new(file));
    let at = |ln: u64, why: String| format!("{}:{ln}: {why}", path.display());
    /// The step being read: its number, the rows seen, its positions when kept.
    struct Step {
        step: u64,
        rows: usize,
        pos: Option<Vec<f64>>,
    }
    let mut frames: Vec<Frame> = Vec::new();
    let mut cur: Option<Step> = None;
    let mut cut_off = false;
    let mut ln = 0;
    let mut records = reader.into_records().peekable();
    while let Some(record) = records.next() {
        let record = record.map_err(|e| match e.kind() {
            csv::ErrorKind::Utf8 { pos, .. } => at(
                pos.as_ref().map_or(ln + 1, |p| p.line()),
                "not UTF-8 text".into(),
            ),
            _ => format!("{}: {e}", path.display()),
        })?;
        ln = record.position().map_or(ln + 1, |p| p.line());
        if ends_cut && records.peek().is_none() {
            cut_off = true;
            break;
        }
        let fields: Vec<&str> = record.iter().collect();
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

/// Reads the frames that `keep` accepts from a run's `trajectory.npy` and `times.npy`
/// (written with `--trajectory-format npy`): frame steps are the times over `dt`,
/// rounded. Frames beyond what the file holds (a run cut short) are left out; the
/// shape must be `[frames, nodes, dim]` of the scene.
pub fn read_trajectory_npy(
    dir: &Path,
    dim: usize,
    nodes: usize,
    dt: f64,
    keep: impl Fn(u64) -> bool,
) -> Result<Trajectory, String> {
    use crate::output::npy::read_header;
    use std::io::{Read, Seek, SeekFrom};
    let open = |p: &Path| {
        let mut f = std::fs::File::open(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let h = read_header(p, &mut f)?;
        let len = f
            .metadata()
            .map_err(|e| format!("{}: {e}", p.display()))?
            .len();
        Ok::<_, String>((f, h, len))
    };
    let tpath = dir.join("times.npy");
    let (mut tf, th, tlen) = open(&tpath)?;
    if th.descr != "<f8" || th.shape.len() != 1 {
        return Err(format!(
            "{}: expected a float64 [frames] array, got {} {:?}",
            tpath.display(),
            th.descr,
            th.shape
        ));
    }
    let mut tbytes = Vec::new();
    tf.read_to_end(&mut tbytes)
        .map_err(|e| format!("{}: {e}", tpath.display()))?;
    let times: Vec<f64> = tbytes
        .chunks_exact(8)
        .take(th.shape[0].min(((tlen - th.data_offset) / 8) as usize))
        .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect();
    let path = dir.join("trajectory.npy");
    let (mut f, h, len) = open(&path)?;
    let size = match h.descr.as_str() {
        "<f4" => 4,
        "<f8" => 8,
        d => {
            return Err(format!(
                "{}: element type {d}, expected <f4 or <f8",
                path.display()
            ))
        }
    };
    if h.shape.len() != 3 || h.shape[1] != nodes || h.shape[2] != dim {
        return Err(format!(
            "{}: shape {:?} where the scene needs [frames, {nodes}, {dim}]",
            path.display(),
            h.shape
        ));
    }
    let row = (nodes * dim * size) as u64;
    let stored = h.shape[0].min(((len - h.data_offset) / row.max(1)) as usize);
    let count = stored.min(times.len());
    let warning = (count < h.shape[0].max(times.len())).then(|| {
        format!(
            "{}: {count} complete frames of {} listed (the run was cut short?); the rest is left out",
            path.display(),
            h.shape[0].max(times.len())
        )
    });
    let mut frames = Vec::new();
    let mut buf = vec![0u8; row as usize];
    for (i, t) in times.iter().enumerate().take(count) {
        let step = (t / dt).round() as u64;
        if !keep(step) {
            continue;
        }
        f.seek(SeekFrom::Start(h.data_offset + i as u64 * row))
            .and_then(|_| f.read_exact(&mut buf))
            .map_err(|e| format!("{}: frame {i}: {e}", path.display()))?;
        let pos: Vec<f64> = match size {
            4 => buf
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")) as f64)
                .collect(),
            _ => buf
                .chunks_exact(8)
                .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
                .collect(),
        };
        frames.push((step, pos));
    }
    if frames.is_empty() {
        return Err(format!("{}: no complete states to render", path.display()));
    }
    Ok(Trajectory { frames, warning })
}
