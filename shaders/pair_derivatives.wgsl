// The derivatives of a pair's barrier: the squared distance's gradient and
// Hessian, the barrier's second derivative, the projection of the pair's Hessian
// onto the PSD cone, and the weighted terms pair_assemble stores. Kept apart from
// contact_pairs.wgsl because its 12 × 12 private arrays make every kernel whose
// module holds them costlier to launch on some drivers (lavapipe); only
// kernels/pair_assemble.wgsl imports it.
// #import pair_blocks.wgsl

// The squared distance's gradient (per node) and Hessian (dimensionless, 3 × 3
// blocks, row-major over nodes) in the case the selection picks, from its closest
// points. By the envelope theorem d² = |v|² with v = Σ β_l s_l at the closest
// points' parameters λ (0 to 2 of them), so ∇_l d² = 2 β_l v and
// ∇²d² = 2 (β βᵀ ⊗ I) − F G⁻¹ Fᵀ, with G = 2 JᵀJ (J_j = ∂v/∂λ_j) the parameters'
// Hessian and F_(l,a),j = 2 (∂β_l/∂λ_j) v_a + 2 β_l J_ja the mixed derivatives
// (the implicit function theorem on ∂|v|²/∂λ = 0). It equals the Hessian of the
// case's formula (point–point, point–line, point–plane, line–line), which the CPU
// differentiates by AD.
struct DistanceDerivatives {
    value: real,
    grad: array<real, 12>,
    hess: array<real, 144>,
}

fn closest_derivatives(st: Stacked, c: Closest) -> DistanceDerivatives {
    var o: DistanceDerivatives;
    let k = pair_node_count();
    let n = k * P.dim;
    let beta = array<real, 4>(c.beta.x, c.beta.y, c.beta.z, c.beta.w);
    let db0 = array<real, 4>(c.dbeta0.x, c.dbeta0.y, c.dbeta0.z, c.dbeta0.w);
    let db1 = array<real, 4>(c.dbeta1.x, c.dbeta1.y, c.dbeta1.z, c.dbeta1.w);
    var v = vec3<real>(0.0);
    var j0 = vec3<real>(0.0);
    var j1 = vec3<real>(0.0);
    for (var l = 0u; l < k; l++) {
        v += beta[l] * st.s[l];
        j0 += db0[l] * st.s[l];
        j1 += db1[l] * st.s[l];
    }
    // G⁻¹ of the free parameters (zero where there are none)
    var g00: real = 0.0;
    var g01: real = 0.0;
    var g11: real = 0.0;
    if (c.free == 1u) {
        g00 = 1.0 / (2.0 * dot(j0, j0));
    } else if (c.free == 2u) {
        let a = 2.0 * dot(j0, j0);
        let b = 2.0 * dot(j0, j1);
        let d = 2.0 * dot(j1, j1);
        let det = a * d - b * b;
        g00 = d / det;
        g01 = -b / det;
        g11 = a / det;
    }
    o.value = c.dsq;
    // F per stacked coordinate, the two parameters' columns
    var f0: array<real, 12>;
    var f1: array<real, 12>;
    for (var l = 0u; l < k; l++) {
        let gl = 2.0 * beta[l] * v;
        let a0 = 2.0 * db0[l] * v + 2.0 * beta[l] * j0;
        let a1 = 2.0 * db1[l] * v + 2.0 * beta[l] * j1;
        for (var a = 0u; a < P.dim; a++) {
            o.grad[l * P.dim + a] = comp(gl, a);
            f0[l * P.dim + a] = comp(a0, a);
            f1[l * P.dim + a] = comp(a1, a);
        }
    }
    for (var r = 0u; r < n; r++) {
        for (var col = r; col < n; col++) {
            var h = select(real(0.0), 2.0 * beta[r / P.dim] * beta[col / P.dim], r % P.dim == col % P.dim);
            h -= f0[r] * (g00 * f0[col] + g01 * f1[col]) + f1[r] * (g01 * f0[col] + g11 * f1[col]);
            o.hess[r * n + col] = h;
            o.hess[col * n + r] = h;
        }
    }
    return o;
}

