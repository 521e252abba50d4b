//! Implicit walls (seed 004) on the CPU, the mathematics: exact derivatives and the
//! implicit barrier against finite differences, intervals against dense sampling, the
//! CCD bound keeping whole segments inside (corners included), and the behaviour of
//! `√` and fractional powers at 0.

mod common;
use springsim::energy::barrier::{BarrierKind, BarrierParams};
use springsim::implicit::dual::eval_dual;
use springsim::implicit::expr::eval;
use springsim::implicit::expr::parse;
use springsim::implicit::interval::eval_interval;
use springsim::implicit::shapes::{shape_expr, Shape};
use springsim::implicit::wall::{
    implicit_barrier_gradient, implicit_barrier_hessian_exact, implicit_barrier_value,
    implicit_ccd_bound,
};
use springsim::implicit::{Expr, ImplicitWall};

fn exprs2() -> Vec<Expr> {
    vec![
        parse("(x^2 + y^2 - 1)^3 + 27*x^2*y^2", 2).unwrap(),
        parse(
            "sin(x) * exp(0.3*y) - ln(2 + x^2) / (1 + y^2) + sqrt(3 + x*y)",
            2,
        )
        .unwrap(),
        parse("abs(x)^2.5 + abs(y)^2.5 - max(x, 2*y) + min(cos(y), x)", 2).unwrap(),
        shape_expr(&Shape::Sextic(15.0), &[0.5, -1.0]),
        shape_expr(&Shape::Superellipse(vec![3.0, 2.0], 3.5), &[0.0, 0.0]),
        shape_expr(&Shape::Ellipsoid(vec![3.0, 2.0, 1.5]), &[0.0, 0.0, 0.0]),
    ]
}

#[test]
fn exact_derivatives_match_finite_differences() {
    let mut rng = common::Rng(7);
    for e in exprs2() {
        let dim = e.arity().max(2);
        for _ in 0..20 {
            let x: Vec<f64> = (0..dim).map(|_| 1.3 * rng.next() + 0.2).collect();
            let d = eval_dual(&e, &x);
            assert!((d.v - eval(&e, &x)).abs() <= 1e-12 * (1.0 + d.v.abs()));
            let h = 1e-6;
            for k in 0..dim {
                let (mut xp, mut xm) = (x.clone(), x.clone());
                xp[k] += h;
                xm[k] -= h;
                let fd = (eval(&e, &xp) - eval(&e, &xm)) / (2.0 * h);
                let scale = 1.0 + d.g[k].abs();
                assert!(
                    (fd - d.g[k]).abs() < 1e-6 * scale,
                    "{e:?} grad {k}: {fd} vs {}",
                    d.g[k]
                );
                let (gp, gm) = (eval_dual(&e, &xp).g, eval_dual(&e, &xm).g);
                for c in 0..dim {
                    let fd = (gp[c] - gm[c]) / (2.0 * h);
                    let scale = 1.0 + d.h[k][c].abs();
                    assert!(
                        (fd - d.h[k][c]).abs() < 1e-5 * scale,
                        "{e:?} hess {k}{c}: {fd} vs {}",
                        d.h[k][c]
                    );
                }
            }
        }
    }
}

#[test]
fn implicit_barrier_gradient_and_hessian_match_finite_differences() {
    let w = ImplicitWall {
        expr: shape_expr(&Shape::Sextic(15.0), &[0.0, 0.0]),
        label: "sextic".into(),
        frame: None,
    };
    for kind in [BarrierKind::Book, BarrierKind::Ipc] {
        let b = BarrierParams {
            kind,
            dhat: 0.5,
            kappa: 100.0,
        };
        // points inside, within d̂ of the wall, along a ray
        // the sextic meets the diagonal at u = v = 15 · 2^(−3/2) = 5.303 m
        for delta in [0.1f64, 0.2, 0.3] {
            let c = 15.0 * 0.5f64.powf(1.5) - delta / 2f64.sqrt();
            let x = [c + 0.01, c - 0.01];
            let d = w.distance(&x);
            assert!(d > 0.0 && d < b.dhat, "test point at d = {d}");
            let mut g = [0.0; 2];
            implicit_barrier_gradient(&w, &b, 0.7, &x, &mut g);
            let hx = implicit_barrier_hessian_exact(&w, &b, 0.7, &x);
            let h = 1e-6;
            for k in 0..2 {
                let (mut xp, mut xm) = (x, x);
                xp[k] += h;
                xm[k] -= h;
                let fd = (implicit_barrier_value(&w, &b, 0.7, &xp)
                    - implicit_barrier_value(&w, &b, 0.7, &xm))
                    / (2.0 * h);
                assert!(
                    (fd - g[k]).abs() < 1e-5 * (1.0 + g[k].abs()),
                    "grad {k}: {fd} vs {}",
                    g[k]
                );
                let (mut gp, mut gm) = ([0.0; 2], [0.0; 2]);
                implicit_barrier_gradient(&w, &b, 0.7, &xp, &mut gp);
                implicit_barrier_gradient(&w, &b, 0.7, &xm, &mut gm);
                for c in 0..2 {
                    let fd = (gp[c] - gm[c]) / (2.0 * h);
                    assert!(
                        (fd - hx[k * 2 + c]).abs() < 1e-4 * (1.0 + hx[k * 2 + c].abs()),
                        "hess {k}{c}: {fd} vs {}",
                        hx[k * 2 + c]
                    );
                }
            }
        }
    }
}

