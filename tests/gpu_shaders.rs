//! Tier A of the GPU tests (no device needed): every composed kernel parses and
//! validates with naga, every entry point stays within wgpu's default limit of
//! storage buffers (the mat-vec with contact pairs within the limit its scenes ask
//! for), in every precision mode, and the host writes every member of the
//! WGSL structs at the offsets naga lays out.

use springsim::backend::gpu::kernels::Kernel;
use springsim::backend::gpu::layout::{GpuSpring, Layouts, NodeInfo, Params};
use springsim::backend::gpu::pipelines::reflect;
use springsim::backend::gpu::shaders::{compose, source, SOURCES};
use springsim::precision::GpuPrecision;

#[test]
fn every_kernel_composes_parses_and_validates() {
    for (path, entries) in Kernel::files() {
        let r = reflect(path).unwrap_or_else(|e| panic!("{e}"));
        for name in entries.iter().map(|k| k.entry_point()) {
            assert!(
                r.entry_bindings.iter().any(|(n, _)| n == name),
                "{path}: no entry point {name}"
            );
        }
        assert_eq!(
            r.entry_bindings.len(),
            entries.len(),
            "{path}: Kernel lists every entry point"
        );
    }
}

/// The batched ensemble's kernel (src/ensemble/device.rs builds it apart from the
/// backend's kernel list) parses and validates in every precision, without implicit
/// walls and with seed 004's three containers compiled in.
#[test]
fn the_ensemble_kernel_validates_in_every_precision() {
    let mut walls = Vec::new();
    for name in ["circle_balls", "diamond_balls", "sextic_balls"] {
        walls.extend(springsim::scene::load(name).unwrap().model.implicit_walls);
    }
    for generated in [&walls[..0], &walls[..]].map(springsim::implicit::wgsl::generate) {
        for precision in springsim::precision::GpuPrecision::ALL {
            let r = springsim::backend::gpu::pipelines::reflect_for(
                "ensemble/round.wgsl",
                &generated,
                precision,
            )
            .unwrap_or_else(|e| panic!("ensemble/round.wgsl in {}: {e}", precision.name()));
            assert!(
                r.entry_bindings.iter().any(|(n, _)| n == "ensemble_round"),
                "no entry point ensemble_round"
            );
        }
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

#[test]
fn the_host_writes_every_member_of_the_wgsl_structs_in_every_precision() {
    for precision in GpuPrecision::ALL {
        let lay = Layouts::new(precision).unwrap();
        let w = precision.bytes(springsim::precision::RealClass::State) as u32;
        // sizes as WGSL lays them out: reals of the mode's width, vec4 aligned to 4 of them
        assert_eq!(lay.lanes.size, 8 * w, "{precision:?} Lanes");
        assert_eq!(lay.node_info.size, 2 * w + 8, "{precision:?} NodeInfo");
        let lw = precision.bytes(springsim::precision::RealClass::Linear) as u32;
        assert_eq!(lay.spring.size, 8 + 2 * lw, "{precision:?} Spring");
        // every member of Params gets a non-zero value from a Params without zeros
        let p = Params {
            n_nodes: 1,
            n_springs: 2,
            n_walls: 3,
            dim: 3,
            potential_weight: 0.5,
            dhat: 0.1,
            kappa: 3.0,
            barrier_kind: 1,
            dt: 0.125,
            integrator: 1,
            cg_max_iterations: 9,
            node_partials: 4,
            element_partials: 5,
            friction_slots: 6,
            friction_eps: 1e-3,
            self_friction: 0.75,
            gravity: [1.0; 4],
            walls: [[2.0; 4]; 32],
            wall_shift: [[1.5; 4]; 16],
            implicit_frames: [[[1.25; 4]; 3]; 16],
            implicit_carry: [[[1.75; 4]; 3]; 16],
            friction_mu: [[0.5; 4]; 8],
            mas: [7; 4],
            mas_levels: [[8; 4]; 16],
            contact: [[9; 4]; 6],
        };
        let bytes = lay.encode_params(&p);
        assert_eq!(bytes.len(), lay.params.size as usize);
        for m in &lay.params.members {
            let values = lay.params.get(&bytes, 0, &m.name);
            assert!(
                values.iter().all(|v| *v != 0.0),
                "{precision:?}: Params.{} is not written ({values:?})",
                m.name
            );
        }
        assert_eq!(
            lay.params.get1(&bytes, 0, "dhat") == 0.1,
            precision != GpuPrecision::F32
        );
        // NodeInfo and Spring round trips at their array stride
        let nodes = [NodeInfo {
            mass: 2.0,
            area: 0.1,
            fixed: true,
        }; 3];
        let nb = lay.encode_nodes(&nodes);
        assert_eq!(nb.len(), 3 * lay.node_info.size as usize);
        let base = 2 * lay.node_info.size as usize;
        assert_eq!(lay.node_info.get1(&nb, base, "mass"), 2.0);
        assert_eq!(lay.node_info.get1(&nb, base, "fixed"), 1.0);
        let springs = [GpuSpring {
            a: 4,
            b: 9,
            rest_length_sq: 0.25,
            stiffness: 1e3,
        }; 2];
        let sb = lay.encode_springs(&springs);
        let base = lay.spring.size as usize;
        assert_eq!(lay.spring.get1(&sb, base, "b"), 9.0);
        assert_eq!(lay.spring.get1(&sb, base, "stiffness"), 1e3);
        // the CG state's u32 flags follow its reals
        assert!(lay.cg_state.offset("iterations") >= 7 * w as u64);
    }
}

/// Every kernel is listed once in `Kernel::ALL`, in declaration order, each with its own entry point.
#[test]
fn all_lists_every_kernel_once_in_declaration_order() {
    for (i, k) in Kernel::ALL.iter().enumerate() {
        assert_eq!(k.index(), i, "{k:?}");
    }
    let mut names: Vec<_> = Kernel::ALL.iter().map(|k| k.entry_point()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), Kernel::ALL.len());
}

/// Every kernel fits wgpu's default of eight storage buffers per stage, so a scene
/// without contact pairs opens the device with default limits; the kernels of contact
/// pairs (which only such scenes record) need at most `CONTACT_STORAGE_BUFFERS`,
/// which such scenes ask for.
#[test]
fn storage_buffers_per_kernel_fit_the_limits_the_scenes_ask_for() {
    use springsim::backend::gpu::pipelines::CONTACT_STORAGE_BUFFERS;
    for (path, kernels) in Kernel::files() {
        let refl = reflect(path).unwrap();
        for k in kernels {
            let (_, used) = refl
                .entry_bindings
                .iter()
                .find(|(n, _)| n == k.entry_point())
                .unwrap();
            let storage = used.iter().filter(|(_, uniform)| !uniform).count() as u32;
            let pairs_only = k == Kernel::NewtonMatvecPairs
                || [
                    "kernels/broad_phase.wgsl",
                    "kernels/pairs.wgsl",
                    "kernels/pair_assemble.wgsl",
                    "kernels/pair_friction.wgsl",
                ]
                .contains(&path);
            let most = if pairs_only {
                CONTACT_STORAGE_BUFFERS
            } else {
                8
            };
            assert!(storage <= most, "{k:?} binds {storage} storage buffers");
        }
    }
}
