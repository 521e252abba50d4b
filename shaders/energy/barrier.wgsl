// Log barrier on the distance d to a wall, twin of src/energy/barrier.rs.
// book: A d̂ (κ/2)(s − 1) ln s, s = d/d̂; ipc: −κ A (d − d̂)² ln(d/d̂). Active on (0, d̂).
// #import common.wgsl

// ln(1 + t), accurate for small t.
fn ln1p(t: real) -> real {
    if (abs(t) < 1e-3) {
        return t * (1.0 - t * (0.5 - t / 3.0));
    }
    return real_log(1.0 + t);
}

fn barrier_value(kind: u32, kappa: real, dhat: real, area: real, dist: real) -> real {
    if (dist >= dhat) { return 0.0; }
    if (dist <= 0.0) { return BIG; }
    let s = dist / dhat;
    if (kind == BARRIER_BOOK) {
        return area * dhat * kappa * 0.5 * (s - 1.0) * real_log(s);
    }
    let e = dist - dhat;
    return -kappa * area * e * e * real_log(s);
}

// b(dist + dd) − b(dist) for an admissible dist + dd > 0, without subtracting two
// large values: (s₁ − s) ln s₁ + (s − 1) ln(s₁/s) for book, likewise for ipc.
fn barrier_value_change(kind: u32, kappa: real, dhat: real, area: real, dist: real, dd: real) -> real {
    let d1 = dist + dd;
    if (dist >= dhat || d1 >= dhat) {
        return barrier_value(kind, kappa, dhat, area, d1) - barrier_value(kind, kappa, dhat, area, dist);
    }
    let l1 = real_log(d1 / dhat);
    let lr = ln1p(dd / dist);
    if (kind == BARRIER_BOOK) {
        let s = dist / dhat;
        return area * dhat * kappa * 0.5 * ((dd / dhat) * l1 + (s - 1.0) * lr);
    }
    let e = dist - dhat;
    let e1 = d1 - dhat;
    return -kappa * area * (dd * (e + e1) * l1 + e * e * lr);
}

fn barrier_gradient(kind: u32, kappa: real, dhat: real, area: real, dist: real) -> real {
    if (dist >= dhat || dist <= 0.0) { return 0.0; }
    let s = dist / dhat;
    if (kind == BARRIER_BOOK) {
        return area * dhat * (kappa * 0.5 * (real_log(s) / dhat + (s - 1.0) / dist));
    }
    let e = dist - dhat;
    return -kappa * area * (2.0 * e * real_log(s) + e * e / dist);
}

// Second derivative in d (N/m), unclamped; 0 outside (0, d̂) (the pairs' blocks
// project their whole Hessian instead).
fn barrier_curvature(kind: u32, kappa: real, dhat: real, area: real, dist: real) -> real {
    if (dist >= dhat || dist <= 0.0) { return 0.0; }
    if (kind == BARRIER_BOOK) {
        return area * kappa * (dist + dhat) / (2.0 * dist * dist);
    }
    let t = dhat / dist;
    return -kappa * area * (2.0 * real_log(dist / dhat) + 3.0 - 2.0 * t - t * t);
}

// Second derivative in d, clamped at 0.
fn barrier_hessian(kind: u32, kappa: real, dhat: real, area: real, dist: real) -> real {
    return max(barrier_curvature(kind, kappa, dhat, area, dist), 0.0);
}
