// The lag of friction on contacts between and within bodies (pair_friction.wgsl),
// over the list a static broad phase has just built at x: the candidates, then the
// copies of the previous lag. The host builds the list again afterwards, so that it
// carries the new lag.
//   pair_friction_change: the largest change of λ against the previous lag, pairs
//     matched by primitives (a new or lost pair counts whole), as partials (max lane);
//   pair_friction_lag: the new lag, one pair per candidate, and its count.
// CPU twin: CpuBackend::lag_self_friction (src/backend/cpu/self_friction.rs).
// #import pair_friction.wgsl

// (kind, primitive a, primitive b) of the record at word `at` of `pairs`.
fn record_key(at: u32) -> vec3<u32> {
    return vec3<u32>(pairs[at] & 3u, pairs[at + 1u], pairs[at + 2u]);
}

fn key_less(a: vec3<u32>, b: vec3<u32>) -> bool {
    if (a.x != b.x) { return a.x < b.x; }
    if (a.y != b.y) { return a.y < b.y; }
    return a.z < b.z;
}

// The index of the record with `key` among the `count` records (sorted by key) from
// word `at`, or `count` where there is none.
fn find_record(at: u32, count: u32, key: vec3<u32>) -> u32 {
    var lo = 0u;
    var hi = count;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        let k = record_key(at + PAIR_WORDS * mid);
        if (all(k == key)) { return mid; }
        if (key_less(k, key)) { lo = mid + 1u; } else { hi = mid; }
    }
    return count;
}

@compute @workgroup_size(256)
fn pair_friction_change(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_index(wid, nwg, lid);
    var mine = lanes_zero();
    mine.mixed.w = 0.0;
    let c = pair_candidates();
    let old = lagged_count();
    if (t < c) {
        let f = find_record(lag_at(), old, record_key(PAIR_LIST + PAIR_WORDS * t));
        var before: real = 0.0;
        if (f < old) { before = load_lagged(f).lambda; }
        mine.mixed.w = abs(lag_friction(t).lambda - before);
    } else if (t < c + old) {
        let f = t - c;
        if (find_record(PAIR_LIST, c, record_key(lag_at() + PAIR_WORDS * f)) == c) {
            mine.mixed.w = load_lagged(f).lambda;
        }
    }
    store_partials(wid, nwg, lid, mine);
}

@compute @workgroup_size(256)
fn pair_friction_lag(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_index(wid, nwg, lid);
    let c = pair_candidates();
    if (t == 0u) { pairs[3] = c; }
    if (t >= c) { return; }
    store_lagged(t, lag_friction(t));
    let to = lag_at() + PAIR_WORDS * t;
    pairs[to] = pairs[PAIR_LIST + PAIR_WORDS * t] | FRICTION_BIT;
    for (var w = 1u; w < PAIR_WORDS; w++) { pairs[to + w] = pairs[PAIR_LIST + PAIR_WORDS * t + w]; }
}
