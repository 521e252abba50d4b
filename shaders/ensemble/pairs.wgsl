// Contact between and within bodies in a batch: 2D point–edge pairs. The host lists
// every pair a variant may ever need (src/ensemble/pairs.rs), so none is dropped, and
// each evaluation goes over all of them: a pair beyond d̂ adds nothing, so the sums
// are those over the GPU backend's broad-phase list. The formulas are the backend's:
// pair_distance.wgsl's case selection, near filter and additive CCD, and
// energy/barrier.wgsl. A pair's Hessian is projected
// onto the PSD cone in the three-dimensional space that holds it (store_pair_terms),
// not by a 6 × 6 Jacobi sweep: no private arrays, and a few loop iterations where
// the sweep takes hundreds (llvmpipe caps an invocation's loop iterations: see
// pair_gather).
// State per pair (PAIR_REALS reals at pair_terms_s): 1 where the pair had terms at the
// last assembly (within d̂, or with friction; else 0, and its terms are not read), its
// weighted gradient (3 nodes × 2), its weighted projected Hessian (6 × 6, row-major),
// then its friction lag (ensemble/pair_friction.wgsl, which adds its terms to these).
// #import ensemble/walls.wgsl
// #import ensemble/pair_friction.wgsl
// #import pair_distance.wgsl

const PAIR_REALS: u32 = 49u;

// Global nodes of pair t: the point, the edge's two ends.
fn ens_pair_nodes(t: u32) -> vec3<u32> {
    let b = pairs_u + 3u * t;
    return vec3<u32>(uints[b], uints[b + 1u], uints[b + 2u]);
}

// Node vector k of a pair's nodes, stacked.
fn ens_pair_vec(k: u32, n: vec3<u32>) -> Stacked {
    var o: Stacked;
    o.s[0] = load_vec(k, n.x);
    o.s[1] = load_vec(k, n.y);
    o.s[2] = load_vec(k, n.z);
    return o;
}

// x + α p of a pair's nodes.
fn ens_pair_at(n: vec3<u32>, alpha: real) -> Stacked {
    var o: Stacked;
    o.s[0] = load_vec(S_X, n.x) + alpha * load_vec(S_P, n.x);
    o.s[1] = load_vec(S_X, n.y) + alpha * load_vec(S_P, n.y);
    o.s[2] = load_vec(S_X, n.z) + alpha * load_vec(S_P, n.z);
    return o;
}

fn ens_dsq(st: Stacked) -> real {
    return closest_point_edge(st, 0u, 1u, 2u).dsq;
}

fn pair_base(t: u32) -> u32 {
    return pair_terms_s + PAIR_REALS * t;
}

// Component l (0, 1, 2) of v, without indexing a vector by a variable.
fn pick3(v: vec3<real>, l: u32) -> real {
    return select(select(v.z, v.y, l == 1u), v.x, l == 0u);
}

// The pairs' barrier and friction energy (J, unweighted) at x, and 1 where some pair
// is at distance 0 or less (inadmissible).
fn pairs_energy(vt: Variant, lid: u32) -> vec2<real> {
    var e: real = 0.0;
    var bad: real = 0.0;
    let dhat2 = vt.dhat * vt.dhat;
    for (var k = lid; k < vt.pairs; k += WGE) {
        let n = ens_pair_nodes(vt.pair_off + k);
        let dsq = ens_dsq(ens_pair_vec(S_X, n));
        if (dsq <= 0.0) {
            bad = 1.0;
        } else if (dsq < dhat2) {
            e += barrier_value(vt.barrier, vt.kappa, vt.dhat, node_area(n.x), sqrt(dsq));
        }
        e += pair_friction_change(vt, vt.pair_off + k, 0.0);
    }
    return vec2<real>(e, bad);
}

// The pairs' barrier and friction change (J, unweighted) from x to x + α p, and 1
// where some pair is at distance 0 or less at either end.
fn pairs_change(vt: Variant, lid: u32, alpha: real) -> vec2<real> {
    var change: real = 0.0;
    var bad: real = 0.0;
    let dhat2 = vt.dhat * vt.dhat;
    for (var k = lid; k < vt.pairs; k += WGE) {
        let n = ens_pair_nodes(vt.pair_off + k);
        let d0sq = ens_dsq(ens_pair_vec(S_X, n));
        let d1sq = ens_dsq(ens_pair_at(n, alpha));
        if (d1sq <= 0.0 || d0sq <= 0.0) {
            bad = 1.0;
        } else if (d0sq < dhat2 || d1sq < dhat2) {
            let d0 = sqrt(d0sq);
            change += barrier_value_change(vt.barrier, vt.kappa, vt.dhat, node_area(n.x), d0, sqrt(d1sq) - d0);
        }
        change += pair_friction_change(vt, vt.pair_off + k, alpha);
    }
    return vec2<real>(change, bad);
}

