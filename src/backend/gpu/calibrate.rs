//! The microbenchmarks of `springsim devices --calibrate` (`shaders/calibrate.wgsl`):
//! what an adapter takes per byte streamed, per dispatch, per submission with its
//! readback, and per multiply-add in f32 and in f64. Host clocks around whole
//! submissions, each grown until it takes at least [`MIN_SECONDS`], so that the
//! submission's own latency is a small part of what is timed: a few hundred
//! milliseconds on a hardware GPU, a few seconds on lavapipe.

use crate::precision::GpuPrecision;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The shortest submission a figure is taken from (s).
pub const MIN_SECONDS: f64 = 0.02;
/// Bytes of each of the two streamed buffers.
const STREAM_BYTES: u64 = 32 << 20;
/// Workgroups of one arithmetic dispatch (256 threads each, 8,192 flops a thread).
const ARITHMETIC_GROUPS: u32 = 64;
/// Most repetitions of one kernel in one submission.
const MAX_REPS: u32 = 1 << 15;
/// Submissions with a readback timed; the median is kept.
const READBACKS: usize = 9;

/// What one calibration measured on an adapter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// The adapter as `springsim devices` describes it (name, API, type, driver):
    /// the key of its cache file.
    pub adapter: String,
    /// Whether it is a software adapter (lavapipe).
    pub software: bool,
    /// A streaming kernel's rate, bytes read plus written (GB/s).
    pub bandwidth_gb_s: f64,
    /// Device time of one dispatch of one workgroup that sums 256 values in
    /// workgroup memory and writes one, with the barrier after it (µs).
    pub dispatch_us: f64,
    /// Host time to record one dispatch in a compute pass (µs).
    pub host_us_per_dispatch: f64,
    /// One submission of a copy with its blocking readback (µs, median).
    pub readback_us: f64,
    /// Multiply-adds in f32 (GFLOP/s, two flops each).
    pub f32_gflop_s: f64,
    /// The same in f64; `None` on an adapter without f64 shaders.
    pub f64_gflop_s: Option<f64>,
    /// How long the calibration took (s).
    pub seconds: f64,
    /// The springsim version that measured it.
    pub springsim: String,
}

impl Measured {
    /// f64's multiply-add rate over f32's (`None` without f64 shaders).
    pub fn f64_rate(&self) -> Option<f64> {
        self.f64_gflop_s.map(|r| r / self.f32_gflop_s)
    }
}

/// The device, its buffers and the calibration kernels.
struct Bench {
    device: wgpu::Device,
    queue: wgpu::Queue,
    group: wgpu::BindGroup,
    sink: wgpu::Buffer,
    staging: wgpu::Buffer,
    stream: wgpu::ComputePipeline,
    touch: wgpu::ComputePipeline,
    arithmetic: Vec<(GpuPrecision, wgpu::ComputePipeline)>,
}

/// Measures `adapter` (described as `name`), in f64 too where it has f64 shaders.
pub fn measure(adapter: &wgpu::Adapter, name: &str) -> Result<Measured, String> {
    let started = Instant::now();
    let software = adapter.get_info().device_type == wgpu::DeviceType::Cpu;
    let f64 = adapter.features().contains(wgpu::Features::SHADER_F64);
    let b = Bench::open(adapter, f64)?;
    let vec4s = (STREAM_BYTES / 16) as u32;
    let stream_s = b.timed(&b.stream, vec4s.div_ceil(256))?;
    let (dispatch_s, host_s) = b.dispatch_times()?;
    let mut rates = Vec::new();
    for (p, pipe) in &b.arithmetic {
        let flops = ARITHMETIC_GROUPS as f64 * 256.0 * 8192.0;
        rates.push((*p, flops / b.timed(pipe, ARITHMETIC_GROUPS)? * 1e-9));
    }
    let rate = |p| rates.iter().find(|r| r.0 == p).map(|r| r.1);
    Ok(Measured {
        adapter: name.to_string(),
        software,
        bandwidth_gb_s: 2.0 * STREAM_BYTES as f64 / stream_s * 1e-9,
        dispatch_us: dispatch_s * 1e6,
        host_us_per_dispatch: host_s * 1e6,
        readback_us: b.readback_s() * 1e6,
        f32_gflop_s: rate(GpuPrecision::F32).ok_or("no f32 arithmetic measured")?,
        f64_gflop_s: rate(GpuPrecision::F64),
        seconds: started.elapsed().as_secs_f64(),
        springsim: env!("CARGO_PKG_VERSION").to_string(),
    })
}

/// `calibrate.wgsl` composed with `precision`'s `real`, as a module of `device`.
fn module_for(
    device: &wgpu::Device,
    precision: GpuPrecision,
) -> Result<wgpu::ShaderModule, String> {
    let source = super::shaders::compose_for("calibrate.wgsl", "", precision)?;
    Ok(device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("calibrate.wgsl"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    }))
}

