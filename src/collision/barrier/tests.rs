//! Finite differences of the pair barrier in every pair kind and both barrier
//! functions, the mollified edge–edge regime included: the value against the
//! barrier of the distance, the gradient against differences of the value, the
//! unprojected Hessian against differences of the gradient; and the projected
//! Hessian is PSD.

use super::*;
use crate::collision::distance::test_support::check_derivatives;
use crate::collision::psd::symmetric_eigen;
use crate::energy::barrier::BarrierKind;

/// The pair barrier of `s` as [`Derivatives`] (unprojected Hessian), or zeros.
fn as_derivatives(
    kind: PairKind,
    dim: usize,
    s: &[f64],
    p: &BarrierParams,
    eps: f64,
) -> Derivatives {
    let n = kind.node_count() * dim;
    match pair_barrier(kind, dim, s, p, 0.3, eps, false) {
        Some(b) => Derivatives {
            n,
            value: b.value,
            gradient: b.gradient,
            hessian: b.hessian,
        },
        None => Derivatives::zeros(n),
    }
}

/// Every kind, in configurations within d̂ = 0.1 of each case of the distance's case
/// selection (point–point and point–line sub-cases included), with `eps` for the
/// edge–edge mollifier.
fn cases() -> Vec<(PairKind, usize, Vec<f64>, f64)> {
    let pe2 = |p: [f64; 2]| [p[0], p[1], 0.0, 0.0, 1.0, 0.1].to_vec();
    let pt = |p: [f64; 3]| {
        let mut v = p.to_vec();
        v.extend([0.0, 0.0, 0.0, 1.0, 0.05, 0.0, 0.1, 0.0, 1.0]);
        v
    };
    let ee = |b0: [f64; 3], b1: [f64; 3]| {
        let mut v = vec![0.0, 0.0, 0.0, 1.0, 0.02, 0.0];
        v.extend(b0);
        v.extend(b1);
        v
    };
    vec![
        (PairKind::PointEdge, 2, pe2([0.4, 0.09]), 0.0),
        (PairKind::PointEdge, 2, pe2([-0.03, 0.02]), 0.0),
        (PairKind::PointEdge, 2, pe2([1.04, 0.13]), 0.0),
        (
            PairKind::PointEdge,
            3,
            vec![0.3, 0.05, 0.02, 0.0, 0.0, 0.0, 1.0, 0.0, 0.1],
            0.0,
        ),
        (PairKind::PointTriangle, 3, pt([0.2, 0.06, 0.3]), 0.0),
        (PairKind::PointTriangle, 3, pt([-0.02, 0.03, -0.04]), 0.0),
        (PairKind::PointTriangle, 3, pt([0.5, 0.04, -0.03]), 0.0),
        // Crossing edges, above each other (line–line), far from parallel.
        (
            PairKind::EdgeEdge,
            3,
            ee([0.5, 0.05, -0.5], [0.45, 0.07, 0.5]),
            1e-6,
        ),
        // An endpoint of b near the interior of a (point–line case).
        (
            PairKind::EdgeEdge,
            3,
            ee([0.5, 0.06, 0.01], [0.6, 0.5, 0.8]),
            1e-6,
        ),
        // Nearly parallel edges 0.04 apart: the mollifier is below 1.
        (
            PairKind::EdgeEdge,
            3,
            ee([0.2, 0.04, 0.001], [1.2, 0.05, 0.003]),
            1e-3,
        ),
    ]
}

#[test]
fn pair_barriers_match_finite_differences_in_every_case() {
    for kind_b in [BarrierKind::Book, BarrierKind::Ipc] {
        let p = BarrierParams {
            kind: kind_b,
            dhat: 0.1,
            kappa: 1e3,
        };
        for (kind, dim, s, eps) in cases() {
            let d = as_derivatives(kind, dim, &s, &p, eps);
            assert!(d.value > 0.0, "{kind:?} {s:?}: not within d̂");
            if kind == PairKind::EdgeEdge && eps == 1e-3 {
                assert!(mollifier_value(kind, &s, eps) < 1.0, "mollified case");
            }
            let value = |y: &[f64]| as_derivatives(kind, dim, y, &p, eps).value;
            let derivatives = |y: &[f64]| as_derivatives(kind, dim, y, &p, eps);
            check_derivatives(&s, &d, value, derivatives, 1.0, 2e-5);
        }
    }
}

#[test]
fn the_value_is_the_barrier_of_the_distance_and_the_block_is_psd() {
    let p = BarrierParams {
        kind: BarrierKind::Ipc,
        dhat: 0.1,
        kappa: 1e3,
    };
    for (kind, dim, s, eps) in cases() {
        let dsq = crate::collision::pairs::stacked_distance_sq(kind, dim, &s);
        let moll = mollifier_value(kind, &s, eps);
        let b = pair_barrier(kind, dim, &s, &p, 0.3, eps, true).unwrap();
        let want = moll * barrier_value(&p, 0.3, dsq.sqrt());
        assert!(
            (b.value - want).abs() <= 1e-12 * want.abs(),
            "{kind:?}: {} vs {want}",
            b.value
        );
        assert_eq!(pair_barrier_value(&p, 0.3, dsq, moll), b.value);
        let (eig, _) = symmetric_eigen(&b.hessian[..b.n * b.n], b.n);
        let top = eig[..b.n].iter().fold(0.0f64, |m, l| m.max(l.abs()));
        assert!(
            eig[..b.n].iter().all(|&l| l >= -1e-10 * top),
            "{kind:?}: {eig:?}"
        );
    }
    // Beyond d̂ there is no barrier; at d = 0 it is infinite.
    let far = [0.0, 0.5, 0.0, 0.0, 1.0, 0.0];
    assert!(pair_barrier(PairKind::PointEdge, 2, &far, &p, 1.0, 0.0, true).is_none());
    assert_eq!(pair_barrier_value(&p, 1.0, 0.0, 1.0), f64::INFINITY);
}
