//! Tier A of the GPU tests (no device needed): every composed kernel parses and
//! validates with naga, every entry point stays within wgpu's default limit of
//! storage buffers, and the Rust twins of the WGSL structs have the same layout.

use springsim::backend::gpu::kernels::Kernel;
use springsim::backend::gpu::layout::{
    CgState, GpuSpring, Lanes, NodeInfo, Params, LS_ALPHA_OFFSET,
};
use springsim::backend::gpu::pipelines::reflect;
use springsim::backend::gpu::shaders::{compose, source, SOURCES};
use std::mem::{offset_of, size_of};

#[test]
fn every_kernel_composes_parses_and_validates() {
    for (path, entries) in Kernel::files() {
        let r = reflect(path).unwrap_or_else(|e| panic!("{e}"));
        for name in entries.iter().map(|k| k.entry_point()) {
            let (_, used) = r
                .entry_bindings
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("{path}: no entry point {name}"));
            let storage = used.iter().filter(|(_, uniform)| !uniform).count();
            assert!(
                storage <= 8,
                "{path}::{name} uses {storage} storage buffers; wgpu's default limit is 8"
            );
        }
        assert_eq!(
            r.entry_bindings.len(),
            entries.len(),
            "{path}: Kernel lists every entry point"
        );
    }
}

#[test]
fn every_kernel_validates_in_every_precision_with_implicit_walls() {
    let scene = springsim::scene::load("scenes/sextic_balls.toml").unwrap();
    let generated = springsim::implicit::wgsl::generate(&scene.model.implicit_walls);
    for precision in springsim::precision::GpuPrecision::ALL {
        for (path, _) in Kernel::files() {
            springsim::backend::gpu::pipelines::reflect_for(path, &generated, precision)
                .unwrap_or_else(|e| panic!("{}: {e}", precision.name()));
        }
    }
}

#[test]
fn every_shader_file_is_embedded_and_imports_resolve() {
    let dir = std::path::Path::new("shaders");
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "wgsl") {
                files.push(
                    p.strip_prefix(dir)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/"),
                );
            }
        }
    }
    for f in &files {
        let embedded = source(f).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            embedded,
            std::fs::read_to_string(dir.join(f)).unwrap(),
            "{f}: embedded copy is stale"
        );
        compose(f).unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(
        files.len(),
        SOURCES.len(),
        "SOURCES lists every file under shaders/"
    );
    assert!(compose("nope.wgsl").is_err());
}

fn wgsl_struct(
    module: &naga::Module,
    layouter: &naga::proc::Layouter,
    name: &str,
) -> (u32, Vec<(String, u32)>) {
    let (h, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no WGSL struct {name}"));
    let members = match &ty.inner {
        naga::TypeInner::Struct { members, .. } => members
            .iter()
            .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
            .collect(),
        _ => panic!("{name} is not a struct"),
    };
    (layouter[h].size, members)
}

#[test]
fn rust_twins_match_the_wgsl_layouts() {
    let src = compose("bindings.wgsl").unwrap();
    let module = naga::front::wgsl::parse_str(&src).unwrap();
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    let offset = |members: &[(String, u32)], f: &str| {
        members
            .iter()
            .find(|(n, _)| n == f)
            .unwrap_or_else(|| panic!("no member {f}"))
            .1 as usize
    };

    let (size, m) = wgsl_struct(&module, &layouter, "Params");
    assert_eq!(size as usize, size_of::<Params>());
    assert_eq!(
        offset(&m, "potential_weight"),
        offset_of!(Params, potential_weight)
    );
    assert_eq!(
        offset(&m, "cg_max_iterations"),
        offset_of!(Params, cg_max_iterations)
    );
    assert_eq!(
        offset(&m, "element_partials"),
        offset_of!(Params, element_partials)
    );
    assert_eq!(offset(&m, "gravity"), offset_of!(Params, gravity));
    assert_eq!(offset(&m, "walls"), offset_of!(Params, walls));
    assert_eq!(offset(&m, "friction_eps"), offset_of!(Params, friction_eps));
    assert_eq!(offset(&m, "friction_mu"), offset_of!(Params, friction_mu));

    let (size, m) = wgsl_struct(&module, &layouter, "CgState");
    assert_eq!(size as usize, size_of::<CgState>());
    assert_eq!(offset(&m, "ls_alpha") as u64, LS_ALPHA_OFFSET);
    assert_eq!(offset(&m, "ls_alpha"), offset_of!(CgState, ls_alpha));
    assert_eq!(offset(&m, "converged"), offset_of!(CgState, converged));

    let (size, m) = wgsl_struct(&module, &layouter, "NodeInfo");
    assert_eq!(size as usize, size_of::<NodeInfo>());
    assert_eq!(offset(&m, "fixed"), offset_of!(NodeInfo, fixed));
    let (size, m) = wgsl_struct(&module, &layouter, "Spring");
    assert_eq!(size as usize, size_of::<GpuSpring>());
    assert_eq!(offset(&m, "stiffness"), offset_of!(GpuSpring, stiffness));
    let (size, m) = wgsl_struct(&module, &layouter, "Lanes");
    assert_eq!(size as usize, size_of::<Lanes>());
    assert_eq!(offset(&m, "mixed"), offset_of!(Lanes, mixed));
}
