//! Helpers of the batched-ensemble tests (tests/ensemble.rs): the square-drop
//! sweep, jobs, and comparisons with the CPU backend alone.

use springsim::ensemble::{run_batch, BatchReport, Job};
use springsim::precision::PrecisionChoice;
use springsim::run::RunOptions;
use springsim::scene::{load_with, overrides::Override, Scene};
use std::path::Path;

pub fn square_drop(sets: &[String]) -> Scene {
    let o = Override::parse_all(sets).unwrap();
    load_with("scenes/square_drop.toml", &o).unwrap_or_else(|e| panic!("{e}"))
}

/// A κ × initial-velocity × mesh sweep of the square drop at dt = 1e-3 (three
/// meshes: every batch of three or more mixes topologies), first contacts inside
/// 250 steps.
pub fn variant_sets(k: usize) -> Vec<Vec<String>> {
    (0..k)
        .map(|v| {
            vec![
                "solver.dt=1e-3".into(),
                "solver.min_newton_iterations=1".into(),
                "contact.self_contact=false".into(),
                format!("contact.kappa={}", [1e4, 1e5, 1e6, 3e5][v % 4]),
                format!(
                    "bodies[0].velocity=[{}, {}]",
                    0.1 * (v / 4) as f64,
                    -2.0 - 0.5 * (v / 4) as f64
                ),
                // Mixed topologies in one batch: 25, 49 and 24 nodes.
                format!("bodies[0].cells={}", ["[4, 4]", "[6, 6]", "[3, 5]"][v % 3]),
            ]
        })
        .collect()
}

pub fn steps_csv(dir: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("steps.csv")).unwrap();
    text.lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// One job per scene, variant v writing into ROOT/DIR/v, `steps` steps each.
pub fn jobs_of(root: &Path, dir: &str, scenes: Vec<Scene>, steps: u64) -> Vec<Job> {
    scenes
        .into_iter()
        .enumerate()
        .map(|(v, scene)| Job {
            scene,
            opts: RunOptions {
                steps,
                out_dir: root.join(format!("{dir}/{v}")),
                ..Default::default()
            },
        })
        .collect()
}

/// The batch's report; `None` (the caller skips) where no adapter opens outside CI.
pub fn batch_or_skip(jobs: &[Job], precision: PrecisionChoice) -> Option<BatchReport> {
    match run_batch(jobs, precision) {
        Ok(r) => Some(r),
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("skipping: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// `job` alone on the CPU backend (f64, block-Jacobi PCG) into `dir`.
pub fn cpu_alone(job: &Job, dir: &Path) -> springsim::run::Summary {
    let cpu = springsim::backend::cpu::CpuBackend::new(job.scene.model.clone())
        .with_linear_solver(springsim::linear_solver::LinearSolver::Pcg);
    let opts = RunOptions {
        out_dir: dir.to_path_buf(),
        ..job.opts.clone()
    };
    springsim::run::run(&job.scene, Some(Box::new(cpu)), &opts).unwrap()
}

/// Checks that every variant of `report` completed, reached a wall, and took the
/// same Newton iterations and line-search halvings per step as its job alone on the
/// CPU backend (written under ROOT/cpu); returns the largest relative differences of
/// the incremental potential, of the smallest wall distance and of the diagnostics'
/// total energy over all steps (relative to the larger of the value and `floor`, in
/// J or m; the total holds the potentials unscaled by h², so it parts sooner than E
/// where a stiff barrier amplifies the last bits).
pub fn matches_the_cpu_alone(
    root: &Path,
    jobs: &[Job],
    report: &BatchReport,
    floor: f64,
) -> [f64; 3] {
    let mut worst = [0.0f64; 3];
    for (v, (out, job)) in report.outcomes.iter().zip(jobs).enumerate() {
        let s = out.as_ref().unwrap_or_else(|e| panic!("variant {v}: {e}"));
        assert_eq!(s.status, "completed", "variant {v}");
        assert!(s.first_contact_step.is_some(), "variant {v} reached a wall");
        let cpu_dir = root.join(format!("cpu/{v}"));
        cpu_alone(job, &cpu_dir);
        let (a, b) = (steps_csv(&job.opts.out_dir), steps_csv(&cpu_dir));
        assert_eq!(a.len(), b.len(), "variant {v}: rows");
        let col = |name: &str| a[0].iter().position(|c| c == name).unwrap();
        let (newton, ip, dmin) = (
            col("newton_iterations"),
            col("incremental_potential"),
            col("min_wall_distance"),
        );
        let (halvings, total) = (col("line_search_halvings"), col("total"));
        let mut mine = [0.0f64; 3];
        for (ra, rb) in a.iter().zip(&b).skip(1) {
            assert_eq!(
                ra[newton], rb[newton],
                "variant {v} step {}: Newton iterations",
                ra[0]
            );
            assert_eq!(
                ra[halvings], rb[halvings],
                "variant {v} step {}: line-search halvings",
                ra[0]
            );
            for (k, c) in [ip, dmin, total].into_iter().enumerate() {
                let (x, y): (f64, f64) = (ra[c].parse().unwrap(), rb[c].parse().unwrap());
                mine[k] = mine[k].max((x - y).abs() / y.abs().max(floor));
            }
        }
        eprintln!("variant {v}: {mine:?}");
        for k in 0..3 {
            worst[k] = worst[k].max(mine[k]);
        }
    }
    eprintln!(
        "largest relative differences: E {:.2e}, wall distance {:.2e}, total energy {:.2e}",
        worst[0], worst[1], worst[2]
    );
    worst
}
