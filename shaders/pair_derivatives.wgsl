// The derivatives of a pair's barrier: the squared distance's gradient and
// Hessian, the barrier's second derivative, the projection of the pair's Hessian
// onto the PSD cone, and the weighted terms pair_assemble stores. Kept apart from
// contact_pairs.wgsl because its 12 × 12 private arrays make every kernel whose
// module holds them costlier to launch on some drivers (lavapipe); only
// kernels/pair_assemble.wgsl imports it.
// #import contact_pairs.wgsl

// The squared distance's gradient (per node) and Hessian (dimensionless, 3 × 3
// blocks, row-major over nodes) in the case the projection picks. By the envelope
// theorem d² = |v|², v = Σ β_l s_l with the closest point's coefficients β; in the
// interior case (t free) the Hessian is 2 (β βᵀ ⊗ I) − F F ᵀ / (2 |e|²), with
// F_l = 2 β_l ∂v/∂t + 2 (∂β_l/∂t) v the mixed derivatives of |v|² in (s_l, t).
struct DistanceDerivatives {
    value: real,
    grad: array<vec3<real>, 4>,
    hess: array<real, 144>,
}

fn point_edge_derivatives(st: Stacked) -> DistanceDerivatives {
    var o: DistanceDerivatives;
    let p = st.s[0];
    let e0 = st.s[1];
    let e1 = st.s[2];
    let e = e1 - e0;
    var t = point_edge_parameter(p, e0, e1);
    var interior = true;
    if (t <= 0.0) {
        t = 0.0;
        interior = false;
    } else if (t >= 1.0) {
        t = 1.0;
        interior = false;
    }
    let beta = vec3<real>(1.0, -(1.0 - t), -t);
    let v = p - e0 - t * e;
    o.value = point_edge_distance_sq(p, e0, e1);
    // F_l (interior only): ∂v/∂t = −e, ∂β/∂t = (0, 1, −1).
    var f: array<vec3<real>, 3>;
    f[0] = -2.0 * e;
    f[1] = 2.0 * (1.0 - t) * e + 2.0 * v;
    f[2] = 2.0 * t * e - 2.0 * v;
    let ee = dot(e, e);
    let n = 3u * P.dim;
    for (var l = 0u; l < 3u; l++) {
        o.grad[l] = 2.0 * beta[l] * v;
        for (var k = 0u; k < 3u; k++) {
            for (var a = 0u; a < P.dim; a++) {
                for (var b = 0u; b < P.dim; b++) {
                    var h = select(real(0.0), 2.0 * beta[l] * beta[k], a == b);
                    if (interior && ee > 0.0) {
                        h -= f[l][a] * f[k][b] / (2.0 * ee);
                    }
                    o.hess[(l * P.dim + a) * n + k * P.dim + b] = h;
                }
            }
        }
    }
    return o;
}

// The barrier's second derivative in d (N/m), unclamped; 0 outside (0, d̂).
fn barrier_second(area: real, dist: real) -> real {
    if (dist >= P.dhat || dist <= 0.0) { return 0.0; }
    if (P.barrier_kind == BARRIER_BOOK) {
        return area * P.kappa * (dist + P.dhat) / (2.0 * dist * dist);
    }
    let r = P.dhat / dist;
    return -P.kappa * area * (2.0 * real_log(dist / P.dhat) + 3.0 - 2.0 * r - r * r);
}

