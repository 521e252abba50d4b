//! The wgpu instance, adapter, device and queue a GPU run uses, the precision mode
//! it runs in, and the adapter list.

use crate::precision::{GpuPrecision, PrecisionChoice};

/// Environment variable that makes every adapter look as if it had no f64 shaders
/// (`1`): how the tests reach the refusal and fallback of the f64 modes on an
/// adapter that has them.
pub const HIDE_F64_ENV: &str = "SPRINGSIM_GPU_HIDE_F64";

/// An open GPU device and what it is.
pub struct GpuContext {
    /// The adapter the device was opened on.
    pub adapter: wgpu::Adapter,
    /// The logical device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Name, backend API, device type and driver of the adapter.
    pub info: wgpu::AdapterInfo,
    /// The limits the device was opened with.
    pub limits: wgpu::Limits,
    /// The precision mode the kernels run in.
    pub precision: GpuPrecision,
    /// Whether the adapter has f64 shaders (`SHADER_F64`, unless hidden).
    pub has_f64: bool,
    /// Whether the device was opened with timestamp queries for the kernel profiler.
    pub profile: bool,
}

/// What a scene needs from the device, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// The largest single storage buffer.
    pub largest_buffer: u64,
    /// A name for that buffer, for error messages.
    pub largest_buffer_name: &'static str,
    /// Storage buffers one kernel binds at most (wgpu's default limit is 8; contact
    /// pairs need [`super::pipelines::CONTACT_STORAGE_BUFFERS`]).
    pub storage_buffers: u32,
    /// Whether buffers grow during the run (the contact pairs'): then the device is
    /// opened with the adapter's largest buffer and binding sizes.
    pub grows: bool,
}

fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    // Vulkan, Metal, DX12 (and WebGPU); never silently the GL fallback.
    desc.backends = wgpu::Backends::PRIMARY;
    wgpu::Instance::new(desc.with_env())
}

/// One line describing an adapter: name, backend API, device type, driver.
pub fn describe(info: &wgpu::AdapterInfo) -> String {
    let driver = if info.driver.is_empty() {
        String::new()
    } else {
        format!(", {} {}", info.driver, info.driver_info)
    };
    format!(
        "{} ({:?}, {:?}{})",
        info.name, info.backend, info.device_type, driver
    )
}

/// Every adapter wgpu sees on any backend, described in one line each.
pub fn list_adapters() -> Vec<String> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::all();
    let inst = wgpu::Instance::new(desc.with_env());
    pollster::block_on(inst.enumerate_adapters(wgpu::Backends::all()))
        .iter()
        .map(|a| describe(&a.get_info()))
        .collect()
}

/// The adapter [`GpuContext::new`] would open, without opening a device.
pub fn preferred_adapter() -> Result<wgpu::AdapterInfo, String> {
    preferred_adapter_limits().map(|(info, _)| info)
}

/// The adapter [`GpuContext::new`] would open and its own limits, without opening
/// a device.
pub fn preferred_adapter_limits() -> Result<(wgpu::AdapterInfo, wgpu::Limits), String> {
    preferred().map(|a| (a.get_info(), a.limits()))
}

/// The adapter [`GpuContext::new`] opens: high performance, on a primary backend.
fn preferred() -> Result<wgpu::Adapter, String> {
    pollster::block_on(instance().request_adapter(&adapter_options()))
        .map_err(|e| format!("no GPU adapter found on Vulkan/Metal/DX12 ({e})"))
}

/// The adapter [`GpuContext::new`] would open, its limits, and the cost model's
/// profile of it: its measurement ([`super::profiles::measured`], which measures it
/// now where the policy says so) or the fixture.
pub fn preferred_profile() -> Result<
    (
        wgpu::AdapterInfo,
        wgpu::Limits,
        super::cost_model::DeviceProfile,
    ),
    String,
> {
    let adapter = preferred()?;
    let info = adapter.get_info();
    let profile = super::profiles::profile_of_adapter(&adapter, &describe(&info));
    Ok((info, adapter.limits(), profile))
}

/// The adapter with `desc` among every adapter wgpu sees on a primary backend.
pub fn adapter_described(desc: &str) -> Option<wgpu::Adapter> {
    let inst = instance();
    pollster::block_on(inst.enumerate_adapters(wgpu::Backends::PRIMARY))
        .into_iter()
        .find(|a| describe(&a.get_info()) == desc)
}

