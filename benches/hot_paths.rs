//! Criterion benchmarks of the hot pieces of a Newton iteration on both backends:
//! a whole Newton iteration (direction, CCD bound, one line-search energy), the
//! direction with 1 and with 65 CG iterations (their difference / 64 is one CG
//! iteration), the CCD bound and the energy reduction. Before any timing, each
//! piece is checked for CPU/GPU parity on a small instance (the square of 289 nodes).
//!
//! `cargo bench --bench hot_paths` times the 4225- and 66 049-node squares in
//! contact with the ground; `SPRINGSIM_BENCH_CELLS=64,256,1024` picks other sizes.
//! Under `cargo test` each benchmark runs once on the small square.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use springsim::backend::cpu::CpuBackend;
use springsim::backend::gpu::GpuBackend;
use springsim::backend::Probe;
use springsim::bench::ladder::{Entry, Family};
use springsim::model::Model;
use springsim::newton::NewtonSystem;
use springsim::sim::Simulation;
use std::hint::black_box;

/// The ladder's square at `cells` after 8 steps (in contact with the ground), with
/// the positions and prediction of the next step: `(model, x, x̃)`.
fn square_in_contact(cells: usize) -> (Model, Vec<f64>, Vec<f64>) {
    let scene = Entry {
        family: Family::Square,
        cells,
    }
    .scene()
    .expect("ladder scene");
    let mut sim = Simulation::new(Box::new(CpuBackend::new(scene.model.clone())), &scene.model);
    for _ in 0..8 {
        sim.step().expect("step");
    }
    let x = sim.backend().positions();
    let v = sim.backend().velocities();
    let h = scene.model.solver.dt;
    let pred = x.iter().zip(&v).map(|(x, v)| x + h * v).collect();
    assert!(sim.backend().diagnostics().min_wall_distance < scene.model.barrier.dhat);
    (scene.model, x, pred)
}

fn cpu(model: &Model, x: &[f64], pred: &[f64]) -> CpuBackend {
    let mut b = CpuBackend::new(model.clone());
    b.set_positions(x);
    b.set_prediction(pred);
    b
}

/// The GPU backend on `model`, in `SPRINGSIM_BENCH_PRECISION` (f32, mixed, f64;
/// default auto).
fn gpu(model: &Model, x: &[f64], pred: &[f64]) -> Option<GpuBackend> {
    let mut model = model.clone();
    if let Ok(p) = std::env::var("SPRINGSIM_BENCH_PRECISION") {
        use clap::ValueEnum;
        match springsim::precision::PrecisionChoice::from_str(&p, true) {
            Ok(c) => model.solver.precision = c,
            Err(e) => eprintln!("SPRINGSIM_BENCH_PRECISION={p}: {e}; running in auto"),
        }
    }
    match GpuBackend::new(model) {
        Ok(mut g) => {
            g.set_positions(x);
            g.set_prediction(pred);
            Some(g)
        }
        Err(e) => {
            eprintln!("no GPU benchmarks: {e}");
            None
        }
    }
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(1e-300)
}