// Pairs within d̂ at x, the smallest distance among them (BIG where none) and their
// barrier energy (J, unweighted: the CPU's self_contact_barrier, which its diagnostics
// add to the walls' barrier).
fn pairs_stats(vt: Variant, lid: u32) -> vec3<real> {
    var count: real = 0.0;
    var dmin = BIG;
    var e: real = 0.0;
    for (var k = lid; k < vt.pairs; k += WGE) {
        let n = ens_pair_nodes(vt.pair_off + k);
        let dsq = ens_dsq(ens_pair_vec(S_X, n));
        if (dsq < vt.dhat * vt.dhat) {
            count += 1.0;
            dmin = min(dmin, sqrt(max(dsq, 0.0)));
            if (dsq > 0.0) { e += barrier_value(vt.barrier, vt.kappa, vt.dhat, node_area(n.x), sqrt(dsq)); }
        }
    }
    return vec3<real>(count, dmin, e);
}

// The smallest CCD bound of the variant's pairs that may come near along p (1 where
// none), as a negative for a max reduction.
fn pairs_ccd_negated(vt: Variant, lid: u32) -> real {
    var w: real = -1.0;
    for (var k = lid; k < vt.pairs; k += WGE) {
        let n = ens_pair_nodes(vt.pair_off + k);
        let s0 = ens_pair_vec(S_X, n);
        let q = ens_pair_vec(S_P, n);
        let approach = stacked_displacement_bound(KIND_POINT_EDGE, 3u, q);
        if (stacked_may_come_near(KIND_POINT_EDGE, 3u, s0, approach, vt.dhat)) {
            w = max(w, -additive_ccd(KIND_POINT_EDGE, 3u, s0, q));
        }
    }
    return w;
}

// (c, s) of the Jacobi rotation that zeroes a_pq (common.wgsl's jacobi_tangent).
fn jacobi_cs(app: real, aqq: real, apq: real) -> vec2<real> {
    if (apq == 0.0) { return vec2<real>(1.0, 0.0); }
    let t = jacobi_tangent(app, aqq, apq);
    let c = 1.0 / sqrt(t * t + 1.0);
    return vec2<real>(c, t * c);
}

// The nearest PSD matrix to the symmetric 3 × 3 m: twelve cyclic Jacobi sweeps (a
// fixed count: no branch on convergence, which 3 × 3 reaches in five or six), then the
// negative eigenvalues clamped to 0.
fn project_psd3(m_in: mat3x3<real>) -> mat3x3<real> {
    var m = m_in;
    var v = mat3x3<real>(vec3<real>(1.0, 0.0, 0.0), vec3<real>(0.0, 1.0, 0.0), vec3<real>(0.0, 0.0, 1.0));
    for (var sweep = 0u; sweep < 12u; sweep++) {
        var cs = jacobi_cs(m[0][0], m[1][1], m[0][1]);
        var r = mat3x3<real>(vec3<real>(cs.x, -cs.y, 0.0), vec3<real>(cs.y, cs.x, 0.0), vec3<real>(0.0, 0.0, 1.0));
        m = transpose(r) * m * r;
        v = v * r;
        cs = jacobi_cs(m[0][0], m[2][2], m[0][2]);
        r = mat3x3<real>(vec3<real>(cs.x, 0.0, -cs.y), vec3<real>(0.0, 1.0, 0.0), vec3<real>(cs.y, 0.0, cs.x));
        m = transpose(r) * m * r;
        v = v * r;
        cs = jacobi_cs(m[1][1], m[2][2], m[1][2]);
        r = mat3x3<real>(vec3<real>(1.0, 0.0, 0.0), vec3<real>(0.0, cs.x, -cs.y), vec3<real>(0.0, cs.y, cs.x));
        m = transpose(r) * m * r;
        v = v * r;
    }
    let lam = max(vec3<real>(m[0][0], m[1][1], m[2][2]), vec3<real>(0.0));
    let d = mat3x3<real>(vec3<real>(lam.x, 0.0, 0.0), vec3<real>(0.0, lam.y, 0.0), vec3<real>(0.0, 0.0, lam.z));
    return v * d * transpose(v);
}

