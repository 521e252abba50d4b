// One round of a batched ensemble (src/ensemble/): one workgroup per variant does
// what its variant asked (`ops`), so a whole batch costs one dispatch, one submission
// and one readback per round. The operations are those of the GPU backend's
// NewtonSystem and Backend calls (src/backend/gpu/system.rs), with the same formulas
// (energy/*.wgsl, wall.wgsl, integrator.wgsl) and the CPU's PCG (src/pcg.rs) with
// block-Jacobi; only the loops over a variant's nodes and springs are this file's,
// those over its walls (plane and implicit) ensemble/walls.wgsl's and its wall
// friction ensemble/friction.wgsl's, its contact pairs' (2D point–edge)
// ensemble/pairs.wgsl's, with their friction ensemble/pair_friction.wgsl's; 3D
// contact is watched (ensemble/watch.wgsl).
// #import ensemble/friction.wgsl
// #import ensemble/pairs.wgsl
// #import ensemble/watch.wgsl

fn advance(vt: Variant, lid: u32) {
    let a = arg(vt.index, A_ADVANCE_ALPHA);
    for (var i = lid; i < vt.nodes; i += WGE) {
        let g = vt.node_off + i;
        let dx = load_vec(S_DISP, g) + a * load_vec(S_P, g);
        store_vec(S_DISP, g, dx);
        store_vec(S_X, g, load_vec(S_XN, g) + dx);
    }
    storageBarrier();
}

fn end_step(vt: Variant, lid: u32) {
    for (var i = lid; i < vt.nodes; i += WGE) {
        let g = vt.node_off + i;
        let dx = load_vec(S_DISP, g);
        let a_old = load_vec(S_ACC, g);
        let a_new = updated_acceleration(vt.integrator, vt.dt, dx, load_vec(S_PRED, g), a_old);
        store_vec(S_V, g, updated_velocity(vt.integrator, vt.dt, vec3<real>(0.0), dx, load_vec(S_V, g), a_old, a_new));
        store_vec(S_ACC, g, a_new);
    }
    storageBarrier();
}

fn begin_step(vt: Variant, lid: u32) {
    for (var i = lid; i < vt.nodes; i += WGE) {
        let g = vt.node_off + i;
        let xn = load_vec(S_X, g);
        store_vec(S_XN, g, xn);
        store_vec(S_PRED, g, predict(vt.integrator, vt.dt, vec3<real>(0.0), load_vec(S_V, g), load_vec(S_ACC, g)));
        store_vec(S_DISP, g, vec3<real>(0.0));
        // the friction contacts at xⁿ
        if (vt.friction_slots > 0u) { lag_node(vt, g, xn); }
    }
    lag_pairs(vt, lid);
    storageBarrier();
}

// A lagging update of the friction contacts at the current iterate (the slip stays
// measured from xⁿ): the largest change of λ (N).
fn update_lag(vt: Variant, lid: u32) {
    var change: real = 0.0;
    for (var i = lid; i < vt.nodes; i += WGE) {
        let g = vt.node_off + i;
        change = max(change, lag_node(vt, g, load_vec(S_X, g)));
    }
    change = max(change, lag_pairs(vt, lid));
    let most = reduce_max(lid, vec4<real>(change, 0.0, 0.0, 0.0));
    if (lid == 0u) {
        put(vt.index, Q_LAMBDA_CHANGE, most.x);
    }
    storageBarrier();
}

fn spring_energy(s: EnsembleSpring) -> real {
    return spring_value(load_vec(S_X, s.a) - load_vec(S_X, s.b), s.l2, s.k);
}

