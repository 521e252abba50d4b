//! GPU plumbing for the wgpu backend ([`crate::backend::gpu`]): the device, the
//! embedded WGSL and its composition, the pipelines, and the host twins of the GPU
//! structs. The kernels themselves live in `shaders/`, mirroring `src/energy/`.

pub mod context;
pub mod layout;
pub mod pipelines;
pub mod shaders;
