//! Property tests (bounded fuzzing) of the two parsers a user's text reaches: the
//! implicit-wall expression parser and the scene parser. Random and grammar-shaped
//! expressions never panic, and every accepted one evaluates (value, derivatives,
//! intervals, WGSL) without a panic; mutated bundled scenes (lines deleted,
//! duplicated, swapped between scenes, values and keys replaced by extreme ones)
//! never panic, and every error is one line. Fixed case counts (512 per expression property, 1024 scenes) keep each property
//! well under a minute in the test profile; proptest shrinks and prints any failing
//! input.

use proptest::prelude::*;
use proptest::test_runner::Config;
use springsim::implicit::dual::eval_dual;
use springsim::implicit::expr::eval;
use springsim::implicit::expr::parse;
use springsim::implicit::interval::eval_interval;
use springsim::implicit::ImplicitWall;
use springsim::scene;

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

/// Parses `src` in 2D and 3D; an accepted expression is evaluated at a point, over a
/// box and turned into WGSL, none of which may panic.
fn check_expression(src: &str, x: [f64; 3]) {
    for dim in [2, 3] {
        match parse(src, dim) {
            Ok(e) => {
                let _ = eval(&e, &x[..dim]);
                let _ = eval_dual(&e, &x[..dim]);
                let lo: Vec<f64> = x[..dim].iter().map(|c| c - 0.5).collect();
                let hi: Vec<f64> = x[..dim].iter().map(|c| c + 0.5).collect();
                let r = eval_interval(&e, &lo, &hi);
                assert!(
                    r.lo.partial_cmp(&r.hi) != Some(std::cmp::Ordering::Greater),
                    "{src}: empty interval [{}, {}]",
                    r.lo,
                    r.hi
                );
                let w = ImplicitWall {
                    expr: e,
                    label: src.into(),
                    frame: None,
                };
                let _ = springsim::implicit::wgsl::generate(&[w]);
            }
            Err(e) => {
                assert!(
                    e.position <= src.chars().count(),
                    "{src}: error position {} past the end",
                    e.position
                );
                assert!(!e.reason.contains('\n'), "{src}: multi-line error {e}");
            }
        }
    }
}

/// Pieces an expression is made of, including the awkward ones.
const TOKENS: &[&str] = &[
    "x", "y", "z", "pi", "w", "0", "1", "2.5", "1e308", "1e-320", "1e999", ".", "1.2.3", "1e", "-",
    "+", "*", "/", "^", "^-", "(", ")", ",", " ", "sin(", "cos(", "ln(", "exp(", "sqrt(", "abs(",
    "min(", "max(", "foo(", "_", "é", "\u{0}", "∞",
];

/// A random syntactically valid expression of bounded depth.
fn grammar() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("x".to_string()),
        Just("y".to_string()),
        Just("z".to_string()),
        Just("pi".to_string()),
        (-1e3f64..1e3).prop_map(|v| format!("{v}")),
        prop_oneof![Just("0"), Just("1e308"), Just("1e-320"), Just("0.0")].prop_map(String::from),
    ];
    leaf.prop_recursive(8, 64, 2, |inner| {
        prop_oneof![
            (
                inner.clone(),
                inner.clone(),
                prop_oneof![Just('+'), Just('-'), Just('*'), Just('/')]
            )
                .prop_map(|(a, b, op)| format!("{a} {op} {b}")),
            (inner.clone(), -70i32..70).prop_map(|(a, n)| format!("({a})^{n}")),
            (inner.clone(), -3.0f64..3.0).prop_map(|(a, c)| format!("abs({a})^{c}")),
            (
                inner.clone(),
                prop_oneof![
                    Just("sin"),
                    Just("cos"),
                    Just("ln"),
                    Just("exp"),
                    Just("sqrt"),
                    Just("abs")
                ]
            )
                .prop_map(|(a, f)| format!("{f}({a})")),
            (
                inner.clone(),
                inner.clone(),
                prop_oneof![Just("min"), Just("max")]
            )
                .prop_map(|(a, b, f)| format!("{f}({a}, {b})")),
            inner.clone().prop_map(|a| format!("-({a})")),
            inner.prop_map(|a| format!("({a})")),
        ]
    })
}

