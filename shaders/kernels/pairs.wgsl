// Contact between and within bodies, per pair of the broad phase's list
// (contact_pairs.wgsl): the gather of the pairs' terms, the energies and the
// statistics (the mat-vec's couplings are newton_matvec_pairs, the CCD bound is in
// direction_stats). Per-node sums go over each node's incidence list, in pair order
// (no float atomics). CPU twin: src/backend/cpu/self_contact.rs.
//   pair_gather: per node, after node_terms and before assemble: −gradients into r,
//     the diagonal sub-blocks into the Newton node block;
//   pair_energy_total, pair_energy_change: add the pairs' lanes to the partials the
//     element kernel of the same span (energy_total, energy_change) just stored;
//   pair_stats: active pairs (sums.x) and their smallest distance (mixed.z); the
//     friction pairs' sticking (sums.y), sliding (sums.z) and dissipation (sums.w).
// Lagged friction pairs (pair_friction.wgsl) follow the candidates in the list.
// #import pair_friction.wgsl

@compute @workgroup_size(256)
fn pair_gather(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    if (i == 0u) {
        // the assembly is over: its count for the host, the counter for the next
        atomicStore(&contact_grid[HDR_TERMS_USED], atomicLoad(&contact_grid[HDR_TERMS]));
        atomicStore(&contact_grid[HDR_TERMS], 0u);
    }
    if (i >= P.n_nodes || nodes[i].fixed != 0u) { return; }
    var g = vec3<real>(0.0);
    var h = sym_zero();
    let range = incidence_range(i);
    for (var e = range.x; e < range.y; e++) {
        let te = incidence_entry(e);
        let t = te.x;
        let l = te.y;
        if (pair_slot(t) == NO_TERMS) { continue; }
        g += pair_gradient(t, l);
        let b = pair_block(t, l, l);
        h = sym_add(h, Sym(vec3<real>(b[0][0], b[1][1], b[2][2]), vec3<real>(b[1][0], b[2][0], b[2][1])));
    }
    if (range.y == range.x) { return; }
    store_r(i, load_r(i) - g);
    let nb = load_block(NEWTON_BLOCKS, i);
    store_block(NEWTON_BLOCKS, i, NodeBlock(vec4<real>(nb.diag.xyz + h.diag, nb.diag.w), vec4<real>(nb.off.xyz + h.off, 0.0)));
}

// Adds a pair kernel's lanes to the partial its workgroup's element kernel stored.
fn add_partials(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, mine: Lanes) {
    let total = workgroup_reduce(lid, mine);
    if (lid == 0u) {
        let g = group_index(wid, nwg);
        partials[g] = lanes_combine(partials[g], total);
    }
}

@compute @workgroup_size(256)
fn pair_energy_total(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_index(wid, nwg, lid);
    var mine = lanes_zero();
    if (t >= pair_candidates() && t < pair_count()) {
        mine.sums.x = P.potential_weight * friction_pair_value(t);
    } else if (t < pair_count()) {
        let kind = pair_kind(t);
        let st = stacked_x(pair_nodes(t));
        let dsq = stacked_distance_sq(kind, st);
        var b = pair_barrier_value(pair_weight(kind, pair_nodes(t)), dsq);
        if (b != 0.0) { b *= pair_mollifier(t, kind, st); }
        mine.sums.x = P.potential_weight * b;
        mine.mixed.x = b;
        mine.mixed.w = select(real(0.0), real(1.0), dsq <= 0.0);
    }
    add_partials(wid, nwg, lid, mine);
}

@compute @workgroup_size(256)
fn pair_energy_change(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_index(wid, nwg, lid);
    var mine = lanes_zero();
    if (t >= pair_candidates() && t < pair_count()) {
        mine.sums.x = P.potential_weight * friction_pair_change(t, cg.ls_alpha);
    } else if (t < pair_count()) {
        let kind = pair_kind(t);
        let n = pair_nodes(t);
        let s0 = stacked_x(n);
        let s1 = stacked_at(n, cg.ls_alpha);
        let d0 = sqrt(max(stacked_distance_sq(kind, s0), 0.0));
        let d1sq = stacked_distance_sq(kind, s1);
        if (d1sq <= 0.0 || d0 <= 0.0) {
            mine.mixed.w = 1.0;
        } else {
            // m₁ b(d₁) − m₀ b(d₀) = m₁ (b(d₁) − b(d₀)) + (m₁ − m₀) b(d₀)
            let area = pair_weight(kind, n);
            let d1 = sqrt(d1sq);
            let m0 = pair_mollifier(t, kind, s0);
            let m1 = pair_mollifier(t, kind, s1);
            var change = m1 * barrier_value_change(P.barrier_kind, P.kappa, P.dhat, area, d0, d1 - d0);
            if (m1 != m0) { change += (m1 - m0) * barrier_value(P.barrier_kind, P.kappa, P.dhat, area, d0); }
            mine.sums.x = P.potential_weight * change;
        }
    }
    add_partials(wid, nwg, lid, mine);
}

@compute @workgroup_size(256)
fn pair_stats(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_index(wid, nwg, lid);
    var mine = lanes_zero();
    if (t >= pair_candidates() && t < pair_count()) {
        let s = friction_pair_stats(t);
        mine.sums.y = s.x;
        mine.sums.z = s.y;
        mine.sums.w = s.z;
    } else if (t < pair_count()) {
        let dsq = stacked_distance_sq(pair_kind(t), stacked_x(pair_nodes(t)));
        if (dsq < P.dhat * P.dhat) {
            mine.sums.x = 1.0;
            mine.mixed.z = sqrt(max(dsq, 0.0));
        }
    }
    store_partials(wid, nwg, lid, mine);
}
