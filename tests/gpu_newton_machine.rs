//! The Newton driver's two transcriptions, `src/newton/machine.rs` and
//! `shaders/newton/machine.wgsl`, run on the same scripted answers (seeded: finite
//! and non-finite energies and directions, zero and NaN CCD bounds, rejected and
//! accepted trials, loose directions with and without a proving error bound,
//! failures; both forcing rules; a range of iteration and halving limits): every
//! question, every tolerance and step fraction asked, and the outcome agree, to the
//! bit in f64 on the device; in f32 every decision agrees and the tolerances and
//! step fractions agree within rounding.

use springsim::model::{Forcing, SolverParams};
use springsim::newton::{Ask, CgTolerance, Direction, Machine, Stall};
use springsim::precision::GpuPrecision;

// The probe's layout (shaders/newton/machine_probe.wgsl).
const POOL: usize = 32;
const MAX_ASKS: usize = 96;
const AT_EPR: usize = 8;
const AT_ENERGIES: usize = 9;
const AT_CCD: usize = 41;
const AT_CHANGES: usize = 73;
const AT_FAILURES: usize = 137;
const AT_DIRECTIONS: usize = 169;
const SCRIPT_REALS: usize = 329;
const STATE_REALS: usize = 16;
const TRACE_REALS: usize = 1 + 3 * MAX_ASKS + STATE_REALS;

/// A seeded generator of answers.
struct Seeded(u64);

impl Seeded {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn pick(&mut self, cases: &[f64]) -> f64 {
        cases[((self.unit() * cases.len() as f64) as usize).min(cases.len() - 1)]
    }
}

/// The script of seed `seed` in the probe's layout, and the rules it holds.
fn script(seed: u64) -> (Vec<f64>, SolverParams) {
    let mut g = Seeded(seed);
    let mut p = SolverParams {
        dt: g.pick(&[1e-2, 1e-3]),
        tolerance: g.pick(&[1e-2, 1e-1]),
        cg_tolerance: g.pick(&[1e-4, 1e-6]),
        forcing_start: 0.5,
        min_newton_iterations: (seed % 3) as u32,
        max_newton_iterations: 1 + (seed % 7) as u32,
        max_line_search_halvings: (seed % 5) as u32,
        ..Default::default()
    };
    p.forcing = match seed % 2 {
        0 => Forcing::Fixed,
        _ => Forcing::EisenstatWalker,
    };
    let mut s = vec![0.0; SCRIPT_REALS];
    s[..8].copy_from_slice(&[
        p.dt,
        p.tolerance,
        p.cg_tolerance,
        p.forcing_start,
        p.min_newton_iterations as f64,
        p.max_newton_iterations as f64,
        p.max_line_search_halvings as f64,
        f64::from(p.forcing == Forcing::EisenstatWalker),
    ]);
    s[AT_EPR] = g.pick(&[f64::INFINITY, 1e-3, 1e-1]);
    let inf = f64::INFINITY;
    for i in 0..POOL {
        s[AT_ENERGIES + i] = g.pick(&[1.0, 0.5, 2.0, 0.1, 0.9, 1.0, 0.3, 0.7, 0.7, inf]);
        s[AT_CCD + i] = g.pick(&[1.0, 1.0, 0.5, 0.9, 0.0, 1e-3, f64::NAN, 1.0, 0.75]);
        s[AT_FAILURES + i] = f64::from(g.unit() < 0.01);
        let d = AT_DIRECTIONS + 5 * i;
        let scale = p.tolerance * p.dt;
        s[d] = scale * g.pick(&[1e-3, 0.3, 0.9, 3.0, 30.0, 1e3, 0.05, f64::NAN]);
        s[d + 1] = g.pick(&[0.0, 0.5, 1.0, 2.0, 10.0]);
        // error bounds away from what the rule leaves (1 − the norm's factor), so
        // that f32 and f64 take the same side
        s[d + 2] = scale * g.pick(&[0.0, 1e-3, 0.02, 0.5, 10.0, inf]);
        s[d + 3] = (g.unit() * 50.0).floor();
        let flags = u32::from(g.unit() > 0.1)
            | (u32::from(g.unit() < 0.1) << 1)
            | (u32::from(g.unit() < 0.2) << 2);
        s[d + 4] = flags as f64;
    }
    for i in 0..2 * POOL {
        s[AT_CHANGES + i] = g.pick(&[-1.0, 1e-12, 0.5, -1e-9, 0.0, 2.0, f64::NAN, -0.5, 1.0]);
    }
    (s, p)
}

