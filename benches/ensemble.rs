//! Throughput of batched ensembles (src/ensemble/, issue 27): K variants of the
//! 25-node square drop (`scenes/square_drop.toml` at dt = 1e-3, κ × d̂ varied, 16 × 16
//! values at K = 256), stepped as one batch on the GPU, against the same variants one
//! at a time on the GPU backend (`SPRINGSIM_BENCH_ALONE` of them, 2 by default).
//! Prints variant-steps per second, device submissions per variant-step and device
//! memory per variant.
//!
//! `cargo bench --bench ensemble`; `SPRINGSIM_BENCH_VARIANTS` (256),
//! `SPRINGSIM_BENCH_STEPS` (500), `SPRINGSIM_BENCH_PRECISION` (`auto`). Under
//! `cargo test` it runs 4 variants for 20 steps once.

use springsim::ensemble::{run_batch, Job};
use springsim::precision::PrecisionChoice;
use springsim::run::RunOptions;
use springsim::scene::{load_with, overrides::Override, Scene};
use std::time::Instant;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Variant `v` of `k`: κ and d̂ on a √k × √k grid (the sweep of seed 003's study).
fn variant(v: usize, k: usize, precision: &str) -> Scene {
    let side = (k as f64).sqrt().ceil() as usize;
    let (i, j) = (v % side, v / side);
    let kappa = 1e4 * 100f64.powf(i as f64 / (side.max(2) - 1) as f64);
    let dhat = 0.005 + 0.015 * j as f64 / (side.max(2) - 1) as f64;
    let sets = [
        "solver.dt=1e-3".to_string(),
        "solver.min_newton_iterations=1".into(),
        "contact.self_contact=false".into(),
        "solver.preconditioner=block_jacobi".into(),
        format!("solver.precision={precision}"),
        format!("contact.kappa={kappa}"),
        format!("contact.dhat={dhat}"),
    ];
    let o = Override::parse_all(&sets).expect("overrides");
    load_with("scenes/square_drop.toml", &o).expect("bundled scene")
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let (k, steps, alone) = if bench {
        (
            env("SPRINGSIM_BENCH_VARIANTS", 256),
            env("SPRINGSIM_BENCH_STEPS", 500) as u64,
            env("SPRINGSIM_BENCH_ALONE", 2),
        )
    } else {
        (4, 20, 1)
    };
    let precision = std::env::var("SPRINGSIM_BENCH_PRECISION").unwrap_or_else(|_| "auto".into());
    let choice = match precision.as_str() {
        "f32" => PrecisionChoice::F32,
        "f64" => PrecisionChoice::F64,
        "mixed" => PrecisionChoice::Mixed,
        _ => PrecisionChoice::Auto,
    };
    let out = std::env::temp_dir().join(format!("springsim_bench_ensemble_{}", std::process::id()));
    let jobs: Vec<Job> = (0..k)
        .map(|v| Job {
            scene: variant(v, k, &precision),
            opts: RunOptions {
                steps,
                out_dir: out.join(format!("batch/{v}")),
                ..Default::default()
            },
        })
        .collect();
    let report = match run_batch(&jobs, choice) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("no batch: {e}");
            if std::env::var_os("CI").is_some() {
                std::process::exit(1);
            }
            return;
        }
    };
    let done: u64 = report
        .outcomes
        .iter()
        .map(|o| o.as_ref().map_or(0, |s| s.steps))
        .sum();
    let failed = report.outcomes.iter().filter(|o| o.is_err()).count();
    let batched = done as f64 / report.seconds;
    println!(
        "batch: {k} variants x {steps} steps on {} in {:.2} s: {:.0} variant-steps/s, {} submissions ({:.5} per variant-step), {} B device memory per variant, {failed} failed",
        report.device,
        report.seconds,
        batched,
        report.submissions,
        report.submissions as f64 / done.max(1) as f64,
        report.bytes_per_variant.iter().max().copied().unwrap_or(0),
    );
    let r = report.rounds;
    println!(
        "rounds: {:.2} s the variants' host work, {:.2} s the device (rounds and readbacks), {:.2} s handing out answers; {:.2} s set-up and the rest",
        r.members,
        r.device,
        r.answers,
        report.seconds - r.members - r.device - r.answers,
    );
    let mut alone_steps = 0u64;
    let start = Instant::now();
    for job in jobs.iter().take(alone) {
        let gpu = springsim::backend::gpu::GpuBackend::new(job.scene.model.clone())
            .expect("the GPU backend opens where the batch did");
        let opts = RunOptions {
            out_dir: out.join(format!("alone/{}", alone_steps)),
            ..job.opts.clone()
        };
        let s = springsim::run::run(&job.scene, Some(Box::new(gpu)), &opts).expect("run");
        alone_steps += s.steps;
    }
    let one = alone_steps as f64 / start.elapsed().as_secs_f64();
    println!(
        "alone: {alone} variants x {steps} steps one at a time: {one:.1} variant-steps/s; batched / alone = {:.0}x",
        batched / one
    );
    let _ = std::fs::remove_dir_all(&out);
}
