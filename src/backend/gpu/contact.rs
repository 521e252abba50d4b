//! Contact between and within bodies on the GPU: what the host uploads for the
//! kernels of `shaders/kernels/broad_phase.wgsl` and `shaders/kernels/pairs.wgsl`
//! (the collision mesh, the exclusions, the sizes of the grid and of the pair
//! buffers), and how the pair buffers grow when the broad phase finds more pairs
//! than they hold (the reallocation itself: `pair_buffers.rs`).
//!
//! The pair list is rebuilt on the device by every direction check (swept along the
//! new direction) and, at setup and after the host writes positions, at x. Its
//! capacity is a high-water mark: a broad phase that finds more pairs writes none and
//! reports how many; the host then grows the buffers to that count (with headroom)
//! and runs the broad phase again, so no pair is ever dropped. That costs no extra
//! readback in the common case: the count comes back with the direction check's
//! readback.
//!
//! Only the pairs within d̂ (and the lagged friction pairs with a normal force) have
//! terms: each takes a slot of `pair_terms` as the assembly finds it active, so the
//! terms need room for the active pairs, not for every candidate (the swept broad
//! phase of a 66k-node cloth finds millions of candidates, almost none active). The
//! slots grow like the list: an assembly that finds more active pairs than there
//! are slots stores none past the last and reports how many; the host grows the
//! slots and computes the direction again.

use crate::collision::PairKind;
use crate::model::Model;

/// Words of the header of `contact_grid` (`HDR_*` in the broad phase's WGSL and
/// `HDR_TERMS*` in contact_pairs.wgsl).
const GRID_HEADER: u32 = 8;
/// The word of `contact_grid` where the last assembly left its count of pairs with
/// terms (`HDR_TERMS_USED` in WGSL).
pub const GRID_TERMS_USED: u64 = 4;
/// Words of the header of `pairs` (`PAIR_LIST` in WGSL).
pub(super) const PAIRS_HEADER: u64 = 4;
/// Reals per slot of `pair_terms` (`PAIR_TERMS` in WGSL): an active pair's gradient
/// of up to 12 and Hessian of up to 12 × 12.
pub const PAIR_TERM_REALS: u64 = 156;
/// Reals per lagged friction pair after the list's terms in `pair_terms`
/// (`FRICTION_REALS` in WGSL): β (4), the unit normal (3), λ.
const FRICTION_REALS: u64 = 8;
/// Node slots per pair in the incidence lists.
const PAIR_SLOTS: u64 = 4;
/// Words per pair record in `pairs` (`PAIR_WORDS` in WGSL): kind, the two
/// primitives, the four stacked nodes.
pub const PAIR_WORDS: u64 = 7;

/// Whether `model` has contact between and within bodies to watch.
pub fn enabled(model: &Model) -> bool {
    model.self_contact.enabled && !model.collision.is_empty()
}

/// The contact data of a scene as the kernels read it.
#[derive(Clone, Debug)]
pub struct ContactPlan {
    /// Collision vertices.
    pub vertices: u32,
    /// Collision edges.
    pub edges: u32,
    /// Collision faces (3D).
    pub faces: u32,
    /// Dimension of the model (2 or 3).
    pub dim: u32,
    /// Hash slots of the grid (a power of two).
    pub hash: u32,
    /// Nodes of the model.
    pub nodes: u32,
    /// `contact_mesh`: edges, vertices, node tags, the vertices' exclusions (starts,
    /// then the excluded edges or faces), faces, the edges' squared rest lengths (two
    /// f32 each), the edges' exclusions (starts, then the excluded edges b > a).
    pub mesh: Vec<u32>,
    /// Offsets of `contact_mesh`'s regions.
    mesh_at: [u32; 4],
    mesh_at2: [u32; 4],
    /// Offsets of `contact_grid`'s regions.
    grid_at: [u32; 4],
    grid_at2: [u32; 4],
    /// Words of `contact_grid`.
    pub grid_words: u64,
    /// Pairs the list can hold (candidates and lagged friction pairs).
    pub capacity: u32,
    /// Slots of `pair_terms`: the active pairs whose terms it can hold.
    pub term_slots: u32,
    /// Whether contacts between primitives have friction: then `pairs` and
    /// `pair_terms` end with the lagged friction pairs (a capacity's worth).
    pub lagged: bool,
    /// The most bytes one pair buffer may take besides the device's limits (tests).
    pub max_bytes: u64,
    /// Threads of a per-element dispatch without pairs: max(nodes, springs).
    pub base_elements: u32,
    /// Times the pair list grew.
    pub growths: u32,
    /// Times the term slots grew.
    pub term_growths: u32,
    /// Broad phases run, and the pairs they found in all.
    pub broad_phases: u64,
    pub candidates: u64,
    /// Pairs excluded for good (mesh neighbours closer than d̂ at rest,
    /// [`REST_EXCLUSION`]).
    pub excluded: u64,
}

