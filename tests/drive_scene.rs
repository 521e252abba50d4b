//! The scene keys of driven nodes (`[[bodies.drive]]`): what they build, and one
//! error line (file, line, field, reason) for each bad value.

mod common;

use common::bad_scene::{expect, GOOD};
use common::scene;
use springsim::script::Motion;

/// GOOD with `drive` (lines of one `[[bodies.drive]]` of its grid) appended, and the
/// line number of its `[[bodies.drive]]` header (its first key is on the next).
fn with_drive(drive: &str) -> (String, usize) {
    let text = format!("{GOOD}[[bodies.drive]]\n{drive}\n");
    (text, GOOD.lines().count() + 1)
}

#[test]
fn a_drive_selects_its_nodes_fixes_them_and_keeps_their_motion() {
    let (text, _) = with_drive("name = \"top\"\nwhere = \"y > 0.4\"\nvelocity = [0.0, -1.0]\nangular_velocity = 2.0\nstop = 1.0");
    let m = scene(&text).model;
    let d = &m.drives[0];
    assert_eq!(d.name, "top");
    // The 5 × 5 grid's top row: y = 0.5 at nodes 4, 9, …, 24.
    assert_eq!(d.nodes, vec![4, 9, 14, 19, 24]);
    assert!(d.nodes.iter().all(|&i| m.fixed[i as usize]));
    assert!((d.center[1] - 0.5).abs() < 1e-12 && d.center[0].abs() < 1e-12);
    let Motion::Rigid {
        velocity,
        omega,
        start,
        stop,
    } = &d.motion
    else {
        panic!("{:?}", d.motion)
    };
    assert_eq!(
        (velocity[1], omega[2], *start, *stop),
        (-1.0, 2.0, 0.0, 1.0)
    );
    // By default a drive takes the whole body, named after it.
    let (text, _) =
        with_drive("keyframes = [{ time = 0.5, translate = [0.0, 1.0], rotate = 90.0 }]");
    let m = scene(&text).model;
    assert_eq!(
        (m.drives[0].nodes.len(), m.drives[0].name.as_str()),
        (25, "body0.drive0")
    );
    let Motion::Keyframes { frames, .. } = &m.drives[0].motion else {
        panic!()
    };
    assert!((frames[0].angle - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
}

#[test]
fn bad_drive_keys_are_refused_with_their_field_and_line() {
    let cases: &[(&str, &str, usize, &str)] = &[
        (
            "velocity = [1.0]",
            "bodies[0].drive[0].velocity",
            1,
            "must have 2 components",
        ),
        (
            "where = \"y > 9\"\nvelocity = [1.0, 0.0]",
            "bodies[0].drive[0].where",
            1,
            "holds at none",
        ),
        (
            "nodes = [3, 99]\nvelocity = [1.0, 0.0]",
            "bodies[0].drive[0].nodes[1]",
            1,
            "out of range",
        ),
        (
            "where = \"y > 0\"\nnodes = [3]\nvelocity = [1.0, 0.0]",
            "bodies[0].drive[0].nodes",
            2,
            "not both",
        ),
        ("name = \"d\"", "bodies[0].drive[0]", 0, "needs a motion"),
        (
            "angular_velocity = [1.0, 2.0]",
            "bodies[0].drive[0].angular_velocity",
            1,
            "one number in 2D",
        ),
        (
            "velocity = [1.0, 0.0]\nstart = -1.0",
            "bodies[0].drive[0].start",
            2,
            "≥ 0",
        ),
        (
            "velocity = [1.0, 0.0]\nstart = 2.0\nstop = 1.0",
            "bodies[0].drive[0].stop",
            3,
            "after start",
        ),
        (
            "velocity = [1.0, 0.0]\nkeyframes = [{ time = 1.0 }]",
            "bodies[0].drive[0].velocity",
            1,
            "not both",
        ),
        (
            "keyframes = [{ time = 1.0 }, { time = 0.5 }]",
            "bodies[0].drive[0].keyframes[1].time",
            1,
            "after the previous keyframe's 1 s",
        ),
        (
            "keyframes = []",
            "bodies[0].drive[0].keyframes",
            1,
            "at least one",
        ),
        (
            "keyframes = [{ time = 1.0 }]\naxis = [0.0, 0.0, 1.0]",
            "bodies[0].drive[0].axis",
            2,
            "about z",
        ),
        (
            "speed = 1.0",
            "bodies[0].drive[0].speed",
            1,
            "unknown field",
        ),
    ];
    for (drive, field, offset, reason) in cases {
        let (text, line) = with_drive(drive);
        expect(&text, field, line + offset, reason);
    }
}

#[test]
fn two_drives_of_one_node_and_drives_under_the_nonsmooth_model_are_refused() {
    let text = format!("{GOOD}[[bodies.drive]]\nvelocity = [1.0, 0.0]\n[[bodies.drive]]\nwhere = \"x > 0.4\"\nvelocity = [0.0, 1.0]\n");
    let line = GOOD.lines().count() + 3;
    expect(
        &text,
        "bodies[0].drive[1]",
        line,
        "driven by body0.drive0 already",
    );
    let nonsmooth =
        "dimension = 2\n[solver]\ndt = 0.01\n[contact]\nmodel = \"nonsmooth\"\nrestitution = 0.5\n\
                     [[walls]]\ntype = \"plane\"\npoint = [0.0, 0.0]\nnormal = [0.0, 1.0]\n\
                     [[bodies]]\ngenerator = \"particle\"\nmass = 1.0\ncenter = [0.0, 1.0]\n\
                     [[bodies.drive]]\nvelocity = [1.0, 0.0]\n";
    expect(nonsmooth, "bodies[0].drive[0]", 15, "barrier contact model");
}

#[test]
fn a_batch_runs_a_variant_with_driven_nodes_alone_and_says_why() {
    let plain = scene(GOOD).model;
    assert_eq!(springsim::ensemble::device::unsupported(&plain), None);
    let (text, _) = with_drive("velocity = [1.0, 0.0]");
    let why = springsim::ensemble::device::unsupported(&scene(&text).model).expect("refused");
    assert!(
        why.contains("driven nodes and moving walls") && !why.contains('\n'),
        "{why}"
    );
}

#[test]
fn a_plane_wall_takes_a_translation_and_nothing_else() {
    let wall = "[walls.drive]\nvelocity = [0.5, 0.0]\n";
    let text = GOOD.replace(
        "normal = [0.0, 1.0]\n",
        &format!("normal = [0.0, 1.0]\n{wall}"),
    );
    let m = scene(&text).model;
    assert_eq!(m.moving_walls.len(), 1);
    assert_eq!(
        m.moving_walls[0].parts,
        springsim::script::WallParts::Plane(0)
    );
    assert_eq!(m.moving_walls[0].origin_at(2.0).unwrap(), vec![1.0, -1.0]);
    // The drive's header is on GOOD's line 11 (after `normal`), its keys follow.
    let cases: &[(&str, &str, usize, &str)] = &[
        (
            "angular_velocity = 1.0",
            "walls[0].drive.angular_velocity",
            12,
            "its normal stays",
        ),
        (
            "where = \"x > 0\"\nvelocity = [1.0, 0.0]",
            "walls[0].drive.where",
            12,
            "for the drives of bodies",
        ),
        (
            "keyframes = [{ time = 1.0, rotate = 10.0 }]",
            "walls[0].drive.keyframes[0].rotate",
            12,
            "take no rotate",
        ),
        (
            "velocity = [1.0]",
            "walls[0].drive.velocity",
            12,
            "must have 2 components",
        ),
    ];
    let bouncy = GOOD.replace("kappa = 1e5\n", "kappa = 1e5\nrestitution = 0.5\n");
    let text = bouncy.replace(
        "normal = [0.0, 1.0]\n",
        &format!("normal = [0.0, 1.0]\n{wall}"),
    );
    expect(&text, "walls[0].drive", 12, "moving walls and restitution");
    for (keys, field, line, reason) in cases {
        let text = GOOD.replace(
            "normal = [0.0, 1.0]\n",
            &format!("normal = [0.0, 1.0]\n[walls.drive]\n{keys}\n"),
        );
        expect(&text, field, *line, reason);
    }
}
