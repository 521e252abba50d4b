//! The GPU cost model against the committed measurements: each GPU row of the
//! unprofiled ladders (NVIDIA H200 and lavapipe) predicted from its own Newton and CG
//! counts (`cargo test --test cost_model -- --nocapture` prints the table that
//! benchmarks/NOTES.md quotes).

use springsim::bench::cost_model::{self, DeviceProfile, GpuPre, Mesh, Work};
use springsim::precision::GpuPrecision;
use std::collections::HashMap;

const H200_DIR: &str = "benchmarks/NVIDIA-H200-Vulkan-DiscreteGpu-NVIDIA-580-159-04";
const H100_DIR: &str = "benchmarks/NVIDIA-H100-80GB-HBM3-Vulkan-DiscreteGpu-NVIDIA-580-159-04";

/// How often the rows' MAS factored: at every solve (rows measured before
/// `solver.mas_reuse`), or once per step (its default since).
#[derive(Clone, Copy)]
enum Factoring {
    EverySolve,
    OncePerStep,
}

/// The rows of a bench.csv as maps from column to cell (quoted cells unquoted).
fn rows(path: &str) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let split = |l: &str| {
        let (mut cells, mut cur, mut quoted) = (Vec::new(), String::new(), false);
        for c in l.chars() {
            match c {
                '"' => quoted = !quoted,
                ',' if !quoted => cells.push(std::mem::take(&mut cur)),
                _ => cur.push(c),
            }
        }
        cells.push(cur);
        cells
    };
    let mut lines = text.lines();
    let header = split(lines.next().unwrap());
    lines
        .map(|l| header.iter().cloned().zip(split(l)).collect())
        .collect()
}

/// (row name, measured ms/step, modelled ms/step) of every ok GPU row in `files`.
fn predictions(
    files: &[String],
    dev: &DeviceProfile,
    factoring: Factoring,
) -> Vec<(String, f64, f64)> {
    let mut out = Vec::new();
    for f in files {
        for r in rows(f) {
            if r["status"] != "ok" || !r["backend"].starts_with("gpu") {
                continue;
            }
            let num = |k: &str| r[k].parse::<f64>().unwrap();
            let precision = match r["precision"].as_str() {
                "f64" => GpuPrecision::F64,
                "mixed" => GpuPrecision::Mixed,
                _ => GpuPrecision::F32,
            };
            let mesh = Mesh {
                nodes: num("nodes") as usize,
                springs: num("springs") as usize,
                dim: num("dimension") as usize,
                precision,
            };
            let pre = if r["backend"] == "gpu-mas" {
                GpuPre::Mas
            } else {
                GpuPre::BlockJacobi
            };
            let solves = num("newton_per_step") + 1.0;
            let work = Work {
                solves,
                cg: num("cg_per_newton") * solves,
                factorisations: match factoring {
                    Factoring::EverySolve => solves,
                    Factoring::OncePerStep => 1.0,
                },
                // rows from before the fused CG iteration (no such column) ran
                // the split one; later rows the bench's default
                fused_cg: match r.get("dispatches_per_cg_iteration") {
                    None => Some(false),
                    Some(_) => None,
                },
            };
            let model = cost_model::step_cost(mesh, pre, work, dev).total_ms();
            let name = format!("{} {} {}", r["scene"], r["backend"], r["precision"]);
            out.push((name, num("ms_per_step"), model));
        }
    }
    out
}

/// Predicts every GPU row of `files` on `dev`, prints the table under `title`, and
/// checks that there are at least `rows` of them and that the median and the
/// largest |ln(model/measured)| stay below `median_max` and `worst_max`.
fn check(
    title: &str,
    (files, factoring): (&[String], Factoring),
    dev: &DeviceProfile,
    rows: usize,
    median_max: f64,
    worst_max: f64,
) {
    let p = predictions(files, dev, factoring);
    assert!(p.len() >= rows, "{} rows", p.len());
    println!(
        "{title}\n| row | measured ms/step | modelled | model / measured |\n|---|---:|---:|---:|"
    );
    let mut errs: Vec<f64> = Vec::new();
    for (name, measured, model) in &p {
        println!(
            "| {name} | {measured:.2} | {model:.2} | {:.2} |",
            model / measured
        );
        errs.push((model / measured).ln().abs());
    }
    errs.sort_by(f64::total_cmp);
    let (median, worst) = (errs[errs.len() / 2], *errs.last().unwrap());
    println!("median |ln(model/measured)| {median:.3}, worst {worst:.3}");
    assert!(median < median_max, "median {median}");
    assert!(worst < worst_max, "worst {worst}");
}

#[test]
fn the_model_predicts_the_h200_ladder() {
    let files: Vec<String> = ["square2d", "lattice3d"]
        .iter()
        .map(|f| format!("{H200_DIR}/bench-gpu-f32-{f}.csv"))
        .chain(
            ["f64", "mixed"]
                .iter()
                .map(|m| format!("{H200_DIR}/bench-gpu-{m}-square2d.csv")),
        )
        .collect();
    // within 25 % for the typical row, a factor 2.5 for any (the outlier: the first
    // row of a call, square2d_4 in mixed, twice as slow as in f32 and f64)
    let title = "H200, unprofiled runs (4 timed steps)";
    let runs = (files.as_slice(), Factoring::EverySolve);
    check(title, runs, &cost_model::H200, 30, 0.22, 0.9);
}

