// Contact between and within bodies in 3D, watched (src/ensemble/watch.rs, which
// states the proof): at each Newton direction p, whether some 3D pair could add
// anything between x and x + p (a barrier, terms, a CCD bound). Where it could, the
// variant stops and runs alone (which has the 3D contact kernels); where it could
// not, the pairs add nothing there alone either.
// Layouts (written by src/ensemble/layout.rs; the reference is rewritten where a
// variant takes a new one: watch::reference_writes): `uints` at H_WATCH_U holds per
// watched body its first node (global) and node count, a variant's bodies from
// V_BODY_OFF of its record (V_BODIES of them); `reals` at H_WATCH_R each body's
// clearance (m) at x⁰, at H_REST_R every node's x⁰ (3 reals), at H_REF_R every
// node's reference position (3 reals; x⁰ at first), at H_APART_R per body
// WATCH_BODIES distances (m) at the reference to the variant's bodies, and at
// H_REF_CLEAR_R each body's clearance at the reference.
// #import pair_distance.wgsl

const H_WATCH_U: u32 = 16u;
const H_WATCH_R: u32 = 17u;
const H_REST_R: u32 = 18u;
const H_REF_R: u32 = 19u;
const H_APART_R: u32 = 20u;
const H_REF_CLEAR_R: u32 = 21u;
const V_BODY_OFF: u32 = 16u;
const V_BODIES: u32 = 17u;
// 1 where some 3D pair may come near along the round's direction (watch_fires).
const Q_WATCH: u32 = 25u;
// Most watched bodies of a variant (watch::MAX_WATCH_BODIES).
const WATCH_BODIES: u32 = 16u;

// A pair whose distance stays above this many W (the spread of p within a body, or
// the variant's between bodies) keeps the CCD's share of its gap (watch.rs).
const CCD_REACH: real = 0.25;

// Each watched body's box over x and x + p (lower corner, upper corner).
var<workgroup> watch_boxes: array<vec3<real>, 32>;
// Each watched body's shift from the reference at x and at x + p (the move of its
// centre), and the largest deviation of its nodes from that shift (in .w of the
// first).
var<workgroup> watch_moves: array<vec4<real>, 32>;

// Node g's position in the shape whose positions start at `shape` in `reals`.
fn shape_position(shape: u32, g: u32) -> vec3<real> {
    let b = shape + 3u * g;
    return vec3<real>(reals[b], reals[b + 1u], reals[b + 2u]);
}

// Node g's position at the variant's reference.
fn reference_position(g: u32) -> vec3<real> {
    return shape_position(uints[H_REF_R], g);
}

