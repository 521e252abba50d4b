//! Seed 000's restitution experiment: the study reproduces the figures of the seed's
//! own algorithm (computed separately by running the seed's notebook code), and
//! Newmark's coefficient of restitution is far above implicit Euler's.

use springsim::restitution::measure::measure;
use springsim::restitution::particle::{simulate, ParticleParams, Scheme};

/// `actual` agrees with `expected`, written to 4 significant digits.
fn sig4(what: &str, actual: f64, expected: f64) {
    let tol = 5e-4 * expected.abs();
    assert!(
        (actual - expected).abs() <= tol,
        "{what}: got {actual}, the seed gives {expected}"
    );
}

fn run(p: ParticleParams) -> (springsim::restitution::measure::Measurement, f64) {
    let tr = simulate(&p).unwrap();
    let m = measure(&tr, p.dhat, p.h);
    (m, *tr.x.last().unwrap())
}

#[test]
fn euler_defaults_match_the_seed() {
    let (m, x_end) = run(ParticleParams::default());
    assert_eq!(m.steps, 10_000);
    assert!(m.rebounded);
    sig4("COR", m.cor, 0.01346);
    sig4("rebound velocity", m.v_out, 0.1346);
    sig4("minimum height", m.min_x, 8.372e-4);
    sig4("height at t = 10 s", x_end, 1.212);
    assert_eq!(m.contact_steps, 3);
    assert_eq!(m.newton_iterations, 10_013);
    assert_eq!(m.line_search_failures, 0);
}

#[test]
fn euler_kappa_and_dhat_sweeps_match_the_seed() {
    let base = ParticleParams::default();
    let (m, x_end) = run(ParticleParams {
        kappa: 10.0,
        ..base
    });
    sig4("COR kappa=10", m.cor, 0.03115);
    sig4("min x kappa=10", m.min_x, 5.538e-4);
    sig4("x(10) kappa=10", x_end, 2.804);
    let (m, _) = run(ParticleParams { kappa: 1e4, ..base });
    sig4("COR kappa=1e4", m.cor, 1.625e-3);
    sig4("min x kappa=1e4", m.min_x, 9.828e-4);
    let (m, x_end) = run(ParticleParams { dhat: 0.1, ..base });
    sig4("COR dhat=0.1", m.cor, 0.07938);
    sig4("min x dhat=0.1", m.min_x, 0.09834);
    sig4("x(10) dhat=0.1", x_end, 7.249);
    // κ = 1: the particle ends up pinned a hair above the ground and never leaves.
    let (m, _) = run(ParticleParams { kappa: 1.0, ..base });
    assert!(m.touched && !m.rebounded);
    assert_eq!(m.cor, 0.0);
    sig4("min x kappa=1", m.min_x, 2.132e-13);
}

#[test]
fn euler_h_and_speed_sweeps_match_the_seed() {
    let base = ParticleParams::default();
    let (m, _) = run(ParticleParams { h: 1e-4, ..base });
    assert_eq!(m.steps, 99_991, "the seed's `while t < 9.999` with t += h");
    sig4("COR h=1e-4", m.cor, 0.03760);
    sig4("min x h=1e-4", m.min_x, 9.449e-4);
    let (m, _) = run(ParticleParams { v0: -2.0, ..base });
    sig4("COR v0=-2", m.cor, 0.02270);
    sig4("rebound v0=-2", m.v_out, 0.04541);
    let (m, _) = run(ParticleParams { tol: 1e-8, ..base });
    sig4("COR tol=1e-8", m.cor, 0.01346);
}

#[test]
fn newmark_bounces_far_more_than_euler() {
    let euler = run(ParticleParams::default()).0;
    let newmark = run(ParticleParams {
        scheme: Scheme::Newmark,
        ..ParticleParams::default()
    })
    .0;
    assert!(newmark.rebounded);
    assert!(
        newmark.cor > 50.0 * euler.cor && newmark.cor > 1.0,
        "Newmark COR {} vs Euler {}",
        newmark.cor,
        euler.cor
    );
    // The value this code reports for the seed's setup (see the README).
    assert!((newmark.cor - 2.2155).abs() < 1e-3, "{}", newmark.cor);
}

#[test]
fn newmark_conserves_energy_in_free_fall() {
    let p = ParticleParams {
        scheme: Scheme::Newmark,
        x0: 10.0,
        v0: 0.0,
        g: -9.81,
        duration: 1.0,
        ..ParticleParams::default()
    };
    let tr = simulate(&p).unwrap();
    let e = |k: usize| 0.5 * tr.v[k] * tr.v[k] - p.g * tr.x[k];
    let e0 = e(0);
    for k in 0..tr.x.len() {
        assert!((e(k) - e0).abs() < 1e-9 * e0, "step {k}: {} vs {e0}", e(k));
    }
    assert!(*tr.x.last().unwrap() < 6.0);
}

#[test]
fn bad_parameters_are_named() {
    let p = ParticleParams {
        dhat: -1.0,
        ..ParticleParams::default()
    };
    assert!(simulate(&p).unwrap_err().starts_with("dhat must be"));
    let p = ParticleParams {
        h: 1e-12,
        ..ParticleParams::default()
    };
    assert!(simulate(&p).unwrap_err().contains("steps"));
}