impl ContactPlan {
    /// The plan of `model` (which has contact between bodies) with room for
    /// `capacity` pairs at first (at least one), each pair buffer growing to at most
    /// `max_bytes` (`None`: as far as the device allows).
    pub fn new(model: &Model, capacity: Option<u32>, max_bytes: Option<u64>) -> Self {
        let mesh = &model.collision;
        let n = model.num_nodes() as u32;
        let (v, e) = (mesh.vertices.len() as u32, mesh.edges.len() as u32);
        let f = if model.dim == 3 {
            mesh.faces.len() as u32
        } else {
            0
        };
        // queries: vertices, and in 3D edges; targets in the grid: edges, then faces
        let queries = v + if model.dim == 3 { e } else { 0 };
        let targets = e + f;
        let hash = (2 * targets.max(queries)).next_power_of_two().max(64);
        // node tags: (body << 1) | 1 where the body collides with itself
        let tags: Vec<u32> = (0..n)
            .map(|i| {
                // a node of no body (none in practice) is a body of its own
                let Some(&b) = mesh.node_body.get(i as usize) else {
                    return (u32::MAX >> 1) << 1;
                };
                let own = mesh.bodies_may_collide(i, i);
                (b << 1) | u32::from(own)
            })
            .collect();
        // exclusions: per vertex slot its excluded edges (2D) or faces (3D), per
        // edge its excluded edges b > a
        let excluded = model.rest_exclusions();
        let mut per_vertex: Vec<Vec<u32>> = vec![vec![]; v as usize];
        let mut per_edge: Vec<Vec<u32>> = vec![vec![]; e as usize];
        for pair in &excluded {
            match pair.kind {
                PairKind::PointEdge | PairKind::PointTriangle => {
                    if let Ok(slot) = mesh.vertices.binary_search(&pair.prims[0]) {
                        per_vertex[slot].push(pair.prims[1]);
                    }
                }
                PairKind::EdgeEdge => per_edge[pair.prims[0] as usize].push(pair.prims[1]),
            }
        }
        let mut data: Vec<u32> = mesh.edges.iter().flatten().copied().collect();
        let mesh_at = [
            0,
            data.len() as u32,
            data.len() as u32 + v,
            data.len() as u32 + v + n,
        ];
        data.extend_from_slice(&mesh.vertices);
        data.extend_from_slice(&tags);
        push_lists(&mut data, per_vertex);
        let faces_at = data.len() as u32;
        if f > 0 {
            data.extend(mesh.faces.iter().flatten());
        }
        let rest_at = data.len() as u32;
        for &l in &mesh.edge_rest_length_sq {
            // high and low f32 parts: their sum carries about 48 bits
            let hi = l as f32;
            let lo = (l - hi as f64) as f32;
            data.extend([hi.to_bits(), lo.to_bits()]);
        }
        let edge_excluded_at = data.len() as u32;
        push_lists(&mut data, per_edge);
        let cells = GRID_HEADER;
        let cursors = cells + hash + 1;
        let entries = cursors + hash;
        let query_counts = entries + (1 << model.dim) * targets;
        let node_counts = query_counts + queries + 1;
        let node_cursors = node_counts + n + 1;
        let grid_words = (node_cursors + n) as u64;
        let capacity = capacity.unwrap_or(4 * queries + 64).max(1);
        Self {
            vertices: v,
            edges: e,
            faces: f,
            dim: model.dim as u32,
            hash,
            nodes: n,
            mesh: data,
            mesh_at,
            mesh_at2: [faces_at, rest_at, edge_excluded_at, 0],
            grid_at: [cells, cursors, entries, query_counts],
            grid_at2: [node_counts, node_cursors, 0, 0],
            grid_words,
            capacity,
            // one active pair per two queries at first (a 66k-node cloth: 17 MB of
            // f32 terms where a slot per candidate would take 690 MB)
            term_slots: capacity.min(queries / 2 + 64),
            lagged: model.self_contact.friction > 0.0,
            max_bytes: max_bytes.unwrap_or(u64::MAX),
            base_elements: n.max(model.springs.len() as u32),
            growths: 0,
            term_growths: 0,
            broad_phases: 0,
            candidates: 0,
            excluded: excluded.len() as u64,
        }
    }

    /// Broad-phase queries: the vertices, and in 3D the edges.
    pub fn queries(&self) -> u32 {
        self.vertices + if self.dim == 3 { self.edges } else { 0 }
    }

    /// The `contact_*` members of the uniform parameters ([`super::layout::Params`]).
    pub fn params(&self) -> [[u32; 4]; 6] {
        [
            [self.vertices, self.edges, self.hash, self.faces],
            self.mesh_at,
            self.mesh_at2,
            self.grid_at,
            self.grid_at2,
            [self.capacity, self.term_slots, 0, 0],
        ]
    }

