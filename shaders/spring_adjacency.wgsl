// A node's springs as the Newton matrix's products read them: adjacency entry e of
// node i (at x_i) gives the spring's other end j, d = x_i − x_j and the PSD-projected
// block of energy/spring.wgsl. Shared by the CG product (kernels/newton_matvec.wgsl),
// the multilevel levels (mas.wgsl) and the V-cycle's residual (kernels/mas_cycle.wgsl).
// #import state.wgsl
// #import energy/spring.wgsl

struct SpringAt {
    j: u32,
    dv: vec3<real>,
    h: vec2<real>,
}

fn spring_at(i: u32, xi: vec3<real>, e: u32) -> SpringAt {
    let s = springs[adjacency[e]];
    let j = spring_other(s, i);
    let dv = xi - load_x(j);
    return SpringAt(j, dv, spring_hessian(dv, real(s.rest_length_sq), real(s.stiffness)));
}
