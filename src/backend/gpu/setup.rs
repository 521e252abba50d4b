//! Opening the device for a scene: the GPU backend's limits, the parameter block,
//! the uploaded buffers and the pipelines, with device errors during setup turned
//! into messages.

use super::buffers::{BufferSet, BINDING_NAMES};
use super::context::{describe, GpuContext, Needs};
use super::engine::{Dispatch, Engine};
use super::layout::{
    node_block_bytes, CgState, GpuSpring, NodeInfo, Params, MAX_FRICTION_WALLS, MAX_WALLS,
    WORKGROUP,
};
use super::mas::MasPlan;
use super::pipelines::Pipelines;
use super::GpuOptions;
use crate::energy::barrier::BarrierKind;
use crate::linear_solver::PreconditionerKind;
use crate::model::{Integrator, Model};
use wgpu::util::DeviceExt;

/// Workgroups (x, y) covering `groups` with at most `max_x` along x.
fn dims(groups: u32, max_x: u32) -> (u32, u32) {
    let groups = groups.max(1);
    let x = groups.min(max_x.max(1));
    (x, groups.div_ceil(x))
}

/// Friction slots per node: every wall (plane, then implicit) where some wall has
/// friction, else 0.
pub fn friction_slots(model: &Model) -> usize {
    if model.friction.any() {
        model.walls.len() + model.implicit_walls.len()
    } else {
        0
    }
}

/// Refuses what the GPU backend cannot hold: a dimension other than 2 or 3, more
/// walls than its fixed tables, more nodes or springs than 32-bit indices reach.
fn check_limits(model: &Model) -> Result<(), String> {
    let dim = model.dim;
    if !(dim == 2 || dim == 3) {
        return Err(format!("the GPU backend needs dimension 2 or 3, got {dim}"));
    }
    if model.walls.len() > MAX_WALLS {
        return Err(format!(
            "the GPU backend takes at most {MAX_WALLS} walls; the scene has {}",
            model.walls.len()
        ));
    }
    let all_walls = model.walls.len() + model.implicit_walls.len();
    if friction_slots(model) > MAX_FRICTION_WALLS {
        return Err(format!(
            "the GPU backend takes at most {MAX_FRICTION_WALLS} walls in a scene with friction; the scene has {all_walls}"
        ));
    }
    let (n, ns) = (model.num_nodes(), model.springs.len());
    let too_big = |what: &str, count: usize| {
        format!(
            "the scene has {count} {what}; the GPU backend indexes with 32 bits and takes at most {}",
            u32::MAX / 4
        )
    };
    if n * dim > (u32::MAX / 4) as usize {
        return Err(too_big("node coordinates", n * dim));
    }
    if ns + n + 1 > (u32::MAX / 4) as usize {
        return Err(too_big("springs", ns));
    }
    Ok(())
}

/// The uniform parameter block of `model` for the given dispatch sizes and
/// multilevel preconditioner.
fn params(
    model: &Model,
    node_partials: u32,
    element_partials: u32,
    mas: Option<&MasPlan>,
) -> Params {
    let mut walls = [[0f32; 4]; 2 * MAX_WALLS];
    for (w, wall) in model.walls.iter().enumerate() {
        for (k, (n, o)) in wall.normal.iter().zip(&wall.origin).enumerate() {
            walls[2 * w][k] = *n as f32;
            walls[2 * w + 1][k] = *o as f32;
        }
    }
    let mut gravity = [0f32; 4];
    for (g, mg) in gravity.iter_mut().zip(&model.gravity) {
        *g = *mg as f32;
    }
    let slots = friction_slots(model);
    let mut friction_mu = [[0f32; 4]; MAX_FRICTION_WALLS / 4];
    for w in 0..slots {
        friction_mu[w / 4][w % 4] = model.friction.mu(w, model.walls.len()) as f32;
    }
    let s = &model.solver;
    let (mas, mas_levels) = mas.map(MasPlan::params).unwrap_or_default();
    Params {
        n_nodes: model.num_nodes() as u32,
        n_springs: model.springs.len() as u32,
        n_walls: model.walls.len() as u32,
        dim: model.dim as u32,
        potential_weight: s.potential_weight() as f32,
        dhat: model.barrier.dhat as f32,
        kappa: model.barrier.kappa as f32,
        barrier_kind: match model.barrier.kind {
            BarrierKind::Book => 0,
            BarrierKind::Ipc => 1,
        },
        dt: s.dt as f32,
        integrator: match s.integrator {
            Integrator::ImplicitEuler => 0,
            Integrator::Newmark => 1,
        },
        cg_tol_sq: (s.cg_tolerance * s.cg_tolerance) as f32,
        cg_max_iterations: s.cg_max_iterations,
        node_partials,
        element_partials,
        friction_slots: slots as u32,
        friction_eps: (model.friction.eps_v * s.dt) as f32,
        gravity,
        walls,
        friction_mu,
        mas,
        mas_levels,
    }
}

