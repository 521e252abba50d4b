//! Hand cases of additive CCD: head-on approaches with a known time of impact,
//! separating pairs, sliding at constant distance, rigid translation, starts
//! within ξ, non-finite input and invalid parameters.

use super::*;

pub(super) fn params(xi: f64) -> CcdParams {
    CcdParams {
        min_separation: xi,
        ..CcdParams::default()
    }
}

pub(super) fn flat(nodes: &[&[f64]]) -> Vec<f64> {
    nodes.iter().flat_map(|n| n.iter().copied()).collect()
}

/// Asserts 0.5·toi < t < toi.
fn assert_below_toi(t: f64, toi: f64) {
    assert!(
        t < toi && t > 0.5 * toi,
        "bound {t} vs time of impact {toi}"
    );
}

/// The bound of additive CCD with minimum separation `xi` and the other
/// parameters at their defaults.
fn bound(kind: PairKind, dim: usize, x: &[f64], p: &[f64], xi: f64) -> f64 {
    additive_ccd(kind, dim, x, p, &params(xi))
}

/// Asserts that the pair moves its whole step without contact (ξ = 0) in at
/// most `max_iterations` distance evaluations.
fn assert_no_contact(kind: PairKind, dim: usize, x: &[f64], p: &[f64], max_iterations: u32) {
    let o = additive_ccd_outcome(kind, dim, x, p, &params(0.0));
    assert_eq!((o.t, o.stop), (1.0, CcdStop::NoContact));
    assert!(o.iterations <= max_iterations, "{o:?}");
}

// ---- point–edge, 2D and 3D ----

#[test]
fn point_edge_head_on() {
    // Point at height 1 above the edge [-1, 1] x {0}, falling at speed 2: toi 0.5.
    let x = flat(&[&[0.2, 1.0], &[-1.0, 0.0], &[1.0, 0.0]]);
    let p = flat(&[&[0.0, -2.0], &[0.0, 0.0], &[0.0, 0.0]]);
    let t = bound(PairKind::PointEdge, 2, &x, &p, 0.0);
    assert_below_toi(t, 0.5);
    // The edge rising instead, and with ξ = 0.2: contact at d = 0.2 at t = 0.4.
    let p = flat(&[&[0.0, 0.0], &[0.0, 2.0], &[0.0, 2.0]]);
    let t = bound(PairKind::PointEdge, 2, &x, &p, 0.2);
    assert_below_toi(t, 0.4);
    // 3D, point towards the edge's interior.
    let x = flat(&[&[0.3, 0.5, 0.5], &[-1.0, 0.0, 0.0], &[1.0, 0.0, 0.0]]);
    let p = flat(&[&[0.0, -1.0, -1.0], &[0.0; 3], &[0.0; 3]]);
    let t = bound(PairKind::PointEdge, 3, &x, &p, 0.0);
    assert_below_toi(t, 0.5);
}

#[test]
fn point_edge_apart_translation_and_sliding() {
    let x = flat(&[&[0.2, 1.0], &[-1.0, 0.0], &[1.0, 0.0]]);
    let apart = flat(&[&[0.0, 3.0], &[0.0, -1.0], &[0.0, -1.0]]);
    assert_eq!(bound(PairKind::PointEdge, 2, &x, &apart, 0.0), 1.0);
    let together = flat(&[&[5.0, -7.0], &[5.0, -7.0], &[5.0, -7.0]]);
    let o = additive_ccd_outcome(PairKind::PointEdge, 2, &x, &together, &params(0.0));
    assert_eq!((o.t, o.iterations, o.stop), (1.0, 0, CcdStop::NoContact));
    // Point sliding along the edge at height 0.1, relative speed 1: l_p = 1, each
    // step is 0.9·0.1, so about 12 evaluations.
    let x = flat(&[&[-0.5, 0.1], &[-10.0, 0.0], &[10.0, 0.0]]);
    let slide = flat(&[&[1.0, 0.0], &[0.0, 0.0], &[0.0, 0.0]]);
    assert_no_contact(PairKind::PointEdge, 2, &x, &slide, 13);
}

