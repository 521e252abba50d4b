//! Opening the device for a scene: the GPU backend's limits, the parameter block,
//! the uploaded buffers and the pipelines, with device errors during setup turned
//! into messages.

use super::buffers::{BufferSet, BINDING_NAMES};
use super::context::{describe, GpuContext, Needs};
use super::engine::{Dispatch, Engine};
use super::layout::{
    node_block_bytes, GpuSpring, Layouts, NodeInfo, Params, MAX_FRICTION_WALLS, MAX_WALLS,
    WORKGROUP,
};
use super::mas::MasPlan;
use super::pipelines::Pipelines;
use super::GpuOptions;
use crate::energy::barrier::BarrierKind;
use crate::linear_solver::PreconditionerKind;
use crate::model::{Integrator, Model};
use crate::precision::RealClass;
use wgpu::util::DeviceExt;

/// Workgroups (x, y) covering `groups` with at most `max_x` along x.
pub(super) fn dims(groups: u32, max_x: u32) -> (u32, u32) {
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
    let frames = super::layout::MAX_IMPLICIT_FRAMES;
    let past = |m: &&crate::script::MovingWall| matches!(&m.parts, crate::script::WallParts::Implicit(r) if r.end > frames);
    if let Some(m) = model.moving_walls.iter().find(past) {
        return Err(format!("the GPU backend moves the first {frames} implicit walls (each part of a wall split at a top-level min counts); {} is past them: list it earlier in the scene", m.name));
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
    let mut walls = [[0.0; 4]; 2 * MAX_WALLS];
    for (w, wall) in model.walls.iter().enumerate() {
        for (k, (n, o)) in wall.normal.iter().zip(&wall.origin).enumerate() {
            walls[2 * w][k] = *n;
            walls[2 * w + 1][k] = *o;
        }
    }
    let mut gravity = [0.0; 4];
    for (g, mg) in gravity.iter_mut().zip(&model.gravity) {
        *g = *mg;
    }
    let slots = friction_slots(model);
    let mut friction_mu = [[0.0; 4]; MAX_FRICTION_WALLS / 4];
    for w in 0..slots {
        friction_mu[w / 4][w % 4] = model.friction.mu(w, model.walls.len());
    }
    let s = &model.solver;
    let (mas, mas_levels) = mas.map(MasPlan::params).unwrap_or_default();
    Params {
        n_nodes: model.num_nodes() as u32,
        n_springs: model.springs.len() as u32,
        n_walls: model.walls.len() as u32,
        dim: model.dim as u32,
        potential_weight: s.potential_weight(),
        dhat: model.barrier.dhat,
        kappa: model.barrier.kappa,
        barrier_kind: match model.barrier.kind {
            BarrierKind::Book => 0,
            BarrierKind::Ipc => 1,
        },
        dt: s.dt,
        integrator: match s.integrator {
            Integrator::ImplicitEuler => 0,
            Integrator::Newmark => 1,
        },
        cg_max_iterations: s.cg_max_iterations,
        node_partials,
        element_partials,
        friction_slots: slots as u32,
        friction_eps: model.friction.eps_v * s.dt,
        // read by the pair kernels only, which run with contact between bodies on
        self_friction: model.self_contact.friction,
        gravity,
        walls,
        wall_shift: [[0.0; 4]; MAX_WALLS],
        implicit_frames: super::layout::frame_rows(&[]),
        implicit_carry: super::layout::carry_rows(&[]),
        friction_mu,
        mas,
        mas_levels,
        contact: [[0; 4]; 6],
    }
}

/// Bytes of each buffer of a scene in one precision mode.
#[derive(Clone, Copy, Debug)]
struct Sizes {
    /// One node vector of the state (x, v, acc, each anchor block).
    state_vector: u64,
    /// One streamed CG vector (z, d, q; p and r are state vectors).
    linear_vector: u64,
    friction: u64,
    blocks: u64,
    springs: u64,
    partials: u64,
    mas_matrices: u64,
    mas_vectors: u64,
    mas_partials: u64,
    mas_frames: u64,
}

impl Sizes {
    fn new(model: &Model, mas: Option<&MasPlan>, partial_count: u64, lay: &Layouts) -> Self {
        let (n, ns, dim) = (model.num_nodes(), model.springs.len(), model.dim);
        let s = lay.precision.bytes(RealClass::State);
        let l = lay.precision.bytes(RealClass::Linear);
        let nd = (n * dim) as u64;
        let mas_reals = |f: fn(&MasPlan) -> u64| mas.map_or(0, f);
        Self {
            state_vector: nd * s,
            linear_vector: nd * l,
            friction: (n * friction_slots(model)) as u64 * 4 * s,
            blocks: (2 * n * node_block_bytes(dim, l)) as u64,
            springs: ns as u64 * lay.spring.size as u64,
            partials: partial_count * lay.lanes.size as u64,
            mas_matrices: l * mas_reals(|m| m.matrix_reals),
            mas_vectors: l * mas_reals(|m| m.vector_reals),
            mas_partials: l * mas_reals(|m| m.partial_reals),
            mas_frames: 4 * l * mas_reals(|m| m.frames),
        }
    }

    /// The largest single buffer and its name; `pairs`: the contact pair buffers'
    /// sizes at first (`pairs`, `pair_terms`), with contact between bodies.
    fn needs(&self, adjacency: u64, pairs: Option<(u64, u64)>) -> Needs {
        let contact = pairs.is_some();
        let (list, terms) = pairs.unwrap_or_default();
        let all: [(u64, &'static str); 10] = [
            (self.mas_matrices, "multilevel preconditioner matrices"),
            (self.state_vector, "node vectors"),
            (3 * self.state_vector, "step anchors"),
            (self.friction, "friction contacts"),
            (self.blocks, "node blocks"),
            (self.springs, "springs"),
            (adjacency, "adjacency"),
            (self.partials, "partials"),
            (list, "contact pair list"),
            (terms, "contact pair terms"),
        ];
        let (largest_buffer, largest_buffer_name) =
            all.iter().copied().max_by_key(|s| s.0).unwrap_or((0, ""));
        Needs {
            largest_buffer,
            largest_buffer_name,
            grows: contact,
            storage_buffers: if contact {
                super::pipelines::CONTACT_STORAGE_BUFFERS
            } else {
                wgpu::Limits::default().max_storage_buffers_per_shader_stage
            },
        }
    }
}

/// Opens the device, builds the pipelines and uploads `model`'s initial state; with
/// `solver.preconditioner = "mas"` also the multilevel preconditioner's plan.
pub fn open(model: &Model, opts: GpuOptions) -> Result<(Engine, Option<MasPlan>), String> {
    check_limits(model)?;
    let mas = match super::auto_choice::gpu_preconditioner(model) {
        PreconditionerKind::Mas => Some(MasPlan::new(model, false)?),
        PreconditionerKind::Multigrid => Some(MasPlan::new(model, true)?),
        _ => None,
    };
    let (n, ns, dim) = (model.num_nodes(), model.springs.len(), model.dim);
    let contact = super::contact::enabled(model)
        .then(|| super::contact::ContactPlan::new(model, opts.pair_capacity, opts.max_pair_bytes));
    let capacity = contact.as_ref().map_or(0, |c| c.capacity as usize);
    let max_x = opts.max_groups_x.clamp(1, 65535);
    let node_dispatch = dims((n as u32).div_ceil(WORKGROUP), max_x);
    let element_dispatch = dims((n.max(ns).max(capacity) as u32).div_ceil(WORKGROUP), max_x);
    let node_partials = node_dispatch.0 * node_dispatch.1;
    let element_partials = element_dispatch.0 * element_dispatch.1;
    let partial_count = super::kernel_lists::partial_slots(node_partials, element_partials);
    let adjacency_bytes = ((n + 1 + 2 * ns) * 4) as u64;

    let needs = |precision| -> Result<Needs, String> {
        let lay = Layouts::new(precision)?;
        let sizes = Sizes::new(model, mas.as_ref(), partial_count, &lay);
        let width = precision.bytes(crate::precision::RealClass::State);
        let pairs = contact
            .as_ref()
            .map(|c| (c.pairs_bytes(), c.terms_bytes(width)));
        Ok(sizes.needs(adjacency_bytes, pairs))
    };
    let ctx = GpuContext::new(&needs, model.solver.precision, opts)
        .map_err(|e| format!("{e} ({n} nodes, {ns} springs)"))?;
    let lay = Layouts::new(ctx.precision)?;
    let sizes = Sizes::new(model, mas.as_ref(), partial_count, &lay);
    // Turn device errors during setup (a kernel the driver rejects, a buffer it
    // cannot allocate) into an error message instead of wgpu's panic.
    let oom_scope = ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation_scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let pipes = Pipelines::with_generated(
        &ctx.device,
        &crate::implicit::wgsl::generate(&model.implicit_walls),
        ctx.precision,
    )?;
    let dev = &ctx.device;
    let mut params = params(model, node_partials, element_partials, mas.as_ref());
    if let Some(c) = &contact {
        params.contact = c.params();
    }
    let nodes: Vec<NodeInfo> = (0..n)
        .map(|i| NodeInfo {
            mass: model.mass[i],
            area: model.contact_area[i],
            fixed: model.fixed[i],
        })
        .collect();
    let springs: Vec<GpuSpring> = model
        .springs
        .iter()
        .map(|sp| GpuSpring {
            a: sp.a,
            b: sp.b,
            rest_length_sq: sp.rest_length_sq,
            stiffness: sp.stiffness,
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
    let width = ctx.precision.bytes(RealClass::State);
    let reals = |v: &[f64]| super::layout::state_bytes(v, width);
    let storage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
    let init = |name: &str, bytes: &[u8], usage: wgpu::BufferUsages| {
        // wgpu rejects zero-sized bindings: pad empty arrays (to one element of the
        // largest array type, vec4<f64> or Lanes in f64).
        let mut data = bytes.to_vec();
        if data.len() < super::buffers::MIN_BUFFER_BYTES as usize {
            data.resize(super::buffers::MIN_BUFFER_BYTES as usize, 0);
        }
        dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(name),
            contents: &data,
            usage,
        })
    };
    let stored = |name: &str, bytes: &[u8]| init(name, bytes, storage);
    let zeroed = |name: &str, size: u64| super::buffers::zeroed_storage(dev, name, size);
    let names = &BINDING_NAMES;
    // xⁿ = x0, x̃ − xⁿ = 0 and x − xⁿ = 0 until the first step starts
    let anchors = reals(&[model.x0.clone(), vec![0.0; 2 * n * dim]].concat());
    let linear = sizes.linear_vector;
    let buffers = BufferSet {
        params: init(
            names.params,
            &lay.encode_params(&params),
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        ),
        nodes: stored(names.nodes, &lay.encode_nodes(&nodes)),
        springs: stored(names.springs, &lay.encode_springs(&springs)),
        adjacency: stored(names.adjacency, bytemuck::cast_slice(&adjacency)),
        x: stored(names.x, &reals(&model.x0)),
        anchors: stored(names.anchors, &anchors),
        friction: zeroed(names.friction, sizes.friction),
        v: stored(names.v, &reals(&v0)),
        acc: stored(names.acc, &reals(&a0)),
        p: zeroed(names.p, sizes.state_vector),
        r: zeroed(names.r, sizes.state_vector),
        z: zeroed(names.z, linear),
        d: zeroed(names.d, linear),
        q: zeroed(names.q, linear),
        partials: zeroed(names.partials, sizes.partials),
        cg: zeroed(names.cg, lay.cg_state.size as u64),
        results: zeroed(names.results, 2 * lay.lanes.size as u64),
        // the Newton node blocks, then the preconditioner's inverse blocks
        blocks: zeroed(names.blocks, sizes.blocks),
        mas_index: stored(
            names.mas_index,
            bytemuck::cast_slice(mas.as_ref().map_or(&[][..], |m| &m.index)),
        ),
        mas_frames: zeroed(names.mas_frames, sizes.mas_frames),
        mas_matrices: zeroed(names.mas_matrices, sizes.mas_matrices),
        mas_vectors: zeroed(names.mas_vectors, sizes.mas_vectors),
        mas_state: zeroed(names.mas_state, 16),
        mas_partials: zeroed(names.mas_partials, sizes.mas_partials),
        contact_mesh: stored(
            names.contact_mesh,
            bytemuck::cast_slice(contact.as_ref().map_or(&[][..], |c| &c.mesh)),
        ),
        contact_grid: zeroed(
            names.contact_grid,
            4 * contact.as_ref().map_or(0, |c| c.grid_words),
        ),
        pairs: zeroed(names.pairs, contact.as_ref().map_or(0, |c| c.pairs_bytes())),
        pair_terms: zeroed(
            names.pair_terms,
            contact.as_ref().map_or(0, |c| c.terms_bytes(width)),
        ),
        gates: super::device_newton::gates_buffer(dev),
        newton: zeroed(names.newton, super::device_newton::newton_bytes(width)),
    };
    let supernodes = mas.as_ref().map_or(0, |m| m.supernodes());
    let fill_threads = mas.as_ref().map_or(0, |m| m.fill_threads);
    let dispatch = Dispatch {
        nodes: node_dispatch,
        elements: element_dispatch,
        supernodes: dims(supernodes.div_ceil(WORKGROUP), max_x),
        domains: dims(mas.as_ref().map_or(0, |m| m.domains), max_x),
        partial_slots: dims(supernodes.div_ceil(WORKGROUP / 16), max_x),
        coarse_domains: dims(mas.as_ref().map_or(0, |m| m.coarse_domains()), max_x),
        coarse_blocks: dims(fill_threads.div_ceil(WORKGROUP), max_x),
        contact_slots: dims(
            contact
                .as_ref()
                .map_or(0, |c| c.slots())
                .div_ceil(WORKGROUP),
            max_x,
        ),
        max_x,
    };
    let mut engine = Engine::new(ctx, pipes, buffers, (n * dim) as u64, dispatch, lay);
    engine.contact = contact;
    engine.error_per_residual = model.error_per_residual();
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
