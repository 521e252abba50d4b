//! `springsim devices [--calibrate]`: the GPU adapters wgpu sees, and for each on a
//! primary backend (Vulkan, Metal, DX12) what it was measured to do, the figures the
//! cost model and the `auto` choices use ([`crate::backend::gpu::profiles`]).

use crate::backend::gpu::calibrate::Measured;
use crate::backend::gpu::{context, profiles};
use crate::precision::GpuPrecision;
use std::process::ExitCode;

/// Arguments of `springsim devices`.
#[derive(clap::Args, Debug)]
pub struct DevicesArgs {
    /// Measure every adapter on a primary backend now (streaming bandwidth, the cost
    /// of a dispatch, of its recording and of a readback, f32 and f64 arithmetic:
    /// a few hundred milliseconds on a GPU, seconds on lavapipe) and cache the
    /// figures per adapter and driver, replacing what was cached.
    #[arg(long)]
    pub calibrate: bool,
}

/// Runs `springsim devices`.
pub fn main(args: DevicesArgs) -> ExitCode {
    let adapters = context::list_adapters();
    if adapters.is_empty() {
        println!("no GPU adapters found (install a Vulkan driver, e.g. mesa-vulkan-drivers)");
    }
    let mut failed = false;
    for desc in adapters {
        println!("{desc}");
        let Some(adapter) = context::adapter_described(&desc) else {
            continue; // not on a primary backend: springsim never opens it
        };
        let software = adapter.get_info().device_type == wgpu::DeviceType::Cpu;
        let measured = if args.calibrate {
            match profiles::measure_and_store(&adapter, &desc) {
                Ok((m, at)) => {
                    match at {
                        Ok(p) => println!(
                            "  measured in {:.2} s, cached in {}",
                            m.seconds,
                            p.display()
                        ),
                        Err(e) => println!("  measured in {:.2} s, not cached: {e}", m.seconds),
                    }
                    Some(m)
                }
                Err(e) => {
                    eprintln!("error: calibrating {desc}: {e}");
                    failed = true;
                    None
                }
            }
        } else {
            profiles::load(&desc)
        };
        match measured {
            Some(m) => print_measured(&m, &adapter),
            None if !args.calibrate => println!(
                "  not measured: the cost model uses fitted figures ({}); `springsim devices --calibrate` measures it{}",
                crate::backend::gpu::cost_model::fixture_for(&desc, software).name,
                if software { "" } else { " (a GPU run does at its first start)" }
            ),
            None => {}
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The measured figures of one adapter and what `precision = "auto"` takes there.
fn print_measured(m: &Measured, adapter: &wgpu::Adapter) {
    println!(
        "  bandwidth {:.1} GB/s, dispatch {:.2} µs (recording {:.2} µs), submission with readback {:.0} µs",
        m.bandwidth_gb_s, m.dispatch_us, m.host_us_per_dispatch, m.readback_us
    );
    let has_f64 = adapter.features().contains(wgpu::Features::SHADER_F64);
    let f64 = match (m.f64_gflop_s, m.f64_rate()) {
        (Some(r), Some(rate)) => format!("f64 {r:.1} GFLOP/s ({rate:.3} of f32)"),
        _ => "no f64".into(),
    };
    let auto = GpuPrecision::auto_for(has_f64, m.f64_rate());
    println!(
        "  f32 {:.1} GFLOP/s, {f64}: precision auto runs {}",
        m.f32_gflop_s,
        auto.name()
    );
}
