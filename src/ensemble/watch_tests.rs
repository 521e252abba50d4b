//! Tests of the watch's host side: bodies, clearances, distances, references.

use super::*;
use crate::scene::load;

/// Checks `bodies` (of `m` at `x`) against a brute-force search at a reach of
/// 1,000 m: each clearance is the closest pair of its body, capped at the reach
/// the host looks; each distance between bodies is the closest pair where the
/// search found it, else a lower bound of at least its first reach; the bodies
/// cover the model's nodes in order.
fn check_against_brute_force(name: &str, m: &Model, x: &[f64], bodies: &[WatchedBody]) {
    let mesh = &m.collision;
    assert_eq!(bodies.len(), mesh.body_collide.len(), "{name}");
    let excluded = m.rest_exclusions();
    let motion = Motion { x, sweep: None };
    let nb = bodies.len();
    let mut found = Closest::new(nb);
    for pair in candidates(mesh, motion, 1e3, &excluded) {
        let (n, _) = pair_nodes(mesh, pair);
        let body = |k: usize| mesh.node_body[n[k] as usize] as usize;
        found.add(body(0), body(2), pair_distance_sq(mesh, x, pair).sqrt());
    }
    let (closest, apart) = (found.within, found.apart);
    let mut next = 0;
    let cap = CLEARANCE_REACH * m.barrier.dhat;
    for (k, b) in bodies.iter().enumerate() {
        assert_eq!(b.first, next, "{name}: body {k} starts where the last ends");
        next += b.count;
        assert_eq!(b.clearance, closest[k].min(cap), "{name}: body {k}");
        assert!(
            b.clearance >= m.barrier.dhat,
            "{name}: excluded pairs are out"
        );
        for (j, &d) in b.apart.iter().enumerate().take(nb) {
            let brute = apart[k * nb + j];
            assert!(d <= brute, "{name}: bodies {k}, {j}: {d} > {brute}");
            assert!(
                d == brute || d >= 2.0 * m.barrier.dhat,
                "{name}: bodies {k}, {j}: {d} against {brute}"
            );
        }
        assert!(b.apart[nb..].iter().all(|&d| d == 0.0));
    }
    assert_eq!(next as usize, m.num_nodes(), "{name}");
}

#[test]
fn a_clearance_is_the_closest_pair_of_the_body_at_rest() {
    for name in ["tet_drop", "tet_stack", "ropes_parallel", "lattice_drop"] {
        let m = load(name).unwrap().model;
        check_against_brute_force(name, &m, &m.x0, &watched_bodies(&m).unwrap());
    }
    assert!(
        watched_bodies(&load("two_squares").unwrap().model)
            .unwrap()
            .is_empty(),
        "2D"
    );
}

/// A reference at other positions measures there: tet_stack with its top body
/// moved to put its lowest node half a d̂ above the others' highest, where some
/// of its distances to them are below d̂, keeps its bodies' clearances (a rigid
/// move) and measures the new distances as the brute force does; the writes put
/// the positions, distances and clearances where the place says.
#[test]
fn a_new_reference_measures_the_bodies_where_they_are() {
    let m = load("tet_stack").unwrap().model;
    let excluded = m.rest_exclusions();
    let at_rest = watched_bodies(&m).unwrap();
    let top = at_rest.len() - 1;
    let b = at_rest[top];
    let own = b.first as usize..(b.first + b.count) as usize;
    let z = |i: &usize| m.x0[3 * i + 2];
    let low = own.clone().min_by(|i, j| z(i).total_cmp(&z(j))).unwrap();
    let high = (0..b.first as usize)
        .max_by(|i, j| z(i).total_cmp(&z(j)))
        .unwrap();
    let mut x = m.x0.clone();
    for i in own {
        for c in 0..3 {
            let lift = if c == 2 { 0.5 * m.barrier.dhat } else { 0.0 };
            x[3 * i + c] += m.x0[3 * high + c] + lift - m.x0[3 * low + c];
        }
    }
    let moved = watched_bodies_at(&m, &x, &excluded);
    check_against_brute_force("tet_stack, lowered", &m, &x, &moved);
    for (k, (r, q)) in at_rest.iter().zip(&moved).enumerate() {
        assert!((r.clearance - q.clearance).abs() < 1e-12, "body {k}");
    }
    let nearest = moved[..top]
        .iter()
        .map(|q| q.apart[top])
        .fold(f64::INFINITY, f64::min);
    assert!(nearest < m.barrier.dhat, "{nearest}");
    let place = WatchPlace {
        reference: 100,
        apart: 40,
        clearances: 10,
    };
    let writes = reference_writes(&m, &excluded, place, &x);
    assert_eq!(writes.len(), 3);
    assert_eq!(
        writes[2],
        (10, moved.iter().map(|b| b.clearance).collect::<Vec<_>>())
    );
    assert_eq!(writes[0], (100, x.clone()));
    assert_eq!(writes[1].0, 40);
    assert_eq!(writes[1].1.len(), MAX_WATCH_BODIES * moved.len());
    assert_eq!(
        writes[1].1[MAX_WATCH_BODIES..][..MAX_WATCH_BODIES],
        moved[1].apart
    );
}

/// A 3D scene of more bodies than the kernel keeps boxes for runs alone, and says
/// why; one without contact between bodies has nothing to watch.
#[test]
fn too_many_bodies_run_alone_and_say_why() {
    let mut m = load("tet_stack").unwrap().model;
    assert_eq!(watched_bodies(&m).unwrap().len(), 3);
    assert_eq!(crate::ensemble::device::unsupported(&m), None);
    let n = m.num_nodes();
    let many = MAX_WATCH_BODIES + 1;
    m.collision.node_body = (0..n).map(|i| (i * many / n) as u32).collect();
    m.collision.body_collide = vec![Collide::All; many];
    let why = watched_bodies(&m).unwrap_err();
    assert!(
        why.contains("more than 16 bodies (this scene has 17)"),
        "{why}"
    );
    let why = crate::ensemble::device::unsupported(&m).expect("alone");
    assert!(why.contains("more than 16 bodies"), "{why}");
    m.self_contact.enabled = false;
    assert!(watched_bodies(&m).unwrap().is_empty());
    assert_eq!(crate::ensemble::device::unsupported(&m), None);
}