/// What the Rust machine does on script `s`, in the probe's trace layout.
fn rust_trace(s: &[f64], p: &SolverParams) -> Vec<f64> {
    let mut m = Machine::new(p);
    let mut used = [0usize; 4];
    let mut t = vec![0.0; TRACE_REALS];
    let mut n = 0;
    while n < MAX_ASKS && m.ask() != Ask::Done {
        let (kind, forcing, value, _next) = match m.ask() {
            Ask::Energy => {
                let e = s[AT_ENERGIES + used[0] % POOL];
                used[0] += 1;
                (0, 0, 0.0, m.energy(e))
            }
            Ask::Direction(tol) => {
                let d = AT_DIRECTIONS + 5 * (used[1] % POOL);
                let flags = s[d + 4] as u32;
                let rhs_norm = s[d + 1];
                let eta = tol.relative(rhs_norm, s[AT_EPR]);
                let dir = Direction {
                    norm: s[d],
                    cg_iterations: s[d + 3] as u32,
                    cg_converged: flags & 1 != 0,
                    below_resolution: flags & 2 != 0,
                    near_resolution: flags & 4 != 0,
                    cg_tolerance: eta,
                    rhs_norm,
                    error_bound: s[d + 2],
                };
                let failure = (s[AT_FAILURES + used[1] % POOL] != 0.0).then(|| "x".to_string());
                used[1] += 1;
                let forcing = matches!(tol, CgTolerance::Forcing { .. });
                (1, u32::from(forcing), eta, m.direction(dir, failure))
            }
            Ask::CcdBound => {
                let a = s[AT_CCD + used[2] % POOL];
                used[2] += 1;
                (2, 0, 0.0, m.ccd_bound(a))
            }
            Ask::EnergyChange(alpha) => {
                let de = s[AT_CHANGES + used[3] % (2 * POOL)];
                used[3] += 1;
                (3, 0, alpha, m.energy_change(de))
            }
            Ask::Advance(alpha) => (4, 0, alpha, m.advanced()),
            Ask::Done => unreachable!(),
        };
        t[1 + 3 * n..4 + 3 * n].copy_from_slice(&[kind as f64, forcing as f64, value]);
        n += 1;
    }
    t[0] = n as f64;
    let st = m.stats().clone();
    let failed = m.clone().finish().err().map(|e| e.0);
    let fail = match failed.as_deref() {
        None => 0,
        Some(e) if e.contains("at the start") => 1,
        Some(e) if e.contains("after a step") => 2,
        Some(e) if e.contains("NaN") => 3,
        Some(_) => 4,
    };
    let stall = match st.stall {
        None => 0,
        Some(Stall::CcdZero) => 1,
        Some(Stall::LineSearch) => 2,
        Some(Stall::NonFiniteDirection) => 3,
        Some(Stall::NoDecrease) => 4,
    };
    let f = 1 + 3 * MAX_ASKS;
    t[f..].copy_from_slice(&[
        st.iterations as f64,
        st.halvings as f64,
        st.recomputed_directions as f64,
        st.cg_unconverged as f64,
        st.cg_iterations as f64,
        f64::from(st.converged),
        f64::from(st.line_search_failed),
        f64::from(st.resolution_limited),
        f64::from(st.capped),
        stall as f64,
        fail as f64,
        st.residual,
        st.alpha_min,
        st.ccd_alpha_min,
        st.energies.len() as f64,
        st.energies.last().copied().unwrap_or(0.0),
    ]);
    t
}

/// The device's traces of `scripts` in `precision` (f32 or f64), or `None` without
/// an adapter (with f64, for f64) outside CI.
fn device_traces(scripts: &[f64], precision: GpuPrecision) -> Option<Vec<f64>> {
    let f64 = precision == GpuPrecision::F64;
    let features = match f64 {
        true => wgpu::Features::SHADER_F64,
        false => wgpu::Features::empty(),
    };
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::PRIMARY;
    let inst = wgpu::Instance::new(desc.with_env());
    let adapter = match pollster::block_on(inst.request_adapter(&Default::default())) {
        Ok(a) if a.features().contains(features) => a,
        other => {
            let why = format!(
                "no adapter with {features:?} ({:?})",
                other.map(|a| a.get_info())
            );
            assert!(std::env::var_os("CI").is_none(), "CI is set but {why}");
            eprintln!("skipping: {why}");
            return None;
        }
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_features: features,
        ..Default::default()
    }))
    .unwrap();
    let source =
        springsim::backend::gpu::shaders::compose_for("newton/machine_probe.wgsl", "", precision)
            .unwrap();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("newton machine probe"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipe = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("newton_machine_probe"),
        compilation_options: Default::default(),
        cache: None,
    });
    let width = if f64 { 8 } else { 4 };
    let bytes: Vec<u8> = match f64 {
        true => scripts.iter().flat_map(|v| v.to_le_bytes()).collect(),
        false => scripts
            .iter()
            .flat_map(|v| (*v as f32).to_le_bytes())
            .collect(),
    };
    let count = scripts.len() / SCRIPT_REALS;
    let out_bytes = (count * TRACE_REALS * width) as u64;
    let buffer = |size, usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    let storage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
    let script_buf = buffer(bytes.len() as u64, storage);
    queue.write_buffer(&script_buf, 0, &bytes);
    let trace_buf = buffer(out_bytes, storage);
    let staging = buffer(
        out_bytes,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    );
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipe.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: script_buf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: trace_buf.as_entire_binding(),
            },
        ],
    });
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipe);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups((count as u32).div_ceil(64), 1, 1);
    }
    enc.copy_buffer_to_buffer(&trace_buf, 0, &staging, 0, out_bytes);
    queue.submit([enc.finish()]);
    let raw = springsim::backend::gpu::readback::map_and_read(&device, &staging, out_bytes);
    Some(match f64 {
        true => raw
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
        false => raw
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
            .collect(),
    })
}

