// Per node, for the Newton driver: the stopping measure Σ_k |p_ik| (max lane), the
// CCD step bound over every wall and contact pair (min lane; one thread per element,
// pairs included) and, in sums.x, the count of nodes whose p
// is above rounding noise (some |p_ik| > ε max_k |x_ik|, one ulp of `real`: REAL_EPSILON), in sums.y
// the count above NEAR_RESOLUTION_ULPS such units, as workgroup partials.
// CPU twin: src/backend/cpu/direction_stats.rs.
// #import state.wgsl
// #import contact.wgsl
// #import contact_pairs.wgsl

// Twin of crate::newton::NEAR_RESOLUTION_ULPS.
const NEAR_RESOLUTION_ULPS: real = 16.0;

@compute @workgroup_size(256)
fn direction_stats(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = thread_index(wid, nwg, lid);
    var mine = lanes_zero();
    if (i < pair_candidates()) {
        mine.mixed.z = pair_ccd(i);
    }
    if (i < P.n_nodes) {
        let pi = load_p(i);
        let xi = load_x(i);
        let bound = contact_ccd_bound(xi, pi);
        let a = abs(pi);
        let ax = abs(xi);
        let noise = REAL_EPSILON * max(ax.x, max(ax.y, ax.z));
        let amax = max(a.x, max(a.y, a.z));
        mine.sums.x = select(real(0.0), real(1.0), amax > noise);
        mine.sums.y = select(real(0.0), real(1.0), amax > NEAR_RESOLUTION_ULPS * noise);
        mine.mixed.z = min(mine.mixed.z, bound);
        mine.mixed.w = a.x + a.y + a.z;
    }
    store_partials(wid, nwg, lid, mine);
}
