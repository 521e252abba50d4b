//! Implicit walls (seed 004) on the CPU: the expression parser and its errors, exact
//! derivatives against finite differences, the interval CCD bound against dense
//! sampling (corners included), the three seed containers for 40 simulated seconds
//! with no ball leaving, and the impulse model's energy bound with e = 1.

mod common;
use springsim::backend::cpu::CpuBackend;
use springsim::energy::barrier::{BarrierKind, BarrierParams};
use springsim::implicit::dual::{eval, eval_dual};
use springsim::implicit::expr::parse;
use springsim::implicit::interval::eval_interval;
use springsim::implicit::shapes::{shape_expr, Shape};
use springsim::implicit::wall::{
    implicit_barrier_gradient, implicit_barrier_hessian_exact, implicit_barrier_value,
    implicit_ccd_bound,
};
use springsim::implicit::{Expr, ImplicitWall};
use springsim::scene;
use springsim::sim::Simulation;

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
fn parse_errors_give_positions() {
    for (src, pos, what) in [
        ("x^2 + * y", 6, "expected a number"),
        ("x + y)", 5, "expected an operator"),
        ("sqrt(x", 6, "expected `)`"),
        ("x^y", 2, "exponent must be a constant"),
        ("foo(x)", 0, "unknown function"),
        ("x + w", 4, "unknown name"),
        ("z + 1", 0, "not a coordinate of a 2D scene"),
        ("x $ 2", 2, "unexpected character"),
        ("min(x)", 5, "expected `,`"),
    ] {
        let e = parse(src, 2).unwrap_err();
        assert_eq!(e.position, pos, "{src}: {e}");
        assert!(e.reason.contains(what), "{src}: {e}");
    }
    assert_eq!(
        eval(&parse("-2^2 + 3*(1 - x)/y", 2).unwrap(), &[0.5, 3.0]),
        -3.5
    );
}

#[test]
fn malformed_expression_in_a_scene_names_field_and_position() {
    let text = r#"
dimension = 2
[solver]
dt = 0.01
[contact]
dhat = 0.01
kappa = 1e3
[[walls]]
type = "implicit"
expression = "225 - (x^2 + y^^2)"
inside = "positive"
[[bodies]]
generator = "particle"
mass = 1.0
"#;
    let e = scene::parse(text, "bad.toml", "bad")
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad.toml:10"), "{e}");
    assert!(e.contains("walls[0].expression"), "{e}");
    assert!(e.contains("at character 16"), "{e}");
    let missing = text
        .replace("inside = \"positive\"\n", "")
        .replace("y^^2", "y^2");
    let e = scene::parse(&missing, "bad.toml", "bad")
        .unwrap_err()
        .to_string();
    assert!(e.contains("inside"), "{e}");
    let outside = text.replace("y^^2", "y^2").replace("225", "0.005");
    let e = scene::parse(&outside, "bad.toml", "bad")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bodies[0].center") && e.contains("implicit wall"),
        "{e}"
    );
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

/// The mechanical energy ½ m |v|² − m g·x of each ball.
fn ball_energies(m: &springsim::model::Model, x: &[f64], v: &[f64]) -> Vec<f64> {
    let d = m.dim;
    (0..m.num_nodes())
        .map(|i| {
            let (xi, vi) = (&x[i * d..(i + 1) * d], &v[i * d..(i + 1) * d]);
            let ke: f64 = 0.5 * m.mass[i] * vi.iter().map(|c| c * c).sum::<f64>();
            let pe: f64 = -m.mass[i] * m.gravity.iter().zip(xi).map(|(g, x)| g * x).sum::<f64>();
            ke + pe
        })
        .collect()
}

/// Runs `name` on the CPU for its whole duration; every ball stays inside every step.
/// Returns (total energy at the start, at the end).
fn run_inside(name: &str, steps: Option<u64>) -> (f64, f64) {
    let s = scene::load(&format!("scenes/{name}.toml")).unwrap();
    let m = s.model.clone();
    let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), m.solver.clone());
    let e0: f64 = ball_energies(&m, &m.x0, &m.v0).iter().sum();
    let steps = steps.or(s.default_steps).unwrap();
    for step in 1..=steps {
        sim.step()
            .unwrap_or_else(|e| panic!("{name} step {step}: {e}"));
        let x = sim.backend().positions();
        for (i, p) in x.chunks(m.dim).enumerate() {
            for w in &m.implicit_walls {
                // W here already has the ball radius subtracted: the ball's surface is inside
                assert!(
                    w.distance(p) > 0.0,
                    "{name} step {step}: ball {i} at {p:?} left {}",
                    w.label
                );
            }
        }
    }
    let (x, v) = (sim.backend().positions(), sim.backend().velocities());
    (e0, ball_energies(&m, &x, &v).iter().sum())
}

