//! Every compute pipeline, built once per device, one per [`Kernel`]. The bind-group layout of each
//! entry point is derived from the bindings it actually uses (naga's analysis of the
//! composed module), so `shaders/bindings.wgsl` is the one place a binding is declared
//! and no layout can drift from its shader.

use super::kernels::Kernel;
use super::shaders::compose_for;
use crate::precision::GpuPrecision;

/// One entry point: its pipeline, its bind-group layout and the bindings it uses.
pub struct KernelPipeline {
    /// The compute pipeline.
    pub pipeline: wgpu::ComputePipeline,
    /// Its group-0 layout.
    pub layout: wgpu::BindGroupLayout,
    /// The group-0 binding numbers it uses, ascending.
    pub bindings: Vec<u32>,
}

/// All kernels the device can bind, by [`Kernel::index`]: a kernel that uses more
/// storage buffers than the device allows per shader stage is not built (only
/// scenes with contact pairs use such a kernel, and they ask for the limit).
pub struct Pipelines {
    kernels: Vec<Option<KernelPipeline>>,
}

/// Storage buffers per shader stage the kernels of contact pairs need at most
/// (`newton_matvec_pairs`; the pairs' energies with friction between bodies bind
/// nine); every other kernel fits wgpu's default of eight (a test checks both).
pub const CONTACT_STORAGE_BUFFERS: u32 = 10;

/// A composed module parsed and validated by naga, with per-entry-point binding use.
pub struct Reflected {
    /// The composed WGSL text.
    pub source: String,
    /// For each entry point: the (binding, is_uniform) pairs it uses.
    pub entry_bindings: Vec<(String, Vec<(u32, bool)>)>,
}

/// Composes the kernel file `path`, parses and validates it with naga, and lists the
/// bindings each entry point uses. Errors carry naga's message with the location.
pub fn reflect(path: &str) -> Result<Reflected, String> {
    reflect_with(path, &crate::implicit::wgsl::generate(&[]))
}

/// As [`reflect`], with `generated` as the scene's implicit-wall module.
pub fn reflect_with(path: &str, generated: &str) -> Result<Reflected, String> {
    reflect_for(path, generated, GpuPrecision::F32)
}

/// The naga capabilities a module of `precision` needs.
pub fn capabilities(precision: GpuPrecision) -> naga::valid::Capabilities {
    if precision.needs_f64() {
        naga::valid::Capabilities::FLOAT64
    } else {
        naga::valid::Capabilities::empty()
    }
}

/// As [`reflect_with`], in the given precision mode.
pub fn reflect_for(
    path: &str,
    generated: &str,
    precision: GpuPrecision,
) -> Result<Reflected, String> {
    let source = compose_for(path, generated, precision)?;
    let module = naga::front::wgsl::parse_str(&source)
        .map_err(|e| format!("{path}: {}", e.emit_to_string_with_path(&source, path)))?;
    let info =
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities(precision))
            .validate(&module)
            .map_err(|e| format!("{path}: {}", e.emit_to_string_with_path(&source, path)))?;
    let mut entry_bindings = Vec::new();
    for (k, ep) in module.entry_points.iter().enumerate() {
        let fi = info.get_entry_point(k);
        let mut used = Vec::new();
        for (h, gv) in module.global_variables.iter() {
            if let Some(rb) = &gv.binding {
                if !fi[h].is_empty() {
                    used.push((rb.binding, gv.space == naga::AddressSpace::Uniform));
                }
            }
        }
        used.sort();
        entry_bindings.push((ep.name.clone(), used));
    }
    Ok(Reflected {
        source,
        entry_bindings,
    })
}

impl Pipelines {
    /// Builds every pipeline of [`Kernel::ALL`] on `device` (no implicit walls, f32).
    pub fn new(device: &wgpu::Device) -> Result<Self, String> {
        Self::with_generated(
            device,
            &crate::implicit::wgsl::generate(&[]),
            GpuPrecision::F32,
        )
    }