fn diagnostics(vt: Variant, lid: u32) {
    var sums = vec4<real>(0.0);
    var dmin = BIG;
    for (var i = lid; i < vt.nodes; i += WGE) {
        let g = vt.node_off + i;
        let m = node_mass(g);
        let xi = load_vec(S_X, g);
        let vi = load_vec(S_V, g);
        let wv = wall_value(vt, node_area(g), xi);
        sums += vec4<real>(0.5 * m * dot(vi, vi), gravity_value(m, vt.gravity, xi), 0.0, wv.x);
        dmin = min(dmin, wv.y);
    }
    for (var s = lid; s < vt.springs; s += WGE) {
        sums.z += spring_energy(load_spring(vt.spring_off + s));
    }
    let ps = pairs_stats(vt, lid);
    sums.w += ps.z;
    let total = reduce_sum(lid, sums);
    let low = reduce_max(lid, vec4<real>(-dmin, -ps.y, 0.0, 0.0));
    let near = reduce_sum(lid, vec4<real>(ps.x, 0.0, 0.0, 0.0));
    if (vt.friction_slots > 0u || self_mu(vt) > 0.0) {
        var fs = vec4<real>(pairs_friction_stats(vt, lid), 0.0);
        for (var i = lid; i < vt.nodes; i += WGE) {
            let g = vt.node_off + i;
            fs += vec4<real>(variant_friction_stats(vt, g, load_vec(S_DISP, g)), 0.0);
        }
        let f = reduce_sum(lid, fs);
        if (lid == 0u) {
            put(vt.index, Q_STICKING, f.x);
            put(vt.index, Q_SLIDING, f.y);
            put(vt.index, Q_DISSIPATION, f.z);
        }
    }
    if (lid == 0u) {
        put(vt.index, Q_KINETIC, total.x);
        put(vt.index, Q_GRAVITY, total.y);
        put(vt.index, Q_ELASTIC, total.z);
        put(vt.index, Q_BARRIER, total.w);
        put(vt.index, Q_MIN_DISTANCE, -low.x);
        put(vt.index, Q_PAIRS, near.x);
        put(vt.index, Q_MIN_PAIR_DISTANCE, -low.y);
    }
}

fn energy(vt: Variant, lid: u32) {
    var e: real = 0.0;
    var bad: real = 0.0;
    for (var i = lid; i < vt.nodes; i += WGE) {
        let g = vt.node_off + i;
        let m = node_mass(g);
        let xi = load_vec(S_X, g);
        let wv = wall_value(vt, node_area(g), xi);
        let dx = load_vec(S_DISP, g);
        let fr = variant_friction_value(vt, g, dx);
        e += inertia_value(m, dx - load_vec(S_PRED, g)) + vt.weight * (gravity_value(m, vt.gravity, xi) + wv.x + fr);
        if (wv.y <= 0.0) { bad = 1.0; }
    }
    for (var s = lid; s < vt.springs; s += WGE) {
        e += vt.weight * spring_energy(load_spring(vt.spring_off + s));
    }
    let pe = pairs_energy(vt, lid);
    e += vt.weight * pe.x;
    bad = max(bad, pe.y);
    let total = reduce_sum(lid, vec4<real>(e, 0.0, 0.0, 0.0));
    let flags = reduce_max(lid, vec4<real>(bad, 0.0, 0.0, 0.0));
    if (lid == 0u) {
        put(vt.index, Q_ENERGY, total.x);
        put(vt.index, Q_ENERGY_BAD, flags.x);
    }
}

