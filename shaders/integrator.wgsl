// Time integrators, twin of src/integrator.rs: the prediction x̃ and the (v, a) update.
// #import common.wgsl

fn predict(kind: u32, h: real, xn_i: vec3<real>, v_i: vec3<real>, a_i: vec3<real>) -> vec3<real> {
    if (kind == INTEGRATOR_NEWMARK) {
        return xn_i + h * v_i + 0.25 * h * h * a_i;
    }
    return xn_i + h * v_i;
}

// New velocity (Euler: (x − xⁿ)/h; Newmark: vⁿ + (h/2)(aⁿ + aⁿ⁺¹)).
fn updated_velocity(kind: u32, h: real, xn_i: vec3<real>, x_i: vec3<real>, v_i: vec3<real>, a_i: vec3<real>, a_new: vec3<real>) -> vec3<real> {
    if (kind == INTEGRATOR_NEWMARK) {
        return v_i + 0.5 * h * (a_i + a_new);
    }
    return (x_i - xn_i) / h;
}

// New acceleration (Newmark: (4/h²)(x − x̂); Euler keeps a).
fn updated_acceleration(kind: u32, h: real, x_i: vec3<real>, xp_i: vec3<real>, a_i: vec3<real>) -> vec3<real> {
    if (kind == INTEGRATOR_NEWMARK) {
        return 4.0 / (h * h) * (x_i - xp_i);
    }
    return a_i;
}