#[test]
fn seed_containers_hold_their_balls_for_40_seconds_with_ipc() {
    for name in ["circle_balls", "diamond_balls", "sextic_balls"] {
        let (e0, e1) = run_inside(name, None);
        // heights measured from y = −15 m, the bottom of every container
        let base = 5.0 * 9.8 * 15.0;
        eprintln!(
            "{name}: IPC mechanical energy {:.3} J -> {:.3} J after 40 s ({:.1} % lost)",
            e0 + base,
            e1 + base,
            100.0 * (e0 - e1) / (e0 + base)
        );
        assert!(
            e1 <= e0 + 1e-6,
            "{name}: IPC with implicit Euler gained energy"
        );
    }
    // the circle's geometry, checked without the distance measure
    let s = scene::load("scenes/circle_balls.toml").unwrap();
    let m = s.model.clone();
    let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), m.solver.clone());
    for _ in 0..5000 {
        sim.step().unwrap();
        for p in sim.backend().positions().chunks(2) {
            assert!((p[0] * p[0] + p[1] * p[1]).sqrt() < 15.0 - 0.3);
        }
    }
}

/// A ball shot straight at the diamond's bottom corner (a non-differentiable point of
/// `15 − |x| − |y|`, written as a user expression so the corner stays a kink).
#[test]
fn ball_shot_into_the_diamond_corner_stays_inside() {
    for (wall, label) in [
        ("type = \"implicit\"\nexpression = \"(15 - abs(x) - abs(y)) / sqrt(2)\"\ninside = \"positive\"", "expression"),
        ("type = \"implicit\"\nshape = \"diamond\"\nradius = 15.0", "shape"),
    ] {
        let s = common::scene(&format!(
            r#"
dimension = 2
[solver]
dt = 1e-3
tolerance = 1e-3
gravity = [0.0, -9.8]
[contact]
dhat = 0.01
kappa = 1e4
barrier = "ipc"
[[walls]]
{wall}
[[bodies]]
generator = "particle"
mass = 1.0
radius = 0.3
center = [0.0, -10.0]
velocity = [0.0, -30.0]
"#
        ));
        let m = s.model.clone();
        let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), m.solver.clone());
        let mut lowest = 0.0f64;
        for step in 1..=1500 {
            sim.step().unwrap_or_else(|e| panic!("{label} step {step}: {e}"));
            let p = sim.backend().positions();
            lowest = lowest.min(p[1]);
            assert!(p[0].abs() + p[1].abs() < 15.0 - 0.3 * 2f64.sqrt(), "{label} step {step}: {p:?}");
        }
        // it reached the corner region: the vertex of the ball-centre diamond is at y = −14.58
        assert!(lowest < -14.0, "{label}: lowest {lowest}");
    }
}

#[test]
fn impulse_model_keeps_each_balls_energy_within_the_bound() {
    for name in [
        "circle_balls_impulse",
        "diamond_balls_impulse",
        "sextic_balls_impulse",
    ] {
        let s = scene::load(&format!("scenes/{name}.toml")).unwrap();
        let m = s.model.clone();
        let mut sys = springsim::run::nonsmooth::system(&s).unwrap();
        let e0 = ball_energies(&m, &sys.u, &sys.v);
        let mut worst: f64 = 0.0;
        let mut deepest: f64 = 0.0;
        for _ in 0..s.default_steps.unwrap() {
            sys.step();
            let e = ball_energies(&m, &sys.u, &sys.v);
            for (a, b) in e.iter().zip(&e0) {
                worst = worst.max((a - b).abs() / b.abs().max(1.0));
            }
            for p in sys.u.chunks(2) {
                for w in &m.implicit_walls {
                    deepest = deepest.min(w.distance(p));
                }
            }
        }
        eprintln!("{name}: largest relative change of a ball's energy {worst:.3e}, deepest surface overlap {:.3e} m", -deepest);
        assert!(worst < 1e-9, "{name}: energy changed by {worst}");
        assert!(deepest > -1e-3, "{name}: overlap {deepest}");
    }
}

