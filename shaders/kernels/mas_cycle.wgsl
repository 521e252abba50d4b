// The multilevel preconditioner applied as a symmetric V-cycle (preconditioner =
// "multigrid"): the same levels, domain factors and transfers as the additive form
// (kernels/mas_factor.wgsl, mas_apply.wgsl), with each level's domain solves as
// smoothers before and after the correction from the level above. CPU twin:
// src/mas/cycle.rs (VCycle), compared in tests/gpu_mas.rs. Host side:
// src/backend/gpu/mas.rs and mas_cycle.rs.
//
// The residuals need every coarse level's whole Galerkin matrix A_l = P_lᵀ H P_l,
// not only its domain blocks: block rows in CSR form whose pattern the host builds
// (springs and ranking only). mas_index holds, after the order and the ranks, a
// header of two words per coarse level l (1 … L − 1): where its row offsets start in
// mas_index (its columns follow them) and where its q × q blocks start in
// mas_matrices (after every level's domain matrices). Level 0's residual is
// r − H z with H matrix-free (node blocks and springs, without the contact pairs'
// couplings, as the CPU twin's), kept in CG's q. Each coarse level's vectors in
// mas_vectors are v (its input), y (its correction) and w (its residual), `padded`
// reals each.
// #import mas.wgsl

fn csr_header(l: u32) -> u32 {
    return 2u * P.n_nodes + 2u * (l - 1u);
}

// First row offset of coarse level l in mas_index.
fn csr_rows(l: u32) -> u32 {
    return mas_index[csr_header(l)];
}

// First column of coarse level l in mas_index.
fn csr_cols(l: u32) -> u32 {
    return csr_rows(l) + mas_level(l).count + 1u;
}

// Offset (reals) of coarse level l's first block in mas_matrices.
fn csr_blocks(l: u32) -> u32 {
    return mas_index[csr_header(l) + 1u];
}

// Offset of level l's residual w in mas_vectors (after v and y).
fn w_offset(lv: MasLevel) -> u32 {
    return 2u * lv.y_offset - lv.v_offset;
}

// The block row of nonzero k of coarse level l (offsets[row] ≤ k < offsets[row + 1];
// every row holds at least its diagonal block).
fn row_of(l: u32, k: u32) -> u32 {
    let base = csr_rows(l);
    var lo = 0u;
    var hi = mas_level(l).count;
    while (hi - lo > 1u) {
        let mid = (lo + hi) / 2u;
        if (mas_index[base + mid] <= k) { lo = mid; } else { hi = mid; }
    }
    return lo;
}

// Entry (k, c) of T, the rigid motion of a child supernode (frame `fa`, level l − 1)
// implied by its parent's (frame `fp`, level l), q × q (rows: the child's unknowns):
// the parent's basis at the child's centroid, and the rotation scaled by the ratio
// of the radii. Computed per entry, without a private matrix.
fn transfer_entry(fa: vec4<real>, fp: vec4<real>, k: u32, c: u32) -> real {
    if (k < P.dim) {
        return basis_column(c, (fa.xyz - fp.xyz) / frame_radius(fp))[k];
    }
    return select(0.0, frame_radius(fa) / frame_radius(fp), k == c);
}