fn outer3(a: vec3<real>, b: vec3<real>) -> mat3x3<real> {
    return mat3x3<real>(a * b.x, a * b.y, a * b.z);
}

// Row r = (node l, axis a) of the basis U below: (β_l δ_a0, β_l δ_a1, ∂β_l/∂λ v_a).
fn basis_row(beta: vec3<real>, db0: vec3<real>, v: vec3<real>, r: u32) -> vec3<real> {
    let l = r / 2u;
    let a0 = r % 2u == 0u;
    let bl = pick3(beta, l);
    let va = select(v.y, v.x, a0);
    return vec3<real>(select(real(0.0), bl, a0), select(bl, real(0.0), a0), pick3(db0, l) * va);
}

// Pair t's weighted barrier gradient and PSD-projected Hessian at x into its state
// (twin of pair_derivatives.wgsl's store_pair_terms for a 2D point–edge pair), plus its
// friction's; its flag 0 where it is not within d̂ and has no friction. With s = d² and
// the closest points' difference v = Σ β_l x_l, ∇s = 2 β ⊗ v and
// ∇²s = 2 ββᵀ ⊗ I − g₀₀ f fᵀ, f = 2 ∂β/∂λ ⊗ v + 2 β ⊗ j (j = Σ ∂β_l/∂λ x_l,
// g₀₀ = 1 / 2|j|², zero in the point–point cases), so the Hessian
// b″ ∇d ∇dᵀ + b′ ∇²d is U C Uᵀ on the three columns u₁ = β ⊗ e_x, u₂ = β ⊗ e_y,
// u₃ = ∂β/∂λ ⊗ v. With UᵀU = L Lᵀ (Cholesky), its projection is
// U L⁻ᵀ (Lᵀ C L)₊ L⁻¹ Uᵀ: the same matrix as the 6 × 6 projection, to rounding.
fn store_pair_terms(vt: Variant, t: u32) {
    let base = pair_base(t);
    let n = ens_pair_nodes(t);
    let st = ens_pair_vec(S_X, n);
    let c = closest_point_edge(st, 0u, 1u, 2u);
    if (c.dsq >= vt.dhat * vt.dhat || c.dsq <= 0.0) {
        state[base] = pair_friction_only(vt, t, base);
        return;
    }
    state[base] = 1.0;
    let d = sqrt(c.dsq);
    let area = node_area(n.x);
    let b1 = barrier_gradient(vt.barrier, vt.kappa, vt.dhat, area, d);
    let b2 = barrier_curvature(vt.barrier, vt.kappa, vt.dhat, area, d);
    let beta = c.beta.xyz;
    let db0 = c.dbeta0.xyz;
    let v = beta.x * st.s[0] + beta.y * st.s[1] + beta.z * st.s[2];
    let j = db0.x * st.s[0] + db0.y * st.s[1] + db0.z * st.s[2];
    let free = c.free == 1u;
    var g00: real = 0.0;
    if (free) { g00 = 1.0 / (2.0 * dot(j, j)); }
    // C: the Hessian's coefficients on u₁, u₂, u₃
    let c1 = b2 / (4.0 * c.dsq) - b1 / (4.0 * c.dsq * d);
    let c3 = -b1 * g00 / (2.0 * d);
    let ga = vec3<real>(2.0 * v.x, 2.0 * v.y, 0.0);
    let fb = vec3<real>(2.0 * j.x, 2.0 * j.y, 2.0);
    let eye2 = mat3x3<real>(vec3<real>(1.0, 0.0, 0.0), vec3<real>(0.0, 1.0, 0.0), vec3<real>(0.0, 0.0, 0.0));
    let cm = c1 * outer3(ga, ga) + c3 * outer3(fb, fb) + (b1 / d) * eye2;
    // UᵀU's Cholesky factor (u₁ ⟂ u₂; u₃ = 0 without a free parameter: then a unit
    // placeholder, on which C is zero)
    let bb = dot(beta, beta);
    let bd = dot(beta, db0);
    var g22: real = 1.0;
    if (free) { g22 = dot(db0, db0) * dot(v, v); }
    let l00 = sqrt(bb);
    let l20 = bd * v.x / l00;
    let l21 = bd * v.y / l00;
    let l22 = sqrt(g22 - l20 * l20 - l21 * l21);
    let lf = mat3x3<real>(vec3<real>(l00, 0.0, l20), vec3<real>(0.0, l00, l21), vec3<real>(0.0, 0.0, l22));
    let li = mat3x3<real>(vec3<real>(1.0 / l00, 0.0, -l20 / (l00 * l22)), vec3<real>(0.0, 1.0 / l00, -l21 / (l00 * l22)),
        vec3<real>(0.0, 0.0, 1.0 / l22));
    let pm = transpose(li) * project_psd3(transpose(lf) * cm * lf) * li;
    let w = vt.weight;
    for (var r = 0u; r < 6u; r++) {
        let ur = basis_row(beta, db0, v, r);
        let pu = pm * ur;
        state[base + 1u + r] = w * (b1 / d) * pick3(beta, r / 2u) * select(v.y, v.x, r % 2u == 0u);
        for (var col = 0u; col < 6u; col++) {
            state[base + 7u + r * 6u + col] = w * dot(basis_row(beta, db0, v, col), pu);
        }
    }
    add_pair_friction(vt, t, base);
}