// One Jacobi rotation of the leading n × n block of `a` in the plane (p, q) that
// zeroes a_pq (exactly), accumulated into the columns of `v`; an a_pq negligible
// against both diagonal entries is dropped without rotating. Twin of
// collision::psd's rotate.
fn jacobi_rotate(a: ptr<function, array<real, 144>>, v: ptr<function, array<real, 144>>, n: u32, p: u32, q: u32) {
    let apq = (*a)[p * n + q];
    let app = (*a)[p * n + p];
    let aqq = (*a)[q * n + q];
    let g = 100.0 * abs(apq);
    if (abs(app) + g == abs(app) && abs(aqq) + g == abs(aqq)) {
        (*a)[p * n + q] = 0.0;
        (*a)[q * n + p] = 0.0;
        return;
    }
    let t = jacobi_tangent(app, aqq, apq);
    let c = 1.0 / sqrt(t * t + 1.0);
    let s = t * c;
    (*a)[p * n + p] = app - t * apq;
    (*a)[q * n + q] = aqq + t * apq;
    (*a)[p * n + q] = 0.0;
    (*a)[q * n + p] = 0.0;
    for (var r = 0u; r < n; r++) {
        if (r != p && r != q) {
            let arp = (*a)[r * n + p];
            let arq = (*a)[r * n + q];
            let new_rp = c * arp - s * arq;
            let new_rq = s * arp + c * arq;
            (*a)[r * n + p] = new_rp;
            (*a)[p * n + r] = new_rp;
            (*a)[r * n + q] = new_rq;
            (*a)[q * n + r] = new_rq;
        }
        let vrp = (*v)[r * n + p];
        let vrq = (*v)[r * n + q];
        (*v)[r * n + p] = c * vrp - s * vrq;
        (*v)[r * n + q] = s * vrp + c * vrq;
    }
}

// The nearest PSD matrix to the symmetric leading n × n block of `a` (row-major,
// stride n): its eigen-decomposition by cyclic Jacobi rotations (the first three
// sweeps skip entries below a fifth of the mean off-diagonal size; the sweeps stop
// once the off-diagonal part is below ε² of the norm), then the negative eigenvalues
// clamped to 0. The rotations work on `a` in place: with a copy (one 12 × 12 array
// more of private memory) and rotations that left rounding residues to rotate
// again, lavapipe returned zero blocks for whole SIMD groups of 3D pairs. A matrix
// without a negative eigenvalue comes back rebuilt from its decomposition, equal to
// rounding (the CPU returns it unchanged). Twin of collision::psd::project_psd.
fn project_psd(a: ptr<function, array<real, 144>>, n: u32) {
    var v: array<real, 144>;
    for (var i = 0u; i < n * n; i++) { v[i] = 0.0; }
    for (var i = 0u; i < n; i++) { v[i * n + i] = 1.0; }
    var scale: real = 0.0;
    for (var i = 0u; i < n * n; i++) { scale += (*a)[i] * (*a)[i]; }
    if (scale == 0.0) { return; }
    for (var sweep = 0u; sweep < 60u; sweep++) {
        var off: real = 0.0;
        var sum_abs: real = 0.0;
        for (var p = 0u; p < n; p++) {
            for (var q = p + 1u; q < n; q++) {
                off += (*a)[p * n + q] * (*a)[p * n + q];
                sum_abs += abs((*a)[p * n + q]);
            }
        }
        if (off == 0.0 || off <= 0.2 * REAL_EPSILON * REAL_EPSILON * scale || !(off == off)) { break; }
        var skip_below: real = 0.0;
        if (sweep < 3u) { skip_below = 0.2 * sum_abs / real(n * n); }
        for (var p = 0u; p < n; p++) {
            for (var q = p + 1u; q < n; q++) {
                if (abs((*a)[p * n + q]) >= skip_below && (*a)[p * n + q] != 0.0) {
                    jacobi_rotate(a, &v, n, p, q);
                }
            }
        }
    }
    var lam: array<real, 12>;
    var negative = false;
    for (var k = 0u; k < n; k++) {
        lam[k] = (*a)[k * n + k];
        if (lam[k] < 0.0) { negative = true; }
    }
    for (var r = 0u; r < n; r++) {
        for (var c = r; c < n; c++) {
            var s: real = 0.0;
            for (var k = 0u; k < n; k++) {
                let l = lam[k];
                if (l > 0.0 || !negative) { s += l * v[r * n + k] * v[c * n + k]; }
            }
            (*a)[r * n + c] = s;
            (*a)[c * n + r] = s;
        }
    }
}

// The Hessian entry (r, c) of the mollifier's argument c = |u × v|², u = s1 − s0,
// v = s3 − s2, over the stacked coordinates of an edge–edge pair (3D).
fn cross_sq_hessian(u: vec3<real>, v: vec3<real>, r: u32, c: u32) -> real {
    let lr = r / 3u;
    let lc = c / 3u;
    let a = r % 3u;
    let b = c % 3u;
    let sr = select(real(-1.0), 1.0, lr == 1u || lr == 3u);
    let sc = select(real(-1.0), 1.0, lc == 1u || lc == 3u);
    let delta = select(real(0.0), 1.0, a == b);
    var h: real;
    if (lr < 2u && lc < 2u) {
        h = 2.0 * dot(v, v) * delta - 2.0 * comp(v, a) * comp(v, b);
    } else if (lr >= 2u && lc >= 2u) {
        h = 2.0 * dot(u, u) * delta - 2.0 * comp(u, a) * comp(u, b);
    } else if (lr < 2u) {
        h = 4.0 * comp(u, a) * comp(v, b) - 2.0 * comp(v, a) * comp(u, b) - 2.0 * dot(u, v) * delta;
    } else {
        h = 4.0 * comp(u, b) * comp(v, a) - 2.0 * comp(v, b) * comp(u, a) - 2.0 * dot(u, v) * delta;
    }
    return sr * sc * h;
}

