//! Criterion benchmark of the cost of writing one output frame at 1M nodes in 3D
//! (a 100 × 100 × 100 lattice with its ~3M axis springs, built without physics):
//! a `trajectory.csv` step, a `trajectory.npy` row in f32 and in f64, and one frame
//! in each of `vtu` (with its `frames.pvd` and the wall distances), `ply` and the
//! legacy `vtk`. Each benchmark prints the bytes it writes per frame.
//!
//! `cargo bench --bench output_formats`; `SPRINGSIM_BENCH_SIDE=40` picks a smaller
//! lattice (side³ nodes). Under `cargo test` each benchmark runs once on a 20³
//! lattice.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use springsim::model::{BodyInfo, Model, Spring};
use springsim::output::frames::{FrameFormat, FrameWriter};
use springsim::output::npy::{NpyWriter, Precision};
use springsim::output::TrajectoryCsv;
use std::path::{Path, PathBuf};

/// A `side³`-node 3D lattice (spacing 1 cm, above the ground of `lattice_drop`)
/// with a spring along every axis edge, and velocities for it.
fn lattice(side: usize) -> (Model, Vec<f64>, Vec<f64>) {
    let mut m = springsim::scene::load("lattice_drop")
        .expect("bundled scene")
        .model;
    let n = side * side * side;
    let id = |i: usize, j: usize, k: usize| ((i * side + j) * side + k) as u32;
    let mut x = Vec::with_capacity(3 * n);
    let mut springs = Vec::with_capacity(3 * n);
    for i in 0..side {
        for j in 0..side {
            for k in 0..side {
                // Full-precision values (as a simulated state has), not round decimals.
                let h = 0.01 * (1.0 + 1e-9 * std::f64::consts::PI);
                x.extend([i as f64 * h, 0.5 + j as f64 * h, k as f64 * h]);
                for (di, dj, dk) in [(1, 0, 0), (0, 1, 0), (0, 0, 1)] {
                    let (a, b, c) = (i + di, j + dj, k + dk);
                    if a < side && b < side && c < side {
                        springs.push(Spring {
                            a: id(i, j, k),
                            b: id(a, b, c),
                            rest_length_sq: 1e-4,
                            stiffness: 1e3,
                        });
                    }
                }
            }
        }
    }
    let v: Vec<f64> = (0..3 * n).map(|i| (i % 7) as f64 * 0.1 - 0.3).collect();
    m.bodies = vec![BodyInfo {
        name: "lattice".into(),
        first_node: 0,
        nodes: n,
        springs: springs.len(),
    }];
    m.x0 = x.clone();
    m.v0 = v.clone();
    m.mass = vec![1e-3; n];
    m.contact_area = vec![1e-4; n];
    m.fixed = vec![false; n];
    m.springs = springs;
    (m, x, v)
}

/// Total size of the files under `dir` (bytes).
fn size_of(dir: &Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |rd| {
        rd.flatten()
            .map(|e| match e.metadata() {
                Ok(m) if m.is_dir() => size_of(&e.path()),
                Ok(m) => m.len(),
                Err(_) => 0,
            })
            .sum()
    })
}

/// A fresh folder for one benchmark's files.
fn fresh(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("springsim_bench_out_{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp folder");
    d
}

fn bench(c: &mut Criterion) {
    let side = std::env::var("SPRINGSIM_BENCH_SIDE")
        .ok()
        .and_then(|s| s.parse().ok())
        // `cargo test` runs each benchmark once (no `--bench` argument): a small lattice.
        .unwrap_or(if std::env::args().any(|a| a == "--bench") {
            100
        } else {
            20
        });
    let (model, x, v) = lattice(side);
    let n = model.num_nodes();
    let mut g = c.benchmark_group(format!("output_frame_{n}_nodes"));
    g.sample_size(10);
    g.warm_up_time(std::time::Duration::from_millis(500));
    let report = |name: &str, bytes: u64| {
        println!(
            "{name}: {:.1} MB per frame ({} nodes, {} springs)",
            bytes as f64 / 1e6,
            n,
            model.springs.len()
        );
    };

    let dir = fresh("csv");
    g.bench_function("csv", |b| {
        b.iter_batched(
            || TrajectoryCsv::create(dir.join("trajectory.csv"), 3).expect("csv"),
            |mut w| w.write(1, &x).expect("write"),
            BatchSize::PerIteration,
        )
    });
    report("csv", size_of(&dir));
    for (name, p) in [("npy_f32", Precision::F32), ("npy_f64", Precision::F64)] {
        let dir = fresh(name);
        g.bench_function(name, |b| {
            b.iter_batched(
                || NpyWriter::create(dir.join("t.npy"), &[n, 3], p).expect("npy"),
                |mut w| w.append(&x).expect("append"),
                BatchSize::PerIteration,
            )
        });
        report(name, size_of(&dir));
    }
    for f in [FrameFormat::Vtu, FrameFormat::Ply, FrameFormat::Vtk] {
        let name = f.extension();
        let dir = fresh(name);
        let mut w = FrameWriter::create(&dir, f).expect("frames");
        g.bench_function(name, |b| {
            b.iter(|| w.write(&model, 1, 0.01, &x, Some(&v)).expect("frame"))
        });
        report(name, size_of(&dir.join("frames")));
    }
    g.finish();
    for name in ["csv", "npy_f32", "npy_f64", "vtu", "ply", "vtk"] {
        let _ = std::fs::remove_dir_all(fresh(name));
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