/// Opens the device, builds the pipelines and uploads `model`'s initial state; with
/// `solver.preconditioner = "mas"` also the multilevel preconditioner's plan.
pub fn open(model: &Model, opts: GpuOptions) -> Result<(Engine, Option<MasPlan>), String> {
    check_limits(model)?;
    let mas = match model.solver.preconditioner.resolve(model.num_nodes(), model.dim, true) {
        PreconditionerKind::Mas => Some(MasPlan::new(model)?),
        PreconditionerKind::Multigrid => {
            return Err("solver.preconditioner = \"multigrid\" runs on the CPU backend only; the GPU backend has \"mas\" and \"block_jacobi\"".into())
        }
        _ => None,
    };
    let (n, ns, dim) = (model.num_nodes(), model.springs.len(), model.dim);
    let max_x = opts.max_groups_x.clamp(1, 65535);
    let node_dispatch = dims((n as u32).div_ceil(WORKGROUP), max_x);
    let element_dispatch = dims((n.max(ns) as u32).div_ceil(WORKGROUP), max_x);
    let node_partials = node_dispatch.0 * node_dispatch.1;
    let element_partials = element_dispatch.0 * element_dispatch.1;
    let partial_count = node_partials.max(element_partials) as u64;

    let vec_bytes = (n * dim * 4) as u64;
    let friction_bytes = (n * friction_slots(model) * 16) as u64;
    let block_bytes = (2 * n * node_block_bytes(dim)) as u64;
    let mas_matrix_bytes = mas.as_ref().map_or(0, |m| 4 * m.matrix_reals);
    let sizes: [(u64, &'static str); 8] = [
        (mas_matrix_bytes, "multilevel preconditioner matrices"),
        (vec_bytes, "node vectors"),
        (3 * vec_bytes, "step anchors"),
        (friction_bytes, "friction contacts"),
        (block_bytes, "node blocks"),
        ((ns * 16) as u64, "springs"),
        (((n + 1 + 2 * ns) * 4) as u64, "adjacency"),
        (partial_count * 32, "partials"),
    ];
    let (largest_buffer, largest_buffer_name) =
        sizes.iter().copied().max_by_key(|s| s.0).unwrap_or((0, ""));
    let ctx = GpuContext::new(Needs {
        largest_buffer,
        largest_buffer_name,
    })
    .map_err(|e| format!("{e} ({n} nodes, {ns} springs)"))?;
    // Turn device errors during setup (a kernel the driver rejects, a buffer it
    // cannot allocate) into an error message instead of wgpu's panic.
    let oom_scope = ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation_scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let pipes = Pipelines::with_generated(
        &ctx.device,
        &crate::implicit::wgsl::generate(&model.implicit_walls),
        crate::precision::GpuPrecision::F32,
    )?;
    let dev = &ctx.device;
    let params = params(model, node_partials, element_partials, mas.as_ref());
    let nodes: Vec<NodeInfo> = (0..n)
        .map(|i| NodeInfo {
            mass: model.mass[i] as f32,
            area: model.contact_area[i] as f32,
            fixed: u32::from(model.fixed[i]),
            _pad: 0,
        })
        .collect();
    let springs: Vec<GpuSpring> = model
        .springs
        .iter()
        .map(|sp| GpuSpring {
            a: sp.a,
            b: sp.b,
            rest_length_sq: sp.rest_length_sq as f32,
            stiffness: sp.stiffness as f32,
        })
        .collect();
    let (offsets, entries) = model.node_springs();
    let base = (n + 1) as u32;
    let mut adjacency: Vec<u32> = offsets.iter().map(|o| o + base).collect();
    adjacency.extend_from_slice(&entries);

    let mut v0 = model.v0.clone();
    for (i, f) in model.fixed.iter().enumerate() {
        if *f {
            v0[i * dim..(i + 1) * dim].fill(0.0);
        }
    }
    // Newmark needs a consistent a⁰; implicit Euler never reads it.
    let a0 = match model.solver.integrator {
        Integrator::Newmark => crate::integrator::initial_acceleration(model),
        Integrator::ImplicitEuler => vec![0.0; n * dim],
    };
    let f32s = |v: &[f64]| v.iter().map(|c| *c as f32).collect::<Vec<f32>>();
    let storage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
    let init = |name: &str, bytes: &[u8], usage: wgpu::BufferUsages| {
        // wgpu rejects zero-sized bindings: pad empty arrays.
        let mut data = bytes.to_vec();
        if data.len() < 16 {
            data.resize(16, 0);
        }
        dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(name),
            contents: &data,
            usage,
        })
    };
    let stored = |name: &str, bytes: &[u8]| init(name, bytes, storage);
    // A zero-initialised storage buffer (wgpu zeroes new buffers) of at least 16 bytes.
    let zeroed = |name: &str, size: u64| {
        dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some(name),
            size: size.max(16),
            usage: storage,
            mapped_at_creation: false,
        })
    };
    let names = &BINDING_NAMES;
    // xⁿ = x0, x̃ − xⁿ = 0 and x − xⁿ = 0 until the first step starts
    let anchors = f32s(&[model.x0.clone(), vec![0.0; 2 * n * dim]].concat());
    let buffers = BufferSet {
        params: init(
            names.params,
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        ),
        nodes: stored(names.nodes, bytemuck::cast_slice(&nodes)),
        springs: stored(names.springs, bytemuck::cast_slice(&springs)),
        adjacency: stored(names.adjacency, bytemuck::cast_slice(&adjacency)),
        x: stored(names.x, bytemuck::cast_slice(&f32s(&model.x0))),
        anchors: stored(names.anchors, bytemuck::cast_slice(&anchors)),
        friction: zeroed(names.friction, friction_bytes),
        v: stored(names.v, bytemuck::cast_slice(&f32s(&v0))),
        acc: stored(names.acc, bytemuck::cast_slice(&f32s(&a0))),
        p: zeroed(names.p, vec_bytes),
        r: zeroed(names.r, vec_bytes),
        z: zeroed(names.z, vec_bytes),
        d: zeroed(names.d, vec_bytes),
        q: zeroed(names.q, vec_bytes),
        partials: zeroed(names.partials, partial_count * 32),
        cg: stored(names.cg, bytemuck::bytes_of(&CgState::default())),
        results: stored(names.results, &[0u8; 64]),
        // the Newton node blocks, then the preconditioner's inverse blocks
        blocks: zeroed(names.blocks, block_bytes),
        mas_index: stored(
            names.mas_index,
            bytemuck::cast_slice(mas.as_ref().map_or(&[][..], |m| &m.index)),
        ),
        mas_frames: zeroed(names.mas_frames, 16 * mas.as_ref().map_or(0, |m| m.frames)),
        mas_matrices: zeroed(names.mas_matrices, mas_matrix_bytes),
        mas_vectors: zeroed(
            names.mas_vectors,
            4 * mas.as_ref().map_or(0, |m| m.vector_reals),
        ),
        mas_state: zeroed(names.mas_state, 16),
        mas_partials: zeroed(
            names.mas_partials,
            4 * mas.as_ref().map_or(0, |m| m.partial_reals),
        ),
    };
    let supernodes = mas.as_ref().map_or(0, |m| m.supernodes());
    let dispatch = Dispatch {
        nodes: node_dispatch,
        elements: element_dispatch,
        supernodes: dims(supernodes.div_ceil(WORKGROUP), max_x),
        domains: dims(mas.as_ref().map_or(0, |m| m.domains), max_x),
        partial_slots: dims(supernodes.div_ceil(WORKGROUP / 16), max_x),
    };
    let mut engine = Engine::new(ctx, pipes, buffers, vec_bytes, dispatch);
    engine.mass_floor = (0..model.num_nodes())
        .filter(|&i| !model.fixed[i])
        .map(|i| model.mass[i])
        .fold(f64::INFINITY, f64::min);
    if let Some(e) = pollster::block_on(validation_scope.pop()) {
        return Err(format!(
            "{} rejected the scene's kernels or buffers: {e}",
            describe(&engine.ctx.info)
        ));
    }
    if let Some(e) = pollster::block_on(oom_scope.pop()) {
        return Err(format!(
            "{} ran out of memory for the scene ({n} nodes, {ns} springs): {e}",
            describe(&engine.ctx.info)
        ));
    }
    Ok((engine, mas))
}