fn point() -> impl Strategy<Value = [f64; 3]> {
    prop_oneof![
        Just([0.0; 3]),
        [-10.0f64..10.0, -10.0f64..10.0, -10.0f64..10.0],
        Just([1e308, -1e308, 0.0]),
    ]
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn random_text_never_crashes_the_expression_parser(s in "\\PC{0,80}", x in point()) {
        check_expression(&s, x);
    }

    #[test]
    fn random_bytes_never_crash_the_expression_parser(
        b in proptest::collection::vec(any::<u8>(), 0..80),
        x in point(),
    ) {
        check_expression(&String::from_utf8_lossy(&b), x);
    }

    #[test]
    fn token_soup_never_crashes_the_expression_parser(
        t in proptest::collection::vec(0..TOKENS.len(), 0..60),
        x in point(),
    ) {
        let s: String = t.iter().map(|&i| TOKENS[i]).collect();
        check_expression(&s, x);
    }

    #[test]
    fn grammatical_expressions_parse_and_evaluate(s in grammar(), x in point()) {
        check_expression(&s, x);
        prop_assert!(parse(&s, 3).is_ok(), "valid expression refused: {}", s);
    }

    #[test]
    fn deep_token_soup_never_overflows(open in 0usize..3000, which in 0usize..4) {
        let op = ["(", "sin(", "-", "min(x, "][which];
        let close = if which == 2 { "" } else { ")" };
        let s = format!("{}x{}", op.repeat(open), close.repeat(open));
        check_expression(&s, [0.5; 3]);
    }
}

