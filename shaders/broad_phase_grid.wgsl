// The broad phase's grid (kernels/broad_phase.wgsl): the header of
// `contact_grid`, the inflated boxes of the queries and targets, and the hashed
// cells they overlap. The list they serve has its CPU twin in src/collision/pairs.rs.
// #import pair_candidates.wgsl

// contact_grid (atomic u32): a header, then the regions at P.contact_grid_at = (cell
// counts (H + 1), cell cursors (H), cell entries (2^dim per target), query counts
// (Q + 1))
// and P.contact_grid_at2.x = node counts (n + 1), .y = node cursors (n).
const HDR_CELL: u32 = 0u;
const HDR_SWEEP: u32 = 1u;
// 1 while a CG solve is running (a direction check recorded after a batch of CG
// iterations that may not have finished it): the broad phase then leaves the list
// and the incidence alone, since the running solve's mat-vec reads them with the
// terms its assembly stored; the host discards such a check's figures.
const HDR_HOLD: u32 = 2u;

var<workgroup> wg_held: u32;

// Whether this broad phase is held (HDR_HOLD), uniformly over the workgroup; every
// invocation of a kernel calls it first.
fn held(lid: u32) -> bool {
    if (lid == 0u) { wg_held = atomicLoad(&contact_grid[HDR_HOLD]); }
    return workgroupUniformLoad(&wg_held) != 0u;
}

fn grid_load(i: u32) -> u32 {
    return atomicLoad(&contact_grid[i]);
}

struct Box {
    lo: vec3<real>,
    hi: vec3<real>,
}

fn box_add_node(b: Box, i: u32) -> Box {
    let xi = load_x(i);
    var o = Box(min(b.lo, xi), max(b.hi, xi));
    if (grid_load(HDR_SWEEP) != 0u) {
        let y = xi + load_p(i);
        o = Box(min(o.lo, y), max(o.hi, y));
    }
    return o;
}

// The box of nodes, inflated by d̂/2.
fn inflated(b: Box) -> Box {
    let r = 0.5 * P.dhat;
    return Box(b.lo - vec3<real>(r), b.hi + vec3<real>(r));
}

fn empty_box() -> Box {
    return Box(vec3<real>(BIG), vec3<real>(-BIG));
}

// The inflated boxes of a vertex's node, an edge and a face.
fn vertex_box(node: u32) -> Box {
    return inflated(box_add_node(empty_box(), node));
}

fn edge_box(e: u32) -> Box {
    let ends = mesh_edge(e);
    return inflated(box_add_node(box_add_node(empty_box(), ends.x), ends.y));
}

fn face_box(f: u32) -> Box {
    let c = mesh_face(f);
    return inflated(box_add_node(box_add_node(box_add_node(empty_box(), c.x), c.y), c.z));
}

// Targets (in the grid): the edges, then the faces (3D).
fn target_count() -> u32 {
    return P.contact_counts.y + P.contact_counts.w;
}

fn target_box(j: u32) -> Box {
    if (j < P.contact_counts.y) { return edge_box(j); }
    return face_box(j - P.contact_counts.y);
}

// Queries: the vertices, then (3D) the edges.
fn query_count() -> u32 {
    return P.contact_counts.x + select(0u, P.contact_counts.y, P.dim == 3u);
}

fn query_box(q: u32) -> Box {
    if (q < P.contact_counts.x) { return vertex_box(mesh_vertex(q)); }
    return edge_box(q - P.contact_counts.x);
}

fn boxes_overlap(a: Box, b: Box) -> bool {
    return all(a.lo <= b.hi) && all(b.lo <= a.hi);
}

fn box_extent(b: Box) -> real {
    let e = b.hi - b.lo;
    return select(max(e.x, e.y), max(e.x, max(e.y, e.z)), P.dim == 3u);
}

// The cell of a point (z = 0 in 2D), coordinates clamped far from overflow.
fn cell_of(at: vec3<real>) -> vec3<i32> {
    let h = real(bitcast<f32>(grid_load(HDR_CELL)));
    let c = clamp(floor(at / h), vec3<real>(-1e9), vec3<real>(1e9));
    var o = vec3<i32>(i32(c.x), i32(c.y), i32(c.z));
    if (P.dim == 2u) { o.z = 0; }
    return o;
}

// The cells of a box: at most two per axis (the cell size is 1 % wider than every
// box); none for a box with a NaN bound (its run fails on the NaN anyway), so that
// no loop can run away.
struct CellRange {
    lo: vec3<i32>,
    hi: vec3<i32>,
}

fn cell_range(b: Box) -> CellRange {
    // NaN as `!(x == x)`: naga writes `!=` as an ordered compare, false for NaN
    if (any(!(b.lo == b.lo)) || any(!(b.hi == b.hi))) {
        return CellRange(vec3<i32>(0), vec3<i32>(-1));
    }
    let lo = cell_of(b.lo);
    return CellRange(lo, min(cell_of(b.hi), lo + vec3<i32>(1)));
}

fn cell_slot(c: vec3<i32>) -> u32 {
    let h = (u32(c.x) * 73856093u) ^ (u32(c.y) * 19349663u) ^ (u32(c.z) * 83492791u);
    return h & (P.contact_counts.z - 1u);
}

// The hash slots of the cells a target's box overlaps, each once (at most 8).
struct Slots {
    slot: array<u32, 8>,
    count: u32,
}

fn target_slots(j: u32) -> Slots {
    var o: Slots;
    o.count = 0u;
    let r = cell_range(target_box(j));
    for (var z = r.lo.z; z <= r.hi.z; z++) {
        for (var y = r.lo.y; y <= r.hi.y; y++) {
            for (var x = r.lo.x; x <= r.hi.x; x++) {
                let s = cell_slot(vec3<i32>(x, y, z));
                var seen = false;
                for (var k = 0u; k < o.count; k++) {
                    if (o.slot[k] == s) { seen = true; }
                }
                if (!seen && o.count < 8u) {
                    o.slot[o.count] = s;
                    o.count++;
                }
            }
        }
    }
    return o;
}

