// The broad phase of contact between and within bodies on the device: every pair of
// primitives whose boxes, inflated by d̂/2, overlap, at x (static) or swept from x
// to x + p, that shares no node, whose bodies may collide and that is not excluded:
// in 2D (collision vertex, edge), in 3D (vertex, face) and (edge a, edge b > a). The
// grid holds the targets (edges, then faces), the queries are the vertices (then,
// in 3D, the edges). A hashed uniform grid built by counting sort, with no float
// atomics and a deterministic result:
//   bp_reset_*: counters zeroed, static or swept boxes chosen; a swept one recorded
//     while a CG solve is still running holds the rest (HDR_HOLD);
//   bp_extent: the grid's cell size, the largest box extent (atomic max of its f32 bits);
//   bp_count_cells, bp_scan_cells, bp_fill_cells: each target into every cell its box
//     overlaps (at most 2 per axis), cells hashed into H slots (each slot once per target);
//   bp_count_pairs, bp_scan_pairs, bp_fill_pairs: per query its candidates (a pair is
//     reported in the cell of its boxes' common lower corner only), offsets by a scan,
//     the list written in query order and each query's run sorted by target: the
//     list equals the CPU's `collision::pairs::candidates`, sorted;
//   bp_scan_nodes, bp_fill_incidence, bp_sort_incidence: per node the pairs it is in.
// The list never drops a pair: a scan that finds more pairs than the capacity writes
// none and reports the count in pairs[1]; the host grows the buffers and runs the
// broad phase again (src/backend/gpu/contact.rs).
// CPU twin: src/collision/pairs.rs (candidates).
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
    if (any(b.lo != b.lo) || any(b.hi != b.hi)) {
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

fn reset(t: u32, sweep: u32, hold: u32) {
    let g = P.contact_grid_at;
    let h = P.contact_counts.z;
    if (t == 0u) {
        atomicStore(&contact_grid[HDR_CELL], 0u);
        atomicStore(&contact_grid[HDR_SWEEP], sweep);
        atomicStore(&contact_grid[HDR_HOLD], hold);
    }
    if (t <= h) { atomicStore(&contact_grid[g.x + t], 0u); }
    if (t < h) { atomicStore(&contact_grid[g.y + t], 0u); }
    if (t <= query_count()) { atomicStore(&contact_grid[g.w + t], 0u); }
    if (t <= P.n_nodes) { atomicStore(&contact_grid[P.contact_grid_at2.x + t], 0u); }
    if (t < P.n_nodes) { atomicStore(&contact_grid[P.contact_grid_at2.y + t], 0u); }
}

@compute @workgroup_size(256)
fn bp_reset_static(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    reset(thread_index(wid, nwg, lid), 0u, 0u);
}

@compute @workgroup_size(256)
fn bp_reset_swept(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    // held while a CG solve is running: started (‖b‖ > 0) and not done
    reset(thread_index(wid, nwg, lid), 1u, select(0u, 1u, cg.done == 0u && cg.bb > 0.0));
}

@compute @workgroup_size(256)
fn bp_extent(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (held(lid)) { return; }
    let t = thread_index(wid, nwg, lid);
    var ext: real = 0.0;
    if (t < P.contact_counts.x) { ext = box_extent(vertex_box(mesh_vertex(t))); }
    if (t < target_count()) { ext = max(ext, box_extent(target_box(t))); }
    if (ext > 0.0) {
        // 1 % wider than the widest box, so that no box spans more than two cells
        // per axis after rounding.
        atomicMax(&contact_grid[HDR_CELL], bitcast<u32>(f32(ext * 1.01)));
    }
}

@compute @workgroup_size(256)
fn bp_count_cells(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (held(lid)) { return; }
    let j = thread_index(wid, nwg, lid);
    if (j >= target_count()) { return; }
    let s = target_slots(j);
    for (var k = 0u; k < s.count; k++) {
        atomicAdd(&contact_grid[P.contact_grid_at.x + s.slot[k]], 1u);
    }
}

var<workgroup> scan_wg: array<u32, 256>;

// Exclusive scan of the `len` counts at `at` (contact_grid) by one workgroup, each
// thread a contiguous run; the offsets go back in place (or, with `to_pairs`, into
// pairs[dst..]) and the total after them. Returns the total.
fn scan_counts(lid: u32, at: u32, len: u32, to_pairs: bool, dst: u32) -> u32 {
    let chunk = (len + WG - 1u) / WG;
    let begin = min(lid * chunk, len);
    let end = min(begin + chunk, len);
    var sum = 0u;
    for (var i = begin; i < end; i++) { sum += grid_load(at + i); }
    scan_wg[lid] = sum;
    workgroupBarrier();
    for (var off = 1u; off < WG; off *= 2u) {
        var add = 0u;
        if (lid >= off) { add = scan_wg[lid - off]; }
        workgroupBarrier();
        scan_wg[lid] += add;
        workgroupBarrier();
    }
    var run = scan_wg[lid] - sum;
    for (var i = begin; i < end; i++) {
        let c = grid_load(at + i);
        if (to_pairs) { pairs[dst + i] = run; } else { atomicStore(&contact_grid[at + i], run); }
        run += c;
    }
    let total = scan_wg[WG - 1u];
    if (lid == 0u) {
        if (to_pairs) { pairs[dst + len] = total; } else { atomicStore(&contact_grid[at + len], total); }
    }
    return total;
}

@compute @workgroup_size(256)
fn bp_scan_cells(@builtin(local_invocation_index) lid: u32) {
    if (held(lid)) { return; }
    scan_counts(lid, P.contact_grid_at.x, P.contact_counts.z, false, 0u);
}

@compute @workgroup_size(256)
fn bp_fill_cells(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (held(lid)) { return; }
    let j = thread_index(wid, nwg, lid);
    if (j >= target_count()) { return; }
    let s = target_slots(j);
    let g = P.contact_grid_at;
    for (var k = 0u; k < s.count; k++) {
        let at = grid_load(g.x + s.slot[k]) + atomicAdd(&contact_grid[g.y + s.slot[k]], 1u);
        atomicStore(&contact_grid[g.z + at], j);
    }
}

// Visits the candidates of query q: counts them, and with `write` stores them from
// pair index `first` on. Returns the count.
fn query_candidates(q: u32, write: bool, first: u32) -> u32 {
    let qb = query_box(q);
    let r = cell_range(qb);
    let g = P.contact_grid_at;
    var found = 0u;
    for (var z = r.lo.z; z <= r.hi.z; z++) {
        for (var y = r.lo.y; y <= r.hi.y; y++) {
            for (var x = r.lo.x; x <= r.hi.x; x++) {
                let cell = vec3<i32>(x, y, z);
                let s = cell_slot(cell);
                for (var k = grid_load(g.x + s); k < grid_load(g.x + s + 1u); k++) {
                    let j = grid_load(g.z + k);
                    if (!pairs_with(q, j)) { continue; }
                    let tb = target_box(j);
                    if (!boxes_overlap(qb, tb)) { continue; }
                    if (any(cell_of(max(qb.lo, tb.lo)) != cell)) { continue; }
                    let c = candidate(q, j);
                    if (!c.keep) { continue; }
                    if (write) {
                        let b = PAIR_LIST + PAIR_WORDS * (first + found);
                        for (var w = 0u; w < PAIR_WORDS; w++) { pairs[b + w] = c.rec[w]; }
                    }
                    found++;
                }
            }
        }
    }
    return found;
}

@compute @workgroup_size(256)
fn bp_count_pairs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (held(lid)) { return; }
    let q = thread_index(wid, nwg, lid);
    if (q >= query_count()) { return; }
    atomicStore(&contact_grid[P.contact_grid_at.w + q], query_candidates(q, false, 0u));
}

