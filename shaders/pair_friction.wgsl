// Friction on contacts between and within bodies (μ = P.self_friction), lagged like
// the walls': at a lag point (the step start, or the iterate of a lagging update)
// every candidate pair of the list gets a lagged friction pair: its record in the
// LAG region of `pairs` (contact_pairs.wgsl), and after the list's terms in
// `pair_terms` FRICTION_REALS reals: the closest-point coefficients β (Σ β_l x_l is
// the contact vector), the unit normal and the normal force λ = −m b′(d) (N), λ = 0
// where the pair is not active. The broad phase copies them after its candidates,
// so that the pairs' assembly, gather and mat-vec carry their terms. With the slip
// u = Σ β_l (x_l − xⁿ_l), D = μ λ f0(|T u|), its gradient β_l ∂D/∂u and its PSD
// Hessian blocks β_l β_m F. CPU twin: src/backend/cpu/self_friction.rs.
// #import pair_blocks.wgsl
// #import energy/friction.wgsl

const FRICTION_REALS: u32 = 8u;

struct LaggedFriction {
    beta: vec4<real>,
    normal: vec3<real>,
    // N
    lambda: real,
}

fn lagged_at(f: u32) -> u32 {
    return PAIR_TERMS * term_slots() + FRICTION_REALS * f;
}

fn load_lagged(f: u32) -> LaggedFriction {
    let b = lagged_at(f);
    return LaggedFriction(
        vec4<real>(pair_terms[b], pair_terms[b + 1u], pair_terms[b + 2u], pair_terms[b + 3u]),
        vec3<real>(pair_terms[b + 4u], pair_terms[b + 5u], pair_terms[b + 6u]),
        pair_terms[b + 7u],
    );
}

fn store_lagged(f: u32, l: LaggedFriction) {
    let b = lagged_at(f);
    pair_terms[b] = l.beta.x;
    pair_terms[b + 1u] = l.beta.y;
    pair_terms[b + 2u] = l.beta.z;
    pair_terms[b + 3u] = l.beta.w;
    pair_terms[b + 4u] = l.normal.x;
    pair_terms[b + 5u] = l.normal.y;
    pair_terms[b + 6u] = l.normal.z;
    pair_terms[b + 7u] = l.lambda;
}

// The lagged friction of list entry t, a friction pair (t ≥ pair_candidates()).
fn friction_of(t: u32) -> LaggedFriction {
    return load_lagged(t - pair_candidates());
}

// β_l without indexing a vector by a variable.
fn beta_at(beta: vec4<real>, l: u32) -> real {
    return dot(beta, slot_unit(l));
}

// The lag of candidate t at x (twin of CpuBackend::lag_self_friction): zero where
// the pair is not active or has no normal.
fn lag_friction(t: u32) -> LaggedFriction {
    var o = LaggedFriction(vec4<real>(0.0), vec3<real>(0.0), 0.0);
    let kind = pair_kind(t);
    let nodes = pair_nodes(t);
    let st = stacked_x(nodes);
    let c = pair_closest(kind, st);
    if (c.dsq >= P.dhat * P.dhat || c.dsq <= 0.0) { return o; }
    let area = pair_weight(kind, nodes);
    let lambda = -pair_mollifier(t, kind, st) * barrier_gradient(P.barrier_kind, P.kappa, P.dhat, area, sqrt(c.dsq));
    var v = vec3<real>(0.0);
    for (var l = 0u; l < pair_node_count(); l++) { v += beta_at(c.beta, l) * st.s[l]; }
    let len = length(v);
    if (!(len > 0.0 && lambda > 0.0)) { return o; }
    o.beta = c.beta;
    o.normal = v / len;
    o.lambda = lambda;
    return o;
}

// Σ β_l (x_l − xⁿ_l) (m), the pair's relative slip over the step, or with `p` Σ β_l p_l.
fn friction_pair_sum(nodes: vec4<u32>, beta: vec4<real>, p: bool) -> vec3<real> {
    var o = vec3<real>(0.0);
    for (var l = 0u; l < pair_node_count(); l++) {
        let n = pair_node(nodes, l);
        o += beta_at(beta, l) * select(load_dx(n), load_p(n), p);
    }
    return o;
}

// μ λ (N) of a lagged pair.
fn friction_pair_weight(f: LaggedFriction) -> real {
    return P.self_friction * max(f.lambda, 0.0);
}

// D (J, without c h²) of friction pair t at x.
fn friction_pair_value(t: u32) -> real {
    let f = friction_of(t);
    let ml = friction_pair_weight(f);
    if (ml <= 0.0) { return 0.0; }
    return friction_value(ml, P.friction_eps, f.normal, friction_pair_sum(pair_nodes(t), f.beta, false));
}

// D(x + α p) − D(x) (J, without c h²) of friction pair t.
fn friction_pair_change(t: u32, alpha: real) -> real {
    let f = friction_of(t);
    let ml = friction_pair_weight(f);
    if (ml <= 0.0) { return 0.0; }
    let n = pair_nodes(t);
    let u = friction_pair_sum(n, f.beta, false);
    return friction_value_change(ml, P.friction_eps, f.normal, u, alpha * friction_pair_sum(n, f.beta, true));
}

// Entry (r, c) of a symmetric 3 × 3 block.
fn sym_entry(h: Sym, r: u32, c: u32) -> real {
    if (r == c) { return comp(h.diag, r); }
    return comp(h.off, r + c - 1u);
}

// Stores friction pair t's terms in pair_terms as store_pair_terms does a barrier's:
// the gradient β_l ∂D/∂u and the blocks β_l β_m F, weighted by c h².
fn store_friction_terms(t: u32) {
    let f = friction_of(t);
    let ml = friction_pair_weight(f);
    let nodes = pair_nodes(t);
    if (!(ml > 0.0)) {
        release_term_slot(t);
        return;
    }
    let ft = friction_terms(ml, P.friction_eps, f.normal, friction_pair_sum(nodes, f.beta, false));
    let slot = claim_term_slot(t);
    if (slot == NO_TERMS) { return; }
    let k = pair_node_count();
    let n = k * P.dim;
    let base = slot * PAIR_TERMS;
    let w = P.potential_weight;
    for (var l = 0u; l < k; l++) {
        let bl = w * beta_at(f.beta, l);
        for (var r = 0u; r < P.dim; r++) {
            pair_terms[base + l * P.dim + r] = bl * comp(ft.grad, r);
            for (var m = 0u; m < k; m++) {
                let blm = bl * beta_at(f.beta, m);
                for (var c = 0u; c < P.dim; c++) {
                    pair_terms[base + 12u + (l * P.dim + r) * n + m * P.dim + c] = blm * sym_entry(ft.hess, r, c);
                }
            }
        }
    }
}

// (sticking, sliding, dissipation μ λ |T u| in J) of friction pair t at x; zero
// for a pair without a normal force.
fn friction_pair_stats(t: u32) -> vec3<real> {
    let f = friction_of(t);
    let ml = friction_pair_weight(f);
    if (!(f.lambda > 0.0)) { return vec3<real>(0.0); }
    return friction_contact_stats(ml, P.friction_eps, f.normal, friction_pair_sum(pair_nodes(t), f.beta, false));
}