#[test]
fn bad_implicit_wall_keys_name_the_field() {
    let base = |wall: &str| {
        format!(
            r#"
dimension = 2
[solver]
dt = 0.01
[contact]
dhat = 0.01
kappa = 1e3
[[walls]]
type = "implicit"
{wall}
[[bodies]]
generator = "particle"
mass = 1.0
"#
        )
    };
    for (wall, field, reason) in [
        (
            "shape = \"blob\"\nradius = 1.0",
            "walls[0].shape",
            "unknown shape",
        ),
        (
            "shape = \"sphere\"\nradius = 1.0",
            "walls[0].shape",
            "3D shape",
        ),
        ("shape = \"circle\"", "walls[0]", "missing field `radius`"),
        (
            "shape = \"circle\"\nradius = -1.0",
            "walls[0].radius",
            "positive",
        ),
        (
            "shape = \"box\"\nhalf_extents = [1.0]",
            "walls[0].half_extents",
            "2 components",
        ),
        (
            "shape = \"superellipse\"\nsemi_axes = [1.0, 1.0]\nexponent = 0.5",
            "walls[0].exponent",
            "≥ 1",
        ),
        (
            "expression = \"1 - x^2\"\ninside = \"up\"",
            "walls[0].inside",
            "positive",
        ),
        (
            "shape = \"circle\"\nradius = 2.0\nexpression = \"1\"",
            "walls[0].expression",
            "not both",
        ),
        (
            "shape = \"circle\"\nradius = 2.0\nnormal = [0.0, 1.0]",
            "walls[0].normal",
            "not a point and normal",
        ),
        ("", "walls[0]", "missing field `shape` or `expression`"),
        // keys that were silently ignored
        (
            "expression = \"1 - x^2\"\ninside = \"positive\"\ncenter = [0.5, 0.0]",
            "walls[0].center",
            "an expression wall takes only expression and inside",
        ),
        (
            "shape = \"circle\"\nradius = 2.0\nexponent = 3.0",
            "walls[0].exponent",
            "shape = \"circle\" takes only center and radius",
        ),
        (
            "shape = \"box\"\nhalf_extents = [1.0, 1.0]\nradius = 3.0",
            "walls[0].radius",
            "takes only center and half_extents",
        ),
    ] {
        let e = scene::parse(&base(wall), "w.toml", "w")
            .unwrap_err()
            .to_string();
        assert!(e.contains(field) && e.contains(reason), "{wall}: {e}");
    }
    let plane = base("").replace(
        "type = \"implicit\"",
        "type = \"plane\"\nshape = \"circle\"",
    );
    let e = scene::parse(&plane, "w.toml", "w").unwrap_err().to_string();
    assert!(e.contains("walls[0].shape"), "{e}");
}

/// One particle (1 kg, no radius) at `center` inside `wall`, with `dhat` and gravity.
fn one_particle(dim: usize, wall: &str, center: &str) -> String {
    let g = if dim == 2 {
        "[0.0, -9.81]"
    } else {
        "[0.0, -9.81, 0.0]"
    };
    format!(
        r#"
dimension = {dim}
[solver]
dt = 0.01
gravity = {g}
[contact]
dhat = 0.01
kappa = 1e3
[[walls]]
type = "implicit"
{wall}
[[bodies]]
generator = "particle"
mass = 1.0
center = {center}
"#
    )
}

