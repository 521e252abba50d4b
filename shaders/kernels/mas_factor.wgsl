// The multilevel preconditioner's factorisation, per Newton iteration (after
// assemble): the frames of levels 1 … L − 1 (mas_frames_level, level by level); the
// domain matrices Pᵀ H P of levels 0 and 1 (mas_factor, one workgroup per domain) and
// of the coarser levels (partial blocks over level-1 supernodes summed up level by
// level: mas_coarse_partials, mas_coarse_tree, mas_coarse_store), then every domain
// matrix inverted in place (mas_invert: Gauss–Jordan after a diagonal scaling).
// Host side: src/backend/gpu/mas.rs; CPU twin: src/mas/assemble.rs and dense.rs.
// #import mas.wgsl
// #import energy/spring.wgsl

// The level cursor.

@compute @workgroup_size(1)
fn mas_level_first() {
    mas_state.level = 1u;
}

@compute @workgroup_size(1)
fn mas_level_up() {
    mas_state.level += 1u;
}

@compute @workgroup_size(1)
fn mas_level_down() {
    mas_state.level -= 1u;
}

// Frames of level mas_state.level: on level 1 the centroid of the supernode's nodes
// (fixed ones too) and their largest distance from it; above, the node-weighted
// centroid of the 16 children and a radius enclosing theirs.
@compute @workgroup_size(256)
fn mas_frames_level(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let a = thread_index(wid, nwg, lid);
    let l = mas_state.level;
    let lv = mas_level(l);
    if (a >= lv.count) { return; }
    var c = vec3<real>(0.0);
    var radius: real = 0.0;
    if (l == 1u) {
        let first = a * MAS_B;
        let last = min(first + MAS_B, P.n_nodes);
        let saved = mas_level(0u).frame_offset;
        for (var k = first; k < last; k++) {
            let i = mas_order(k);
            let xi = load_x(i);
            mas_frames[saved + i] = vec4<lreal>(vec4<real>(xi, 0.0));
            c += xi;
        }
        c /= real(last - first);
        for (var k = first; k < last; k++) { radius = max(radius, length(load_x(mas_order(k)) - c)); }
    } else {
        let below = mas_level(l - 1u);
        let first = a * MAS_B;
        let last = min(first + MAS_B, below.count);
        var total: real = 0.0;
        for (var k = first; k < last; k++) {
            let w = real(nodes_in(l - 1u, k));
            c += w * vec4<real>(mas_frames[below.frame_offset + k]).xyz;
            total += w;
        }
        c /= total;
        for (var k = first; k < last; k++) {
            let f = vec4<real>(mas_frames[below.frame_offset + k]);
            radius = max(radius, length(f.xyz - c) + f.w);
        }
    }
    mas_frames[lv.frame_offset + a] = vec4<lreal>(vec4<real>(c, radius));
}

var<workgroup> wg_row: array<real, MAS_MAX_M>;
var<workgroup> wg_col: array<real, MAS_MAX_M>;
var<workgroup> wg_scale: array<real, MAS_MAX_M>;

// The domain matrices of levels 0 and 1 (one workgroup per domain; thread (A, C)
// forms the block of supernodes A and C over A's nodes, at most 16); coarser levels
// go through mas_coarse_partials, mas_coarse_tree and mas_coarse_store, so that no
// thread loops over more than 16 nodes (lavapipe also ends any invocation after
// 65,535 loop iterations).
@compute @workgroup_size(256)
fn mas_factor(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    if (g >= P.mas.y) { return; }
    let ld = domain_of(g);
    let l = ld.x;
    if (l > 1u) { return; }
    let lv = mas_level(l);
    let q = lv.dofs;
    let m = MAS_B * q;
    let base = lv.matrix_offset + ld.y * m * m;
    let sa = ld.y * MAS_B + lid / MAS_B;
    let sc = ld.y * MAS_B + lid % MAS_B;
    var acc: array<array<real, 6>, 6>;
    if (sa < lv.count && sc < lv.count) {
        acc = node_contributions(l, sa * lv.span, min((sa + 1u) * lv.span, P.n_nodes), sa, sc);
    }
    let ra = (lid / MAS_B) * q;
    let ca = (lid % MAS_B) * q;
    for (var r = 0u; r < q; r++) {
        for (var c = 0u; c < q; c++) { mas_matrices[base + (ra + r) * m + ca + c] = lreal(acc[r][c]); }
    }
}

// Partial blocks of level mas_state.level ≥ 2 over each level-1 supernode a: thread
// (a, slot) sums a's nodes' part of the block (A(a), C) with C the slot-th
// supernode of A's domain, into mas_partials region 0.
@compute @workgroup_size(256)
fn mas_coarse_partials(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_index(wid, nwg, lid);
    let a = t / MAS_B;
    if (a >= mas_level(1u).count) { return; }
    let l = mas_state.level;
    let lv = mas_level(l);
    let sa = a * MAS_B / lv.span;
    let sc = (sa / MAS_B) * MAS_B + t % MAS_B;
    var acc: array<array<real, 6>, 6>;
    if (sc < lv.count) {
        acc = node_contributions(l, a * MAS_B, min((a + 1u) * MAS_B, P.n_nodes), sa, sc);
    }
    for (var k = 0u; k < 36u; k++) { mas_partials[t * 36u + k] = lreal(acc[k / 6u][k % 6u]); }
}

