// The pairs' weighted barrier terms as pair_assemble (kernels/pairs.wgsl) stores
// them in `pair_terms`, and the operator's couplings between a pair's nodes.
// #import contact_pairs.wgsl

// Component a of v, without indexing a vector by a variable (which some drivers,
// lavapipe among them, get wrong in the large pair kernels).
fn comp(v: vec3<real>, a: u32) -> real {
    return select(select(v.x, v.y, a == 1u), v.z, a == 2u);
}

// Where pair t's terms start in pair_terms (its slot, which is not NO_TERMS).
fn pair_terms_at(t: u32) -> u32 {
    return pair_slot(t) * PAIR_TERMS;
}

// The 3 × 3 block (l, m) of pair t's Hessian (zero third row and column in 2D),
// built without indexing a vector by a variable.
fn pair_block(t: u32, l: u32, m: u32) -> mat3x3<real> {
    let k = pair_node_count() * P.dim;
    let at = pair_terms_at(t) + 12u + l * P.dim * k + m * P.dim;
    let three = P.dim == 3u;
    let r0 = vec3<real>(pair_terms[at], pair_terms[at + 1u], select(real(0.0), pair_terms[at + 2u], three));
    let r1 = vec3<real>(pair_terms[at + k], pair_terms[at + k + 1u], select(real(0.0), pair_terms[at + k + 2u], three));
    var r2 = vec3<real>(0.0);
    if (three) {
        r2 = vec3<real>(pair_terms[at + 2u * k], pair_terms[at + 2u * k + 1u], pair_terms[at + 2u * k + 2u]);
    }
    return transpose(mat3x3<real>(r0, r1, r2));
}

// Node slot m of a pair's nodes.
fn pair_node(n: vec4<u32>, m: u32) -> u32 {
    return select(select(select(n.w, n.z, m == 2u), n.y, m == 1u), n.x, m == 0u);
}

// The gradient of node slot l of pair t.
fn pair_gradient(t: u32, l: u32) -> vec3<real> {
    let at = pair_terms_at(t) + l * P.dim;
    return vec3<real>(pair_terms[at], pair_terms[at + 1u], select(real(0.0), pair_terms[at + 2u], P.dim == 3u));
}

// Σ over node i's pairs of the couplings H_(i, j) u_j to the pair's other nodes: the
// part of H u that no spring and no node block holds.
fn pair_couplings(i: u32) -> vec3<real> {
    var y = vec3<real>(0.0);
    let range = incidence_range(i);
    for (var e = range.x; e < range.y; e++) {
        let te = incidence_entry(e);
        let t = te.x;
        let l = te.y;
        if (pair_slot(t) == NO_TERMS) { continue; }
        let n = pair_nodes(t);
        for (var m = 0u; m < pair_node_count(); m++) {
            if (m != l) { y += pair_block(t, l, m) * load_d(pair_node(n, m)); }
        }
    }
    return y;
}

