// The pairs' weighted barrier terms as pair_assemble (kernels/pairs.wgsl) stores
// them in `pair_terms`, and the operator's couplings between a pair's nodes.
// #import contact_pairs.wgsl

fn pair_terms_at(t: u32) -> u32 {
    return t * PAIR_TERMS;
}

// Entry (row a of node slot l, column b of node slot m) of pair t's Hessian.
fn pair_hessian(t: u32, l: u32, a: u32, m: u32, b: u32) -> real {
    let k = PAIR_NODES * P.dim;
    return pair_terms[pair_terms_at(t) + 12u + (l * P.dim + a) * k + m * P.dim + b];
}

// The 3 × 3 block (l, m) of pair t's Hessian applied to u.
fn pair_block_apply(t: u32, l: u32, m: u32, u: vec3<real>) -> vec3<real> {
    var y = vec3<real>(0.0);
    for (var a = 0u; a < P.dim; a++) {
        for (var b = 0u; b < P.dim; b++) {
            y[a] += pair_hessian(t, l, a, m, b) * u[b];
        }
    }
    return y;
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
        let n = pair_nodes(t);
        for (var m = 0u; m < PAIR_NODES; m++) {
            if (m != l) { y += pair_block_apply(t, l, m, load_d(n[m])); }
        }
    }
    return y;
}

