// Plane walls n·(x − o) ≥ 0, twin of src/wall.rs.
// #import common.wgsl

// Signed distance of xi to the plane through o with unit normal n (m).
fn plane_distance(n: vec3<real>, o: vec3<real>, xi: vec3<real>) -> real {
    return dot(n, xi - o);
}

// Largest α ≤ 1 along pi keeping the node off the plane, shrunk by CCD_SAFETY.
fn plane_ccd_bound(n: vec3<real>, dist: real, pi: vec3<real>) -> real {
    let np = dot(n, pi);
    if (np < 0.0) {
        return min(CCD_SAFETY * dist / -np, 1.0);
    }
    return 1.0;
}
