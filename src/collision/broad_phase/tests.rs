//! Hand cases of the broad phase: box construction (points, sweeps, NaN
//! coordinates), the overlap rules (touching, empty, infinite, inflated boxes),
//! small pair lists with `keep`, huge and infinite boxes, and lattices of about a
//! hundred thousand boxes in 2D and 3D with known pair counts.

use super::*;

/// The box with corners `lo` and `hi`.
pub(super) fn bx(lo: [f64; 3], hi: [f64; 3]) -> Aabb {
    Aabb { lo, hi }
}

#[test]
fn of_points_and_swept() {
    let x = [0.0, 1.0, 2.0, -1.0, 5.0, 5.0];
    let b = Aabb::of_points(2, &x, &[0, 1]);
    assert_eq!(b, bx([0.0, -1.0, 0.0], [2.0, 1.0, 0.0]));
    let b3 = Aabb::of_points(3, &x, &[0, 1]);
    assert_eq!(b3, bx([-1.0, 1.0, 2.0], [0.0, 5.0, 5.0]));
    assert!(Aabb::of_points(2, &x, &[]).is_empty());
    let p = [1.0, 1.0, -4.0, 0.0, 0.0, 0.0];
    let s = Aabb::swept(2, &x, &p, 0.5, &[0, 1]);
    assert_eq!(s, bx([0.0, -1.0, 0.0], [2.0, 1.5, 0.0]));
    let s = Aabb::swept(2, &x, &p, 1.0, &[1]);
    assert_eq!(s, bx([-2.0, -1.0, 0.0], [2.0, -1.0, 0.0]));
}

#[test]
fn nan_coordinates_make_conservative_boxes() {
    let x = [0.0, f64::NAN, 1.0, 2.0];
    let b = Aabb::of_points(2, &x, &[0, 1]);
    assert!(b.has_nan());
    assert!(b.lo[1].is_nan() && b.lo[0] == 0.0 && b.hi[0] == 1.0);
    let far = bx([100.0; 3], [101.0; 3]);
    assert!(b.overlaps(&far) && far.overlaps(&b));
    assert!(b.overlaps(&Aabb::empty()));
    // 0 * inf = NaN in a sweep.
    let s = Aabb::swept(2, &[0.0, 0.0], &[f64::INFINITY, 0.0], 0.0, &[0]);
    assert!(s.has_nan());
}

#[test]
fn overlap_rules() {
    let a = bx([0.0; 3], [1.0; 3]);
    let touching = bx([1.0, 0.0, 0.0], [2.0, 1.0, 1.0]);
    let corner = bx([1.0; 3], [2.0; 3]);
    let apart = bx([1.0 + 1e-15, 0.0, 0.0], [2.0, 1.0, 1.0]);
    let point = bx([0.5; 3], [0.5; 3]);
    assert!(a.overlaps(&touching) && touching.overlaps(&a));
    assert!(a.overlaps(&corner));
    assert!(!a.overlaps(&apart) && !apart.overlaps(&a));
    assert!(a.overlaps(&point) && point.overlaps(&point));
    let e = Aabb::empty();
    assert!(!e.overlaps(&e) && !a.overlaps(&e) && !e.overlaps(&a));
    let everything = bx([f64::NEG_INFINITY; 3], [f64::INFINITY; 3]);
    assert!(everything.overlaps(&a) && !everything.overlaps(&e));
    assert!(a.inflated(1e-15).overlaps(&apart));
    assert!(!a.inflated(-0.6).overlaps(&a));
    let flat2d = bx([0.0, 0.0, 0.0], [1.0, 1.0, 0.0]);
    assert!(flat2d.inflated(0.1).overlaps(&flat2d));
}

#[test]
fn small_hand_cases() {
    let a = [
        bx([0.0; 3], [1.0; 3]),
        bx([2.0; 3], [3.0; 3]),
        bx([0.5; 3], [2.5; 3]),
        Aabb::empty(),
        bx([1.0; 3], [1.0; 3]),
    ];
    let expect = vec![[0, 2], [0, 4], [1, 2], [2, 4]];
    assert_eq!(self_overlapping_pairs(&a, |_, _| true), expect);
    assert_eq!(brute_force_self_pairs(&a, |_, _| true), expect);
    let kept = self_overlapping_pairs(&a, |i, _| i != 0);
    assert_eq!(kept, vec![[1, 2], [2, 4]]);
    let b = [bx([2.9; 3], [4.0; 3]), bx([-1.0; 3], [-0.5; 3])];
    assert_eq!(overlapping_pairs(&a, &b, |_, _| true), vec![[1, 0]]);
    assert_eq!(overlapping_pairs(&b, &a, |_, _| true), vec![[0, 1]]);
    assert!(overlapping_pairs(&a, &[], |_, _| true).is_empty());
    assert!(self_overlapping_pairs(&[], |_, _| true).is_empty());
}