// The blocks of coarse level mas_state.level: on level 1 one thread per nonzero,
// from H over the row's nodes (node_contributions); above, one thread per entry of
// a nonzero, Σ (T_aᵀ A(a, c) T_c) over the children a of its row and c of its
// column (a thread per block would loop past lavapipe's 65,535 iterations per
// invocation in 3D).
@compute @workgroup_size(256)
fn vc_coarse_fill(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_index(wid, nwg, lid);
    let l = mas_state.level;
    let lv = mas_level(l);
    let q = lv.dofs;
    let nonzeros = mas_index[csr_rows(l) + lv.count];
    if (l == 1u) {
        if (t >= nonzeros) { return; }
        let a = row_of(l, t);
        let c = mas_index[csr_cols(l) + t];
        let acc = node_contributions(1u, a * MAS_B, min((a + 1u) * MAS_B, P.n_nodes), a, c);
        let o = csr_blocks(l) + t * q * q;
        for (var r = 0u; r < q; r++) {
            for (var j = 0u; j < q; j++) { mas_matrices[o + r * q + j] = lreal(acc[r][j]); }
        }
        return;
    }
    let k = t / (q * q);
    if (k >= nonzeros) { return; }
    let r = (t % (q * q)) / q;
    let j = t % q;
    let a = row_of(l, k);
    let c = mas_index[csr_cols(l) + k];
    let below = mas_level(l - 1u);
    let rows = csr_rows(l - 1u);
    let cols = csr_cols(l - 1u);
    let blocks = csr_blocks(l - 1u);
    let fa = frame(l, a);
    let fc = frame(l, c);
    let last = min((a + 1u) * MAS_B, below.count);
    var sum: real = 0.0;
    for (var ch = a * MAS_B; ch < last; ch++) {
        let fch = vec4<real>(mas_frames[below.frame_offset + ch]);
        for (var e = mas_index[rows + ch]; e < mas_index[rows + ch + 1u]; e++) {
            let cc = mas_index[cols + e];
            if (cc / MAS_B == c) {
                let fcc = vec4<real>(mas_frames[below.frame_offset + cc]);
                let b = blocks + e * q * q;
                // (T_chᵀ B T_cc)[r][j] with B the child block (q × q, row-major)
                for (var m = 0u; m < q; m++) {
                    let tm = transfer_entry(fch, fa, m, r);
                    if (tm != 0.0) {
                        var bt: real = 0.0;
                        for (var n = 0u; n < q; n++) { bt += real(mas_matrices[b + m * q + n]) * transfer_entry(fcc, fc, n, j); }
                        sum += tm * bt;
                    }
                }
            }
        }
    }
    mas_matrices[csr_blocks(l) + k * q * q + r * q + j] = lreal(sum);
}

// The domain matrices of levels 2 and up cut from the whole matrices (one workgroup
// per domain of every level; thread (A, C) copies block (A, C) where the pattern
// has it, zero where it does not). The additive form builds them from partial blocks
// instead (kernels/mas_factor.wgsl), having no whole matrices.
@compute @workgroup_size(256)
fn vc_coarse_domains(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    if (g >= P.mas.y) { return; }
    let ld = domain_of(g);
    let l = ld.x;
    if (l < 2u) { return; }
    let lv = mas_level(l);
    let q = lv.dofs;
    let m = MAS_B * q;
    let base = lv.matrix_offset + ld.y * m * m;
    let sa = ld.y * MAS_B + lid / MAS_B;
    let sc = ld.y * MAS_B + lid % MAS_B;
    var e = 0xffffffffu;
    if (sa < lv.count && sc < lv.count) {
        let rows = csr_rows(l);
        let cols = csr_cols(l);
        for (var k = mas_index[rows + sa]; k < mas_index[rows + sa + 1u]; k++) {
            if (mas_index[cols + k] == sc) { e = k; }
        }
    }
    let blocks = csr_blocks(l);
    let ra = (lid / MAS_B) * q;
    let ca = (lid % MAS_B) * q;
    for (var r = 0u; r < q; r++) {
        for (var c = 0u; c < q; c++) {
            var v: real = 0.0;
            if (e != 0xffffffffu) { v = real(mas_matrices[blocks + e * q * q + r * q + c]); }
            mas_matrices[base + (ra + r) * m + ca + c] = lreal(v);
        }
    }
}

var<workgroup> wg_rhs: array<real, MAS_MAX_M>;

// Level l's domain d smoothed: y = A⁻¹ s, or y += A⁻¹ s with `add`; s is level l's
// residual w with `from_w`, else its input (level 0: q, else r, gathered by rank). One
// workgroup per domain; the caller keeps it uniform.
fn smooth_domain(l: u32, d: u32, lid: u32, from_w: bool, add: bool) {
    let lv = mas_level(l);
    let m = MAS_B * lv.dofs;
    if (lid < m) {
        var s: real = 0.0;
        if (l == 0u) {
            let rank = d * MAS_B + lid / P.dim;
            if (rank < P.n_nodes) {
                let i = mas_order(rank);
                s = select(load_r(i), load_q(i), from_w)[lid % P.dim];
            }
        } else if (from_w) {
            s = real(mas_vectors[w_offset(lv) + d * m + lid]);
        } else {
            s = real(mas_vectors[lv.v_offset + d * m + lid]);
        }
        wg_rhs[lid] = s;
    }
    workgroupBarrier();
    if (lid < m) {
        let base = lv.matrix_offset + d * m * m;
        var y: real = 0.0;
        for (var j = 0u; j < m; j++) { y += real(mas_matrices[base + j * m + lid]) * wg_rhs[j]; }
        let o = lv.y_offset + d * m + lid;
        if (add) { y += real(mas_vectors[o]); }
        mas_vectors[o] = lreal(y);
    }
}

// Whether level l has a domain g (its supernodes run past g × 16).
fn has_domain(l: u32, g: u32) -> bool {
    return g * MAS_B < mas_level(l).count;
}

