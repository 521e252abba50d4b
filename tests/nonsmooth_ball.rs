//! Seed 002's nonsmooth bouncing ball: the energy balance closes to round-off, the
//! apex heights fall by e² per bounce, and the bundled scene reproduces the seed's run.

use springsim::nonsmooth::scheme::{seed_ball, ParticleSystem};
use springsim::run::RunOptions;
use springsim::scene;

/// Heights at the top of each flight: states where the velocity turns from up to down.
fn apexes(mut s: ParticleSystem, steps: usize) -> Vec<f64> {
    let mut out = Vec::new();
    for _ in 0..steps {
        let v_before = s.v[0];
        s.step();
        if v_before > 0.0 && s.v[0] <= 0.0 {
            out.push(s.u[0]);
        }
    }
    out
}

#[test]
fn total_energy_is_conserved_to_round_off() {
    let mut s = seed_ball(1.0, 1.0, 0.0, 9.81, 0.9, 1e-2);
    let e0 = s.energies.total;
    assert_eq!(e0, 9.81);
    let mut contacts = 0;
    for _ in 0..1000 {
        s.step();
        contacts += s.contact[0] as u32;
        assert!(
            (s.energies.total - e0).abs() < 1e-12 * e0,
            "E_total drifted to {} at t = {}",
            s.energies.total,
            s.time
        );
        assert!(s.energies.dissipated >= 0.0);
    }
    assert!(contacts > 20, "{contacts} contacts");
    // Almost everything has been dissipated after 10 s.
    assert!(s.energies.mechanical < 0.01 && s.energies.dissipated > 9.8);
}

#[test]
fn a_contact_reverses_the_velocity_times_e() {
    let mut s = seed_ball(1.0, 1.0, 0.0, 9.81, 0.9, 1e-2);
    loop {
        let v = s.v[0];
        s.step();
        if s.contact[0] {
            assert_eq!(s.v[0], -0.9 * v);
            assert!(s.lambda[0] > 0.0);
            break;
        }
    }
}

#[test]
fn apex_heights_fall_by_e_squared() {
    for (dt, tol) in [(1e-2, 1e-2), (1e-4, 1e-3)] {
        let steps = (6.0 / dt) as usize;
        let h = apexes(seed_ball(1.0, 1.0, 0.0, 9.81, 0.9, dt), steps);
        assert!(h.len() >= 5, "dt {dt}: {h:?}");
        for k in 0..4 {
            let ratio = h[k + 1] / h[k];
            assert!(
                (ratio - 0.81).abs() < tol,
                "dt {dt}: apex {} / apex {k} = {ratio}",
                k + 1
            );
        }
        // The first apex after the drop from 1 m is e² high too.
        assert!((h[0] - 0.81).abs() < 2.0 * tol, "dt {dt}: {}", h[0]);
    }
    // With e = 0 the ball stays down after the first contact.
    let h = apexes(seed_ball(1.0, 1.0, 0.0, 9.81, 0.0, 1e-3), 3000);
    assert!(h.iter().all(|a| *a < 1e-5), "{h:?}");
}

#[test]
fn bundled_scene_reproduces_the_seed_run() {
    let sc = scene::load("ball_bounce").unwrap();
    let p = sc.nonsmooth.expect("nonsmooth model");
    assert_eq!(p.restitution, 0.9);
    let dir = std::env::temp_dir().join(format!("springsim_ball_{}", std::process::id()));
    let opts = RunOptions {
        steps: sc.default_steps.unwrap(),
        out_dir: dir.clone(),
        // No trajectory, frames, progress bar or early stop.
        ..Default::default()
    };
    assert_eq!(opts.steps, 1000);
    let summary = springsim::run::run(&sc, None, &opts).unwrap();
    assert_eq!(summary.steps, 1000);
    assert_eq!(summary.backend, "nonsmooth");
    let csv = std::fs::read_to_string(dir.join("nonsmooth.csv")).unwrap();
    let last: Vec<f64> = csv
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|f| f.parse().unwrap())
        .collect();
    // The seed's notebook, run as written: u = 3.0964e-4 m, E_dis = 9.806962 J at t = 10 s.
    assert_eq!(last[0], 1000.0);
    assert!((last[3] - 3.0963848e-4).abs() < 1e-10, "gap {}", last[3]);
    assert!((last[8] - 9.806962446).abs() < 1e-8, "E_dis {}", last[8]);
    assert!((last[10] - 9.81).abs() < 1e-12, "E_total {}", last[10]);
    for f in [
        "gap.png",
        "velocity.png",
        "lambda.png",
        "energy_balance.png",
        "energy_variation.png",
        "steps.csv",
        "particles.csv",
        "summary.json",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