/// Rust's traces and the scripts of `seeds`, the scripts rounded to f32 first where
/// `f32` says (both sides then read the same numbers).
fn traces_and_scripts(seeds: std::ops::Range<u64>, f32: bool) -> (Vec<Vec<f64>>, Vec<f64>) {
    let (mut expected, mut all) = (Vec::new(), Vec::new());
    for seed in seeds {
        let (mut s, mut p) = script(seed);
        if f32 {
            s.iter_mut().for_each(|v| *v = *v as f32 as f64);
            for v in [
                &mut p.dt,
                &mut p.tolerance,
                &mut p.cg_tolerance,
                &mut p.forcing_start,
            ] {
                *v = *v as f32 as f64;
            }
        }
        expected.push(rust_trace(&s, &p));
        all.extend(s);
    }
    (expected, all)
}

/// The same value, NaN included.
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn the_wgsl_machine_asks_and_decides_as_the_rust_one() {
    let (expected, all) = traces_and_scripts(0..4000, false);
    let Some(device) = device_traces(&all, GpuPrecision::F64) else {
        return;
    };
    let mut asks = 0.0;
    let mut kinds = [0usize; 5];
    for (k, want) in expected.iter().enumerate() {
        let got = &device[k * TRACE_REALS..(k + 1) * TRACE_REALS];
        let n = want[0] as usize;
        asks += want[0];
        for i in 0..n {
            kinds[want[1 + 3 * i] as usize] += 1;
        }
        let differs = (0..TRACE_REALS).find(|&i| !same(want[i], got[i]));
        assert!(
            differs.is_none(),
            "seed {k}: first difference at {:?}\nrust   {:?}\ndevice {:?}",
            differs,
            &want[..1 + 3 * n],
            &got[..1 + 3 * n]
        );
    }
    // the scripts reach every kind of question, many times
    assert!(kinds.iter().all(|&c| c > 500), "{kinds:?}");
    eprintln!(
        "{} scripts, {asks} questions, by kind {kinds:?}",
        expected.len()
    );
}

/// In f32 the device takes the same decisions (every question, its kind and the
/// counts and flags of the outcome) and asks for tolerances and step fractions
/// within 32 f32 units in the last place of the Rust machine's (fed the same f32
/// numbers; Eisenstat–Walker's η rounds a few times).
#[test]
fn in_f32_the_wgsl_machine_takes_the_same_decisions() {
    let (expected, all) = traces_and_scripts(0..4000, true);
    let Some(device) = device_traces(&all, GpuPrecision::F32) else {
        return;
    };
    let close = |a: f64, b: f64| {
        same(a, b) || (a - b).abs() <= 32.0 * f32::EPSILON as f64 * a.abs().max(b.abs())
    };
    for (k, want) in expected.iter().enumerate() {
        let got = &device[k * TRACE_REALS..(k + 1) * TRACE_REALS];
        let n = want[0] as usize;
        assert_eq!(want[0], got[0], "seed {k}: questions");
        for i in 0..n {
            let at = 1 + 3 * i;
            assert_eq!(want[at..at + 2], got[at..at + 2], "seed {k}: question {i}");
            let (w, g) = (want[at + 2], got[at + 2]);
            assert!(close(w, g), "seed {k}: question {i}: {w} {g}");
        }
        let f = 1 + 3 * MAX_ASKS;
        // counts and flags exactly; residual, α and energies within rounding
        assert_eq!(want[f..f + 11], got[f..f + 11], "seed {k}: outcome");
        for i in f + 11..TRACE_REALS {
            assert!(
                close(want[i], got[i]),
                "seed {k}: outcome {i}: {} {}",
                want[i],
                got[i]
            );
        }
    }
}
