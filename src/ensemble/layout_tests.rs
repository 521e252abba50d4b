//! Where `layout` puts what the kernels read.

use super::*;
use crate::scene::{load_with, overrides::Override};

fn scene(name: &str, sets: &[&str]) -> Model {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_with(name, &Override::parse_all(&sets).unwrap())
        .unwrap()
        .model
}

/// Equal implicit walls are compiled once; each variant's record points at its
/// own walls' indices, in the slots `state.wgsl` reads.
#[test]
fn a_batch_compiles_each_distinct_implicit_wall_once() {
    let models = [
        scene("circle_balls", &[]),
        scene("square_drop", &[]),
        scene("circle_balls", &["contact.kappa=1e5"]),
        scene("circle_balls", &["walls[0].radius=9.0"]),
    ];
    let refs: Vec<&Model> = models.iter().collect();
    let lay = layout(&refs);
    assert_eq!(lay.implicit.len(), 2, "two distinct circles");
    let implicit_u = lay.uints[10] as usize;
    let record = |v: usize| {
        (
            lay.uints[HEADER + v * VU + 9],
            lay.uints[HEADER + v * VU + 10],
        )
    };
    assert_eq!(
        [record(0), record(1), record(2), record(3)],
        [(0, 1), (1, 0), (1, 1), (2, 1)]
    );
    assert_eq!(&lay.uints[implicit_u..implicit_u + 3], &[0, 0, 1]);
    let src = crate::backend::gpu::shaders::source("ensemble/state.wgsl").unwrap();
    for line in [
        "const H_IMPLICIT_U: u32 = 10u;",
        "const V_IMPLICIT_OFF: u32 = 9u;",
        "const V_IMPLICIT: u32 = 10u;",
    ] {
        assert!(src.contains(line), "state.wgsl lacks `{line}`");
    }
}

/// Each variant's watched bodies sit where `watch.wgsl` reads them: the header's
/// slots, the record's offset and count, each body's global first node, count
/// clearance and distances to the others, and every node's x⁰ (also the first
/// reference between bodies); each variant's [`WatchPlace`](crate::ensemble::watch::WatchPlace)
/// points at its own.
#[test]
fn watched_bodies_are_where_the_kernel_reads_them() {
    use crate::ensemble::watch::watched_bodies;
    let models = [
        scene("lattice_drop", &[]),
        scene("lattice_drop", &["contact.self_contact=false"]),
        scene("tet_stack", &[]),
    ];
    let refs: Vec<&Model> = models.iter().collect();
    let lay = layout(&refs);
    let (watch_u, watch_r, rest_r, ref_r, apart_r, ref_clear_r) = (
        lay.uints[16] as usize,
        lay.uints[17] as usize,
        lay.uints[18] as usize,
        lay.uints[19] as usize,
        lay.uints[20] as usize,
        lay.uints[21] as usize,
    );
    let bodies = crate::ensemble::watch::MAX_WATCH_BODIES;
    let record = |v: usize| {
        let r = HEADER + v * VU;
        (lay.uints[r + 16], lay.uints[r + 17])
    };
    assert_eq!([record(0), record(1), record(2)], [(0, 1), (1, 0), (1, 3)]);
    let first = [0usize, 0, models[0].num_nodes() + models[1].num_nodes()];
    let mut k = 0;
    for (v, m) in models.iter().enumerate() {
        for b in watched_bodies(m).unwrap() {
            let at = watch_u + 2 * k;
            assert_eq!(lay.uints[at] as usize, first[v] + b.first as usize);
            assert_eq!(lay.uints[at + 1], b.count);
            assert_eq!(lay.reals[watch_r + k], b.clearance);
            assert_eq!(lay.reals[ref_clear_r + k], b.clearance);
            assert_eq!(
                lay.reals[apart_r + bodies * k..apart_r + bodies * (k + 1)],
                b.apart
            );
            k += 1;
        }
    }
    assert_eq!(k, 4);
    assert_eq!(lay.uints.len(), watch_u + 2 * k, "the bodies end `uints`");
    let (m, g0) = (&models[2], first[2]);
    for i in [0, m.num_nodes() - 1] {
        for c in 0..3 {
            assert_eq!(lay.reals[rest_r + 3 * (g0 + i) + c], m.x0[3 * i + c]);
            assert_eq!(lay.reals[ref_r + 3 * (g0 + i) + c], m.x0[3 * i + c]);
        }
    }
    assert_eq!(ref_r, rest_r + 3 * lay.total_nodes);
    assert_eq!(apart_r, ref_r + 3 * lay.total_nodes);
    assert_eq!(ref_clear_r, apart_r + bodies * k);
    assert_eq!(lay.reals.len(), ref_clear_r + k);
    let place = lay.watch_places[2];
    assert_eq!(place.reference, ref_r + 3 * g0);
    assert_eq!(place.clearances, ref_clear_r + 1);
    assert_eq!(place.apart, apart_r + bodies);
    // tet_stack's bodies start apart: their distances at x⁰ are positive and equal
    // both ways
    let own = watched_bodies(m).unwrap();
    assert!(own[0].apart[1] > 0.0 && own[0].apart[1] == own[1].apart[0]);
    let src = crate::backend::gpu::shaders::source("ensemble/watch.wgsl").unwrap();
    for line in [
        "const H_WATCH_U: u32 = 16u;",
        "const H_WATCH_R: u32 = 17u;",
        "const H_REST_R: u32 = 18u;",
        "const H_REF_R: u32 = 19u;",
        "const H_APART_R: u32 = 20u;",
        "const H_REF_CLEAR_R: u32 = 21u;",
        "const V_BODY_OFF: u32 = 16u;",
        "const V_BODIES: u32 = 17u;",
    ] {
        assert!(src.contains(line), "watch.wgsl lacks `{line}`");
    }
    assert!(src.contains(&format!("const WATCH_BODIES: u32 = {bodies}u;")));
    assert!(src.contains(&format!("array<vec3<real>, {}>", 2 * bodies)));
}
