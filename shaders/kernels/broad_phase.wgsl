// The broad phase of contact between and within bodies on the device: every pair of
// primitives whose boxes, inflated by d̂/2, overlap, at x (static) or swept from x
// to x + p, that shares no node, whose bodies may collide, that is not excluded and
// that may come within d̂ on that segment (pair_candidates.wgsl, may_come_near):
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
//     list equals the CPU's `collision::pairs::near_candidates`, in order;
//   bp_append_lagged: the lagged friction pairs (pair_friction.wgsl) after them;
//   bp_scan_nodes, bp_fill_incidence, bp_sort_incidence: per node the pairs it is in.
// The list never drops a pair: a scan that finds more pairs than the capacity writes
// none and reports the count in pairs[1]; the host grows the buffers and runs the
// broad phase again (src/backend/gpu/contact.rs).
// CPU twin: src/collision/pairs.rs (candidates).
// #import broad_phase_grid.wgsl

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
                    if (!c.keep || !may_come_near(c.rec)) { continue; }
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
    let found = scan_counts(lid, P.contact_grid_at.w, query_count(), false, 0u);
    if (lid == 0u) {
        // the candidates, then a copy of the lagged friction pairs (bp_append_lagged)
        let total = found + lagged_count();
        let fits = total <= pair_capacity();
        pairs[0] = select(0u, total, fits);
        pairs[1] = total;
        pairs[2] = select(0u, found, fits);
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

// The lagged friction pairs' records after the candidates, each counted at its nodes.
@compute @workgroup_size(256)
fn bp_append_lagged(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (held(lid)) { return; }
    let f = thread_index(wid, nwg, lid);
    if (f >= lagged_count() || pairs[1] > pair_capacity()) { return; }
    let t = pair_candidates() + f;
    for (var w = 0u; w < PAIR_WORDS; w++) {
        pairs[PAIR_LIST + PAIR_WORDS * t + w] = pairs[lag_at() + PAIR_WORDS * f + w];
    }
    let n = pair_nodes(t);
    for (var l = 0u; l < pair_node_count(); l++) {
        atomicAdd(&contact_grid[P.contact_grid_at2.x + n[l]], 1u);
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