    /// Builds every pipeline with `generated` as the scene's implicit-wall module, in
    /// `precision`.
    pub fn with_generated(
        device: &wgpu::Device,
        generated: &str,
        precision: GpuPrecision,
    ) -> Result<Self, String> {
        let mut built: Vec<(Kernel, Option<KernelPipeline>)> = Vec::new();
        let most = device.limits().max_storage_buffers_per_shader_stage as usize;
        for (path, entries) in Kernel::files() {
            let refl = reflect_for(path, generated, precision)?;
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(path),
                source: wgpu::ShaderSource::Wgsl(refl.source.clone().into()),
            });
            for kernel in entries {
                let name = kernel.entry_point();
                let used = refl
                    .entry_bindings
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, u)| u.clone())
                    .ok_or_else(|| format!("{path}: no entry point `{name}`"))?;
                if used.iter().filter(|(_, uniform)| !uniform).count() > most {
                    built.push((kernel, None));
                    continue;
                }
                let entries: Vec<wgpu::BindGroupLayoutEntry> = used
                    .iter()
                    .map(|&(binding, uniform)| wgpu::BindGroupLayoutEntry {
                        binding,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::Buffer {
                            ty: if uniform {
                                wgpu::BufferBindingType::Uniform
                            } else {
                                wgpu::BufferBindingType::Storage { read_only: false }
                            },
                            has_dynamic_offset: false,
                            min_binding_size: None,
                        },
                        count: None,
                    })
                    .collect();
                let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some(name),
                    entries: &entries,
                });
                let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(name),
                    bind_group_layouts: &[Some(&layout)],
                    immediate_size: 0,
                });
                let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(name),
                    layout: Some(&pl),
                    module: &module,
                    entry_point: Some(name),
                    compilation_options: Default::default(),
                    cache: None,
                });
                built.push((
                    kernel,
                    Some(KernelPipeline {
                        pipeline,
                        layout,
                        bindings: used.iter().map(|(b, _)| *b).collect(),
                    }),
                ));
            }
        }
        built.sort_by_key(|(k, _)| k.index());
        Ok(Self {
            kernels: built.into_iter().map(|(_, p)| p).collect(),
        })
    }

    /// The pipeline of `kernel`, if the device can bind it.
    pub fn built(&self, kernel: Kernel) -> Option<&KernelPipeline> {
        self.kernels[kernel.index()].as_ref()
    }

    /// The pipeline of `kernel`.
    ///
    /// # Panics
    /// If the device cannot bind it: only a scene that asked the device for
    /// [`CONTACT_STORAGE_BUFFERS`] records such a kernel.
    pub fn get(&self, kernel: Kernel) -> &KernelPipeline {
        self.built(kernel).unwrap_or_else(|| {
            panic!(
                "kernel `{}` needs more storage buffers than the device was opened with",
                kernel.entry_point()
            )
        })
    }
}

/// The bind group of every kernel the device can bind over `buffers`, by
/// [`Kernel::index`].
pub fn bind_groups(
    dev: &wgpu::Device,
    pipes: &Pipelines,
    buffers: &super::buffers::BufferSet<wgpu::Buffer>,
) -> Vec<Option<wgpu::BindGroup>> {
    Kernel::ALL
        .iter()
        .map(|&k| {
            let kernel = pipes.built(k)?;
            let entries: Vec<wgpu::BindGroupEntry> = kernel
                .bindings
                .iter()
                .map(|&b| wgpu::BindGroupEntry {
                    binding: b,
                    resource: buffers
                        .at_binding(b)
                        .expect("the kernel's binding is in bindings.wgsl")
                        .as_entire_binding(),
                })
                .collect();
            Some(dev.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(k.entry_point()),
                layout: &kernel.layout,
                entries: &entries,
            }))
        })
        .collect()
}
