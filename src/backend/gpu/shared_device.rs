//! One wgpu device per adapter, features and limits, opened once per process and
//! shared by every GPU backend that asks for the same: a Python session's
//! simulations, a sweep's batches and the variants that leave them. DESIGN.md §8:
//! devices created from several threads at once have crashed wgpu (here they are
//! created one at a time), and a device dropped at exit from another thread can
//! deadlock (these are kept for the process's life and never dropped).

use std::sync::Mutex;

/// A device opened earlier and what it was opened with.
struct Opened {
    adapter: String,
    features: wgpu::Features,
    limits: wgpu::Limits,
    device: wgpu::Device,
    queue: wgpu::Queue,
}

static OPENED: Mutex<Vec<Opened>> = Mutex::new(Vec::new());

/// Devices opened in this process so far (each distinct adapter, features and limits once).
pub fn opened() -> usize {
    OPENED.lock().unwrap_or_else(|e| e.into_inner()).len()
}

/// The device and queue of `adapter` (described as `desc`) with exactly `features`
/// and `limits`: the one opened earlier in this process, else a new one.
pub fn device(
    adapter: &wgpu::Adapter,
    desc: &str,
    features: wgpu::Features,
    limits: &wgpu::Limits,
) -> Result<(wgpu::Device, wgpu::Queue), String> {
    let mut opened = OPENED.lock().unwrap_or_else(|e| e.into_inner());
    let same = |o: &&Opened| o.adapter == desc && o.features == features && o.limits == *limits;
    if let Some(o) = opened.iter().find(same) {
        return Ok((o.device.clone(), o.queue.clone()));
    }
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("springsim"),
        required_features: features,
        required_limits: limits.clone(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    }))
    .map_err(|e| format!("cannot open a device on {desc}: {e}"))?;
    opened.push(Opened {
        adapter: desc.to_string(),
        features,
        limits: limits.clone(),
        device: device.clone(),
        queue: queue.clone(),
    });
    Ok((device, queue))
}
