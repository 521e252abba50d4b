//! Which candidate pairs can matter to one Newton iteration: a cheap lower bound on
//! a pair's distance (the gap between its two primitives' boxes) and on how far its
//! primitives can approach along a direction (their displacement bound), so that the
//! energies, the CCD bound and the next assembly skip the pairs of a candidate list
//! that cannot come within d̂.
//!
//! A pair with `g − L ≥ d̂` stays at least d̂ apart on the whole segment, where `g`
//! is a lower bound on its distance now and `L` bounds how much the distance can
//! shrink: the largest displacement on one side plus the largest on the other, both
//! taken relative to the pair's mean displacement, which a common translation does
//! not change. `g` is first the gap between the two sides' boxes (no case
//! selection), then, for the pairs that test keeps, the distance itself.

use super::ccd::{displacement_bound, PairKind};
use super::distance;

/// The gap (m) between the boxes of a pair's two sides (the first
/// [`PairKind::first_side_nodes`] stacked nodes, and the rest): a lower bound on their
/// distance; 0 where the boxes overlap, NaN where a coordinate is NaN.
#[inline]
pub fn box_gap(kind: PairKind, dim: usize, s: &[f64]) -> f64 {
    let (k, split) = (kind.node_count(), kind.first_side_nodes());
    let mut gap_sq = 0.0;
    for c in 0..dim {
        let side = |range: std::ops::Range<usize>| {
            range.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), l| {
                let v = s[l * dim + c];
                (lo.min(v), hi.max(v))
            })
        };
        let ((alo, ahi), (blo, bhi)) = (side(0..split), side(split..k));
        let g = (blo - ahi).max(alo - bhi).max(0.0);
        gap_sq += g * g;
    }
    if s[..k * dim].iter().any(|v| v.is_nan()) {
        return f64::NAN;
    }
    gap_sq.sqrt()
}

/// Whether a pair with stacked coordinates `s` (m) may come within `reach` (m) of
/// itself at `s`, or (with `q`, the stacked direction in m) anywhere on the segment
/// from `s` to `s + q`. `false` is a proof that it does not; NaN gives `true`.
#[inline]
pub fn may_come_within(
    kind: PairKind,
    dim: usize,
    s: &[f64],
    q: Option<&[f64]>,
    reach: f64,
) -> bool {
    lower_bound(kind, dim, s, q, reach) < reach
}

/// A lower bound (m) on the pair's distance at `s`, or (with `q`) anywhere on the
/// segment from `s` to `s + q`: its distance at `s` less the displacement bound, or
/// the box gap less it where that already reaches `reach` (the distance is then not
/// computed); `-∞` where anything is NaN, so that the pair is kept.
#[inline]
pub fn lower_bound(kind: PairKind, dim: usize, s: &[f64], q: Option<&[f64]>, reach: f64) -> f64 {
    let n = kind.node_count() * dim;
    let s = &s[..n];
    let approach = q.map_or(0.0, |q| displacement_bound(kind, dim, &q[..n]));
    let by_boxes = box_gap(kind, dim, s) - approach;
    if by_boxes >= reach {
        return by_boxes;
    }
    // Boxes of a flat or folded mesh's neighbours touch where the primitives do not:
    // the distance decides those.
    let bound = stacked_distance_sq(kind, dim, s).sqrt() - approach;
    if bound.is_nan() || by_boxes.is_nan() {
        f64::NEG_INFINITY
    } else {
        bound.max(by_boxes)
    }
}