#[test]
fn point_edge_degenerate_inputs() {
    let x = flat(&[&[0.2, 0.05], &[-1.0, 0.0], &[1.0, 0.0]]);
    let p = flat(&[&[0.0, -2.0], &[0.0, 0.0], &[0.0, 0.0]]);
    // Starting within ξ = 0.1, and exactly at ξ.
    assert_eq!(bound(PairKind::PointEdge, 2, &x, &p, 0.1), 0.0);
    assert_eq!(bound(PairKind::PointEdge, 2, &x, &p, 0.05), 0.0);
    // Already touching, even without motion.
    let touching = flat(&[&[0.2, 0.0], &[-1.0, 0.0], &[1.0, 0.0]]);
    assert_eq!(
        bound(PairKind::PointEdge, 2, &touching, &[0.0; 6], 0.0),
        0.0
    );
    // NaN and infinity anywhere.
    for i in 0..6 {
        for bad in [f64::NAN, f64::INFINITY] {
            let mut xb = x.clone();
            xb[i] = bad;
            assert_eq!(bound(PairKind::PointEdge, 2, &xb, &p, 0.0), 0.0);
            let mut pb = p.clone();
            pb[i] = bad;
            assert_eq!(bound(PairKind::PointEdge, 2, &x, &pb, 0.0), 0.0);
        }
    }
    // Invalid parameters.
    for bad in [
        CcdParams {
            min_separation: f64::NAN,
            ..params(0.0)
        },
        CcdParams {
            min_separation: -1.0,
            ..params(0.0)
        },
        CcdParams {
            keep: 0.0,
            ..params(0.0)
        },
        CcdParams {
            keep: 1.0,
            ..params(0.0)
        },
        CcdParams {
            keep: f64::NAN,
            ..params(0.0)
        },
        CcdParams {
            t_max: f64::NAN,
            ..params(0.0)
        },
        CcdParams {
            t_max: f64::INFINITY,
            ..params(0.0)
        },
        CcdParams {
            t_max: -1.0,
            ..params(0.0)
        },
    ] {
        assert_eq!(
            additive_ccd(PairKind::PointEdge, 2, &x, &p, &bad),
            0.0,
            "{bad:?}"
        );
    }
    // Overflowing displacement: no claim of safety.
    let huge = flat(&[&[0.0, -1e308], &[0.0, 1e308], &[0.0, 1e308]]);
    assert_eq!(bound(PairKind::PointEdge, 2, &x, &huge, 0.0), 0.0);
    // Zero-length displacement and t_max = 0.
    assert_eq!(bound(PairKind::PointEdge, 2, &x, &[0.0; 6], 0.0), 1.0);
    let t0 = CcdParams {
        t_max: 0.0,
        ..params(0.0)
    };
    assert_eq!(additive_ccd(PairKind::PointEdge, 2, &x, &p, &t0), 0.0);
    // A smaller t_max is honoured, a larger one lets the bound grow.
    let half = CcdParams {
        t_max: 0.01,
        ..params(0.0)
    };
    assert_eq!(additive_ccd(PairKind::PointEdge, 2, &x, &p, &half), 0.01);
}

#[test]
fn iteration_cap_is_conservative() {
    // Sliding at a tiny gap needs ~1e7 steps; the cap stops early at t < 1.
    let x = flat(&[&[-0.5, 1e-7], &[-10.0, 0.0], &[10.0, 0.0]]);
    let slide = flat(&[&[1.0, 0.0], &[0.0, 0.0], &[0.0, 0.0]]);
    let capped = CcdParams {
        max_iterations: 1000,
        ..params(0.0)
    };
    let o = additive_ccd_outcome(PairKind::PointEdge, 2, &x, &slide, &capped);
    assert_eq!((o.iterations, o.stop), (1000, CcdStop::IterationCap));
    assert!(o.t > 0.0 && o.t < 1e-3, "{o:?}");
    let none = CcdParams {
        max_iterations: 0,
        ..params(0.0)
    };
    assert_eq!(additive_ccd(PairKind::PointEdge, 2, &x, &slide, &none), 0.0);
}

#[test]
#[should_panic(expected = "not defined in dimension 2")]
fn point_triangle_in_2d_panics() {
    additive_ccd(
        PairKind::PointTriangle,
        2,
        &[0.0; 8],
        &[0.0; 8],
        &params(0.0),
    );
}

// ---- point–triangle ----