@compute @workgroup_size(256)
fn bp_scan_pairs(@builtin(local_invocation_index) lid: u32) {
    if (held(lid)) { return; }
    let total = scan_counts(lid, P.contact_grid_at.w, query_count(), false, 0u);
    if (lid == 0u) {
        pairs[0] = select(total, 0u, total > pair_capacity());
        pairs[1] = total;
    }
}

@compute @workgroup_size(256)
fn bp_fill_pairs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (held(lid)) { return; }
    let q = thread_index(wid, nwg, lid);
    if (q >= query_count() || pairs[1] > pair_capacity()) { return; }
    let g = P.contact_grid_at;
    let first = grid_load(g.w + q);
    let count = query_candidates(q, true, first);
    // this query's run sorted by target (insertion sort: runs are short)
    for (var i = first + 1u; i < first + count; i++) {
        let at = PAIR_LIST + PAIR_WORDS * i;
        var rec: array<u32, 7>;
        for (var w = 0u; w < PAIR_WORDS; w++) { rec[w] = pairs[at + w]; }
        var j = i;
        while (j > first && pairs[PAIR_LIST + PAIR_WORDS * (j - 1u) + 2u] > rec[2]) {
            let to = PAIR_LIST + PAIR_WORDS * j;
            for (var w = 0u; w < PAIR_WORDS; w++) {
                pairs[to + w] = pairs[to + w - PAIR_WORDS];
            }
            j--;
        }
        let to = PAIR_LIST + PAIR_WORDS * j;
        for (var w = 0u; w < PAIR_WORDS; w++) { pairs[to + w] = rec[w]; }
    }
    // each pair counted at its nodes
    for (var i = first; i < first + count; i++) {
        let n = pair_nodes(i);
        for (var l = 0u; l < pair_node_count(); l++) {
            atomicAdd(&contact_grid[P.contact_grid_at2.x + n[l]], 1u);
        }
    }
}

@compute @workgroup_size(256)
fn bp_scan_nodes(@builtin(local_invocation_index) lid: u32) {
    if (held(lid)) { return; }
    scan_counts(lid, P.contact_grid_at2.x, P.n_nodes, true, incidence_offsets_at());
}

@compute @workgroup_size(256)
fn bp_fill_incidence(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (held(lid)) { return; }
    let t = thread_index(wid, nwg, lid);
    if (t >= pair_count()) { return; }
    let n = pair_nodes(t);
    for (var l = 0u; l < pair_node_count(); l++) {
        let at = pairs[incidence_offsets_at() + n[l]] + atomicAdd(&contact_grid[P.contact_grid_at2.y + n[l]], 1u);
        pairs[incidence_at() + at] = 4u * t + l;
    }
}

@compute @workgroup_size(256)
fn bp_sort_incidence(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (held(lid)) { return; }
    let i = thread_index(wid, nwg, lid);
    if (i >= P.n_nodes) { return; }
    let base = incidence_at();
    let range = incidence_range(i);
    let begin = range.x;
    for (var a = begin + 1u; a < range.y; a++) {
        let val = pairs[base + a];
        var b = a;
        while (b > begin && pairs[base + b - 1u] > val) {
            pairs[base + b] = pairs[base + b - 1u];
            b--;
        }
        pairs[base + b] = val;
    }
}
