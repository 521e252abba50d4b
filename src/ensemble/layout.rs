//! What a batch's static buffers hold (`uints` and `reals`, layouts in
//! `shaders/ensemble/state.wgsl`) and how many bytes each variant takes.

use super::pairs::{incidence, pairs_of, PAIR_REALS};
use super::slots::{NA, RS};
use super::watch::{watched_bodies, watches, WatchPlace, WatchedBody, MAX_WATCH_BODIES};
use crate::energy::barrier::BarrierKind;
use crate::implicit::ImplicitWall;
use crate::model::{Integrator, Model};
use crate::precision::GpuPrecision;

/// u32s per variant record (`VU` in the shader).
pub const VU: usize = 18;
/// Reals per variant record (`VR`).
pub const VR: usize = 12;
/// Node vectors of the state buffer (`NV`).
pub const NV: usize = 11;
/// Reals per node block pair (Newton block and its block-Jacobi inverse).
pub const BLOCK_REALS: usize = 12;
/// Header u32s of the `uints` buffer.
const HEADER: usize = 22;
/// Reals per lagged friction contact (unit normal xyz, λ) in `state`.
pub const LAG_REALS: usize = 4;

/// Device bytes a variant of `model` holds in a batch with reals of `real_bytes`
/// bytes: its record, springs and adjacency (u32), its static and state reals, its
/// arguments and results, and its op flag (its implicit walls' code is shared by the
/// batch and not counted), its contact pairs (nodes, incidence and terms) and its
/// watched bodies (records, clearances at x⁰ and at the reference, distances between
/// bodies, the nodes' x⁰ and their reference positions).
pub fn variant_bytes(model: &Model, real_bytes: u64) -> u64 {
    let (n, s, w) = (model.num_nodes(), model.springs.len(), model.walls.len());
    let pairs = pairs_of(model).len();
    let bodies = if watches(model) {
        model.collision.body_collide.len()
    } else {
        0
    };
    let words = VU + 2 * s + n + 2 * s + model.implicit_walls.len() + n + 6 * pairs + 2 * bodies;
    let slots = friction_slots(model);
    let reals = VR
        + 4 * n
        + 2 * s
        + 6 * w
        + slots
        + n * (3 * NV + BLOCK_REALS + LAG_REALS * slots)
        + PAIR_REALS * pairs
        + n
        + 3 * pairs
        + (2 + MAX_WATCH_BODIES) * bodies
        + 6 * n
        + NA
        + RS;
    4 * words as u64 + real_bytes * reals as u64 + 4
}

/// Lagged friction contacts per node of `model` in a batch: one per wall (plane,
/// then implicit) where some wall has friction, else none.
pub fn friction_slots(model: &Model) -> usize {
    if model.friction.any() {
        model.walls.len() + model.implicit_walls.len()
    } else {
        0
    }
}

pub fn push_real(out: &mut Vec<u8>, v: f64, precision: GpuPrecision) {
    match precision {
        GpuPrecision::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
        _ => out.extend_from_slice(&v.to_le_bytes()),
    }
}

pub fn reals_bytes(v: &[f64], precision: GpuPrecision) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * 8);
    for &x in v {
        push_real(&mut out, x, precision);
    }
    out
}

/// Bytes of one real in `precision`'s state class (the ensemble keeps everything
/// in `real`: f32 in the f32 mode, f64 otherwise).
pub fn real_bytes(precision: GpuPrecision) -> u64 {
    match precision {
        GpuPrecision::F32 => 4,
        _ => 8,
    }
}

/// The static description of a batch: what the `uints` and `reals` buffers hold.
pub struct Layout {
    pub uints: Vec<u32>,
    pub reals: Vec<f64>,
    pub total_nodes: usize,
    pub node_ranges: Vec<(usize, usize)>,
    /// Lagged friction contacts of the whole batch (`LAG_REALS` reals each in `state`,
    /// after the node blocks).
    pub total_lags: usize,
    /// Contact pairs of the whole batch ([`PAIR_REALS`] reals each in `state`, after
    /// the lagged contacts).
    pub total_pairs: usize,
    /// Node–pair incidence entries of the whole batch: after the pairs, `state` holds
    /// per node its active pairs' count, then room for this many active entries.
    pub pair_entries: usize,
    /// The batch's distinct implicit walls, in the order of the generated kernel code
    /// (`implicit_wall_*(w, …)`); a variant's walls are indices into it.
    pub implicit: Vec<ImplicitWall>,
    /// Where each variant's watch reference lies in `reals` (3D contact, watched).
    pub watch_places: Vec<WatchPlace>,
}

