//! GPU backends in one process share one device per adapter, features and limits
//! (`backend::gpu::shared_device`): the second simulation of a scene opens none,
//! and both step as if each had its own.

mod common;
use springsim::backend::gpu::shared_device;
use springsim::sim::Simulation;

#[test]
fn two_backends_of_one_scene_share_a_device_and_step_alike() {
    let scene = springsim::scene::load("square_drop").unwrap();
    let Some(a) = common::gpu_backend(scene.model.clone(), Default::default()) else {
        return;
    };
    assert_eq!(shared_device::opened(), 1);
    let b = common::gpu_backend(scene.model.clone(), Default::default()).unwrap();
    assert_eq!(
        shared_device::opened(),
        1,
        "the second backend opened no device"
    );
    let mut sa = Simulation::new(Box::new(a), &scene.model);
    let mut sb = Simulation::new(Box::new(b), &scene.model);
    // interleaved on one queue, the same steps to the bit
    for _ in 0..40 {
        let (ra, rb) = (sa.step().unwrap(), sb.step().unwrap());
        assert_eq!(ra.newton_iterations, rb.newton_iterations);
    }
    assert_eq!(sa.backend().positions(), sb.backend().positions());
    // another precision is another device
    let mut model = scene.model.clone();
    model.solver.precision = match sa.backend().precision_name() {
        "f32" => springsim::precision::PrecisionChoice::F64,
        _ => springsim::precision::PrecisionChoice::F32,
    };
    if let Ok(c) = springsim::backend::gpu::GpuBackend::new(model) {
        let same_features = c.precision().needs_f64() == (sa.backend().precision_name() != "f32");
        assert_eq!(shared_device::opened(), if same_features { 1 } else { 2 });
    }
}