// 1 where some 3D pair of the variant might come within NEAR_REACH d̂, or lose the
// CCD's share of its gap, on the segment from x to x + p, else 0 (NaN gives 1).
fn watch_fires(vt: Variant, lid: u32) -> real {
    let u = var_u + vt.index * VU;
    let bodies = uints[u + V_BODIES];
    if (bodies == 0u) { return 0.0; }
    let body_off = uints[u + V_BODY_OFF];
    // the variant's mean p; then W = max |p_i − mean| and S = max |x_i| (∞-norm)
    var acc = vec4<real>(0.0);
    for (var i = lid; i < vt.nodes; i += WGE) {
        acc += vec4<real>(load_vec(S_P, vt.node_off + i), 1.0);
    }
    let mean = reduce_sum(lid, acc);
    let pbar = mean.xyz / mean.w;
    acc = vec4<real>(0.0);
    for (var i = lid; i < vt.nodes; i += WGE) {
        let g = vt.node_off + i;
        let a = abs(load_vec(S_X, g));
        acc.x = max(acc.x, length(load_vec(S_P, g) - pbar));
        acc.y = max(acc.y, max(a.x, max(a.y, a.z)));
    }
    let spread = reduce_max(lid, acc);
    let w = spread.x;
    let reach = NEAR_REACH * vt.dhat + 128.0 * REAL_EPSILON * (spread.y + w);
    var fires = false;
    for (var b = 0u; b < min(bodies, WATCH_BODIES); b++) {
        let rec = uints[H_WATCH_U] + 2u * (body_off + b);
        let first = uints[rec];
        let count = uints[rec + 1u];
        // the body's centres at x and at the reference x_r, and its mean p
        var sx = vec4<real>(0.0);
        var sp = vec4<real>(0.0);
        var sr = vec4<real>(0.0);
        for (var i = lid; i < count; i += WGE) {
            let g = first + i;
            sx += vec4<real>(load_vec(S_X, g), 1.0);
            sp += vec4<real>(load_vec(S_P, g), 0.0);
            sr += vec4<real>(reference_position(g), 0.0);
        }
        let tx = reduce_sum(lid, sx);
        let xbar = tx.xyz / tx.w;
        let cp = reduce_sum(lid, sp).xyz / tx.w;
        let xrbar = reduce_sum(lid, sr).xyz / tx.w;
        // within the body: the bound from x⁰ or from the reference, whichever is larger
        let k = body_off + b;
        let kept = max(
            shape_bound(lid, first, count, xbar, cp, uints[H_REST_R], reals[uints[H_WATCH_R] + k]),
            shape_bound(lid, first, count, xbar, cp, uints[H_REF_R], reals[uints[H_REF_CLEAR_R] + k]));
        // over the body's nodes, with b = p − c': the largest |b|, the largest
        // deviation from the shift since the reference, and the box of x and x + p
        var m = vec4<real>(0.0);
        var lo = vec4<real>(-BIG);
        var hi = vec4<real>(-BIG);
        for (var i = lid; i < count; i += WGE) {
            let g = first + i;
            let xi = load_vec(S_X, g);
            let pi = load_vec(S_P, g);
            let d = xi - xbar - (reference_position(g) - xrbar);
            m.y = max(m.y, length(pi - cp));
            m.z = max(m.z, max(length(d), length(d + pi - cp)));
            lo = max(lo, vec4<real>(-min(xi, xi + pi), 0.0));
            hi = max(hi, vec4<real>(max(xi, xi + pi), 0.0));
        }
        let mm = reduce_max(lid, m);
        let low = reduce_max(lid, lo);
        let high = reduce_max(lid, hi);
        if (lid == 0u) {
            watch_boxes[2u * b] = -low.xyz;
            watch_boxes[2u * b + 1u] = high.xyz;
            watch_moves[2u * b] = vec4<real>(xbar - xrbar, mm.z);
            watch_moves[2u * b + 1u] = vec4<real>(xbar + cp - xrbar, 0.0);
        }
        let margin = 256.0 * REAL_EPSILON * spread.y;
        let need = max(reach, CCD_REACH * mm.y) + margin;
        if (!(kept >= need)) { fires = true; }
    }
    workgroupBarrier();
    if (lid == 0u) {
        let between = max(reach, CCD_REACH * w);
        let margin = 256.0 * REAL_EPSILON * spread.y;
        for (var a = 0u; a < min(bodies, WATCH_BODIES); a++) {
            for (var b = a + 1u; b < min(bodies, WATCH_BODIES); b++) {
                let apart = max(watch_boxes[2u * b] - watch_boxes[2u * a + 1u], watch_boxes[2u * a] - watch_boxes[2u * b + 1u]);
                let gap = length(max(apart, vec3<real>(0.0)));
                // or: their distance at the reference, less how far their shifts
                // part (convex in t: the ends bound it) and their deviations
                let at_ref = reals[uints[H_APART_R] + (body_off + a) * WATCH_BODIES + b];
                let shift = max(length(watch_moves[2u * a].xyz - watch_moves[2u * b].xyz), length(watch_moves[2u * a + 1u].xyz - watch_moves[2u * b + 1u].xyz));
                let kept = at_ref - shift - watch_moves[2u * a].w - watch_moves[2u * b].w - margin;
                if (!(max(gap, kept) >= between)) { fires = true; }
            }
        }
    }
    return select(real(0.0), real(1.0), fires || bodies > WATCH_BODIES);
}

