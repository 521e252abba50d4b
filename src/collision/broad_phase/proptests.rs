//! Property tests of the broad phase: on random boxes (lattice-aligned touches,
//! zero to infinite extents, NaN, empty and half-infinite boxes, 2D and 3D) the
//! fast pair lists equal the brute-force ones, with and without a `keep` filter,
//! and `keep` sees each overlapping pair once.

use super::tests::bx;
use super::*;
use proptest::prelude::*;

/// A random box: coordinates on a half-integer lattice (many exact touches)
/// or continuous, extents from zero to huge, plus rare special boxes.
fn arb_box() -> impl Strategy<Value = Aabb> {
    let coord = prop_oneof![
        6 => (-20i32..20).prop_map(|v| f64::from(v) * 0.5),
        3 => -10.0..10.0f64,
        1 => prop_oneof![Just(1e300), Just(-1e300), Just(-1e308)],
    ];
    let extent = prop_oneof![
        3 => Just(0.0),
        5 => (0i32..5).prop_map(|v| f64::from(v) * 0.5),
        4 => 0.0..3.0f64,
        1 => 10.0..100.0f64,
        1 => Just(1e6),
        1 => Just(1.7e308),
        1 => Just(f64::INFINITY),
    ];
    let special = prop_oneof![
        40 => Just(0u8),
        1 => Just(1u8), // NaN
        1 => Just(2u8), // empty
        1 => Just(3u8), // lower bound -inf
    ];
    (
        proptest::array::uniform3(coord),
        proptest::array::uniform3(extent),
        special,
    )
        .prop_map(|(c, e, s)| {
            let mut b = bx(c, [c[0] + e[0], c[1] + e[1], c[2] + e[2]]);
            match s {
                1 => b.hi[0] = f64::NAN,
                2 => b.lo[1] = b.hi[1] + 1.0,
                3 => b.lo[0] = f64::NEG_INFINITY,
                _ => {}
            }
            b
        })
}

fn flatten(mut v: Vec<Aabb>, dim: usize) -> Vec<Aabb> {
    if dim == 2 {
        for b in &mut v {
            b.lo[2] = 0.0;
            b.hi[2] = 0.0;
        }
    }
    v
}

fn filter(i: u32, j: u32) -> bool {
    !(i + 2 * j).is_multiple_of(3)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn fast_self_pairs_equal_brute_force(
        dim in 2usize..=3,
        a in proptest::collection::vec(arb_box(), 0..60),
    ) {
        let a = flatten(a, dim);
        prop_assert_eq!(
            self_overlapping_pairs(&a, |_, _| true),
            brute_force_self_pairs(&a, |_, _| true)
        );
        prop_assert_eq!(
            self_overlapping_pairs(&a, filter),
            brute_force_self_pairs(&a, filter)
        );
    }

    #[test]
    fn fast_pairs_equal_brute_force(
        dim in 2usize..=3,
        a in proptest::collection::vec(arb_box(), 0..40),
        b in proptest::collection::vec(arb_box(), 0..40),
    ) {
        let a = flatten(a, dim);
        let b = flatten(b, dim);
        prop_assert_eq!(
            overlapping_pairs(&a, &b, |_, _| true),
            brute_force_pairs(&a, &b, |_, _| true)
        );
        prop_assert_eq!(
            overlapping_pairs(&a, &b, filter),
            brute_force_pairs(&a, &b, filter)
        );
    }

    #[test]
    fn keep_sees_each_overlapping_pair_once(
        a in proptest::collection::vec(arb_box(), 0..40),
    ) {
        let seen = std::cell::RefCell::new(Vec::new());
        let out = self_overlapping_pairs(&a, |i, j| {
            seen.borrow_mut().push([i, j]);
            true
        });
        let mut seen = seen.into_inner();
        seen.sort_unstable();
        prop_assert_eq!(seen, out);
    }
}