impl Bench {
    fn open(adapter: &wgpu::Adapter, f64: bool) -> Result<Self, String> {
        let features = match f64 {
            true => wgpu::Features::SHADER_F64,
            false => wgpu::Features::empty(),
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("springsim calibration"),
            required_features: features,
            required_limits: wgpu::Limits::default(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| format!("cannot open a device to calibrate: {e}"))?;
        // Errors in what follows come back as values, never through wgpu's handler
        // (which panics): a calibration that fails leaves the fitted figures in use.
        let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let storage = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: false },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("calibration"),
            entries: &[storage(0), storage(1)],
        });
        let buffer = |label, size, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let rw = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        let source = buffer("calibration source", STREAM_BYTES, rw);
        let sink = buffer("calibration sink", STREAM_BYTES, rw);
        let staging = buffer(
            "calibration staging",
            16,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("calibration"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: source.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: sink.as_entire_binding(),
                },
            ],
        });
        let pipes = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("calibration"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let mut modules = vec![(GpuPrecision::F32, module_for(&device, GpuPrecision::F32)?)];
        if f64 {
            modules.push((GpuPrecision::F64, module_for(&device, GpuPrecision::F64)?));
        }
        let pipeline = |module: &wgpu::ShaderModule, entry| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&pipes),
                module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let stream = pipeline(&modules[0].1, "stream");
        let touch = pipeline(&modules[0].1, "touch");
        let arithmetic = modules
            .iter()
            .map(|(p, m)| (*p, pipeline(m, "arithmetic")))
            .collect();
        for scope in [validation, memory] {
            if let Some(e) = pollster::block_on(scope.pop()) {
                return Err(format!("the calibration kernels: {e}"));
            }
        }
        Ok(Self {
            device,
            queue,
            group,
            sink,
            staging,
            stream,
            touch,
            arithmetic,
        })
    }

    /// Records `reps` dispatches of `pipe` over `groups` workgroups in one pass;
    /// returns the encoder and the host time the recording took (s).
    fn record(
        &self,
        pipe: &wgpu::ComputePipeline,
        groups: u32,
        reps: u32,
    ) -> (wgpu::CommandEncoder, f64) {
        let mut enc = self.device.create_command_encoder(&Default::default());
        let started = Instant::now();
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            for _ in 0..reps {
                pass.set_pipeline(pipe);
                pass.set_bind_group(0, &self.group, &[]);
                pass.dispatch_workgroups(groups, 1, 1);
            }
        }
        (enc, started.elapsed().as_secs_f64())
    }

    /// Submits `enc` and waits for the device (s).
    fn submit_and_wait(&self, enc: wgpu::CommandEncoder) -> Result<f64, String> {
        let started = Instant::now();
        self.queue.submit([enc.finish()]);
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("waiting for the device failed: {e}"))?;
        Ok(started.elapsed().as_secs_f64())
    }

    /// Device seconds per dispatch of `pipe` over `groups` workgroups and host
    /// seconds to record one: after one untimed run, repetitions doubled until a
    /// submission takes [`MIN_SECONDS`].
    fn per_dispatch(
        &self,
        pipe: &wgpu::ComputePipeline,
        groups: u32,
    ) -> Result<(f64, f64), String> {
        // One untimed run first: a driver may compile the kernel at its first use
        // (lavapipe does), which is no part of what a dispatch costs.
        self.submit_and_wait(self.record(pipe, groups, 1).0)?;
        let mut reps = 1;
        loop {
            let (enc, host) = self.record(pipe, groups, reps);
            let device = self.submit_and_wait(enc)?;
            if device >= MIN_SECONDS || reps >= MAX_REPS {
                return Ok((device / reps as f64, host / reps as f64));
            }
            reps *= 2;
        }
    }

    /// Device seconds per dispatch of `pipe` over `groups` workgroups.
    fn timed(&self, pipe: &wgpu::ComputePipeline, groups: u32) -> Result<f64, String> {
        self.per_dispatch(pipe, groups).map(|t| t.0)
    }

    /// (device, host) seconds per dispatch of the one-workgroup kernel.
    fn dispatch_times(&self) -> Result<(f64, f64), String> {
        self.per_dispatch(&self.touch, 1)
    }

    /// The median time (s) of a submission with one small kernel and a 16-byte
    /// readback.
    fn readback_s(&self) -> f64 {
        let mut times: Vec<f64> = (0..READBACKS)
            .map(|_| {
                let started = Instant::now();
                let (mut enc, _) = self.record(&self.touch, 1, 1);
                enc.copy_buffer_to_buffer(&self.sink, 0, &self.staging, 0, 16);
                self.queue.submit([enc.finish()]);
                super::readback::map_and_read(&self.device, &self.staging, 16);
                started.elapsed().as_secs_f64()
            })
            .collect();
        times.sort_by(f64::total_cmp);
        times[READBACKS / 2]
    }
}