// E(x + α p) − E(x) summed per element; the flag is 1 where x + α p is at or behind
// a wall.
fn trial(vt: Variant, lid: u32, alpha: real) {
    var de: real = 0.0;
    var bad: real = 0.0;
    for (var i = lid; i < vt.nodes; i += WGE) {
        let g = vt.node_off + i;
        let m = node_mass(g);
        let area = node_area(g);
        let xi = load_vec(S_X, g);
        let delta = alpha * load_vec(S_P, g);
        var change = -m * dot(vt.gravity, delta);
        let wc = wall_value_change(vt, area, xi, delta, change);
        change = wc.x;
        if (wc.y != 0.0) { bad = 1.0; }
        let dx = load_vec(S_DISP, g);
        change += variant_friction_change(vt, g, dx, delta);
        de += inertia_value_change(m, dx - load_vec(S_PRED, g), delta) + vt.weight * change;
    }
    for (var s = lid; s < vt.springs; s += WGE) {
        let sp = load_spring(vt.spring_off + s);
        let delta = alpha * (load_vec(S_P, sp.a) - load_vec(S_P, sp.b));
        de += vt.weight * spring_value_change(load_vec(S_X, sp.a) - load_vec(S_X, sp.b), delta, sp.l2, sp.k);
    }
    let pc = pairs_change(vt, lid, alpha);
    de += vt.weight * pc.x;
    bad = max(bad, pc.y);
    let total = reduce_sum(lid, vec4<real>(de, 0.0, 0.0, 0.0));
    let flags = reduce_max(lid, vec4<real>(bad, 0.0, 0.0, 0.0));
    if (lid == 0u) {
        put(vt.index, Q_TRIAL_ALPHA, alpha);
        put(vt.index, Q_TRIAL_CHANGE, total.x);
        put(vt.index, Q_TRIAL_BAD, flags.x);
    }
}

// CG's relative tolerance for this direction: twin of CgTolerance::relative
// (src/newton/forcing.rs), the rule's constants passed by the host.
fn cg_tolerance(v: u32, rhs_norm: real, per_residual: real) -> real {
    if (arg(v, A_FORCING) == 0.0) { return arg(v, A_ETA); }
    let floor = arg(v, A_FLOOR);
    let eta_max = arg(v, A_ETA_MAX);
    let prev = arg(v, A_PREV_RHS);
    var ew = floor;
    if (prev > 0.0) {
        let ratio = rhs_norm / prev;
        var eta = arg(v, A_GAMMA) * ratio * ratio;
        if (eta == eta && eta < BIG) {
            let guard = arg(v, A_GAMMA) * arg(v, A_PREV_ETA) * arg(v, A_PREV_ETA);
            if (guard > arg(v, A_SAFEGUARD)) { eta = max(eta, guard); }
            ew = clamp(eta, floor, max(eta_max, floor));
        }
    }
    let den = per_residual * rhs_norm;
    if (den > 0.0) {
        let certified = 0.5 * arg(v, A_STOP_DISTANCE) / den;
        if (certified < BIG) { return max(ew, min(certified, eta_max)); }
    }
    return ew;
}

// q_i = H d_i: the node's Newton block plus its springs' projected blocks applied to
// d_i − d_j (0 for a fixed node).
fn matvec_node(vt: Variant, g: u32) -> vec3<real> {
    if (node_fixed(g)) { return vec3<real>(0.0); }
    let xi = load_vec(S_X, g);
    let di = load_vec(S_D, g);
    var y = vec3<real>(0.0);
    let adj = adj_u;
    for (var e = uints[adj + g]; e < uints[adj + g + 1u]; e++) {
        let sp = load_spring(uints[e]);
        var j = sp.a;
        if (j == g) { j = sp.b; }
        let dv = xi - load_vec(S_X, j);
        y += spring_hessian_apply(dv, spring_hessian(dv, sp.l2, sp.k), di - load_vec(S_D, j));
    }
    return sym_apply(load_sym(0u, g), di) + vt.weight * y + pair_couplings(g);
}