// The variant's pairs' terms at x (every thread its share), before the nodes gather.
fn assemble_pairs(vt: Variant, lid: u32) {
    for (var k = lid; k < vt.pairs; k += WGE) {
        store_pair_terms(vt, vt.pair_off + k);
    }
    storageBarrier();
}

// Where node g's list of active incidence entries starts in `state` (its count is at
// pair_active_s + g): at its incidence entries' offset, so each node has room for all
// of its pairs.
fn active_at(g: u32) -> u32 {
    return pair_active_s + total_nodes + uints[pair_adj_u + g] - (pair_adj_u + total_nodes + 1u);
}

// Node g's share of its active pairs' terms: the weighted gradient and diagonal block;
// and its list of active incidence entries, which the operator's couplings go over.
// The operator goes over active pairs only: llvmpipe caps the loop iterations of one
// invocation (about 65,535 in all), and a CG whose every product went over each
// node's whole incidence (every candidate, a few hundred) stopped there silently.
fn pair_gather(g: u32) -> WallTerms {
    var grad = vec3<real>(0.0);
    var h = sym_zero();
    let act = active_at(g);
    var k = 0u;
    for (var e = uints[pair_adj_u + g]; e < uints[pair_adj_u + g + 1u]; e++) {
        let entry = uints[e];
        let base = pair_base(entry / 4u);
        let l = entry % 4u;
        if (state[base] != 0.0) {
            let gi = base + 1u + 2u * l;
            grad += vec3<real>(state[gi], state[gi + 1u], 0.0);
            let hi = base + 7u + 14u * l;
            h = sym_add(h, Sym(vec3<real>(state[hi], state[hi + 7u], 0.0), vec3<real>(state[hi + 1u], 0.0, 0.0)));
            // exact in f32 too: a batch's entries stay below 2²⁴ (BATCH_BYTES holds
            // under 400,000 pairs, a variant at most MAX_PAIRS)
            state[act + k] = real(entry);
            k++;
        }
    }
    state[pair_active_s + g] = real(k);
    return WallTerms(grad, h);
}

// Block (l, m) of a pair's stored Hessian applied to u (2D: the third row is 0).
fn pair_block_apply(base: u32, l: u32, m: u32, u: vec3<real>) -> vec3<real> {
    let hi = base + 7u + 12u * l + 2u * m;
    return vec3<real>(state[hi] * u.x + state[hi + 1u] * u.y, state[hi + 6u] * u.x + state[hi + 7u] * u.y, 0.0);
}

// Node m (slot 0, 1, 2) of a pair's nodes.
fn pick_node(n: vec3<u32>, m: u32) -> u32 {
    return select(select(n.z, n.y, m == 1u), n.x, m == 0u);
}

// Σ over node g's active pairs (its list from the last assembly) of the couplings
// H_(g, j) d_j to the pair's other two nodes.
fn pair_couplings(g: u32) -> vec3<real> {
    var y = vec3<real>(0.0);
    let act = active_at(g);
    let count = u32(state[pair_active_s + g]);
    for (var k = 0u; k < count; k++) {
        let entry = u32(state[act + k]);
        let t = entry / 4u;
        let l = entry % 4u;
        let base = pair_base(t);
        let n = ens_pair_nodes(t);
        let m1 = (l + 1u) % 3u;
        let m2 = (l + 2u) % 3u;
        y += pair_block_apply(base, l, m1, load_vec(S_D, pick_node(n, m1)));
        y += pair_block_apply(base, l, m2, load_vec(S_D, pick_node(n, m2)));
    }
    return y;
}
