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