/// The distinct implicit walls of `models` (equal expressions once, first come
/// first), and each model's walls as indices into them.
fn implicit_table(models: &[&Model]) -> (Vec<ImplicitWall>, Vec<Vec<u32>>) {
    let mut walls: Vec<ImplicitWall> = Vec::new();
    let per_model = models
        .iter()
        .map(|m| {
            m.implicit_walls
                .iter()
                .map(|w| match walls.iter().position(|u| u.expr == w.expr) {
                    Some(k) => k as u32,
                    None => {
                        walls.push(w.clone());
                        (walls.len() - 1) as u32
                    }
                })
                .collect()
        })
        .collect();
    (walls, per_model)
}

pub fn layout(models: &[&Model]) -> Layout {
    let dim = models[0].dim;
    let total_nodes: usize = models.iter().map(|m| m.num_nodes()).sum();
    let total_springs: usize = models.iter().map(|m| m.springs.len()).sum();
    let total_adj = 2 * total_springs;
    let (implicit, implicit_of) = implicit_table(models);
    let var_u = HEADER;
    let springs_u = var_u + VU * models.len();
    let adj_u = springs_u + 2 * total_springs;
    let implicit_u = adj_u + total_nodes + 1 + total_adj;
    let total_implicit: usize = implicit_of.iter().map(Vec::len).sum();
    // every variant's contact pairs, on global nodes, and each node's pairs
    let mut pairs: Vec<[u32; 3]> = Vec::new();
    let mut pair_ranges = Vec::with_capacity(models.len());
    let mut first = 0u32;
    for m in models {
        let own = pairs_of(m);
        pair_ranges.push((pairs.len(), own.len()));
        pairs.extend(own.iter().map(|p| p.map(|i| i + first)));
        first += m.num_nodes() as u32;
    }
    let (pair_offsets, pair_entries) = incidence(&pairs, total_nodes);
    let pairs_u = implicit_u + total_implicit;
    let pair_adj_u = pairs_u + 3 * pairs.len();
    // every variant's watched bodies (3D): first node (global) and count
    let watch_u = pair_adj_u + total_nodes + 1 + pair_entries.len();
    let mut body_ranges = Vec::with_capacity(models.len());
    let mut bodies: Vec<WatchedBody> = Vec::new();
    let mut first = 0u32;
    for m in models {
        // (a model that cannot be watched never reaches a batch: device::unsupported)
        let own = watched_bodies(m).unwrap_or_default();
        body_ranges.push((bodies.len(), own.len()));
        bodies.extend(own.iter().map(|b| WatchedBody {
            first: b.first + first,
            ..*b
        }));
        first += m.num_nodes() as u32;
    }
    let mut uints = vec![0u32; watch_u + 2 * bodies.len()];
    for (k, b) in bodies.iter().enumerate() {
        uints[watch_u + 2 * k] = b.first;
        uints[watch_u + 2 * k + 1] = b.count;
    }
    for (t, p) in pairs.iter().enumerate() {
        uints[pairs_u + 3 * t..pairs_u + 3 * t + 3].copy_from_slice(p);
    }
    let entries_u = pair_adj_u + total_nodes + 1;
    for (i, &o) in pair_offsets.iter().enumerate() {
        uints[pair_adj_u + i] = entries_u as u32 + o;
    }
    uints[entries_u..watch_u].copy_from_slice(&pair_entries);
    let total_lags: usize = models
        .iter()
        .map(|m| m.num_nodes() * friction_slots(m))
        .sum();
    let pair_terms_s = total_nodes * (3 * NV + BLOCK_REALS) + LAG_REALS * total_lags;
    let pair_active_s = pair_terms_s + PAIR_REALS * pairs.len();
    let var_r = 0;
    let nodes_r = VR * models.len();
    let springs_r = nodes_r + 4 * total_nodes;
    let walls_r = springs_r + 2 * total_springs;
    let total_walls: usize = models.iter().map(|m| m.walls.len()).sum();
    let mu_r = walls_r + 6 * total_walls;
    let total_slots: usize = models.iter().map(|m| friction_slots(m)).sum();
    let watch_r = mu_r + total_slots;
    let rest_r = watch_r + bodies.len();
    let ref_r = rest_r + 3 * total_nodes;
    let apart_r = ref_r + 3 * total_nodes;
    let ref_clear_r = apart_r + MAX_WATCH_BODIES * bodies.len();
    let mut reals = vec![0.0f64; ref_clear_r + bodies.len()];
    for (k, b) in bodies.iter().enumerate() {
        reals[watch_r + k] = b.clearance;
        reals[ref_clear_r + k] = b.clearance;
        reals[apart_r + MAX_WATCH_BODIES * k..apart_r + MAX_WATCH_BODIES * (k + 1)]
            .copy_from_slice(&b.apart);
    }
    let header = [
        models.len(),
        total_nodes,
        var_u,
        springs_u,
        adj_u,
        var_r,
        nodes_r,
        springs_r,
        walls_r,
        dim,
        implicit_u,
        mu_r,
        pairs_u,
        pair_adj_u,
        pair_terms_s,
        pair_active_s,
        watch_u,
        watch_r,
        rest_r,
        ref_r,
        apart_r,
        ref_clear_r,
    ];
    for (k, h) in header.iter().enumerate() {
        uints[k] = *h as u32;
    }
    let (mut node_off, mut spring_off, mut wall_off) = (0usize, 0usize, 0usize);
    let (mut implicit_off, mut mu_off, mut lag_off) = (0usize, 0usize, 0usize);
    let mut adj_fill = adj_u + total_nodes + 1;
    let mut node_ranges = Vec::new();
    let mut watch_places = Vec::new();
    for (v, m) in models.iter().enumerate() {
        let n = m.num_nodes();
        let s = &m.solver;
        let rec = [
            node_off,
            n,
            spring_off,
            m.springs.len(),
            wall_off,
            m.walls.len(),
            match m.barrier.kind {
                BarrierKind::Book => 0,
                BarrierKind::Ipc => 1,
            },
            usize::from(s.integrator == Integrator::Newmark),
            s.cg_max_iterations as usize,
            implicit_off,
            implicit_of[v].len(),
            friction_slots(m),
            mu_off,
            lag_off,
            pair_ranges[v].0,
            pair_ranges[v].1,
            body_ranges[v].0,
            body_ranges[v].1,
        ];
        for (k, x) in rec.iter().enumerate() {
            uints[var_u + v * VU + k] = *x as u32;
        }
        let weight = s.potential_weight();
        let per_residual = m.error_per_residual();
        let r = var_r + v * VR;
        reals[r] = s.dt;
        reals[r + 1] = weight;
        reals[r + 2] = m.barrier.kappa;
        reals[r + 3] = m.barrier.dhat;
        for k in 0..dim {
            reals[r + 4 + k] = m.gravity[k];
        }
        reals[r + 7] = per_residual;
        reals[r + 8] = s.cg_tolerance;
        reals[r + 9] = m.friction.eps_v * s.dt;
        reals[r + 10] = m.self_contact.friction;
        for i in 0..n {
            let b = nodes_r + 4 * (node_off + i);
            reals[b] = m.mass[i];
            reals[b + 1] = m.contact_area[i];
            reals[b + 2] = f64::from(u8::from(m.fixed[i]));
            for c in 0..dim {
                reals[rest_r + 3 * (node_off + i) + c] = m.x0[i * dim + c];
                reals[ref_r + 3 * (node_off + i) + c] = m.x0[i * dim + c];
            }
        }
        for (k, sp) in m.springs.iter().enumerate() {
            let g = spring_off + k;
            uints[springs_u + 2 * g] = (node_off + sp.a as usize) as u32;
            uints[springs_u + 2 * g + 1] = (node_off + sp.b as usize) as u32;
            reals[springs_r + 2 * g] = sp.rest_length_sq;
            reals[springs_r + 2 * g + 1] = sp.stiffness;
        }
        let (offsets, entries) = m.node_springs();
        for i in 0..n {
            uints[adj_u + node_off + i] = adj_fill as u32;
            for &e in &entries[offsets[i] as usize..offsets[i + 1] as usize] {
                uints[adj_fill] = (spring_off + e as usize) as u32;
                adj_fill += 1;
            }
        }
        for (k, w) in m.walls.iter().enumerate() {
            let b = walls_r + 6 * (wall_off + k);
            for c in 0..dim {
                reals[b + c] = w.origin[c];
                reals[b + 3 + c] = w.normal[c];
            }
        }
        for (k, &w) in implicit_of[v].iter().enumerate() {
            uints[implicit_u + implicit_off + k] = w;
        }
        implicit_off += implicit_of[v].len();
        let slots = friction_slots(m);
        if slots > 0 {
            let f = &m.friction;
            let mu = |list: &[f64], k: usize| list.get(k).copied().unwrap_or(0.0);
            for k in 0..m.walls.len() {
                reals[mu_r + mu_off + k] = mu(&f.plane_mu, k);
            }
            for k in 0..m.implicit_walls.len() {
                reals[mu_r + mu_off + m.walls.len() + k] = mu(&f.implicit_mu, k);
            }
        }
        mu_off += slots;
        lag_off += n * slots;
        node_ranges.push((node_off, n));
        watch_places.push(WatchPlace {
            reference: ref_r + 3 * node_off,
            apart: apart_r + MAX_WATCH_BODIES * body_ranges[v].0,
            clearances: ref_clear_r + body_ranges[v].0,
        });
        node_off += n;
        spring_off += m.springs.len();
        wall_off += m.walls.len();
    }
    uints[adj_u + total_nodes] = adj_fill as u32;
    Layout {
        uints,
        reals,
        total_nodes,
        node_ranges,
        total_lags: lag_off,
        total_pairs: pairs.len(),
        pair_entries: pair_entries.len(),
        implicit,
        watch_places,
    }
}

#[cfg(test)]
#[path = "layout_tests.rs"]
mod tests;
