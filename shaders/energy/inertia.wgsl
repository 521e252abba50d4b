// Inertia ½ m |x − x̃|² and gravity −m g·x of one node, twins of
// src/energy/inertia.rs and src/energy/gravity.rs.
// #import common.wgsl

fn inertia_value(mass: real, dx: vec3<real>) -> real {
    return 0.5 * mass * dot(dx, dx);
}

// ½ m |dx + δ|² − ½ m |dx|² = m (dx·δ + ½ |δ|²), dx = x − x̃.
fn inertia_value_change(mass: real, dx: vec3<real>, delta: vec3<real>) -> real {
    return mass * (dot(dx, delta) + 0.5 * dot(delta, delta));
}

fn gravity_value(mass: real, g: vec3<real>, xi: vec3<real>) -> real {
    return -mass * dot(g, xi);
}