// The Newton system at x: r = −∇E, each node's Newton block (mass and walls) and
// its block-Jacobi inverse (with its springs' blocks); p = 0.
fn assemble(vt: Variant, lid: u32) {
    assemble_pairs(vt, lid);
    let adj = adj_u;
    for (var i = lid; i < vt.nodes; i += WGE) {
        let g = vt.node_off + i;
        store_vec(S_P, g, vec3<real>(0.0));
        if (node_fixed(g)) {
            store_vec(S_R, g, vec3<real>(0.0));
            store_sym(0u, g, sym_zero());
            store_sym(1u, g, sym_zero());
            continue;
        }
        let m = node_mass(g);
        let area = node_area(g);
        let xi = load_vec(S_X, g);
        let dx = load_vec(S_DISP, g);
        let fr = variant_friction_terms(vt, g, dx);
        let walls = wall_terms(vt, area, xi, WallTerms(-m * vt.gravity + fr.grad, fr.hess));
        let grad = walls.grad;
        let h = walls.hess;
        var sgrad = vec3<real>(0.0);
        var sblock = sym_zero();
        for (var e = uints[adj + g]; e < uints[adj + g + 1u]; e++) {
            let sp = load_spring(uints[e]);
            var j = sp.a;
            if (j == g) { j = sp.b; }
            let dv = xi - load_vec(S_X, j);
            sgrad += spring_gradient(dv, sp.l2, sp.k);
            sblock = sym_add(sblock, spring_hessian_block(dv, spring_hessian(dv, sp.l2, sp.k)));
        }
        let pg = pair_gather(g);
        store_vec(S_R, g, -(m * (dx - load_vec(S_PRED, g)) + vt.weight * grad) - vt.weight * sgrad - pg.grad);
        let nb = Sym(vec3<real>(m) + vt.weight * h.diag + pg.hess.diag, vt.weight * h.off + pg.hess.off);
        store_sym(0u, g, nb);
        store_sym(1u, g, sym_inverse(Sym(nb.diag + vt.weight * sblock.diag, nb.off + vt.weight * sblock.off), vt.dim));
    }
    storageBarrier();
}