    /// Threads of a [`super::kernel_spans::Span::ContactSlots`] dispatch.
    pub fn slots(&self) -> u32 {
        (self.hash + 1)
            .max(self.queries() + 1)
            .max(self.nodes + 1)
            .max(self.edges + self.faces)
    }

    /// Bytes of `pairs` at the current capacity: the header, a record per pair,
    /// the incidence starts, four incidence entries per pair and each pair's term
    /// slot; then, with friction, the LAG region ([`Self::lag_region`]).
    pub fn pairs_bytes(&self) -> u64 {
        let (at, len) = self.lag_region();
        at + len
    }

    /// Where the pairs' term slots start in `pairs` (bytes): a word per pair of
    /// capacity, `u32::MAX` for a pair without terms.
    pub fn term_slot_offset(&self) -> u64 {
        let cap = self.capacity as u64;
        4 * (PAIRS_HEADER + PAIR_WORDS * cap + self.nodes as u64 + 1 + PAIR_SLOTS * cap)
    }

    /// The LAG region of `pairs` (byte offset and length): a record per lagged
    /// friction pair, a capacity's worth (empty without friction).
    pub fn lag_region(&self) -> (u64, u64) {
        let cap = self.capacity as u64;
        let at = self.term_slot_offset() + 4 * cap;
        (at, 4 * PAIR_WORDS * cap * u64::from(self.lagged))
    }

    /// Bytes of `pair_terms` at the current capacity, reals of `width` bytes: the
    /// terms per slot, then with friction the lagged pairs' reals.
    pub fn terms_bytes(&self, width: u64) -> u64 {
        let (at, len) = self.lagged_terms(width);
        at + len
    }

    /// The lagged friction pairs' reals in `pair_terms` (byte offset and length).
    pub fn lagged_terms(&self, width: u64) -> (u64, u64) {
        let cap = self.capacity as u64;
        let len = FRICTION_REALS * cap * width * u64::from(self.lagged);
        (self.term_slots as u64 * PAIR_TERM_REALS * width, len)
    }

    /// The capacity after the broad phase found `found` pairs: the count with a
    /// quarter more headroom (never less than now).
    pub fn grown(&self, found: u32) -> u32 {
        self.capacity.max(with_headroom(found))
    }

    /// The term slots after an assembly found `active` pairs with terms: the count
    /// with a quarter more headroom (never less than now, never more than the list).
    pub fn grown_slots(&self, active: u32) -> u32 {
        self.term_slots
            .max(with_headroom(active).min(self.capacity))
    }
}

/// `count` with a quarter more and 16 to spare: what a grown buffer holds.
fn with_headroom(count: u32) -> u32 {
    count.saturating_add(count / 4).saturating_add(16)
}

/// Appends per-query lists as the kernels read them: each list's start (one more at
/// the end), then the lists, each ascending.
fn push_lists(data: &mut Vec<u32>, lists: Vec<Vec<u32>>) {
    let mut start = 0u32;
    for list in &lists {
        data.push(start);
        start += list.len() as u32;
    }
    data.push(start);
    for mut list in lists {
        list.sort_unstable();
        data.extend(list);
    }
}

impl super::GpuBackend {
    /// Builds the pair list at the current x (the static broad phase), growing the
    /// buffers until it fits; one readback per pass. Needed at setup and after the
    /// host writes positions; the direction checks keep the list current otherwise.
    pub(super) fn rebuild_pairs(&mut self) {
        self.engine.rebuild_static();
    }

    /// Whether the last assembly read back found more pairs with terms than the term
    /// slots hold (then the direction it led to is not the Newton direction).
    pub(super) fn terms_overflowed(&self) -> bool {
        self.engine
            .contact
            .as_ref()
            .is_some_and(|c| self.engine.terms_found > c.term_slots)
    }

    /// Runs `list`, which assembles the Newton system, growing the term slots and
    /// running it again until the active pairs' terms fit (one readback per pass
    /// with contact between bodies); the probes' assembly.
    pub(super) fn run_assembly(&mut self, list: &[super::kernels::Kernel]) {
        self.engine.run(list);
        if self.engine.contact.is_none() {
            return;
        }
        self.engine.terms_found = self.engine.read_word(|b| &b.contact_grid, GRID_TERMS_USED);
        if self.terms_overflowed() && self.engine.grow_term_slots(self.engine.terms_found) {
            self.run_assembly(list);
        }
    }

    /// Whether the last direction check's broad phase found more pairs than the list
    /// holds (then nothing it computed with pairs counts).
    pub(super) fn pairs_overflowed(&self) -> bool {
        self.engine
            .contact
            .as_ref()
            .is_some_and(|c| self.engine.pairs_found > c.capacity)
    }
}