// Region of mas_partials holding the partial blocks summed over level-g supernodes.
fn partials_region(g: u32) -> u32 {
    return select(0u, mas_level(1u).count * MAS_B * 36u, g % 2u == 0u);
}

// One step of the partial sums' tree: over level-(g + 1) supernodes from those over
// their 16 level-g children (g = mas_state.grain).
@compute @workgroup_size(256)
fn mas_coarse_tree(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_index(wid, nwg, lid);
    let g = mas_state.grain;
    let b = t / MAS_B;
    if (b >= mas_level(g + 1u).count) { return; }
    let slot = t % MAS_B;
    let src = partials_region(g);
    let dst = partials_region(g + 1u);
    let last = min((b + 1u) * MAS_B, mas_level(g).count);
    for (var k = 0u; k < 36u; k++) {
        var sum: real = 0.0;
        for (var child = b * MAS_B; child < last; child++) { sum += real(mas_partials[src + (child * MAS_B + slot) * 36u + k]); }
        mas_partials[dst + t * 36u + k] = lreal(sum);
    }
}

// The blocks of level mas_state.level (summed over its supernodes, grain = level)
// into the domain matrices.
@compute @workgroup_size(256)
fn mas_coarse_store(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_index(wid, nwg, lid);
    let l = mas_state.level;
    let lv = mas_level(l);
    let sa = t / MAS_B;
    if (sa >= lv.count) { return; }
    let q = lv.dofs;
    let m = MAS_B * q;
    let base = lv.matrix_offset + (sa / MAS_B) * m * m;
    let ra = (sa % MAS_B) * q;
    let ca = (t % MAS_B) * q;
    let src = partials_region(l) + t * 36u;
    for (var r = 0u; r < q; r++) {
        for (var c = 0u; c < q; c++) { mas_matrices[base + (ra + r) * m + ca + c] = lreal(real(mas_partials[src + r * 6u + c])); }
    }
}

@compute @workgroup_size(1)
fn mas_grain_first() {
    mas_state.grain = 1u;
}

@compute @workgroup_size(1)
fn mas_grain_up() {
    mas_state.grain += 1u;
}

// Inverts every domain matrix of every level in place (one workgroup per domain).
@compute @workgroup_size(256)
fn mas_invert(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    if (g >= P.mas.y) { return; }
    let ld = domain_of(g);
    let lv = mas_level(ld.x);
    let m = MAS_B * lv.dofs;
    let base = lv.matrix_offset + ld.y * m * m;
    // An unknown without a row (padding, a fixed node, the rotation of a one-node
    // supernode) gets 1 on the diagonal; then scale to a unit diagonal.
    if (lid < m) {
        var d = real(mas_matrices[base + lid * m + lid]);
        if (d <= 0.0) {
            d = 1.0;
            mas_matrices[base + lid * m + lid] = lreal(d);
        }
        wg_scale[lid] = 1.0 / sqrt(d);
    }
    storageBarrier();
    workgroupBarrier();
    for (var k = lid; k < m * m; k += WG) {
        mas_matrices[base + k] = lreal(real(mas_matrices[base + k]) * (wg_scale[k / m] * wg_scale[k % m]));
    }
    storageBarrier();
    workgroupBarrier();
    // Gauss–Jordan in place, without pivoting (the matrix is symmetric positive
    // definite); a pivot lost to rounding drops its unknown.
    for (var k = 0u; k < m; k++) {
        if (lid < m) {
            wg_row[lid] = real(mas_matrices[base + k * m + lid]);
            wg_col[lid] = real(mas_matrices[base + lid * m + k]);
        }
        storageBarrier();
        workgroupBarrier();
        let p = wg_row[k];
        let keep = p > 0.0;
        let piv = select(0.0, 1.0 / p, keep);
        for (var t = lid; t < m * m; t += WG) {
            let i = t / m;
            let j = t % m;
            var v: real = 0.0;
            if (i == k && j == k) {
                v = piv;
            } else if (i == k) {
                v = wg_row[j] * piv;
            } else if (j == k) {
                v = -wg_col[i] * piv;
            } else {
                v = real(mas_matrices[base + t]) - wg_col[i] * wg_row[j] * piv;
            }
            mas_matrices[base + t] = lreal(v);
        }
        storageBarrier();
        workgroupBarrier();
    }
    for (var k = lid; k < m * m; k += WG) {
        mas_matrices[base + k] = lreal(real(mas_matrices[base + k]) * (wg_scale[k / m] * wg_scale[k % m]));
    }
}