// Pre-smoothing on level 0: y₀ = B₀ r; also clears level 1's correction (level-0
// domain d is level-1 supernode d), which the first fine residual must not see.
@compute @workgroup_size(256)
fn vc_smooth0_first(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let g = group_index(wid, nwg);
    if (!has_domain(0u, g)) { return; }
    smooth_domain(0u, g, lid, false, false);
    if (level_count() > 1u && lid < mas_level(1u).dofs) {
        mas_vectors[mas_level(1u).y_offset + g * mas_level(1u).dofs + lid] = lreal(0.0);
    }
}

// Post-smoothing on level 0: y₀ += B₀ w₀.
@compute @workgroup_size(256)
fn vc_smooth0_again(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let g = group_index(wid, nwg);
    if (!has_domain(0u, g)) { return; }
    smooth_domain(0u, g, lid, true, true);
}

// Coarse level mas_state.level on the way up: y = B v.
@compute @workgroup_size(256)
fn vc_smooth_first(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let g = group_index(wid, nwg);
    let l = mas_state.level;
    if (!has_domain(l, g)) { return; }
    smooth_domain(l, g, lid, false, false);
}

// Coarse level mas_state.level on the way down: y += B w.
@compute @workgroup_size(256)
fn vc_smooth_again(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let g = group_index(wid, nwg);
    let l = mas_state.level;
    if (!has_domain(l, g)) { return; }
    smooth_domain(l, g, lid, true, true);
}

// w = v − A y on coarse level mas_state.level, one thread per supernode.
@compute @workgroup_size(256)
fn vc_residual(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let a = thread_index(wid, nwg, lid);
    let l = mas_state.level;
    let lv = mas_level(l);
    if (a >= lv.count) { return; }
    let q = lv.dofs;
    let rows = csr_rows(l);
    let cols = csr_cols(l);
    let blocks = csr_blocks(l);
    var out: array<real, 6>;
    for (var r = 0u; r < q; r++) { out[r] = real(mas_vectors[lv.v_offset + a * q + r]); }
    for (var e = mas_index[rows + a]; e < mas_index[rows + a + 1u]; e++) {
        let c = mas_index[cols + e];
        for (var r = 0u; r < q; r++) {
            var s: real = 0.0;
            for (var j = 0u; j < q; j++) { s += real(mas_matrices[blocks + e * q * q + r * q + j]) * real(mas_vectors[lv.y_offset + c * q + j]); }
            out[r] -= s;
        }
    }
    let w = w_offset(lv);
    for (var r = 0u; r < q; r++) { mas_vectors[w + a * q + r] = lreal(out[r]); }
}

// v of level mas_state.level from the residual of the level below: Σ Pᵀ w₀ over
// each supernode's nodes (level 1) or Σ Tᵀ w over its children (above).
@compute @workgroup_size(256)
fn vc_restrict(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let a = thread_index(wid, nwg, lid);
    let l = mas_state.level;
    let lv = mas_level(l);
    if (a >= lv.count) { return; }
    store_rigid(lv.v_offset, a, restrict_supernode(l, a, true, w_offset(mas_level(l - 1u))));
}

// z = the correction so far (level 0's and level 1's), into the CG's z, which the
// application overwrites at its end (mas_finish).
@compute @workgroup_size(256)
fn vc_fine_z(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let i = thread_index(wid, nwg, lid);
    if (i >= P.n_nodes) { return; }
    store_z(i, mas_node_correction(i));
}

// Level 0's residual w₀ = r − H z (0 at fixed nodes), H matrix-free over the node
// blocks and the springs, into CG's q (free until the next product; kept in node
// order, which binds eight storage buffers, the default limit).
@compute @workgroup_size(256)
fn vc_fine_residual(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (cg_finished(lid)) { return; }
    let i = thread_index(wid, nwg, lid);
    if (i >= P.n_nodes) { return; }
    let nb = load_block(NEWTON_BLOCKS, i);
    var res = vec3<real>(0.0);
    if (nb.diag.w == 0.0) {
        let xi = load_x(i);
        let zi = load_z(i);
        var y = vec3<real>(0.0);
        for (var e = adjacency[i]; e < adjacency[i + 1u]; e++) {
            let sp = spring_at(i, xi, e);
            y += spring_hessian_apply(sp.dv, sp.h, zi - load_z(sp.j));
        }
        res = load_r(i) - (node_block_apply(nb, zi) + P.potential_weight * y);
    }
    store_q(i, res);
}