pub(super) const TRI: [[f64; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

#[test]
fn point_triangle_cases() {
    let pt = |p: [f64; 3]| flat(&[&p, &TRI[0], &TRI[1], &TRI[2]]);
    let x = pt([0.2, 0.2, 1.0]);
    // Head-on, the point falling at speed 4: toi 0.25.
    let p = flat(&[&[0.0, 0.0, -4.0], &[0.0; 3], &[0.0; 3], &[0.0; 3]]);
    assert_below_toi(bound(PairKind::PointTriangle, 3, &x, &p, 0.0), 0.25);
    // The triangle rising at speed 1 with ξ = 0.5: toi 0.5.
    let up = [0.0, 0.0, 1.0];
    let p = flat(&[&[0.0; 3], &up, &up, &up]);
    assert_below_toi(bound(PairKind::PointTriangle, 3, &x, &p, 0.5), 0.5);
    // Apart.
    let p = flat(&[
        &[0.0, 0.0, 1.0],
        &[0.0, 0.0, -1.0],
        &[0.0, 0.0, -1.0],
        &[0.0, 0.0, -1.0],
    ]);
    assert_eq!(bound(PairKind::PointTriangle, 3, &x, &p, 0.0), 1.0);
    // Together.
    let m = [0.3, -2.0, 7.0];
    let p = flat(&[&m, &m, &m, &m]);
    assert_eq!(bound(PairKind::PointTriangle, 3, &x, &p, 0.0), 1.0);
    // Sliding parallel to the plane at height 0.2 (the point stays above the
    // plane but leaves the triangle: distance never below 0.2).
    let x_low = pt([0.2, 0.2, 0.2]);
    let p = flat(&[&[0.3, 0.3, 0.0], &[0.0; 3], &[0.0; 3], &[0.0; 3]]);
    assert_no_contact(PairKind::PointTriangle, 3, &x_low, &p, 4);
    // Starting below ξ, and NaN.
    assert_eq!(bound(PairKind::PointTriangle, 3, &x_low, &p, 0.25), 0.0);
    let mut xn = x.clone();
    xn[7] = f64::NAN;
    assert_eq!(bound(PairKind::PointTriangle, 3, &xn, &p, 0.0), 0.0);
}

// ---- edge–edge ----

#[test]
fn edge_edge_cases() {
    // Edge a along x at z = 1, edge b along y at z = 0: crossing at distance 1.
    let x = flat(&[
        &[-1.0, 0.0, 1.0],
        &[1.0, 0.0, 1.0],
        &[0.0, -1.0, 0.0],
        &[0.0, 1.0, 0.0],
    ]);
    let down = [0.0, 0.0, -1.0];
    let z = [0.0; 3];
    // Head-on, a falling at speed 1: toi 1 (inside t_max = 2).
    let p = flat(&[&down, &down, &z, &z]);
    let long = CcdParams {
        t_max: 2.0,
        ..params(0.0)
    };
    assert_below_toi(additive_ccd(PairKind::EdgeEdge, 3, &x, &p, &long), 1.0);
    // With t_max 0.5 < toi the whole step is allowed.
    let short = CcdParams {
        t_max: 0.5,
        ..params(0.0)
    };
    assert_eq!(additive_ccd(PairKind::EdgeEdge, 3, &x, &p, &short), 0.5);
    // Both approaching at speed 1.5 each with ξ = 0.1: d = 1 - 3t, toi 0.3.
    let up = [0.0, 0.0, 1.5];
    let fall = [0.0, 0.0, -1.5];
    let p = flat(&[&fall, &fall, &up, &up]);
    assert_below_toi(bound(PairKind::EdgeEdge, 3, &x, &p, 0.1), 0.3);
    // Apart.
    let p = flat(&[&up, &up, &fall, &fall]);
    assert_eq!(bound(PairKind::EdgeEdge, 3, &x, &p, 0.0), 1.0);
    // Together.
    let m = [1.0, 2.0, 3.0];
    let p = flat(&[&m, &m, &m, &m]);
    assert_eq!(bound(PairKind::EdgeEdge, 3, &x, &p, 0.0), 1.0);
    // Parallel edges sliding along each other at constant distance 0.25.
    let xp = flat(&[
        &[-1.0, 0.0, 0.25],
        &[1.0, 0.0, 0.25],
        &[-1.0, 0.0, 0.0],
        &[1.0, 0.0, 0.0],
    ]);
    let along = [1.0, 0.0, 0.0];
    let p = flat(&[&along, &along, &z, &z]);
    // l_p = 1, steps ≥ 0.9·0.25: at most 5 evaluations.
    assert_no_contact(PairKind::EdgeEdge, 3, &xp, &p, 5);
    // Crossing edges sliding at constant distance (b moves along itself).
    let p = flat(&[&z, &z, &[0.0, 1.0, 0.0], &[0.0, 1.0, 0.0]]);
    assert_no_contact(PairKind::EdgeEdge, 3, &x, &p, 3);
    // Below ξ, and NaN.
    assert_eq!(bound(PairKind::EdgeEdge, 3, &xp, &p, 0.25), 0.0);
    let mut pn = p.clone();
    pn[11] = f64::NAN;
    assert_eq!(bound(PairKind::EdgeEdge, 3, &x, &pn, 0.0), 0.0);
}