/// CPU/GPU parity of every timed piece on the 289-node square; panics on a mismatch.
fn check_parity() {
    let (model, x, pred) = square_in_contact(16);
    let mut c = cpu(&model, &x, &pred);
    let Some(mut g) = gpu(&model, &x, &pred) else {
        return;
    };
    let (ec, eg) = (c.energy(), g.energy());
    assert!(rel(ec, eg) < 1e-4, "energy: CPU {ec} vs GPU {eg}");
    let tol = model.solver.cg_tolerance.into();
    let (dc, dg) = (c.compute_direction(tol), g.compute_direction(tol));
    assert!(
        rel(dc.norm, dg.norm) < 1e-2,
        "|p|: CPU {} vs GPU {}",
        dc.norm,
        dg.norm
    );
    let (pc, pg) = (c.direction().to_vec(), g.direction_vector());
    let scale = pc.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let err = pc
        .iter()
        .zip(&pg)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(
        err < 1e-2 * scale,
        "direction: max difference {err} vs |p| {scale}"
    );
    let (ac, ag) = (c.ccd_bound(), g.direction_summary().1);
    assert!((ac - ag).abs() < 1e-3, "CCD bound: CPU {ac} vs GPU {ag}");
    let (sc, sg) = (c.energy_change(0.5 * ac), g.energy_change(0.5 * ac));
    assert!(rel(sc, sg) < 1e-2, "energy change: CPU {sc} vs GPU {sg}");
    let one = |m: &Model| {
        let mut m = m.clone();
        m.solver.cg_tolerance = 1e-30;
        m.solver.cg_max_iterations = 1;
        m
    };
    let (mut c1, mut g1) = (
        cpu(&one(&model), &x, &pred),
        gpu(&one(&model), &x, &pred).unwrap(),
    );
    let (d1c, d1g) = (
        c1.compute_direction(1e-30.into()),
        g1.compute_direction(1e-30.into()),
    );
    assert_eq!((d1c.cg_iterations, d1g.cg_iterations), (1, 1));
    assert!(
        rel(d1c.norm, d1g.norm) < 1e-3,
        "one CG iteration: CPU {} vs GPU {}",
        d1c.norm,
        d1g.norm
    );
    eprintln!("parity CPU/GPU on 289 nodes: ok ({})", g.adapter());
}

fn sizes() -> Vec<usize> {
    let timing = std::env::args().any(|a| a == "--bench");
    if !timing {
        return vec![16];
    }
    std::env::var("SPRINGSIM_BENCH_CELLS")
        .ok()
        .map(|s| s.split(',').filter_map(|c| c.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![64, 256])
}

/// One backend behind the timed pieces, so both share the benchmark bodies.
fn time_backend<B: NewtonSystem>(
    c: &mut Criterion,
    name: &str,
    nodes: usize,
    make: &dyn Fn(u32, f64) -> Option<B>,
    ccd: fn(&mut B) -> f64,
) {
    let Some(mut b) = make(10_000, 1e-6) else {
        return;
    };
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("newton_iteration", nodes), |t| {
        t.iter(|| {
            let d = b.compute_direction(1e-6.into());
            let a = ccd(&mut b);
            black_box((d.norm, b.energy_change(a)))
        })
    });
    for cg in [1u32, 65] {
        let mut fixed = make(cg, 1e-30).expect("backend");
        group.bench_function(BenchmarkId::new(format!("direction_cg{cg}"), nodes), |t| {
            t.iter(|| black_box(fixed.compute_direction(1e-30.into()).norm))
        });
    }
    b.compute_direction(1e-6.into());
    group.bench_function(BenchmarkId::new("ccd_bound", nodes), |t| {
        t.iter(|| black_box(ccd(&mut b)))
    });
    group.bench_function(BenchmarkId::new("energy_reduction", nodes), |t| {
        t.iter(|| black_box(b.energy_change(0.5)))
    });
    group.finish();
}

fn hot_paths(c: &mut Criterion) {
    check_parity();
    for cells in sizes() {
        let (model, x, pred) = square_in_contact(cells);
        let nodes = model.num_nodes();
        let with = |max: u32, tol: f64| {
            let mut m = model.clone();
            m.solver.cg_max_iterations = max;
            m.solver.cg_tolerance = tol;
            m
        };
        let make_cpu = |max, tol| Some(cpu(&with(max, tol), &x, &pred));
        time_backend(c, "cpu", nodes, &make_cpu, |b: &mut CpuBackend| {
            b.ccd_bound()
        });
        let make_gpu = |max, tol| gpu(&with(max, tol), &x, &pred);
        // The GPU's CCD bound comes with the direction; `direction_summary` recomputes it.
        time_backend(c, "gpu", nodes, &make_gpu, |b: &mut GpuBackend| {
            b.direction_summary().1
        });
    }
}

criterion_group!(benches, hot_paths);
criterion_main!(benches);