/// Squared distance (m²) of a pair from its stacked coordinates.
#[inline]
pub fn stacked_distance_sq(kind: PairKind, dim: usize, s: &[f64]) -> f64 {
    let n = |l: usize| &s[l * dim..(l + 1) * dim];
    match kind {
        PairKind::PointEdge => distance::point_edge_distance_sq(n(0), n(1), n(2)),
        PairKind::PointTriangle => distance::point_triangle_distance_sq(n(0), n(1), n(2), n(3)),
        PairKind::EdgeEdge => distance::edge_edge_distance_sq(n(0), n(1), n(2), n(3)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift) of coordinates in [-1, 1).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
    }

    /// Whenever `may_come_within` says no, the distance sampled along the segment
    /// (100 points, ends included) stays at or above the reach; and it says no often
    /// enough for the test to mean something.
    #[test]
    fn a_no_is_a_proof_on_random_pairs() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for (kind, dim) in [
            (PairKind::PointEdge, 2),
            (PairKind::PointEdge, 3),
            (PairKind::PointTriangle, 3),
            (PairKind::EdgeEdge, 3),
        ] {
            let n = kind.node_count() * dim;
            let mut refused = 0;
            for _ in 0..4000 {
                let mut s = [0.0; 12];
                let mut q = [0.0; 12];
                let spread = 0.5 + rng.next().abs();
                // Two sides apart along a random offset, moving by up to `scale`.
                let shift: Vec<f64> = (0..dim).map(|_| 2.0 * rng.next()).collect();
                let scale = rng.next().abs();
                let common: Vec<f64> = (0..dim).map(|_| 5.0 * rng.next()).collect();
                for l in 0..kind.node_count() {
                    let far = l >= kind.first_side_nodes();
                    for c in 0..dim {
                        s[l * dim + c] = spread * rng.next() + if far { shift[c] } else { 0.0 };
                        q[l * dim + c] = scale * rng.next() + common[c];
                    }
                }
                let reach = 0.3 * rng.next().abs();
                if may_come_within(kind, dim, &s[..n], Some(&q[..n]), reach) {
                    continue;
                }
                refused += 1;
                assert!(!may_come_within(kind, dim, &s[..n], None, reach));
                for i in 0..=100 {
                    let t = i as f64 / 100.0;
                    let y: Vec<f64> = (0..n).map(|j| s[j] + t * q[j]).collect();
                    let d = stacked_distance_sq(kind, dim, &y).sqrt();
                    assert!(
                        d >= reach * (1.0 - 1e-12),
                        "{kind:?}: distance {d} < reach {reach} at t = {t}"
                    );
                }
            }
            assert!(refused > 400, "{kind:?}: only {refused} pairs refused");
        }
    }

    /// The gap is 0 for overlapping boxes, the exact axis gap for separated ones,
    /// and NaN propagates (the pair is then kept).
    #[test]
    fn gap_of_hand_cases() {
        let pe = [0.0, 2.0, -1.0, 0.0, 1.0, 0.0];
        assert_eq!(box_gap(PairKind::PointEdge, 2, &pe), 2.0);
        let pe_in = [0.5, 0.0, -1.0, 0.0, 1.0, 0.0];
        assert_eq!(box_gap(PairKind::PointEdge, 2, &pe_in), 0.0);
        let corner = [3.0, 4.0, -1.0, -1.0, 0.0, 0.0];
        assert_eq!(box_gap(PairKind::PointEdge, 2, &corner), 5.0);
        let mut nan = pe;
        nan[3] = f64::NAN;
        assert!(box_gap(PairKind::PointEdge, 2, &nan).is_nan());
        assert!(may_come_within(PairKind::PointEdge, 2, &nan, None, 0.1));
        // A common translation does not bring a pair closer.
        let q = [7.0, 7.0, 7.0, 7.0, 7.0, 7.0];
        assert!(!may_come_within(PairKind::PointEdge, 2, &pe, Some(&q), 1.9));
        assert!(may_come_within(PairKind::PointEdge, 2, &pe, None, 2.1));
        // Inside the edge's box, 0.354 from its line: the distance decides.
        let diagonal = [1.0, 1.0, 0.0, 1.5, 1.5, 0.0];
        assert_eq!(box_gap(PairKind::PointEdge, 2, &diagonal), 0.0);
        assert!(!may_come_within(
            PairKind::PointEdge,
            2,
            &diagonal,
            None,
            0.35
        ));
        assert!(may_come_within(
            PairKind::PointEdge,
            2,
            &diagonal,
            None,
            0.36
        ));
    }
}
