//! Opening the GPU backend in a test: never skipped where `CI` is set.

/// Opens the GPU backend, or: panics when `CI` is set (GPU tests never skip in CI),
/// else prints why and returns `None` so the caller skips.
pub fn gpu_backend(
    mut model: springsim::model::Model,
    opts: springsim::backend::gpu::GpuOptions,
) -> Option<springsim::backend::gpu::GpuBackend> {
    // These tests compare wall contact; contact between bodies on the GPU is
    // tests/gpu_self_contact.rs (and the CPU's, tests/self_contact_scenes.rs).
    model.self_contact.enabled = false;
    match springsim::backend::gpu::GpuBackend::with_options(model, opts) {
        Ok(g) => {
            eprintln!("GPU adapter: {}", g.adapter());
            Some(g)
        }
        Err(e) => {
            if std::env::var_os("CI").is_some() {
                panic!("CI is set but the GPU backend cannot start: {e}");
            }
            eprintln!("skipping GPU test (no adapter): {e}");
            None
        }
    }
}

/// The GPU backend for `model` with `opts`, its contact between bodies kept (unlike
/// [`gpu_backend`]); `None` where there is no adapter (panics when `CI` is set).
pub fn gpu_with_options(
    model: &springsim::model::Model,
    opts: springsim::backend::gpu::GpuOptions,
) -> Option<springsim::backend::gpu::GpuBackend> {
    match springsim::backend::gpu::GpuBackend::with_options(model.clone(), opts) {
        Ok(g) => Some(g),
        Err(e) if std::env::var_os("CI").is_some() => panic!("CI is set but no GPU: {e}"),
        Err(e) => {
            eprintln!("skipping GPU test (no adapter): {e}");
            None
        }
    }
}

/// [`gpu_with_options`] with the default options, boxed.
pub fn gpu_with_contact(
    model: &springsim::model::Model,
) -> Option<Box<dyn springsim::backend::Backend>> {
    gpu_with_options(model, Default::default()).map(|g| Box::new(g) as _)
}

/// `model` simulated on the GPU with `opts` (contact between bodies kept); `None`
/// where there is no adapter (panics when `CI` is set).
pub fn gpu_simulation(
    model: &springsim::model::Model,
    opts: springsim::backend::gpu::GpuOptions,
) -> Option<springsim::sim::Simulation> {
    let g = gpu_with_options(model, opts)?;
    Some(springsim::sim::Simulation::new(Box::new(g), model))
}
