//! The restitution law's scene keys: values, defaults and errors.

mod common;

use common::bad_scene::{expect, expect_each, GOOD};
use springsim::scene;

#[test]
fn a_wall_takes_its_own_e_and_the_rest_the_contact_one() {
    let text = GOOD
        .replace("kappa = 1e5", "kappa = 1e5\nrestitution = 0.5")
        .replace(
            "normal = [0.0, 1.0]",
            "normal = [0.0, 1.0]\nrestitution = 0.9",
        )
        + "[[walls]]\ntype = \"plane\"\npoint = [2.0, 0.0]\nnormal = [-1.0, 0.0]\n";
    let p = scene::parse(&text, "t.toml", "t")
        .unwrap()
        .model
        .restitution
        .unwrap();
    assert_eq!(p.walls, vec![Some(0.9), Some(0.5)]);
    assert_eq!(p.pairs, Some(0.5));
    assert_eq!(p.bodies, vec![None]);
    assert!(
        (p.min_speed - 2.0 * 9.81 * 0.01).abs() < 1e-12,
        "{}",
        p.min_speed
    );
    // A wall's e alone: the pairs keep IPC's own bounce.
    let text = GOOD.replace(
        "normal = [0.0, 1.0]",
        "normal = [0.0, 1.0]\nrestitution = 0.3",
    );
    let p = scene::parse(&text, "t.toml", "t")
        .unwrap()
        .model
        .restitution
        .unwrap();
    assert_eq!((p.walls, p.pairs), (vec![Some(0.3)], None));
    // A body's e alone.
    let text = GOOD.replace("density = 1000.0", "density = 1000.0\nrestitution = 0.7");
    let p = scene::parse(&text, "t.toml", "t")
        .unwrap()
        .model
        .restitution
        .unwrap();
    assert_eq!(
        (p.walls, p.pairs, p.bodies),
        (vec![None], None, vec![Some(0.7)])
    );
    // None at all: no law.
    assert!(scene::parse(GOOD, "t.toml", "t")
        .unwrap()
        .model
        .restitution
        .is_none());
}

#[test]
fn restitution_keys_are_checked() {
    expect_each(&[
        (
            "kappa = 1e5",
            "kappa = 1e5\nrestitution = 1.5",
            "contact.restitution",
            7,
            "between 0 and 1",
        ),
        (
            "normal = [0.0, 1.0]",
            "normal = [0.0, 1.0]\nrestitution = -0.1",
            "walls[0].restitution",
            11,
            "between 0 and 1",
        ),
        (
            "density = 1000.0",
            "density = 1000.0\nrestitution = 2",
            "bodies[0].restitution",
            16,
            "between 0 and 1",
        ),
        (
            "kappa = 1e5",
            "kappa = 1e5\nrestitution_min_speed = 0.1",
            "contact.restitution_min_speed",
            7,
            "needs a restitution",
        ),
        (
            "kappa = 1e5",
            "kappa = 1e5\nrestitution = 0.5\nrestitution_min_speed = -1.0",
            "contact.restitution_min_speed",
            8,
            "≥ 0",
        ),
    ]);
    let newmark = GOOD
        .replace("dt = 0.01", "dt = 0.01\nintegrator = \"newmark\"")
        .replace("kappa = 1e5", "kappa = 1e5\nrestitution = 0.5");
    expect(&newmark, "contact.restitution", 8, "implicit Euler");
}

#[test]
fn the_study_refuses_an_e_outside_zero_to_one() {
    let dir = common::temp_dir("restitution_bad_e");
    let out = dir.to_str().unwrap();
    for args in [
        vec![
            "restitution",
            "--integrator",
            "law",
            "--restitution",
            "2",
            "--out",
            out,
        ],
        vec![
            "restitution",
            "--integrator",
            "law",
            "--sweep",
            "e=0.5,3",
            "--out",
            out,
        ],
    ] {
        let run = common::springsim(&args);
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("restitution (e) must be between 0 and 1"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}