fn adapter_options() -> wgpu::RequestAdapterOptions<'static, 'static> {
    wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: None,
        apply_limit_buckets: false,
    }
}

impl GpuContext {
    /// Opens the preferred adapter (high performance) on a primary backend in the
    /// precision `choice` resolves to there (an error for an f64 mode on an adapter
    /// without f64; `hide_f64` pretends it has none), with wgpu's default limits
    /// unless `needs` (the scene's buffers in that mode) asks for more; then with the
    /// adapter's own limits, or an error naming the scene size and the adapter's
    /// limit.
    pub fn new(
        needs: &dyn Fn(GpuPrecision) -> Result<Needs, String>,
        choice: PrecisionChoice,
        opts: super::GpuOptions,
    ) -> Result<Self, String> {
        let hide_f64 = opts.hide_f64;
        let adapter = preferred()?;
        let info = adapter.get_info();
        let desc = describe(&info);
        let hidden = hide_f64 || std::env::var(HIDE_F64_ENV).is_ok_and(|v| v == "1");
        let has_f64 = !hidden && adapter.features().contains(wgpu::Features::SHADER_F64);
        let f64_rate = super::profiles::measured(&adapter, &desc).map(|k| k.profile.f64_rate);
        let precision = choice.resolve(has_f64, f64_rate, &desc)?;
        let needs = needs(precision)?;
        let defaults = wgpu::Limits::default();
        let fits = |l: &wgpu::Limits| {
            needs.largest_buffer <= l.max_storage_buffer_binding_size
                && needs.largest_buffer <= l.max_buffer_size
        };
        let limits = if fits(&defaults) && !needs.grows {
            defaults
        } else {
            let al = adapter.limits();
            if !fits(&al) {
                let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
                return Err(format!(
                    "the scene needs a storage buffer of {} bytes ({:.2} MiB, `{}`), but adapter {} allows at most {} bytes ({:.2} MiB) per storage binding and {:.2} MiB per buffer",
                    needs.largest_buffer,
                    mib(needs.largest_buffer),
                    needs.largest_buffer_name,
                    desc,
                    al.max_storage_buffer_binding_size,
                    mib(al.max_storage_buffer_binding_size),
                    mib(al.max_buffer_size)
                ));
            }
            wgpu::Limits {
                max_storage_buffer_binding_size: al.max_storage_buffer_binding_size,
                max_buffer_size: al.max_buffer_size,
                ..defaults
            }
        };
        let mut limits = limits;
        if needs.storage_buffers > limits.max_storage_buffers_per_shader_stage {
            let most = adapter.limits().max_storage_buffers_per_shader_stage;
            if most < needs.storage_buffers {
                return Err(format!(
                    "contact between bodies on the GPU needs {} storage buffers per shader stage, but adapter {} allows {most}; use --backend cpu",
                    needs.storage_buffers,
                    desc
                ));
            }
            limits.max_storage_buffers_per_shader_stage = needs.storage_buffers;
        }
        let mut features = wgpu::Features::empty();
        if precision.needs_f64() {
            features |= wgpu::Features::SHADER_F64;
        }
        if opts.profile_kernels {
            if !adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
                return Err(format!(
                    "--profile-kernels needs timestamp queries, which adapter {} does not offer",
                    desc
                ));
            }
            features |= wgpu::Features::TIMESTAMP_QUERY;
        }
        let (device, queue) = super::shared_device::device(&adapter, &desc, features, &limits)?;
        Ok(Self {
            adapter,
            device,
            queue,
            info,
            limits,
            precision,
            has_f64,
            profile: opts.profile_kernels,
        })
    }

    /// Whether the device was opened with wgpu's default limits on buffer sizes (a
    /// scene with contact pairs also asks for more storage buffers per stage).
    pub fn uses_default_limits(&self) -> bool {
        let d = wgpu::Limits::default();
        self.limits.max_storage_buffer_binding_size == d.max_storage_buffer_binding_size
            && self.limits.max_buffer_size == d.max_buffer_size
    }

    /// Whether the adapter is a software rasteriser on the CPU (lavapipe, WARP, …).
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }
}
