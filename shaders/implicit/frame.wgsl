// Moving implicit walls on the GPU backend, twin of src/implicit/frame.rs: implicit
// wall w sees the world point x at y = rot x + offset (rows in P.implicit_frames,
// the identity for a wall that never moved); over the current step its point at x
// moved by D x + s (rows in P.implicit_carry, zero for a wall that stayed). Walls past
// MAX_IMPLICIT_FRAMES have no frame and stay where the scene put them.
// #import state.wgsl

fn implicit_frame_row(w: u32, r: u32) -> vec4<real> {
    return P.implicit_frames[3u * w + r];
}

// The world point xi in wall w's frame.
fn implicit_to_wall(w: u32, xi: vec3<real>) -> vec3<real> {
    if (w >= MAX_IMPLICIT_FRAMES) { return xi; }
    let a = implicit_frame_row(w, 0u);
    let b = implicit_frame_row(w, 1u);
    let c = implicit_frame_row(w, 2u);
    return vec3<real>(dot(a.xyz, xi) + a.w, dot(b.xyz, xi) + b.w, dot(c.xyz, xi) + c.w);
}

// The world vector p in wall w's frame.
fn implicit_dir_to_wall(w: u32, p: vec3<real>) -> vec3<real> {
    if (w >= MAX_IMPLICIT_FRAMES) { return p; }
    return vec3<real>(dot(implicit_frame_row(w, 0u).xyz, p), dot(implicit_frame_row(w, 1u).xyz, p), dot(implicit_frame_row(w, 2u).xyz, p));
}

// A vector of wall w's frame (a gradient, a normal) in world coordinates.
fn implicit_to_world(w: u32, g: vec3<real>) -> vec3<real> {
    if (w >= MAX_IMPLICIT_FRAMES) { return g; }
    return implicit_frame_row(w, 0u).xyz * g.x + implicit_frame_row(w, 1u).xyz * g.y + implicit_frame_row(w, 2u).xyz * g.z;
}

// How far (m) wall w's point at x moved since the step's start.
fn implicit_carried(w: u32, x: vec3<real>) -> vec3<real> {
    if (w >= MAX_IMPLICIT_FRAMES) { return vec3<real>(0.0); }
    let a = P.implicit_carry[3u * w];
    let b = P.implicit_carry[3u * w + 1u];
    let c = P.implicit_carry[3u * w + 2u];
    return vec3<real>(dot(a.xyz, x) + a.w, dot(b.xyz, x) + b.w, dot(c.xyz, x) + c.w);
}
