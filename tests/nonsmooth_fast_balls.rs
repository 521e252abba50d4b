//! Seed 004's balls on the nonsmooth model at 1000 m/s (a metre per step): impacts on
//! implicit walls are resolved at their time of impact, so no ball ever ends a step
//! outside the circle or the diamond, the total energy stays put, and a run whose ball
//! does end outside a wall fails with a line naming the step, the ball and the gap.

use springsim::nonsmooth::scheme::GAP_TOLERANCE;
use springsim::run::RunOptions;
use springsim::scene::{self, Scene};

/// A bundled `*_impulse` scene with its balls thrown at `speed` (m/s per component).
fn fast(name: &str, speed: f64) -> Scene {
    let path = format!("scenes/{name}.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("speed = 5.0"), "{path} changed");
    let text = text.replace("speed = 5.0", &format!("speed = {speed:?}"));
    scene::parse(&text, &path, name).unwrap()
}

#[test]
fn balls_at_1000_m_per_s_stay_inside_the_circle_and_the_diamond() {
    for name in ["circle_balls_impulse", "diamond_balls_impulse"] {
        let sc = fast(name, 1000.0);
        let mut s = springsim::run::nonsmooth::system(&sc).unwrap();
        let e0 = s.energies.total;
        let mut impacts = 0;
        for step in 1..=2000 {
            s.step();
            for i in 0..s.len() {
                let gap = s.gap(i);
                assert!(
                    gap >= -GAP_TOLERANCE,
                    "{name}: ball {i} is {gap} m outside after step {step}"
                );
                impacts += s.impacts[i];
            }
            assert!(
                (s.energies.total - e0).abs() <= 1e-13 * e0,
                "{name} step {step}: E_total {} vs {e0}",
                s.energies.total
            );
        }
        // A 30 m wide container crossed at about 1 m per step: a wall every few dozen steps.
        assert!(impacts > 100, "{name}: only {impacts} impacts");
        // e = 1: every impact gives back what it takes.
        assert!(
            s.energies.dissipated.abs() <= 1e-13 * e0,
            "{name}: {}",
            s.energies.dissipated
        );
    }
}

#[test]
fn an_inelastic_fast_ball_loses_energy_only_at_impacts_and_stays_inside() {
    let mut sc = fast("circle_balls_impulse", 1000.0);
    sc.nonsmooth.as_mut().unwrap().restitution = 0.5;
    let mut s = springsim::run::nonsmooth::system(&sc).unwrap();
    let e0 = s.energies.total;
    for step in 1..=500 {
        s.step();
        let hit = s.impacts.iter().any(|k| *k > 0);
        let d = s.energies.dissipated_step;
        if hit {
            assert!(d >= -1e-15 * e0, "step {step}: {d}");
        } else {
            assert_eq!(d, 0.0, "step {step}");
        }
        assert!((s.energies.total - e0).abs() <= 1e-12 * e0, "step {step}");
        for i in 0..s.len() {
            assert!(s.gap(i) >= -GAP_TOLERANCE, "step {step} ball {i}");
        }
    }
    assert!(s.energies.dissipated > 0.5 * e0);
}

#[test]
fn a_run_with_a_ball_outside_a_wall_fails_naming_step_ball_and_gap() {
    // Ball 2 placed 5 m outside the circle (radius 15, ball radius 0.3) moving outwards:
    // it is turned at once but cannot get back in one step.
    let mut sc = scene::load("scenes/circle_balls_impulse.toml").unwrap();
    sc.model.x0[4] = 20.0;
    sc.model.x0[5] = 0.0;
    sc.model.v0[4] = 3.0;
    let dir = std::env::temp_dir().join(format!("springsim_outside_{}", std::process::id()));
    let opts = RunOptions {
        steps: 100,
        out_dir: dir.clone(),
        // No trajectory, frames, progress bar or early stop.
        ..Default::default()
    };
    let err = springsim::run::run(&sc, None, &opts).unwrap_err();
    assert!(!err.contains('\n'), "{err}");
    for part in ["step 1 ", "ball 2 ", "5.29", "m outside", "circle"] {
        assert!(err.contains(part), "`{part}` missing from: {err}");
    }
    let summary = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    assert!(summary.contains("\"status\": \"failed\""), "{summary}");
    let _ = std::fs::remove_dir_all(&dir);
}