// A lower bound (m) on the distance of any pair of the body (`count` nodes from
// `first`; centre x̄ at x, mean p c') on the segment from x to x + p, from a shape
// whose positions lie in `reals` from `shape` (3 per global node) and whose
// clearance is `clearance`: the shape, about its centre, mapped by
// R₀ + t (R₁ − R₀) (R₀, R₁ its best fitting rotations at x and x + p), lies within
// δ of the body; that map shrinks distances by at most the rotations' defect and
// half of ‖R₁ − R₀‖ (watch.rs), so pairs stay at least clearance (1 − that) − 2 δ
// apart.
fn shape_bound(lid: u32, first: u32, count: u32, xbar: vec3<real>, cp: vec3<real>, shape: u32, clearance: real) -> real {
    var s0 = vec4<real>(0.0);
    for (var i = lid; i < count; i += WGE) {
        s0 += vec4<real>(shape_position(shape, first + i), 0.0);
    }
    let x0bar = reduce_sum(lid, s0).xyz / real(count);
    // the fits of the shape to x (columns f) and to x + p (columns h)
    var f0 = vec4<real>(0.0);
    var f1 = vec4<real>(0.0);
    var f2 = vec4<real>(0.0);
    var h0 = vec4<real>(0.0);
    var h1 = vec4<real>(0.0);
    var h2 = vec4<real>(0.0);
    for (var i = lid; i < count; i += WGE) {
        let g = first + i;
        let r0 = shape_position(shape, g) - x0bar;
        let d = load_vec(S_X, g) - xbar;
        let e = d + load_vec(S_P, g) - cp;
        f0 += vec4<real>(d * r0.x, 0.0);
        f1 += vec4<real>(d * r0.y, 0.0);
        f2 += vec4<real>(d * r0.z, 0.0);
        h0 += vec4<real>(e * r0.x, 0.0);
        h1 += vec4<real>(e * r0.y, 0.0);
        h2 += vec4<real>(e * r0.z, 0.0);
    }
    let rot = polar_factor(mat3x3<real>(reduce_sum(lid, f0).xyz, reduce_sum(lid, f1).xyz, reduce_sum(lid, f2).xyz));
    let rot1 = polar_factor(mat3x3<real>(reduce_sum(lid, h0).xyz, reduce_sum(lid, h1).xyz, reduce_sum(lid, h2).xyz));
    let turn = rot1 - rot;
    let spin = sqrt(dot(turn[0], turn[0]) + dot(turn[1], turn[1]) + dot(turn[2], turn[2]));
    let defect = max(orthogonality_defect(rot), orthogonality_defect(rot1)) + 0.5 * spin;
    // the deviation (x − x̄) − R (s − s̄) at x, and with R₁ at x + p (affine in t: the
    // ends bound it)
    var dev: real = 0.0;
    for (var i = lid; i < count; i += WGE) {
        let g = first + i;
        let xi = load_vec(S_X, g);
        let pi = load_vec(S_P, g);
        let r0 = shape_position(shape, g) - x0bar;
        dev = max(dev, max(length(xi - xbar - rot * r0), length(xi + pi - xbar - cp - rot1 * r0)));
    }
    let delta = reduce_max(lid, vec4<real>(dev, 0.0, 0.0, 0.0)).x;
    return clearance * (1.0 - defect) - 2.0 * delta;
}

// The orthogonal polar factor of m (Newton's iteration X ← (X + X⁻ᵀ) / 2 from m
// scaled to unit size, a fixed number of times), or the identity where m is near
// singular (a flat or collapsed body) or not finite. Any orthogonal matrix keeps
// distances, so a rotation or a reflection serves alike.
fn polar_factor(m: mat3x3<real>) -> mat3x3<real> {
    let size = sqrt(dot(m[0], m[0]) + dot(m[1], m[1]) + dot(m[2], m[2]));
    let id = mat3x3<real>(vec3<real>(1.0, 0.0, 0.0), vec3<real>(0.0, 1.0, 0.0), vec3<real>(0.0, 0.0, 1.0));
    if (!(size > 0.0) || !(size < BIG)) { return id; }
    var x = m * (1.7320508075688772 / size);
    if (!(abs(dot(x[0], cross(x[1], x[2]))) > 1e-3)) { return id; }
    for (var k = 0u; k < 12u; k++) {
        let c0 = cross(x[1], x[2]);
        let c1 = cross(x[2], x[0]);
        let c2 = cross(x[0], x[1]);
        let det = dot(x[0], c0);
        x = mat3x3<real>(0.5 * (x[0] + c0 / det), 0.5 * (x[1] + c1 / det), 0.5 * (x[2] + c2 / det));
    }
    if (!(orthogonality_defect(x) < 0.5)) { return id; }
    return x;
}

// ‖Xᵀ X − I‖ (Frobenius): a lower bound on how much X may shrink a length, relative
// (σ_min ≥ √(1 − defect) ≥ 1 − defect).
fn orthogonality_defect(x: mat3x3<real>) -> real {
    let g = transpose(x) * x - mat3x3<real>(vec3<real>(1.0, 0.0, 0.0), vec3<real>(0.0, 1.0, 0.0), vec3<real>(0.0, 0.0, 1.0));
    return sqrt(dot(g[0], g[0]) + dot(g[1], g[1]) + dot(g[2], g[2]));
}

// Runs the watch again on the round's direction, after the variant took a new
// reference (src/ensemble/member.rs).
const OP_WATCH: u32 = 512u;

fn watch_again(vt: Variant, lid: u32) {
    let fires = watch_fires(vt, lid);
    if (lid == 0u) { put(vt.index, Q_WATCH, fires); }
}

// Puts the variant back at its step's start (x = xⁿ): the round after which a
// variant that leaves its batch reads its state (src/ensemble/member.rs, handover).
const OP_RESTART: u32 = 256u;

fn restart_step(vt: Variant, lid: u32) {
    for (var i = lid; i < vt.nodes; i += WGE) {
        let g = vt.node_off + i;
        store_vec(S_DISP, g, vec3<real>(0.0));
        store_vec(S_X, g, load_vec(S_XN, g));
    }
    storageBarrier();
}