/// Defect: a node exactly at the centre of a circle or sphere froze (the interval of
/// `√(x² + y²)` over a box at the origin was the whole line, so the CCD bound was 0).
#[test]
fn particle_at_the_centre_of_a_circle_or_sphere_falls() {
    for (dim, wall, center) in [
        (2, "shape = \"circle\"\nradius = 3.0", "[0.0, 0.0]"),
        (3, "shape = \"sphere\"\nradius = 3.0", "[0.0, 0.0, 0.0]"),
        (
            2,
            "expression = \"3 - sqrt(x^2 + y^2)\"\ninside = \"positive\"",
            "[0.0, 0.0]",
        ),
    ] {
        let s = common::scene(&one_particle(dim, wall, center));
        let m = s.model.clone();
        let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), m.solver.clone());
        for step in 1..=20 {
            let rec = sim
                .step()
                .unwrap_or_else(|e| panic!("{wall} step {step}: {e}"));
            assert!(rec.converged, "{wall} step {step}: not converged");
        }
        let x = sim.backend().positions();
        assert!(x.iter().all(|c| c.is_finite()), "{wall}: {x:?}");
        // implicit Euler: y₂₀ = −g h² (1 + 2 + … + 20) = −0.206 m
        assert!((x[1] + 0.20601).abs() < 1e-6, "{wall}: y = {}", x[1]);
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

/// A V-shaped floor `y + 2 + 0.1 √(x²)` whose kink is under the particle: contact
/// happens exactly where the derivative of `√` is taken at 0.
pub const VALLEY: &str = "expression = \"y + 2 + 0.1 * sqrt(x^2)\"\ninside = \"positive\"";

#[test]
fn particle_rests_in_a_valley_at_a_sqrt_kink() {
    let s = common::scene(&one_particle(2, VALLEY, "[0.0, -1.9]"));
    let m = s.model.clone();
    let mut sim = Simulation::new(Box::new(CpuBackend::new(m.clone())), m.solver.clone());
    for step in 1..=100 {
        sim.step().unwrap_or_else(|e| panic!("step {step}: {e}"));
    }
    let x = sim.backend().positions();
    assert_eq!(x[0], 0.0);
    assert!(x[1] > -2.0 && x[1] < -1.99, "{x:?}");
}

fn wall_error(wall: &str, center: &str) -> String {
    let e = scene::parse(&one_particle(2, wall, center), "w.toml", "w")
        .unwrap_err()
        .to_string();
    assert_eq!(e.lines().count(), 1, "{e}");
    e
}

/// Defect: walls that are −∞, +∞ or undefined at a node were accepted (and froze the
/// run) or refused with "move the body inside the wall".
#[test]
fn non_finite_walls_are_refused_at_their_field_with_the_reason() {
    let expr = |e: &str| format!("expression = \"{e}\"\ninside = \"positive\"");
    for (wall, center, want) in [
        (
            expr("ln(0) + 5"),
            "[1.0, 2.0]",
            "is −inf at node 0 of bodies[0] (x = (1, 2)): a division by zero or ln(0)?",
        ),
        (expr("5 - 1/(x*0)"), "[1.5, 0.0]", "is −inf at node 0"),
        (expr("1/(x*0)"), "[0.0, 0.0]", "is +inf at node 0"),
        (
            expr("sqrt(-1 - y) + 3"),
            "[0.0, 0.0]",
            "is undefined (NaN) at node 0 of bodies[0] (x = (0, 0)): ln or sqrt",
        ),
        (
            expr("9 - x^2 - y^2 + x/0"),
            "[0.0, 0.5]",
            "is undefined (NaN)",
        ),
    ] {
        let e = wall_error(&wall, center);
        assert!(
            e.contains("w.toml:11: field `walls[0].expression`: the expression"),
            "{e}"
        );
        assert!(e.contains(want), "{wall}: {e}");
        assert!(!e.contains("move the body"), "{e}");
    }
    // a shape whose sizes overflow f64 away from its centre
    let e = wall_error(
        "shape = \"ellipse\"\nsemi_axes = [1e-300, 1.0]",
        "[1e-3, 0.0]",
    );
    assert!(
        e.contains("field `walls[0]`: the shape is −inf at node 0"),
        "{e}"
    );
    // finite and negative: still the body's placement
    let e = wall_error(&expr("1 - x"), "[2.0, 0.0]");
    assert!(
        e.contains("field `bodies[0].center`")
            && e.contains("W = -1 m")
            && e.contains("move the body inside the wall"),
        "{e}"
    );
}

