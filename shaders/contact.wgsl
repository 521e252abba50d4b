// The per-node contact layer: ONE node against ALL walls, plane walls first, then
// implicit walls, in that order everywhere. CPU twin: src/contact.rs. Every wall loop
// of the kernels is a call into this file, so a new wall kind touches only it and its
// twin. Each function takes the node's running sums and adds the walls' terms to them
// in wall order, so the kernels' floating-point order is that of one inline loop.
// `area` is the node's contact area (m²), `xi` its position (m). An implicit wall is
// evaluated where its frame sees the node (implicit/frame.wgsl) and its gradient
// turned back into world coordinates.
// #import state.wgsl
// #import energy/barrier.wgsl
// #import wall.wgsl
// #import implicit/wall.wgsl
// #import implicit/frame.wgsl

// A node's gradient (N) and symmetric Hessian block (N/m) being summed.
struct ContactTerms {
    grad: vec3<real>,
    hess: Sym,
}

// Adds every wall's barrier gradient b′(d) n (plane) or b′(W) ∇W (implicit) and
// PSD block b″(d) n nᵀ or Gauss–Newton b″(W) ∇W ∇Wᵀ to t.
fn contact_add_terms(area: real, xi: vec3<real>, t: ContactTerms) -> ContactTerms {
    var grad = t.grad;
    var h = t.hess;
    for (var w = 0u; w < P.n_walls; w++) {
        let n = wall_normal(w);
        let dist = plane_distance(n, wall_origin(w), xi);
        grad += barrier_gradient(P.barrier_kind, P.kappa, P.dhat, area, dist) * n;
        h = sym_add(h, sym_outer(barrier_hessian(P.barrier_kind, P.kappa, P.dhat, area, dist), n));
    }
    // implicit walls: gradient b′(d) ∇W, Gauss–Newton block b″(d) ∇W ∇Wᵀ (d = W)
    for (var w = 0u; w < N_IMPLICIT_WALLS; w++) {
        let yi = implicit_to_wall(w, xi);
        let dist = implicit_wall_value(w, yi);
        if (dist > 0.0 && dist < P.dhat) {
            let gw = implicit_to_world(w, implicit_wall_gradient(w, yi));
            grad += barrier_gradient(P.barrier_kind, P.kappa, P.dhat, area, dist) * gw;
            h = sym_add(h, sym_outer(barrier_hessian(P.barrier_kind, P.kappa, P.dhat, area, dist), gw));
        }
    }
    return ContactTerms(grad, h);
}

// A node's barrier energy over every wall (J, without the potential weight) and its
// smallest wall distance (m; BIG without walls).
struct ContactValue {
    barrier: real,
    min_distance: real,
}

fn contact_value(area: real, xi: vec3<real>) -> ContactValue {
    var bar: real = 0.0;
    var dmin = BIG;
    for (var w = 0u; w < P.n_walls; w++) {
        let n = wall_normal(w);
        let dist = plane_distance(n, wall_origin(w), xi);
        dmin = min(dmin, dist);
        bar += barrier_value(P.barrier_kind, P.kappa, P.dhat, area, dist);
    }
    for (var w = 0u; w < N_IMPLICIT_WALLS; w++) {
        let dist = implicit_wall_value(w, implicit_to_wall(w, xi));
        dmin = min(dmin, dist);
        bar += barrier_value(P.barrier_kind, P.kappa, P.dhat, area, dist);
    }
    return ContactValue(bar, dmin);
}

// A barrier energy change being summed (J) and whether the trial point is at or
// behind some wall.
struct ContactChange {
    change: real,
    inadmissible: bool,
}

// Adds every wall's barrier change b(d(xi + δ)) − b(d(xi)) to `change`; a wall the
// trial point xi + δ is at or behind adds nothing and marks it inadmissible.
fn contact_add_value_change(area: real, xi: vec3<real>, delta: vec3<real>, change: real) -> ContactChange {
    var de = change;
    var bad = false;
    for (var w = 0u; w < P.n_walls; w++) {
        let n = wall_normal(w);
        let dist = plane_distance(n, wall_origin(w), xi);
        let dd = dot(n, delta);
        if (dist + dd <= 0.0) {
            bad = true;
        } else {
            de += barrier_value_change(P.barrier_kind, P.kappa, P.dhat, area, dist, dd);
        }
    }
    for (var w = 0u; w < N_IMPLICIT_WALLS; w++) {
        let dist = implicit_wall_value(w, implicit_to_wall(w, xi));
        let d1 = implicit_wall_value(w, implicit_to_wall(w, xi + delta));
        if (d1 <= 0.0) {
            bad = true;
        } else {
            de += barrier_value_change(P.barrier_kind, P.kappa, P.dhat, area, dist, d1 - dist);
        }
    }
    return ContactChange(de, bad);
}

// The largest α ≤ 1 along pi keeping the node at xi clear of every wall (CCD bound).
fn contact_ccd_bound(xi: vec3<real>, pi: vec3<real>) -> real {
    var bound: real = 1.0;
    for (var w = 0u; w < P.n_walls; w++) {
        let n = wall_normal(w);
        bound = min(bound, plane_ccd_bound(n, plane_distance(n, wall_origin(w), xi), pi));
    }
    for (var w = 0u; w < N_IMPLICIT_WALLS; w++) {
        bound = min(bound, implicit_ccd_bound(w, implicit_to_wall(w, xi), implicit_dir_to_wall(w, pi)));
    }
    return bound;
}

// The lagged friction contact of a (free) node at xi with wall slot s (plane walls,
// then implicit walls): (unit normal, λ (N)), λ = −b′(d) with the plane's normal, or
// λ = −b′(W) |∇W| with ∇W/|∇W|; zero where there is none.
fn contact_friction_lag(s: u32, area: real, xi: vec3<real>) -> vec4<real> {
    if (s < P.n_walls) {
        let n = wall_normal(s);
        let dist = plane_distance(n, wall_origin(s), xi);
        return vec4<real>(n, -barrier_gradient(P.barrier_kind, P.kappa, P.dhat, area, dist));
    }
    let w = s - P.n_walls;
    let f = implicit_friction_lag(w, P.barrier_kind, P.kappa, P.dhat, area, implicit_to_wall(w, xi));
    return vec4<real>(implicit_to_world(w, f.xyz), f.w);
}
