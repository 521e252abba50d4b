//! Implicit walls (seed 004) in scenes and the expression parser: parse errors with
//! their positions, wrong wall keys and non-finite walls refused at their field, and
//! the nesting limit (the deepest accepted expressions fit a small stack).

mod common;
use common::implicit::{one_particle, particle_scene};
use springsim::implicit::dual::eval_dual;
use springsim::implicit::expr::eval;
use springsim::implicit::expr::parse;
use springsim::implicit::interval::eval_interval;
use springsim::implicit::ImplicitWall;
use springsim::scene;

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
    let text = &particle_scene(
        2,
        "",
        "expression = \"225 - (x^2 + y^^2)\"\ninside = \"positive\"",
        "",
    );
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
fn bad_implicit_wall_keys_name_the_field() {
    let base = |wall: &str| particle_scene(2, "", wall, "");
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
                let w = ImplicitWall { expr: e.clone(), label: what.into(), frame: None };
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
