// Friction on a batch's contacts between and within bodies (2D point–edge pairs), μ =
// contact.self_friction of the variant (R_SELF_FRICTION), lagged like its walls': at a
// lag point (the step start, or the iterate of a lagging update) every listed pair
// within d̂ stores its closest-point coefficients β (Σ β_l x_l is the contact vector),
// its unit normal and its normal force λ = −b′(d) (N); λ = 0 elsewhere. With the slip
// u = Σ β_l (x_l − xⁿ_l), D = μ λ f0(|T u|), its gradient β_l ∂D/∂u and its PSD
// Hessian blocks β_l β_m F (energy/friction.wgsl), added to the pair's stored terms
// (ensemble/pairs.wgsl), so that the gather and the operator carry them.
// The lag lives after the pair's terms: PAIR_LAG reals from pair_base(t) + PAIR_LAG_AT.
// Twins: the GPU backend's pair_friction.wgsl, the CPU's src/backend/cpu/self_friction.rs.
// #import ensemble/pairs.wgsl
// #import ensemble/friction.wgsl

// Where a pair's lag starts in its PAIR_REALS: β (3), unit normal (x, y), λ (N).
const PAIR_LAG_AT: u32 = 43u;

// The variant's μ between and within bodies.
fn self_mu(vt: Variant) -> real {
    return var_real(vt.index, R_SELF_FRICTION);
}

// The lag of pair t: (β, normal xy in the first two of `n`, λ).
struct PairLag {
    beta: vec3<real>,
    normal: vec3<real>,
    lambda: real,
}

fn load_pair_lag(t: u32) -> PairLag {
    let b = pair_base(t) + PAIR_LAG_AT;
    return PairLag(vec3<real>(state[b], state[b + 1u], state[b + 2u]), vec3<real>(state[b + 3u], state[b + 4u], 0.0),
        state[b + 5u]);
}

// Lags pair t at x (twin of CpuBackend::lag_self_friction); returns the change of λ (N).
fn lag_pair(vt: Variant, t: u32) -> real {
    let b = pair_base(t) + PAIR_LAG_AT;
    let before = state[b + 5u];
    let n = ens_pair_nodes(t);
    let st = ens_pair_vec(S_X, n);
    let c = closest_point_edge(st, 0u, 1u, 2u);
    var o = PairLag(vec3<real>(0.0), vec3<real>(0.0), 0.0);
    if (c.dsq < vt.dhat * vt.dhat && c.dsq > 0.0) {
        let lambda = -barrier_gradient(vt.barrier, vt.kappa, vt.dhat, node_area(n.x), sqrt(c.dsq));
        let v = c.beta.x * st.s[0] + c.beta.y * st.s[1] + c.beta.z * st.s[2];
        let len = length(v);
        if (len > 0.0 && lambda > 0.0) {
            o = PairLag(c.beta.xyz, v / len, lambda);
        }
    }
    state[b] = o.beta.x;
    state[b + 1u] = o.beta.y;
    state[b + 2u] = o.beta.z;
    state[b + 3u] = o.normal.x;
    state[b + 4u] = o.normal.y;
    state[b + 5u] = o.lambda;
    return abs(o.lambda - before);
}

// Lags the variant's pairs (every thread its share) where it has friction between
// bodies; returns this thread's largest change of λ (N), a pair that gained or lost
// its contact counting whole.
fn lag_pairs(vt: Variant, lid: u32) -> real {
    var change: real = 0.0;
    if (self_mu(vt) > 0.0) {
        for (var k = lid; k < vt.pairs; k += WGE) {
            change = max(change, lag_pair(vt, vt.pair_off + k));
        }
    }
    return change;
}

// Σ β_l v_l over the pair's nodes of node vector `k` (S_DISP: the slip so far; S_P).
fn pair_sum(k: u32, n: vec3<u32>, beta: vec3<real>) -> vec3<real> {
    return beta.x * load_vec(k, n.x) + beta.y * load_vec(k, n.y) + beta.z * load_vec(k, n.z);
}

// μ λ (N) of a lag; 0 without friction between bodies or a contact.
fn pair_lag_weight(vt: Variant, f: PairLag) -> real {
    return self_mu(vt) * max(f.lambda, 0.0);
}

// D(x + α p) − D(x) (J, unweighted) of pair t; with α = 0, D(x) itself.
fn pair_friction_change(vt: Variant, t: u32, alpha: real) -> real {
    let f = load_pair_lag(t);
    let ml = pair_lag_weight(vt, f);
    if (!(ml > 0.0)) { return 0.0; }
    let n = ens_pair_nodes(t);
    let u = pair_sum(S_DISP, n, f.beta);
    let eps = friction_eps_of(vt);
    if (alpha == 0.0) { return friction_value(ml, eps, f.normal, u); }
    return friction_value_change(ml, eps, f.normal, u, alpha * pair_sum(S_P, n, f.beta));
}

// Adds pair t's weighted friction gradient and Hessian blocks to its stored terms (at
// `base`, as store_pair_terms lays them out); returns whether it has friction.
fn add_pair_friction(vt: Variant, t: u32, base: u32) -> bool {
    let f = load_pair_lag(t);
    let ml = pair_lag_weight(vt, f);
    if (!(ml > 0.0)) { return false; }
    let ft = friction_terms(ml, friction_eps_of(vt), f.normal, pair_sum(S_DISP, ens_pair_nodes(t), f.beta));
    let fm = mat2x2<real>(vec2<real>(ft.hess.diag.x, ft.hess.off.x), vec2<real>(ft.hess.off.x, ft.hess.diag.y));
    for (var l = 0u; l < 3u; l++) {
        let bl = vt.weight * pick3(f.beta, l);
        for (var r = 0u; r < 2u; r++) {
            state[base + 1u + 2u * l + r] += bl * select(ft.grad.y, ft.grad.x, r == 0u);
            for (var m = 0u; m < 3u; m++) {
                let hrow = base + 7u + (2u * l + r) * 6u + 2u * m;
                state[hrow] += bl * pick3(f.beta, m) * fm[r].x;
                state[hrow + 1u] += bl * pick3(f.beta, m) * fm[r].y;
            }
        }
    }
    return true;
}

// Pair t's terms where it is beyond d̂ (or at 0): its friction alone, on zeroed terms;
// returns the pair's flag (1 where it has friction).
fn pair_friction_only(vt: Variant, t: u32, base: u32) -> real {
    if (!(pair_lag_weight(vt, load_pair_lag(t)) > 0.0)) { return 0.0; }
    for (var k = 1u; k < PAIR_LAG_AT; k++) { state[base + k] = 0.0; }
    add_pair_friction(vt, t, base);
    return 1.0;
}

// (sticking, sliding, dissipation μ λ |T u| in J) over the variant's lagged pairs
// (this thread's share): the CPU's self_friction_stats.
fn pairs_friction_stats(vt: Variant, lid: u32) -> vec3<real> {
    var out = vec3<real>(0.0);
    for (var k = lid; k < vt.pairs; k += WGE) {
        let t = vt.pair_off + k;
        let f = load_pair_lag(t);
        let ml = pair_lag_weight(vt, f);
        if (ml > 0.0) {
            out += friction_contact_stats(ml, friction_eps_of(vt), f.normal, pair_sum(S_DISP, ens_pair_nodes(t), f.beta));
        }
    }
    return out;
}