// Stores pair t's barrier terms at st in pair_terms, weighted by c h²: the gradient
// (N·s², stacked over the nodes) and the PSD-projected Hessian (kg, row-major over
// the stacked coordinates), in a slot of its own (claim_term_slot); no slot where the
// pair is not active (0 < d < d̂) or no slot is left.
// Edge–edge pairs are multiplied by the mollifier m (E = m b, with
// ∇²E = b ∇²m + ∇m ∇bᵀ + ∇b ∇mᵀ + m ∇²b) before the projection. Written straight
// into the buffer, flat: returning them as a struct of vectors lost entries on
// lavapipe. Twin of collision::barrier::pair_barrier.
fn store_pair_terms(pair: u32, st: Stacked) {
    let kind = pair_kind(pair);
    let closest = pair_closest(kind, st);
    let dsq = closest.dsq;
    let k = pair_node_count();
    let n = k * P.dim;
    if (dsq >= P.dhat * P.dhat || dsq <= 0.0) {
        release_term_slot(pair);
        return;
    }
    let slot = claim_term_slot(pair);
    if (slot == NO_TERMS) { return; }
    let base = slot * PAIR_TERMS;
    let ds = closest_derivatives(st, closest);
    let area = pair_weight(kind, pair_nodes(pair));
    let dist = sqrt(ds.value);
    let b1 = barrier_gradient(P.barrier_kind, P.kappa, P.dhat, area, dist);
    let b2 = barrier_curvature(P.barrier_kind, P.kappa, P.dhat, area, dist);
    var g = ds.grad;
    var h: array<real, 144>;
    for (var r = 0u; r < n; r++) {
        for (var c = r; c < n; c++) {
            let val = b2 * (g[r] / (2.0 * dist)) * (g[c] / (2.0 * dist))
                + b1 * (ds.hess[r * n + c] / (2.0 * dist) - g[r] * g[c] / (4.0 * dist * dist * dist));
            h[r * n + c] = val;
            h[c * n + r] = val;
        }
    }
    // g becomes the barrier's gradient
    for (var r = 0u; r < n; r++) { g[r] = b1 * g[r] / (2.0 * dist); }
    if (kind == KIND_EDGE_EDGE) {
        let u = st.s[1] - st.s[0];
        let v = st.s[3] - st.s[2];
        let cr = cross(u, v);
        let c = dot(cr, cr);
        let eps = mollifier_threshold(pair);
        if (c < eps) {
            let b = barrier_value(P.barrier_kind, P.kappa, P.dhat, area, dist);
            let m = mollifier_of(c, eps);
            let dm = 2.0 / eps - 2.0 * c / (eps * eps);
            let d2m = -2.0 / (eps * eps);
            // ∇c per node: −∂c/∂u, ∂c/∂u, −∂c/∂v, ∂c/∂v
            let cu = 2.0 * dot(v, v) * u - 2.0 * dot(u, v) * v;
            let cv = 2.0 * dot(u, u) * v - 2.0 * dot(u, v) * u;
            let gc = array<real, 12>(-cu.x, -cu.y, -cu.z, cu.x, cu.y, cu.z, -cv.x, -cv.y, -cv.z, cv.x, cv.y, cv.z);
            for (var r = 0u; r < 12u; r++) {
                for (var col = r; col < 12u; col++) {
                    let hm = d2m * gc[r] * gc[col] + dm * cross_sq_hessian(u, v, r, col);
                    let val = b * hm + dm * gc[r] * g[col] + g[r] * dm * gc[col] + m * h[r * 12u + col];
                    h[r * 12u + col] = val;
                    h[col * 12u + r] = val;
                }
            }
            for (var r = 0u; r < 12u; r++) { g[r] = b * dm * gc[r] + m * g[r]; }
        }
    }
    let w = P.potential_weight;
    for (var r = 0u; r < n; r++) { pair_terms[base + r] = w * g[r]; }
    project_psd(&h, n);
    for (var i = 0u; i < n * n; i++) { pair_terms[base + 12u + i] = w * h[i]; }
}