// p = −H⁻¹∇E by block-Jacobi PCG (the CPU's src/pcg.rs), then the direction's
// statistics, its CCD bound over the walls and the first line-search trial at
// α = min(1, CCD bound).
fn direction(vt: Variant, lid: u32) {
    let v = vt.index;
    assemble(vt, lid);
    var part = vec4<real>(0.0);
    for (var i = lid; i < vt.nodes; i += WGE) {
        let ri = load_vec(S_R, vt.node_off + i);
        part.x += dot(ri, ri);
    }
    let bb = reduce_sum(lid, part).x;
    let b_norm = sqrt(bb);
    let eta = cg_tolerance(v, b_norm, var_real(v, R_ERROR_PER_RESIDUAL));
    var iterations = 0u;
    var converged = true;
    var rr: real = 0.0;
    if (b_norm > 0.0) {
        converged = false;
        part = vec4<real>(0.0);
        for (var i = lid; i < vt.nodes; i += WGE) {
            let g = vt.node_off + i;
            let ri = load_vec(S_R, g);
            let zi = sym_apply(load_sym(1u, g), ri);
            store_vec(S_Z, g, zi);
            store_vec(S_D, g, zi);
            part.x += dot(ri, zi);
        }
        var rz = reduce_sum(lid, part).x;
        var rel: real = 1.0;
        rr = bb;
        iterations = vt.cg_max;
        for (var it = 0u; it < vt.cg_max; it++) {
            storageBarrier();
            part = vec4<real>(0.0);
            for (var i = lid; i < vt.nodes; i += WGE) {
                let g = vt.node_off + i;
                let qi = matvec_node(vt, g);
                store_vec(S_Q, g, qi);
                part.x += dot(load_vec(S_D, g), qi);
            }
            let dq = reduce_sum(lid, part).x;
            if (!(dq > 0.0)) {
                // a direction of zero curvature: nothing more to gain along it
                iterations = it + 1u;
                converged = rel <= eta;
                break;
            }
            let alpha = rz / dq;
            part = vec4<real>(0.0);
            for (var i = lid; i < vt.nodes; i += WGE) {
                let g = vt.node_off + i;
                let di = load_vec(S_D, g);
                store_vec(S_P, g, load_vec(S_P, g) + alpha * di);
                let ri = load_vec(S_R, g) - alpha * load_vec(S_Q, g);
                store_vec(S_R, g, ri);
                let zi = sym_apply(load_sym(1u, g), ri);
                store_vec(S_Z, g, zi);
                part += vec4<real>(dot(ri, ri), dot(ri, zi), 0.0, 0.0);
            }
            let sums = reduce_sum(lid, part);
            rr = sums.x;
            rel = sqrt(rr) / b_norm;
            if (rel <= eta) {
                iterations = it + 1u;
                converged = true;
                break;
            }
            let beta = sums.y / rz;
            rz = sums.y;
            for (var i = lid; i < vt.nodes; i += WGE) {
                let g = vt.node_off + i;
                store_vec(S_D, g, load_vec(S_Z, g) + beta * load_vec(S_D, g));
            }
        }
    }
    storageBarrier();
    // max_i Σ_k |p_ik|; whether some coordinate exceeds 1 and 16 ulps of its node's
    // largest coordinate; the CCD bound (negated for the max).
    var stats = vec4<real>(0.0, 0.0, 0.0, -1.0);
    for (var i = lid; i < vt.nodes; i += WGE) {
        let g = vt.node_off + i;
        let pi = load_vec(S_P, g);
        let xi = load_vec(S_X, g);
        let ap = abs(pi);
        let scale = max(max(abs(xi.x), abs(xi.y)), abs(xi.z)) * REAL_EPSILON;
        stats.x = max(stats.x, ap.x + ap.y + ap.z);
        if (any(ap > vec3<real>(scale))) { stats.y = 1.0; }
        if (any(ap > vec3<real>(NEAR_ULPS * scale))) { stats.z = 1.0; }
        stats.w = max(stats.w, -wall_ccd_bound(vt, xi, pi));
    }
    stats.w = max(stats.w, pairs_ccd_negated(vt, lid));
    let s = reduce_max(lid, stats);
    let ccd = min(-s.w, 1.0);
    let watch = watch_fires(vt, lid);
    if (lid == 0u) {
        put(v, Q_WATCH, watch);
        put(v, Q_NORM, s.x);
        put(v, Q_CG_ITERATIONS, real(iterations));
        put(v, Q_CG_CONVERGED, select(real(0.0), real(1.0), converged));
        put(v, Q_BELOW, select(real(1.0), real(0.0), s.y != 0.0));
        put(v, Q_NEAR, select(real(1.0), real(0.0), s.z != 0.0));
        put(v, Q_RHS, b_norm);
        put(v, Q_RR, rr);
        put(v, Q_CCD, ccd);
    }
    if (ccd > 0.0) {
        trial(vt, lid, ccd);
    }
}

// Units in the last place of a direction still near the iterate's resolution
// (crate::newton::NEAR_RESOLUTION_ULPS).
const NEAR_ULPS: real = 16.0;

@compute @workgroup_size(WGE)
fn ensemble_round(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let v = wid.y * nwg.x + wid.x;
    if (v >= uints[H_VARIANTS]) { return; }
    let op = ops[v];
    if (op == 0u) { return; }
    load_header();
    let vt = load_variant(v);
    if ((op & OP_ADVANCE) != 0u) { advance(vt, lid); }
    if ((op & OP_END) != 0u) { end_step(vt, lid); }
    if ((op & OP_DIAGNOSTICS) != 0u) { diagnostics(vt, lid); }
    if ((op & OP_BEGIN) != 0u) { begin_step(vt, lid); }
    if ((op & OP_ENERGY) != 0u) { energy(vt, lid); }
    if ((op & OP_DIRECTION) != 0u) { direction(vt, lid); }
    if ((op & OP_TRIAL) != 0u) { trial(vt, lid, arg(v, A_TRIAL_ALPHA)); }
    if ((op & OP_LAG) != 0u) { update_lag(vt, lid); }
    if ((op & OP_RESTART) != 0u) { restart_step(vt, lid); }
    if ((op & OP_WATCH) != 0u) { watch_again(vt, lid); }
    report_loop_cut(v, lid);
}