// Symmetric eigen-decomposition of the leading n × n block of `a` (row-major, stride
// n) by cyclic Jacobi rotations, then the negative eigenvalues clamped to 0: the
// nearest PSD matrix. A matrix without a negative eigenvalue is left as it is.
// Twin of collision::psd::project_psd.
fn project_psd(a: ptr<function, array<real, 144>>, n: u32) {
    var m = *a;
    var v: array<real, 144>;
    for (var i = 0u; i < n * n; i++) { v[i] = 0.0; }
    for (var i = 0u; i < n; i++) { v[i * n + i] = 1.0; }
    var scale: real = 0.0;
    for (var i = 0u; i < n * n; i++) { scale += m[i] * m[i]; }
    if (scale == 0.0) { return; }
    for (var sweep = 0u; sweep < 60u; sweep++) {
        var off: real = 0.0;
        for (var p = 0u; p < n; p++) {
            for (var q = p + 1u; q < n; q++) { off += m[p * n + q] * m[p * n + q]; }
        }
        if (off <= REAL_EPSILON * REAL_EPSILON * 1e-4 * scale) { break; }
        for (var p = 0u; p < n; p++) {
            for (var q = p + 1u; q < n; q++) {
                let apq = m[p * n + q];
                if (apq == 0.0) { continue; }
                let theta = (m[q * n + q] - m[p * n + p]) / (2.0 * apq);
                var t = 1.0 / (abs(theta) + sqrt(theta * theta + 1.0));
                if (theta < 0.0) { t = -t; }
                let c = 1.0 / sqrt(t * t + 1.0);
                let s = t * c;
                for (var k = 0u; k < n; k++) {
                    let mkp = m[k * n + p];
                    let mkq = m[k * n + q];
                    m[k * n + p] = c * mkp - s * mkq;
                    m[k * n + q] = s * mkp + c * mkq;
                }
                for (var k = 0u; k < n; k++) {
                    let mpk = m[p * n + k];
                    let mqk = m[q * n + k];
                    m[p * n + k] = c * mpk - s * mqk;
                    m[q * n + k] = s * mpk + c * mqk;
                }
                for (var k = 0u; k < n; k++) {
                    let vkp = v[k * n + p];
                    let vkq = v[k * n + q];
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    var negative = false;
    for (var k = 0u; k < n; k++) {
        if (m[k * n + k] < 0.0) { negative = true; }
    }
    if (!negative) { return; }
    for (var r = 0u; r < n; r++) {
        for (var c = r; c < n; c++) {
            var s: real = 0.0;
            for (var k = 0u; k < n; k++) {
                let l = m[k * n + k];
                if (l > 0.0) { s += l * v[r * n + k] * v[c * n + k]; }
            }
            (*a)[r * n + c] = s;
            (*a)[c * n + r] = s;
        }
    }
}

// One pair's barrier terms, weighted by c h²: gradient (N·s², per node) and
// PSD-projected Hessian (kg, row-major over the stacked coordinates); active where
// 0 < d < d̂. Twin of collision::barrier::pair_barrier.
struct PairBarrier {
    is_active: bool,
    grad: array<vec3<real>, 4>,
    hess: array<real, 144>,
}

fn pair_barrier_terms(nodes: vec4<u32>, st: Stacked) -> PairBarrier {
    var o: PairBarrier;
    o.is_active = false;
    let dsq = stacked_distance_sq(st);
    if (dsq >= P.dhat * P.dhat || dsq <= 0.0) { return o; }
    o.is_active = true;
    let ds = point_edge_derivatives(st);
    let area = pair_weight(nodes);
    let dist = sqrt(ds.value);
    let b1 = barrier_gradient(P.barrier_kind, P.kappa, P.dhat, area, dist);
    let b2 = barrier_second(area, dist);
    let n = PAIR_NODES * P.dim;
    var g: array<real, 12>;
    for (var l = 0u; l < PAIR_NODES; l++) {
        for (var a = 0u; a < P.dim; a++) { g[l * P.dim + a] = ds.grad[l][a]; }
    }
    var h: array<real, 144>;
    for (var r = 0u; r < n; r++) {
        for (var c = r; c < n; c++) {
            let val = b2 * (g[r] / (2.0 * dist)) * (g[c] / (2.0 * dist))
                + b1 * (ds.hess[r * n + c] / (2.0 * dist) - g[r] * g[c] / (4.0 * dist * dist * dist));
            h[r * n + c] = val;
            h[c * n + r] = val;
        }
    }
    project_psd(&h, n);
    let w = P.potential_weight;
    for (var l = 0u; l < PAIR_NODES; l++) {
        o.grad[l] = w * b1 * ds.grad[l] / (2.0 * dist);
    }
    for (var i = 0u; i < n * n; i++) { o.hess[i] = w * h[i]; }
    return o;
}

