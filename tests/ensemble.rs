//! Batched ensembles (src/ensemble/): each variant of a batch steps as it would
//! alone, and one variant's failure leaves the others untouched.

mod common;

use springsim::ensemble::{run_batch, Job};
use springsim::run::RunOptions;
use springsim::scene::{load_with, overrides::Override, Scene};
use std::path::Path;

fn square_drop(sets: &[String]) -> Scene {
    let o = Override::parse_all(sets).unwrap();
    load_with("scenes/square_drop.toml", &o).unwrap_or_else(|e| panic!("{e}"))
}

/// The κ × initial-speed sweep of the square drop at dt = 1e-3, first contacts
/// (about step 313 from rest) inside the horizon.
fn variant_sets(k: usize) -> Vec<Vec<String>> {
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
            ]
        })
        .collect()
}

fn steps_csv(dir: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("steps.csv")).unwrap();
    text.lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn each_variant_of_a_batch_steps_as_the_cpu_does_alone() {
    let root = common::new_temp_dir("ensemble_batch");
    let sets = variant_sets(16);
    let steps = 250;
    let jobs: Vec<Job> = sets
        .iter()
        .enumerate()
        .map(|(v, s)| Job {
            scene: square_drop(s),
            opts: RunOptions {
                steps,
                out_dir: root.join(format!("batch/{v}")),
                ..Default::default()
            },
        })
        .collect();
    let report = match run_batch(&jobs, springsim::precision::PrecisionChoice::F64) {
        Ok(r) => r,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("skipping: {e}");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    eprintln!(
        "{} rounds for {} variants on {}",
        report.submissions,
        jobs.len(),
        report.device
    );
    let mut worst = [0.0f64; 3];
    for (v, (out, job)) in report.outcomes.iter().zip(&jobs).enumerate() {
        let s = out.as_ref().unwrap_or_else(|e| panic!("variant {v}: {e}"));
        assert_eq!(s.status, "completed", "variant {v}");
        assert!(
            s.first_contact_step.is_some(),
            "variant {v} reached the ground"
        );
        // The same variant alone on the CPU backend (f64, block-Jacobi PCG).
        let cpu_dir = root.join(format!("cpu/{v}"));
        let cpu = springsim::backend::cpu::CpuBackend::new(job.scene.model.clone())
            .with_linear_solver(springsim::linear_solver::LinearSolver::Pcg);
        let opts = RunOptions {
            out_dir: cpu_dir.clone(),
            ..job.opts.clone()
        };
        springsim::run::run(&job.scene, Some(Box::new(cpu)), &opts).unwrap();
        let (a, b) = (steps_csv(&job.opts.out_dir), steps_csv(&cpu_dir));
        assert_eq!(a.len(), b.len(), "variant {v}: rows");
        let col = |name: &str| a[0].iter().position(|c| c == name).unwrap();
        let (newton, ip, dmin) = (
            col("newton_iterations"),
            col("incremental_potential"),
            col("min_wall_distance"),
        );
        for (ra, rb) in a.iter().zip(&b).skip(1) {
            assert_eq!(
                ra[newton], rb[newton],
                "variant {v} step {}: Newton iterations",
                ra[0]
            );
            for (k, c) in [ip, dmin].into_iter().enumerate() {
                let (x, y): (f64, f64) = (ra[c].parse().unwrap(), rb[c].parse().unwrap());
                worst[k] = worst[k].max((x - y).abs() / y.abs().max(1e-3));
            }
        }
    }
    eprintln!(
        "largest relative differences: E {:.2e}, wall distance {:.2e}",
        worst[0], worst[1]
    );
    assert!(worst[0] < 1e-9 && worst[1] < 1e-6, "{worst:?}");
}
