//! Particle bodies: parsing and their errors, the radius, the contact-model keys, and
//! barrier runs of scenes without springs on the CPU backend.

mod common;

use springsim::backend::cpu::CpuBackend;
use springsim::scene::{self, SceneError};
use springsim::sim::Simulation;

const BALL: &str = r#"dimension = 2
[solver]
dt = 0.01
tolerance = 1e-4
[contact]
dhat = 0.01
kappa = 1e3
barrier = "ipc"
[[walls]]
type = "plane"
point = [0.0, 0.0]
normal = [0.0, 1.0]
[[bodies]]
generator = "particle"
mass = 2.0
radius = 0.1
center = [0.0, 0.5]
velocity = [1.0, 0.0]
"#;

fn err(text: &str) -> SceneError {
    match scene::parse(text, "bad.toml", "bad") {
        Ok(_) => panic!("scene should be rejected:\n{text}"),
        Err(e) => e,
    }
}

fn expect(text: &str, field: &str, reason_part: &str) {
    let e = err(text);
    assert_eq!(e.field.as_deref(), Some(field), "{e}");
    assert!(e.line.is_some(), "{e}");
    assert!(
        e.reason.contains(reason_part),
        "`{e}` lacks `{reason_part}`"
    );
}

/// A second body: a one-cell grid away from the ball and the walls.
const GRID_BODY: &str = "[[bodies]]\ngenerator = \"grid\"\nsize = [1.0, 1.0]\ncells = [1, 1]\ndensity = 1.0\nspring_stiffness = 1.0\ncenter = [3.0, 2.0]\n";

/// [`expect`] for each `(from, to, field, reason_part)`: `base` with `from` replaced
/// by `to`.
fn expect_each(base: &str, cases: &[(&str, &str, &str, &str)]) {
    for (from, to, field, reason_part) in cases {
        expect(&base.replace(from, to), field, reason_part);
    }
}

#[test]
fn a_particle_is_one_node_and_its_radius_moves_the_walls() {
    let s = common::scene(BALL);
    let m = &s.model;
    assert_eq!(m.num_nodes(), 1);
    assert!(m.springs.is_empty());
    assert_eq!(m.mass, vec![2.0]);
    assert_eq!(m.contact_area, vec![1.0]);
    assert_eq!(s.particle_radius, 0.1);
    assert!((m.walls[0].distance(&[0.0, 0.5]) - 0.4).abs() < 1e-15);
    assert!(s.nonsmooth.is_none());
}

#[test]
fn a_falling_ball_without_springs_stays_a_radius_above_the_ground() {
    let s = common::scene(BALL);
    let backend = Box::new(CpuBackend::new(s.model.clone()));
    let mut sim = Simulation::new(backend, &s.model);
    let mut lowest = f64::INFINITY;
    for _ in 0..150 {
        let r = sim.step().unwrap();
        assert!(r.min_wall_distance > 0.0);
        assert_eq!(r.elastic, 0.0);
        lowest = lowest.min(sim.backend().positions()[1]);
    }
    // It reached the ground (its surface within d̂) but its centre never got below r.
    assert!(
        lowest > 0.1 && lowest < 0.1 + 0.01,
        "lowest centre {lowest}"
    );
    // It keeps sliding along x (no friction).
    assert!(sim.backend().positions()[0] > 1.4);
}

#[test]
fn bundled_3d_balls_run_on_the_cpu() {
    let s = scene::load("balls_3d").unwrap();
    assert_eq!(s.model.dim, 3);
    let backend = Box::new(CpuBackend::new(s.model.clone()));
    let mut sim = Simulation::new(backend, &s.model);
    for _ in 0..s.default_steps.unwrap() {
        let r = sim.step().unwrap();
        assert!(r.min_wall_distance > 0.0);
    }
    let x = sim.backend().positions();
    for p in x.chunks(3) {
        assert!(p[1] > 0.1 && p[1] < 0.12, "resting height {}", p[1]);
        assert!(p[0] < 0.9, "behind the side wall: {}", p[0]);
    }
}

#[test]
fn particle_keys_are_checked() {
    expect_each(
        BALL,
        &[
            ("mass = 2.0\n", "", "bodies[0]", "missing field `mass`"),
            ("mass = 2.0", "mass = -2.0", "bodies[0].mass", "positive"),
            ("radius = 0.1", "radius = -0.1", "bodies[0].radius", "≥ 0"),
            (
                "mass = 2.0",
                "mass = 2.0\ndensity = 3.0",
                "bodies[0].density",
                "single nodes",
            ),
            (
                "center = [0.0, 0.5]",
                "center = [0.0, 0.105]",
                "bodies[0].center",
                "contact.dhat",
            ),
        ],
    );
    let two = format!(
        "{BALL}[[bodies]]\ngenerator = \"particle\"\nmass = 1.0\nradius = 0.2\ncenter = [1.0, 1.0]\n"
    );
    expect(&two, "bodies[1].radius", "same radius");
    let with_grid = format!("{BALL}{GRID_BODY}");
    expect(&with_grid, "bodies[0].radius", "meshes");
    let with_grid = with_grid.replace("radius = 0.1\n", "");
    assert!(scene::parse(&with_grid, "ok.toml", "ok").is_ok());
    expect_each(
        &with_grid,
        &[
            (
                "spring_stiffness = 1.0\n",
                "",
                "bodies[1]",
                "missing field `spring_stiffness`",
            ),
            (
                "density = 1.0",
                "density = 1.0\nmass = 3.0",
                "bodies[1].mass",
                "only particle bodies",
            ),
        ],
    );
}

#[test]
fn contact_model_keys_are_checked() {
    let ns = BALL.replace(
        "dhat = 0.01\nkappa = 1e3\nbarrier = \"ipc\"",
        "model = \"nonsmooth\"\nrestitution = 0.5",
    );
    let s = common::scene(&ns);
    assert_eq!(s.nonsmooth.unwrap().restitution, 0.5);
    expect_each(
        &ns,
        &[
            (
                "restitution = 0.5",
                "restitution = 1.5",
                "contact.restitution",
                "between 0 and 1",
            ),
            (
                "restitution = 0.5\n",
                "",
                "contact",
                "missing field `restitution`",
            ),
            (
                "restitution = 0.5",
                "restitution = 0.5\ndhat = 0.1",
                "contact.dhat",
                "no barrier",
            ),
        ],
    );
    // With the barrier model, restitution is the restitution law's e (issue 56).
    let law = BALL.replace("kappa = 1e3", "kappa = 1e3\nrestitution = 0.5");
    let law = springsim::scene::parse(&law, "law.toml", "law").unwrap();
    assert_eq!(law.model.restitution.unwrap().walls, vec![Some(0.5)]);
    expect(
        &ns.replace("center = [0.0, 0.5]", "center = [0.0, 0.05]"),
        "bodies[0].center",
        "in front of it",
    );
    let grid = format!("{ns}{GRID_BODY}").replace("radius = 0.1\n", "");
    expect(&grid, "contact.model", "particles only");
}
