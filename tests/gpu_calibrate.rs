//! `springsim devices --calibrate` and the measurement at a GPU run's start, on
//! whatever adapter the machine has (lavapipe in CI): the figures are measured,
//! cached per adapter and driver where the environment says, read back by
//! `springsim devices`, and a run measures an adapter once, where the policy
//! (`SPRINGSIM_CALIBRATE`) says so.

mod common;
use common::springsim_env;
use springsim::backend::gpu::calibrate::Measured;
use std::path::{Path, PathBuf};

fn have_gpu() -> bool {
    common::gpu_backend(common::random_model(4, 2, "book", 3), Default::default()).is_some()
}

/// A fresh cache folder for one test.
fn cache(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("springsim-cal-{tag}-{}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    d
}

/// Every measurement cached under `dir`.
fn cached(dir: &Path) -> Vec<Measured> {
    let Ok(files) = std::fs::read_dir(dir.join("devices")) else {
        return vec![];
    };
    files
        .map(|f| {
            let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
            serde_json::from_str(&text).expect("a measurement")
        })
        .collect()
}

#[test]
fn devices_calibrate_measures_caches_and_reports() {
    if !have_gpu() {
        return;
    }
    let dir = cache("devices");
    let env = [("SPRINGSIM_CACHE_DIR", dir.to_str().unwrap())];
    let out = springsim_env(&["devices", "--calibrate"], &env);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = cached(&dir);
    assert!(!all.is_empty(), "{text}");
    for m in &all {
        for (what, v) in [
            ("bandwidth", m.bandwidth_gb_s),
            ("dispatch", m.dispatch_us),
            ("recording", m.host_us_per_dispatch),
            ("readback", m.readback_us),
            ("f32", m.f32_gflop_s),
        ] {
            assert!(v.is_finite() && v > 0.0, "{what}: {m:?}");
        }
        assert!(
            m.seconds > 0.0 && m.springsim == env!("CARGO_PKG_VERSION"),
            "{m:?}"
        );
        if let Some(rate) = m.f64_rate() {
            assert!(rate > 0.0 && rate < 4.0, "{m:?}");
        }
        assert!(text.contains(&m.adapter), "{text}");
    }
    // `devices` reads the cache back: the figures and the precision `auto` takes
    let again = springsim_env(&["devices"], &env);
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(
        text.contains("GB/s") && text.contains("precision auto runs"),
        "{text}"
    );
    // without a cache, it says the fitted figures are in use
    let bare = springsim_env(&["devices"], &[("SPRINGSIM_CACHE_DIR", "/nonexistent/x")]);
    let text = String::from_utf8_lossy(&bare.stdout);
    assert!(text.contains("not measured"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A run measures an adapter without a cached measurement where the policy says so
/// (every adapter with `always`; lavapipe not by default), once: the next run reads
/// the cache.
#[test]
fn a_run_measures_its_adapter_once_where_the_policy_says() {
    if !have_gpu() {
        return;
    }
    let run = |dir: &Path, policy: &str| {
        let out = std::env::temp_dir().join(format!("springsim-cal-out-{}", std::process::id()));
        let o = springsim_env(
            &[
                "run",
                "square_drop",
                "--backend",
                "gpu",
                "--steps",
                "2",
                "--quiet",
                "--out",
                out.to_str().unwrap(),
            ],
            &[
                ("SPRINGSIM_CACHE_DIR", dir.to_str().unwrap()),
                ("SPRINGSIM_CALIBRATE", policy),
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::remove_dir_all(&out).ok();
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let dir = cache("run");
    let first = run(&dir, "always");
    assert!(first.contains("note: measured"), "{first}");
    assert_eq!(cached(&dir).len(), 1);
    let second = run(&dir, "always");
    assert!(!second.contains("note: measured"), "{second}");
    let never = cache("never");
    let quiet = run(&never, "never");
    assert!(
        !quiet.contains("note: measured") && cached(&never).is_empty(),
        "{quiet}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_unknown_calibration_policy_is_auto_with_a_warning() {
    use springsim::backend::gpu::profiles::Policy;
    assert_eq!(Policy::parse(None), (Policy::Auto, None));
    assert_eq!(Policy::parse(Some("never")), (Policy::Never, None));
    assert_eq!(Policy::parse(Some("always")), (Policy::Always, None));
    let (p, w) = Policy::parse(Some("sometimes"));
    assert_eq!(p, Policy::Auto);
    let w = w.expect("a warning");
    assert!(
        w.contains("SPRINGSIM_CALIBRATE=\"sometimes\"") && w.contains("taken as auto"),
        "{w}"
    );
}