#[test]
fn huge_and_infinite_boxes() {
    let mut a: Vec<Aabb> = (0..50)
        .map(|i| {
            let c = i as f64 * 3.0;
            bx([c, 0.0, 0.0], [c + 1.0, 1.0, 0.0])
        })
        .collect();
    a.push(bx([-1e308, -1e308, 0.0], [1e308, 1e308, 0.0]));
    a.push(bx([f64::NEG_INFINITY, 0.5, 0.0], [f64::INFINITY, 0.5, 0.0]));
    a.push(bx([1e300, 1e300, 0.0], [f64::INFINITY, f64::INFINITY, 0.0]));
    a.push(bx([4.0, 0.0, 0.0], [6.0, 10.0, 0.0]));
    let fast = self_overlapping_pairs(&a, |_, _| true);
    assert_eq!(fast, brute_force_self_pairs(&a, |_, _| true));
    assert!(fast.contains(&[0, 50]) && fast.contains(&[49, 51]));
}

/// Unit boxes on an `n^d` grid, touching their neighbours (closed boxes).
fn lattice(n: usize, dim: usize) -> Vec<Aabb> {
    let mut out = Vec::new();
    let nz = if dim == 3 { n } else { 1 };
    for i in 0..n {
        for j in 0..n {
            for k in 0..nz {
                let lo = [i as f64, j as f64, if dim == 3 { k as f64 } else { 0.0 }];
                let hi = [
                    lo[0] + 1.0,
                    lo[1] + 1.0,
                    if dim == 3 { lo[2] + 1.0 } else { 0.0 },
                ];
                out.push(bx(lo, hi));
            }
        }
    }
    out
}

#[test]
fn hundred_thousand_boxes_2d() {
    let n = 317; // 100 489 boxes
    let a = lattice(n, 2);
    let pairs = self_overlapping_pairs(&a, |_, _| true);
    // Each box touches its 8 neighbours: 2 n (n-1) side pairs, 2 (n-1)^2 diagonal.
    let expect = 2 * n * (n - 1) + 2 * (n - 1) * (n - 1);
    assert_eq!(pairs.len(), expect);
    assert!(pairs.windows(2).all(|w| w[0] < w[1]));
    assert!(pairs
        .iter()
        .all(|&[i, j]| a[i as usize].overlaps(&a[j as usize])));
}

#[test]
fn hundred_thousand_boxes_3d_bipartite() {
    let n = 47; // 103 823 boxes
    let a = lattice(n, 3);
    // Points at the box centres: each overlaps exactly its own box.
    let b: Vec<Aabb> = a
        .iter()
        .map(|q| {
            let c = [
                0.5 * (q.lo[0] + q.hi[0]),
                0.5 * (q.lo[1] + q.hi[1]),
                0.5 * (q.lo[2] + q.hi[2]),
            ];
            bx(c, c)
        })
        .collect();
    let pairs = overlapping_pairs(&a, &b, |_, _| true);
    assert_eq!(pairs.len(), a.len());
    assert!(pairs
        .iter()
        .enumerate()
        .all(|(i, p)| *p == [i as u32, i as u32]));
    let selfp = self_overlapping_pairs(&a, |_, _| true);
    // 26-neighbourhood: 3 (n-1) n^2 faces, 6 (n-1)^2 n edges, 4 (n-1)^3 corners.
    let expect = 3 * (n - 1) * n * n + 6 * (n - 1) * (n - 1) * n + 4 * (n - 1).pow(3);
    assert_eq!(selfp.len(), expect);
}

#[test]
fn many_identical_points() {
    let a = vec![bx([1.0; 3], [1.0; 3]); 40];
    let fast = self_overlapping_pairs(&a, |_, _| true);
    assert_eq!(fast.len(), 40 * 39 / 2);
    assert_eq!(fast, brute_force_self_pairs(&a, |_, _| true));
}