/// Values a mutation writes, the extreme and the wrong-typed among them.
fn values() -> Vec<String> {
    let mut v: Vec<String> = [
        "0",
        "-1",
        "1",
        "0.5",
        "1e308",
        "-1e308",
        "1e-320",
        "nan",
        "inf",
        "-inf",
        "-0.0",
        "\"\"",
        "\"x\"",
        "true",
        "[]",
        "{}",
        "[0.0]",
        "[1.0, 2.0]",
        "[1.0, 2.0, 3.0]",
        "[nan, 0.0]",
        "[1e308, 1e308]",
        "[inf, -inf, 0.0]",
        "[[1.0]]",
        "\"implicit\"",
        "\"plane\"",
        "\"circle\"",
        "\"sphere\"",
        "\"box\"",
        "\"sextic\"",
        "\"superellipse\"",
        "\"grid\"",
        "\"particle\"",
        "\"lattice\"",
        "\"cloth\"",
        "\"nonsmooth\"",
        "\"ipc\"",
        "\"negative\"",
        "\"ln(0) + x\"",
        "\"1/(x*0)\"",
        "\"sqrt(x^2 + y^2) - 3\"",
        "\"9 - x^2 - y^2\"",
        "\"../../etc\"",
        "\"/tmp/x\"",
        "\"a\nb\"",
        "2.0e-3",
        "18446744073709551615",
        "-9223372036854775808",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(format!("\"{}\"", "x".repeat(100_000)));
    v.push(format!("\"{}x{}\"", "(".repeat(5000), ")".repeat(5000)));
    v.push(format!("\"x{}\"", " + y".repeat(1000)));
    v
}

/// Small values for the keys that size a body (`cells`, `count`): huge ones are the
/// memory check's business, not a parser fuzz's.
const SMALL: &[&str] = &[
    "0",
    "1",
    "-1",
    "3",
    "1.5",
    "[]",
    "[0, 0]",
    "[1, 2]",
    "[2, 2, 2]",
    "[-1, 2]",
    "[3]",
    "\"a\"",
    "[1.0, 2.0]",
];

fn key_of(line: &str) -> Option<&str> {
    let (k, _) = line.split_once('=')?;
    let k = k.trim();
    (!k.is_empty() && !k.starts_with('#') && !k.starts_with('[')).then_some(k)
}

/// Values of the same type as `old` (a number, an array, a string), extreme ones
/// first, so that most mutated scenes get past the TOML types into the validation.
fn typed(old: &str, b: usize) -> String {
    let old = old.trim();
    let pick = |pool: &[&str]| pool[b % pool.len()].to_string();
    if old.starts_with('[') {
        let n = old.matches(',').count() + 1;
        let c = [
            "0.0", "-1.0", "1e308", "-1e308", "nan", "inf", "-inf", "1e-320", "2.5", "-0.0",
        ];
        let items: Vec<&str> = (0..n).map(|k| c[(b / (k + 1) + k) % c.len()]).collect();
        format!("[{}]", items.join(", "))
    } else if old.starts_with('"') {
        let strings = [
            "\"\"",
            "\"x\"",
            "\"ln(0) + x\"",
            "\"1/(x*0)\"",
            "\"3 - sqrt(x^2 + y^2)\"",
            "\"9 - x^2 - y^2\"",
            "\"positive\"",
            "\"negative\"",
            "\"circle\"",
            "\"box\"",
            "\"sextic\"",
            "\"superellipse\"",
            "\"ipc\"",
            "\"book\"",
            "\"newmark\"",
            "\"direct\"",
            "\"../../etc\"",
        ];
        pick(&strings)
    } else if old == "true" || old == "false" {
        pick(&["true", "false"])
    } else if old.contains('.') || old.contains('e') {
        pick(&[
            "0.0", "-1.0", "1e308", "-1e308", "nan", "inf", "-inf", "1e-320", "1e-300", "0.5",
            "3.0", "1e9",
        ])
    } else {
        pick(&[
            "0",
            "1",
            "2",
            "3",
            "-1",
            "4294967296",
            "18446744073709551615",
        ])
    }
}

/// Applies mutation `(kind, a, b)` to the lines of a scene.
fn mutate(lines: &mut Vec<String>, (kind, a, b): (u8, usize, usize), donors: &[Vec<String>]) {
    if lines.is_empty() {
        return;
    }
    let i = a % lines.len();
    let sizing = |k: &str| k == "cells" || k == "count";
    match kind % 10 {
        0..=5 => {
            // a value replaced: mostly by one of the same type, sometimes by anything
            if let Some((k, old)) = lines[i].split_once('=') {
                let k = k.trim().to_string();
                if key_of(&lines[i]).is_some() {
                    let v = if sizing(&k) {
                        SMALL[b % SMALL.len()].to_string()
                    } else if kind % 10 < 5 {
                        typed(old, b)
                    } else {
                        let pool = values();
                        pool[b % pool.len()].clone()
                    };
                    lines[i] = format!("{k} = {v}");
                }
            }
        }
        6 => {
            lines.remove(i);
        }
        7 => {
            let l = lines[i].clone();
            lines.insert(b % lines.len(), l);
        }
        8 => {
            // a key renamed (never to a key that sizes a body)
            let keys: Vec<&str> = donors
                .iter()
                .flatten()
                .filter_map(|l| key_of(l))
                .filter(|k| !sizing(k))
                .collect();
            if key_of(&lines[i]).is_some_and(|k| !sizing(k)) {
                if let Some((_, v)) = lines[i].split_once('=') {
                    lines[i] = format!("{} ={v}", keys[b % keys.len()]);
                }
            }
        }
        _ => {
            // a line of another scene, or a section header, inserted
            let d = &donors[b % donors.len()];
            let headers = [
                "[solver]",
                "[contact]",
                "[run]",
                "[[walls]]",
                "[[bodies]]",
                "[x]",
            ];
            let l = if b % 3 == 0 || d.is_empty() {
                headers[(b / 3) % headers.len()].to_string()
            } else {
                d[(a / 7) % d.len()].clone()
            };
            if key_of(&l).is_none_or(|k| !sizing(k)) {
                lines.insert(i, l);
            }
        }
    }
}

proptest! {
    #![proptest_config(config(1024))]

    #[test]
    fn mutated_bundled_scenes_never_crash_and_errors_are_one_line(
        which in 0usize..64,
        muts in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..5),
    ) {
        let donors: Vec<Vec<String>> = scene::BUNDLED
            .iter()
            .map(|(_, t)| t.lines().map(String::from).collect())
            .collect();
        let (name, _) = scene::BUNDLED[which % scene::BUNDLED.len()];
        let mut lines = donors[which % donors.len()].clone();
        for m in &muts {
            mutate(&mut lines, (m.0, m.1, m.2), &donors);
        }
        let text = lines.join("\n");
        if let Err(e) = scene::parse(&text, "fuzz.toml", name) {
            let msg = e.to_string();
            prop_assert!(msg.lines().count() == 1, "multi-line error:\n{}\nfrom:\n{}", msg, text);
            prop_assert!(msg.starts_with("fuzz.toml"), "{}", msg);
        }
    }
}

/// The fuzz starts from the bundled scenes, which all load as they are.
#[test]
fn every_bundled_scene_parses_unmutated() {
    for (name, text) in scene::BUNDLED {
        scene::parse(text, name, name).unwrap_or_else(|e| panic!("{e}"));
    }
}