#[test]
fn interval_ranges_contain_sampled_values() {
    let mut rng = common::Rng(11);
    for e in exprs2() {
        let dim = e.arity().max(2);
        for _ in 0..50 {
            let lo: Vec<f64> = (0..dim).map(|_| 1.5 * rng.next()).collect();
            let hi: Vec<f64> = lo.iter().map(|l| l + 0.5 * (rng.next() + 1.0)).collect();
            let r = eval_interval(&e, &lo, &hi);
            for _ in 0..50 {
                let x: Vec<f64> = (0..dim)
                    .map(|k| lo[k] + (hi[k] - lo[k]) * 0.5 * (rng.next() + 1.0))
                    .collect();
                let v = eval(&e, &x);
                if v.is_finite() {
                    assert!(
                        r.lo <= v && v <= r.hi,
                        "{e:?}: {v} outside [{}, {}]",
                        r.lo,
                        r.hi
                    );
                }
            }
        }
    }
}

/// Random segments from inside points: the whole segment up to the CCD bound stays at
/// W ≥ 0.1 W(x) (dense sampling), and the bound is positive.
#[test]
fn ccd_bound_keeps_whole_segments_inside_corners_included() {
    let walls = [
        parse("15 - abs(x) - abs(y)", 2).unwrap(),
        shape_expr(&Shape::Ball(15.0), &[0.0, 0.0]),
        shape_expr(&Shape::Sextic(15.0), &[0.0, 0.0]),
        parse("min(4 - abs(x), 3 - abs(y)) - 0.3", 2).unwrap(),
        shape_expr(&Shape::Superellipse(vec![3.0, 2.0], 2.5), &[0.0, 0.0]),
    ];
    let mut rng = common::Rng(5);
    for e in &walls {
        let mut tested = 0;
        while tested < 300 {
            let x = [15.0 * rng.next(), 15.0 * rng.next()];
            let w0 = eval(e, &x);
            if w0.is_nan() || w0 <= 0.0 {
                continue;
            }
            tested += 1;
            // aim at or beyond the wall, often straight at a corner (0, ±15) / (±15, 0)
            let target = match tested % 3 {
                0 => [0.0, if x[1] > 0.0 { 16.0 } else { -16.0 }],
                1 => [if x[0] > 0.0 { 16.0 } else { -16.0 }, 0.0],
                _ => [30.0 * rng.next(), 30.0 * rng.next()],
            };
            let p = [target[0] - x[0], target[1] - x[1]];
            let a = implicit_ccd_bound(e, &x, &p);
            assert!(a > 0.0 && a <= 1.0, "{e:?} at {x:?}: bound {a}");
            for s in 0..=400 {
                let t = a * s as f64 / 400.0;
                let y = [x[0] + t * p[0], x[1] + t * p[1]];
                let w = eval(e, &y);
                assert!(
                    w >= 0.1 * w0 * (1.0 - 1e-9),
                    "{e:?}: x {x:?} p {p:?} t {t}: W = {w}, W(x) = {w0}"
                );
            }
        }
    }
}

/// `√` at 0 and fractional powers of 0 have finite (zero) derivatives, and intervals of
/// non-negative operations stay non-negative.
#[test]
fn sqrt_and_fractional_powers_at_zero_have_finite_derivatives() {
    for (src, x) in [
        ("3 - sqrt(x^2 + y^2)", [0.0, 0.0]),
        ("sqrt(abs(x)) + y", [0.0, 1.0]),
        ("abs(x)^0.5 - y", [0.0, 2.0]),
        ("abs(x)^1.5 - y", [0.0, 2.0]),
    ] {
        let e = parse(src, 2).unwrap();
        let d = eval_dual(&e, &x);
        assert!(
            d.g.iter()
                .chain(d.h.iter().flatten())
                .all(|c| c.is_finite()),
            "{src}: {d:?}"
        );
        assert_eq!(d.g[0], 0.0, "{src}");
    }
    let e = parse("3 - sqrt(x^2 + y^2)", 2).unwrap();
    let r = eval_interval(&e, &[0.0, -0.1], &[0.0, 0.0]);
    assert!(
        r.lo >= 2.9 - 1e-9 && r.hi <= 3.0 + 1e-9,
        "[{}, {}]",
        r.lo,
        r.hi
    );
    let r = eval_interval(
        &parse("sqrt(x^2 + x*x) + exp(y)^2", 2).unwrap(),
        &[0.0; 2],
        &[0.0; 2],
    );
    assert!(r.lo >= 1.0 - 1e-9, "[{}, {}]", r.lo, r.hi);
    assert!(implicit_ccd_bound(&e, &[0.0, 0.0], &[0.0, -0.1]) == 1.0);
}

/// A node at or beyond d̂ from a wall gets exactly no barrier terms, even where the
/// wall's derivatives are not finite there.
#[test]
fn far_nodes_get_no_barrier_terms_even_with_infinite_derivatives() {
    // √(x²) at x = 1e-160: x² is subnormal and the second derivative of √ overflows
    let w = ImplicitWall {
        expr: parse("5 - y + sqrt(x^2)", 2).unwrap(),
        label: "test".into(),
        frame: None,
    };
    let x = [1e-160, 0.0];
    let du = w.dual(&x);
    assert!(du.h.iter().flatten().any(|c| !c.is_finite()), "{du:?}");
    let b = BarrierParams {
        kind: BarrierKind::Ipc,
        dhat: 0.5,
        kappa: 100.0,
    };
    let mut g = [0.0; 2];
    implicit_barrier_gradient(&w, &b, 1.0, &x, &mut g);
    assert_eq!(g, [0.0; 2]);
    assert_eq!(implicit_barrier_value(&w, &b, 1.0, &x), 0.0);
    let h = implicit_barrier_hessian_exact(&w, &b, 1.0, &x);
    assert!(h.iter().all(|c| *c == 0.0), "{h:?}");
}
