// A batched variant's walls, node by node: plane walls, then implicit walls, in that
// order everywhere, as shaders/contact.wgsl sums them for the GPU backend (the same
// formulas; only the loops over the variant's own walls are this file's).
// #import ensemble/state.wgsl

// `start` plus a node's gradient (N) and PSD Hessian block (N/m) from every wall's
// barrier, in wall order (contact.wgsl's contact_add_terms): b′(d) n
// and b″(d) n nᵀ (plane), b′(W) ∇W and Gauss–Newton b″(W) ∇W ∇Wᵀ (implicit, d = W).
struct WallTerms {
    grad: vec3<real>,
    hess: Sym,
}

fn wall_terms(vt: Variant, area: real, xi: vec3<real>, start: WallTerms) -> WallTerms {
    var t = start;
    for (var w = 0u; w < vt.walls; w++) {
        let wl = wall_at(vt.wall_off + w);
        let dist = plane_distance(wl[1], wl[0], xi);
        t.grad += barrier_gradient(vt.barrier, vt.kappa, vt.dhat, area, dist) * wl[1];
        t.hess = sym_add(t.hess, sym_outer(barrier_hessian(vt.barrier, vt.kappa, vt.dhat, area, dist), wl[1]));
    }
    for (var k = 0u; k < vt.implicit; k++) {
        let w = implicit_at(vt, k);
        let dist = implicit_wall_value(w, xi);
        if (dist > 0.0 && dist < vt.dhat) {
            let gw = implicit_wall_gradient(w, xi);
            t.grad += barrier_gradient(vt.barrier, vt.kappa, vt.dhat, area, dist) * gw;
            t.hess = sym_add(t.hess, sym_outer(barrier_hessian(vt.barrier, vt.kappa, vt.dhat, area, dist), gw));
        }
    }
    return t;
}

// (barrier energy over the walls (J, unweighted), smallest wall distance (m)).
fn wall_value(vt: Variant, area: real, xi: vec3<real>) -> vec2<real> {
    var bar: real = 0.0;
    var dmin = BIG;
    for (var w = 0u; w < vt.walls; w++) {
        let wl = wall_at(vt.wall_off + w);
        let dist = plane_distance(wl[1], wl[0], xi);
        dmin = min(dmin, dist);
        bar += barrier_value(vt.barrier, vt.kappa, vt.dhat, area, dist);
    }
    for (var k = 0u; k < vt.implicit; k++) {
        let dist = implicit_wall_value(implicit_at(vt, k), xi);
        dmin = min(dmin, dist);
        bar += barrier_value(vt.barrier, vt.kappa, vt.dhat, area, dist);
    }
    return vec2<real>(bar, dmin);
}

// (E change, 1 where xi + δ is at or behind some wall): adds every wall's barrier
// change b(d(xi + δ)) − b(d(xi)) to `change`; a wall the trial point is at or behind
// adds nothing.
fn wall_value_change(vt: Variant, area: real, xi: vec3<real>, delta: vec3<real>, change: real) -> vec2<real> {
    var de = change;
    var bad: real = 0.0;
    for (var w = 0u; w < vt.walls; w++) {
        let wl = wall_at(vt.wall_off + w);
        let dist = plane_distance(wl[1], wl[0], xi);
        let dd = dot(wl[1], delta);
        if (dist + dd <= 0.0) {
            bad = 1.0;
        } else {
            de += barrier_value_change(vt.barrier, vt.kappa, vt.dhat, area, dist, dd);
        }
    }
    for (var k = 0u; k < vt.implicit; k++) {
        let w = implicit_at(vt, k);
        let dist = implicit_wall_value(w, xi);
        let d1 = implicit_wall_value(w, xi + delta);
        if (d1 <= 0.0) {
            bad = 1.0;
        } else {
            de += barrier_value_change(vt.barrier, vt.kappa, vt.dhat, area, dist, d1 - dist);
        }
    }
    return vec2<real>(de, bad);
}

// The largest α ≤ 1 along pi keeping the node at xi clear of every wall (CCD bound).
fn wall_ccd_bound(vt: Variant, xi: vec3<real>, pi: vec3<real>) -> real {
    var bound: real = 1.0;
    for (var w = 0u; w < vt.walls; w++) {
        let wl = wall_at(vt.wall_off + w);
        bound = min(bound, plane_ccd_bound(wl[1], plane_distance(wl[1], wl[0], xi), pi));
    }
    for (var k = 0u; k < vt.implicit; k++) {
        bound = min(bound, implicit_ccd_bound(implicit_at(vt, k), xi, pi));
    }
    return bound;
}