/// Held out: the H100's profile is the H200's with the bandwidth scaled by the peaks,
/// never fitted to an H100; these rows were measured after it was written.
#[test]
fn the_model_predicts_the_h100_ladder() {
    let files: Vec<String> = ["square2d", "lattice3d", "cloth3d"]
        .iter()
        .map(|f| format!("{H100_DIR}/bench-gpu-f32-{f}.csv"))
        .collect();
    // within 25 % for the typical row, a factor 2.5 for any (the outlier again the
    // call's first row, square2d_4)
    let title = "H100 SXM (modelled from the H200), unprofiled runs (4 timed steps)";
    let runs = (files.as_slice(), Factoring::OncePerStep);
    check(title, runs, &cost_model::H100_SXM, 24, 0.22, 0.9);
}

#[test]
fn the_model_predicts_the_lavapipe_ladder() {
    let files = ["benchmarks/gpu-lavapipe-profile/unprofiled-bench.csv".to_string()];
    let title = "lavapipe, unprofiled runs (3 timed steps)";
    let runs = (files.as_slice(), Factoring::EverySolve);
    check(title, runs, &cost_model::LAVAPIPE, 12, 0.4, 1.2);
}

/// The extent the GPU's `auto` reads from a scene: the cells along the longest side,
/// and a volume for the lattice and the tetrahedral bodies but not for the cloth or
/// the 2D square.
#[test]
fn the_extent_of_the_bundled_scenes() {
    use springsim::backend::gpu::auto_choice::Extent;
    let of = |s: &str| Extent::of(&springsim::scene::load(s).unwrap().model);
    let sq = of("scenes/square_64.toml");
    assert!((sq.cells - 64.0).abs() < 1.0 && !sq.volume, "{sq:?}");
    let cloth = of("scenes/cloth_drop.toml");
    assert!(
        (cloth.cells - 20.0).abs() < 1.0 && !cloth.volume,
        "{cloth:?}"
    );
    let lattice = of("scenes/lattice_drop.toml");
    assert!(
        (lattice.cells - 6.0).abs() < 1.0 && lattice.volume,
        "{lattice:?}"
    );
    let tets = of("scenes/tet_drop.toml");
    assert!(tets.volume, "{tets:?}");
}

// The GPU's `auto` (`backend::gpu::auto_choice`) on a scene and the ladder's rungs.

/// An inertia-dominated cloth takes block-Jacobi: `cloth_on_sphere` at 128 cells
/// (β ≈ 63) ran 124 ms per step with block-Jacobi on the H200 against 314 with the
/// V-cycle that the size terms alone chose (benchmarks/NOTES.md, "Terms only for active
/// pairs"). The ladders, stiffness-dominated, keep every expected count: the cap
/// lies above the size term on each of their rungs.
#[test]
fn an_inertia_dominated_cloth_takes_block_jacobi() {
    use springsim::backend::gpu::auto_choice::{expected_cg, gpu_auto_choice, Extent};
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/cloth_on_sphere.toml");
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("cells = [40, 40]", "cells = [128, 128]");
    let model = springsim::scene::parse(&text, path, "cloth_on_sphere")
        .unwrap()
        .model;
    let extent = Extent::of(&model);
    assert!((extent.stiffness_ratio - 63.0).abs() < 1.0, "{extent:?}");
    let mesh = Mesh {
        nodes: model.num_nodes(),
        springs: model.springs.len(),
        dim: 3,
        precision: GpuPrecision::F64,
    };
    assert_eq!(
        gpu_auto_choice(mesh, extent, &cost_model::H200),
        GpuPre::BlockJacobi
    );
    let stiff = Extent {
        stiffness_ratio: f64::INFINITY,
        ..extent
    };
    assert_eq!(
        gpu_auto_choice(mesh, stiff, &cost_model::H200),
        GpuPre::VCycle
    );
    let mut rungs = 0;
    for entry in springsim::bench::ladder::ladder(false) {
        let model = entry.scene().unwrap().model;
        if model.num_nodes() > 100_000 {
            continue;
        }
        rungs += 1;
        let extent = Extent::of(&model);
        let stiff = Extent {
            stiffness_ratio: f64::INFINITY,
            ..extent
        };
        for pre in [GpuPre::BlockJacobi, GpuPre::Mas, GpuPre::VCycle] {
            let (a, b) = (
                expected_cg(pre, model.dim, extent),
                expected_cg(pre, model.dim, stiff),
            );
            assert_eq!(
                a,
                b,
                "{} {pre:?}: β = {}",
                entry.name(),
                extent.stiffness_ratio
            );
        }
    }
    assert_eq!(rungs, 10);
}
