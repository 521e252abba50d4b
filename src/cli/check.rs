//! `springsim check DIR`: verifies that a finished run was intersection-free. Reads
//! the run's own `scene.toml` (the scene as run) for its collision primitives and
//! its trajectory (`trajectory.csv` or `trajectory.npy`, written with `--trajectory`),
//! and runs the exact intersection checker ([`crate::collision::check`]) on every
//! stored state. Exit status 0: no two primitives cross in any state; 1: some do
//! (each such state is listed, with its first crossing); 2: the folder cannot be read.

use crate::collision::check::intersections;
use crate::render::trajectory::{read_trajectory, read_trajectory_npy};
use crate::scene;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `springsim check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// A run's output folder (with `scene.toml` and a trajectory).
    pub dir: PathBuf,
    /// Print only the verdict line.
    #[arg(long)]
    pub quiet: bool,
}

/// What the check found.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckReport {
    /// States checked.
    pub states: usize,
    /// Per state with crossings: its step, the number of crossing pairs and the first
    /// of them, in words.
    pub crossings: Vec<(u64, usize, String)>,
    /// A warning from the trajectory reader (an incomplete last state left out).
    pub warning: Option<String>,
}

/// Checks every stored state of the run in `dir`.
pub fn check_run(dir: &std::path::Path) -> Result<CheckReport, String> {
    let scene_path = dir.join("scene.toml");
    let s = scene::load(&scene_path.to_string_lossy()).map_err(|e| e.to_string())?;
    let m = &s.model;
    if m.collision.is_empty() {
        return Err(format!(
            "{}: the scene has no collision primitives (particles meet walls only)",
            scene_path.display()
        ));
    }
    let (dim, nodes, dt) = (m.dim, m.num_nodes(), m.solver.dt);
    let npy = dir.join("trajectory.npy").exists();
    let t = if npy {
        read_trajectory_npy(dir, dim, nodes, dt, |_| true)?
    } else {
        read_trajectory(&dir.join("trajectory.csv"), dim, nodes, |_| true)?
    };
    let mut crossings = Vec::new();
    for (step, x) in &t.frames {
        let found = intersections(&m.collision, x);
        if let Some((a, b)) = found.first() {
            let name = |node: u32| {
                let body = m.collision.node_body[node as usize] as usize;
                m.bodies[body].name.clone()
            };
            crossings.push((
                *step,
                found.len(),
                format!(
                    "{} (nodes {:?}) of '{}' crosses {} (nodes {:?}) of '{}'",
                    a.kind,
                    a.nodes,
                    name(a.nodes[0]),
                    b.kind,
                    b.nodes,
                    name(b.nodes[0])
                ),
            ));
        }
    }
    Ok(CheckReport {
        states: t.frames.len(),
        crossings,
        warning: t.warning,
    })
}

/// Runs `springsim check`.
pub fn main(args: CheckArgs) -> ExitCode {
    let report = match check_run(&args.dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {}", scene::error::one_line(&e));
            return ExitCode::from(2);
        }
    };
    if let Some(w) = &report.warning {
        eprintln!("warning: {w}");
    }
    if !args.quiet {
        for (step, n, first) in &report.crossings {
            println!("step {step}: {n} crossing pair(s), first: {first}");
        }
    }
    let bad = report.crossings.len();
    println!(
        "{}: {} states checked, {}",
        args.dir.display(),
        report.states,
        match bad {
            0 => "intersection-free".to_string(),
            n => format!("{n} with crossing primitives"),
        }
    );
    if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
