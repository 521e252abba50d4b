//! Implicit-wall kernels against their f64 CPU twins on states where most nodes feel
//! the implicit walls' barrier, in 2D and 3D.

mod common;
use springsim::backend::cpu::CpuBackend;
use springsim::backend::gpu::GpuOptions;
use springsim::backend::Probe;
use springsim::precision::{GpuPrecision, PrecisionChoice};

/// Kernel parity on a state where most nodes feel the implicit walls' barrier (d̂ is
/// large): gradient and Jacobi diagonal (`assemble`), Hessian products
/// (`newton_matvec`), the incremental potential (`energy_total`) and the CCD bound
/// (`direction_stats`) against the f64 CPU twins.
fn kernel_parity(label: &str, text: &str, dhat: f64) {
    kernel_parity_in(label, text, dhat, PrecisionChoice::Auto);
}

/// [`kernel_parity`] in the precision `choice`: f32-level bounds unless the kernels
/// run in f64, then 1e-11 (the f64 ln, exp, pow, sin and cos of
/// shaders/precision/f64_math.wgsl included).
fn kernel_parity_in(label: &str, text: &str, dhat: f64, choice: PrecisionChoice) {
    let s = common::scene(text);
    let mut model = s.model.clone();
    model.solver.precision = choice;
    // the scene needs nodes beyond d̂ to load; the barrier then reaches most of them
    model.barrier.dhat = dhat;
    let Some(mut gpu) = common::gpu_backend(model.clone(), GpuOptions::default()) else {
        return;
    };
    let mut cpu = CpuBackend::new(model.clone());
    let mut rng = common::Rng(3);
    let (x, xp) = common::shared_state(&model.x0, &mut rng);
    cpu.set_positions(&x);
    cpu.set_prediction(&xp);
    gpu.set_positions(&x);
    gpu.set_prediction(&xp);
    let active = x
        .chunks(model.dim)
        .filter(|p| {
            model
                .implicit_walls
                .iter()
                .any(|w| w.distance(p) < model.barrier.dhat)
        })
        .count();
    assert!(
        active * 3 > model.num_nodes(),
        "{label}: only {active} nodes near a wall"
    );
    let f64 = gpu.precision() == GpuPrecision::F64;
    let rel = if f64 { 1e-11 } else { 2e-4 };
    let (gc, gg) = (cpu.gradient(), gpu.potential_gradient());
    let err = common::max_diff(&gc, &gg);
    assert!(err <= rel * common::max_abs(&gc), "{label}: gradient {err}");
    let (dc, dg) = (cpu.preconditioner_blocks(), gpu.jacobi_blocks());
    let err = common::max_diff(&dc, &dg);
    assert!(
        err <= rel * common::max_abs(&dc),
        "{label}: preconditioner blocks {err}"
    );
    let u: Vec<f64> = (0..x.len()).map(|_| (rng.next() as f32) as f64).collect();
    let (hc, (hg, _)) = (cpu.hessian_times(&u), gpu.hessian_product(&u));
    let err = common::max_diff(&hc, &hg);
    assert!(err <= rel * common::max_abs(&hc), "{label}: H u {err}");
    let (ec, eg) = (cpu.incremental_potential(&x), gpu.potential());
    assert!(
        (ec - eg).abs() <= rel / 2.0 * ec.abs(),
        "{label}: E {ec} vs {eg}"
    );
    // CCD: a direction pushing every node outwards by up to 3 m
    let p: Vec<f64> = x
        .iter()
        .map(|c| ((0.2 * c + 0.5 * rng.next()) as f32) as f64)
        .collect();
    gpu.set_direction(&p);
    let (_, ccd_gpu) = gpu.direction_summary();
    let dim = model.dim;
    let mut ccd_cpu: f64 = 1.0;
    for (xi, pi) in x.chunks(dim).zip(p.chunks(dim)) {
        for w in &model.implicit_walls {
            ccd_cpu = ccd_cpu.min(w.ccd_bound(xi, pi));
        }
    }
    assert!(ccd_cpu < 1.0, "{label}: the direction should be limited");
    assert!(
        ccd_gpu > 0.5 * ccd_cpu && ccd_gpu < 2.0 * ccd_cpu,
        "{label}: CCD GPU {ccd_gpu} CPU {ccd_cpu}"
    );
    // the GPU's bound is safe in f64 too: dense samples of every segment stay inside
    for (xi, pi) in x.chunks(dim).zip(p.chunks(dim)) {
        for w in &model.implicit_walls {
            for k in 0..=200 {
                let t = ccd_gpu * k as f64 / 200.0;
                let y: Vec<f64> = xi.iter().zip(pi).map(|(a, b)| a + t * b).collect();
                assert!(
                    w.distance(&y) > 0.0,
                    "{label}: GPU CCD bound lets a node out"
                );
            }
        }
    }
    eprintln!("{label}: {active} active nodes, CCD CPU {ccd_cpu:.4} GPU {ccd_gpu:.4}");
}

/// A scene for [`kernel_parity`]: `dim`-D, dt 0.01 s, d̂ 0.01 m, κ 100 and the
/// `barrier` kind, the `[[walls]]` sections `walls`, then `count` particles of 1 kg
/// drawn with `seed` within `spread` (m, along every axis) of the origin.
fn particle_scene(
    dim: usize,
    barrier: &str,
    walls: &str,
    count: u32,
    seed: u64,
    spread: f64,
) -> String {
    let spread = vec![spread; dim];
    format!(
        "dimension = {dim}\n[solver]\ndt = 0.01\n[contact]\ndhat = 0.01\nkappa = 100.0\n\
         barrier = \"{barrier}\"\n{walls}[[bodies]]\ngenerator = \"particle\"\nmass = 1.0\n\
         count = {count}\nseed = {seed}\nspread = {spread:?}\n"
    )
}

#[test]
fn implicit_wall_kernels_match_their_cpu_twins_2d() {
    let walls = r#"[[walls]]
type = "implicit"
shape = "sextic"
radius = 15.0
[[walls]]
type = "implicit"
expression = "min(9 - abs(x), 8 - abs(y + 0.5))"
inside = "positive"
"#;
    let text = particle_scene(2, "ipc", walls, 300, 9, 9.0);
    kernel_parity("2D sextic and box", &text, 2.0);
}

#[test]
fn implicit_wall_kernels_match_their_cpu_twins_3d() {
    let walls = r#"[[walls]]
type = "implicit"
shape = "ellipsoid"
semi_axes = [3.0, 2.5, 2.0]
[[walls]]
type = "implicit"
shape = "superellipse"
semi_axes = [2.8, 2.8, 2.8]
exponent = 3.5
"#;
    let text = particle_scene(3, "book", walls, 257, 2, 3.0);
    kernel_parity("3D ellipsoid and superellipse", &text, 1.0);
}

#[test]
fn transcendental_walls_match_in_f64_and_f32() {
    let walls = r#"[[walls]]
type = "implicit"
expression = "9 - x^2 - y^2 + 0.5*sin(2*x)*cos(y) + 0.2*exp(0.3*x) - 0.3*ln(1 + y^2) - 0.1*abs(x)^2.5"
inside = "positive"
"#;
    let text = particle_scene(2, "ipc", walls, 300, 5, 2.2);
    for choice in [PrecisionChoice::F64, PrecisionChoice::F32] {
        kernel_parity_in(&format!("transcendental {choice:?}"), &text, 6.0, choice);
    }
}