/// Expressions exactly [`MAX_DEPTH`] levels deep, of every way of nesting: functions,
/// signs, parentheses, a long sum (n + 1 terms are n levels), `min` and powers.
pub fn deepest_expressions() -> Vec<(&'static str, String)> {
    use springsim::implicit::expr::MAX_DEPTH;
    let n = MAX_DEPTH;
    let wrap = |inner: &str, f: &dyn Fn(String) -> String, times: usize| {
        (0..times).fold(inner.to_string(), |e, _| f(e))
    };
    vec![
        ("sin", wrap("x", &|e| format!("sin({e})"), n)),
        ("signs", format!("{}x", "-".repeat(n))),
        ("parentheses", wrap("x", &|e| format!("({e} + 1)"), n)),
        ("sum", format!("x{}", " + y".repeat(n))),
        ("min", wrap("1 - x", &|e| format!("min({e}, 2 - y)"), n - 1)),
        ("powers", wrap("x", &|e| format!("(0.5 * {e})^2"), n / 2)),
        (
            "mixed",
            wrap("x", &|e| format!("sqrt(1 + abs({e}))"), n / 3),
        ),
    ]
}

/// Defect: 10 000 nested parentheses or 20 000 nested `sin` overflowed the stack
/// (abort). Now anything deeper than MAX_DEPTH is a parse error naming the limit, and
/// every walk over the deepest accepted expressions (parse, value, derivatives,
/// intervals, WGSL, clone, compare, drop, a whole scene) runs on a 2 MiB thread.
#[test]
fn deep_expressions_are_refused_and_the_deepest_accepted_fit_a_small_stack() {
    use springsim::implicit::expr::MAX_DEPTH;
    let limit = format!("nested deeper than {MAX_DEPTH} levels");
    let run = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            for (what, src) in [
                ("parentheses", format!("{}x{}", "(".repeat(10_000), ")".repeat(10_000))),
                ("sin", format!("{}x{}", "sin(".repeat(20_000), ")".repeat(20_000))),
                ("signs", format!("{}x", "-".repeat(100_000))),
                ("exponents", format!("x{}", "^-1".repeat(10_000))),
                ("sum", format!("x{}", " + x".repeat(100_000))),
                ("product", format!("x{}", " * x / y".repeat(50_000))),
                ("one over", deepest_expressions()[0].1.replacen("sin(", "sin(sin(", 1) + ")"),
                ("sum one over", format!("x{}", " + y".repeat(MAX_DEPTH + 1))),
            ] {
                let e = parse(&src, 2).unwrap_err();
                assert!(e.reason.contains(&limit), "{what}: {e}");
            }
            for (what, src) in deepest_expressions() {
                let e = parse(&src, 2).unwrap_or_else(|e| panic!("{what}: {e}"));
                let x = [0.25, 0.5];
                let v = eval(&e, &x);
                let d = eval_dual(&e, &x);
                assert!(v.is_finite() && d.v == v, "{what}: {v} {}", d.v);
                let r = eval_interval(&e, &[0.2, 0.4], &[0.3, 0.6]);
                assert!(r.lo <= v && v <= r.hi, "{what}");
                let w = ImplicitWall { expr: e.clone(), label: what.into() };
                assert!(springsim::implicit::wgsl::generate(&[w]).len() > 1000);
                assert_eq!(e.clone(), e);
                // a whole scene: the inside sign and the particle radius add levels
                let text = format!(
                    "dimension = 2\n[solver]\ndt = 0.01\n[contact]\ndhat = 1e-9\nkappa = 1.0\n[[walls]]\ntype = \"implicit\"\nexpression = \"{src}\"\ninside = \"negative\"\n[[bodies]]\ngenerator = \"particle\"\nmass = 1.0\nradius = 1e-12\ncenter = [0.25, 0.5]\n"
                );
                // accepted or refused for the particle's placement, never a crash
                let _ = scene::parse(&text, "deep.toml", "deep");
            }
        })
        .unwrap();
    run.join()
        .expect("deep expressions overflowed a 2 MiB stack");
}

/// Every deep-expression error in a scene is one line naming the field.
#[test]
fn too_deep_expression_in_a_scene_names_the_field() {
    let src = format!("{}x{}", "(".repeat(10_000), ")".repeat(10_000));
    let e = wall_error(
        &format!("expression = \"{src}\"\ninside = \"positive\""),
        "[0.0, 0.0]",
    );
    assert!(e.contains("field `walls[0].expression`: at character 201: the expression is nested deeper than 200 levels"), "{}", &e[..300]);
}
