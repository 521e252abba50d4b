//! Which [`DeviceProfile`] the cost model and the `auto` choices use for an adapter:
//! the adapter's own measurement ([`calibrate`]) where it has one, cached per adapter
//! and driver in the user's cache folder; else the fitted fixtures of
//! [`cost_model`] (lavapipe's for a software adapter, the H200's for hardware). A
//! hardware adapter without a cached measurement is measured once, at the first GPU
//! run that opens it; a software adapter only when asked (`springsim devices
//! --calibrate`, or [`CALIBRATE_ENV`]`=always`), so that lavapipe's test runs keep
//! the fitted figures their expectations were measured with.

use super::calibrate::{self, Measured};
use super::cost_model::{self, DeviceProfile};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// Environment variable: `auto` (the default: measure hardware adapters at their
/// first run), `always` (software adapters too), `never` (use only what is cached).
pub const CALIBRATE_ENV: &str = "SPRINGSIM_CALIBRATE";
/// Environment variable naming the cache folder (default
/// `$XDG_CACHE_HOME/springsim`, else `~/.cache/springsim`).
pub const CACHE_ENV: &str = "SPRINGSIM_CACHE_DIR";

/// When an adapter without a cached measurement is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Hardware adapters at their first run, software ones only when asked.
    Auto,
    /// Every adapter at its first run.
    Always,
    /// Never at a run: only `springsim devices --calibrate` measures.
    Never,
}

impl Policy {
    /// The policy [`CALIBRATE_ENV`] sets (`auto` where unset); an unknown value is
    /// taken as `auto` with a one-line warning on stderr, once per process.
    pub fn from_env() -> Self {
        let (policy, warning) = Self::parse(std::env::var(CALIBRATE_ENV).ok().as_deref());
        if let Some(w) = warning {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| eprintln!("warning: {w}"));
        }
        policy
    }

    /// The policy of [`CALIBRATE_ENV`]'s value `value`, and the warning an unknown
    /// value earns.
    pub fn parse(value: Option<&str>) -> (Self, Option<String>) {
        match value {
            None | Some("auto") | Some("") => (Policy::Auto, None),
            Some("always") => (Policy::Always, None),
            Some("never") => (Policy::Never, None),
            Some(other) => (
                Policy::Auto,
                Some(format!(
                    "{CALIBRATE_ENV}={other:?} is not auto, always or never: taken as auto"
                )),
            ),
        }
    }

    /// Whether a run measures an adapter that has no cached measurement.
    pub fn measures(self, software: bool) -> bool {
        match self {
            Policy::Auto => !software,
            Policy::Always => true,
            Policy::Never => false,
        }
    }
}

/// The cache folder of measured profiles, if the environment names one.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |k| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = var(CACHE_ENV) {
        return Some(d);
    }
    var("XDG_CACHE_HOME")
        .or_else(|| var("HOME").map(|h| h.join(".cache")))
        .map(|d| d.join("springsim"))
}

/// The cache file of `adapter` (its description: name, API, type and driver, so a
/// new driver is measured again) in the cache folder.
pub fn cache_file(adapter: &str) -> Option<PathBuf> {
    cache_dir().map(|d| cache_file_in(&d, adapter))
}

/// The cache file of `adapter` under the cache folder `dir`.
pub fn cache_file_in(dir: &std::path::Path, adapter: &str) -> PathBuf {
    let slug: String = adapter
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let hash = adapter.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    let short: String = slug.chars().take(48).collect();
    dir.join("devices")
        .join(format!("{short}-{hash:016x}.json"))
}

/// The cached measurement of `adapter`, if there is one this version can read.
pub fn load(adapter: &str) -> Option<Measured> {
    load_from(&cache_dir()?, adapter)
}

/// [`load`] from the cache folder `dir`.
pub fn load_from(dir: &std::path::Path, adapter: &str) -> Option<Measured> {
    let text = std::fs::read_to_string(cache_file_in(dir, adapter)).ok()?;
    serde_json::from_str::<Measured>(&text)
        .ok()
        .filter(|m| m.adapter == adapter)
}

/// Writes `m` to its adapter's cache file; returns the path.
pub fn store(m: &Measured) -> Result<PathBuf, String> {
    let dir =
        cache_dir().ok_or("no cache folder: set SPRINGSIM_CACHE_DIR, XDG_CACHE_HOME or HOME")?;
    store_in(&dir, m)
}

/// [`store`] under the cache folder `dir`.
pub fn store_in(dir: &std::path::Path, m: &Measured) -> Result<PathBuf, String> {
    let path = cache_file_in(dir, &m.adapter);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(m).map_err(|e| e.to_string())?;
    // written whole, then renamed: a run reading it meanwhile sees the old file or none
    let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, &path))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// A measured adapter and the profile the cost model takes from it.
#[derive(Debug)]
pub struct Known {
    /// What the calibration measured.
    pub measured: Measured,
    /// [`profile_of`] it.
    pub profile: DeviceProfile,
}

/// The adapters measured or loaded in this process, by description.
fn registry() -> &'static Mutex<HashMap<String, &'static Known>> {
    static R: OnceLock<Mutex<HashMap<String, &'static Known>>> = OnceLock::new();
    R.get_or_init(Default::default)
}

/// Remembers `m` for this process (a handful of adapters at most: kept for good).
fn remember(m: Measured) -> &'static Known {
    let mut r = registry().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = r.get(&m.adapter) {
        return k;
    }
    let name: &'static str = Box::leak(format!("{} (measured)", m.adapter).into_boxed_str());
    let known: &'static Known = Box::leak(Box::new(Known {
        profile: profile_of(&m, name),
        measured: m,
    }));
    r.insert(known.measured.adapter.clone(), known);
    known
}

/// Measures `adapter` (described as `desc`) now, whatever is cached, and caches the
/// figures: the measurement, and where it was cached or why it was not.
pub fn measure_and_store(
    adapter: &wgpu::Adapter,
    desc: &str,
) -> Result<(Measured, Result<PathBuf, String>), String> {
    let m = calibrate::measure(adapter, desc)?;
    let at = store(&m);
    Ok((m, at))
}

/// The measurement of `adapter` (described as `desc`): remembered in this process,
/// else cached, else measured now where [`Policy::from_env`] allows (then cached,
/// with one line on stderr). `None` where there is none; a failed measurement says
/// why on stderr and leaves the fixtures in use.
pub fn measured(adapter: &wgpu::Adapter, desc: &str) -> Option<&'static Known> {
    if let Some(m) = registry().lock().ok()?.get(desc).copied() {
        return Some(m);
    }
    if let Some(m) = load(desc) {
        return Some(remember(m));
    }
    let software = adapter.get_info().device_type == wgpu::DeviceType::Cpu;
    if !Policy::from_env().measures(software) {
        return None;
    }
    match measure_and_store(adapter, desc) {
        Ok((m, at)) => {
            let at = match at {
                Ok(p) => format!("cached in {}", p.display()),
                Err(e) => format!("not cached: {e}"),
            };
            eprintln!(
                "note: measured {desc} in {:.2} s for the cost model ({at})",
                m.seconds
            );
            Some(remember(m))
        }
        Err(e) => {
            eprintln!("note: could not measure {desc} ({e}); the cost model uses fitted figures");
            None
        }
    }
}

/// The cost model's profile of a measured adapter: its own bandwidth, dispatch,
/// recording and readback costs and f64 rate; the reductions' per-partial cost and
/// the multilevel preconditioner's figures, which the calibration does not measure,
/// from the fixture the adapter would have without a measurement
/// ([`cost_model::fixture_for`]); `name` names it in tables.
pub fn profile_of(m: &Measured, name: &'static str) -> DeviceProfile {
    let base = cost_model::fixture_for(&m.adapter, m.software);
    DeviceProfile {
        name,
        host_us_per_dispatch: m.host_us_per_dispatch,
        kernel_floor_us: m.dispatch_us,
        readback_us: m.readback_us,
        bandwidth_gb_s: m.bandwidth_gb_s,
        f64_rate: m.f64_rate().unwrap_or(0.0),
        ..*base
    }
}

/// The cost model's profile of `adapter` (described as `desc`): its measurement
/// ([`measured`], which measures it now where the policy says so), else its fixture.
pub fn profile_of_adapter(adapter: &wgpu::Adapter, desc: &str) -> DeviceProfile {
    match measured(adapter, desc) {
        Some(k) => k.profile,
        None => {
            let info = adapter.get_info();
            *cost_model::fixture_for(&info.name, info.device_type == wgpu::DeviceType::Cpu)
        }
    }
}

/// The profile of the adapter described as `adapter` (a description from
/// `springsim devices`, or one that starts with it): its measurement where this
/// process has one, else the fixture by name ([`cost_model::fixture_for`]).
pub fn profile_for(adapter: &str, software: bool) -> DeviceProfile {
    let known = registry().lock().ok().and_then(|r| {
        r.iter()
            .find(|(desc, _)| adapter.starts_with(desc.as_str()))
            .map(|(_, k)| k.profile)
    });
    match known {
        Some(p) => p,
        None => *cost_model::fixture_for(adapter, software),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::precision::GpuPrecision;

    fn measured(f64_gflop_s: Option<f64>) -> Measured {
        Measured {
            adapter: "Test GPU (Vulkan, DiscreteGpu, test 1.0)".into(),
            software: false,
            bandwidth_gb_s: 500.0,
            dispatch_us: 3.0,
            host_us_per_dispatch: 1.5,
            readback_us: 60.0,
            f32_gflop_s: 20_000.0,
            f64_gflop_s,
            seconds: 0.3,
            springsim: "0".into(),
        }
    }

    /// Synthetic adapters: f64 at 1/2 of f32 runs f64, at 1/64 runs f32; none, f32.
    #[test]
    fn auto_precision_follows_the_measured_f64_rate() {
        let half = measured(Some(10_000.0));
        let slow = measured(Some(20_000.0 / 64.0));
        assert_eq!(half.f64_rate(), Some(0.5));
        assert_eq!(
            GpuPrecision::auto_for(true, half.f64_rate()),
            GpuPrecision::F64
        );
        assert_eq!(
            GpuPrecision::auto_for(true, slow.f64_rate()),
            GpuPrecision::F32
        );
        assert_eq!(GpuPrecision::auto_for(false, None), GpuPrecision::F32);
        // not measured: f64 where the adapter has it, as before calibration existed
        assert_eq!(GpuPrecision::auto_for(true, None), GpuPrecision::F64);
    }

    /// A measured profile takes the measured figures and keeps the fixture's others.
    #[test]
    fn a_measured_profile_replaces_what_was_measured() {
        let p = profile_of(&measured(Some(1000.0)), "Test GPU (measured)");
        assert_eq!(p.bandwidth_gb_s, 500.0);
        assert_eq!(p.kernel_floor_us, 3.0);
        assert_eq!(p.host_us_per_dispatch, 1.5);
        assert_eq!(p.readback_us, 60.0);
        assert_eq!(p.f64_rate, 0.05);
        assert_eq!(p.partial_ns, cost_model::H200.partial_ns);
        assert!(p.name.contains("Test GPU") && p.name.ends_with("(measured)"));
    }

    /// Cache files are per adapter and driver, and a round trip keeps every figure.
    #[test]
    fn cache_files_round_trip_per_adapter_and_driver() {
        let dir = std::env::temp_dir().join(format!("springsim-cache-{}", std::process::id()));
        let m = measured(None);
        let path = store_in(&dir, &m).unwrap();
        assert!(path.starts_with(&dir));
        assert_eq!(load_from(&dir, &m.adapter), Some(m.clone()));
        let other = "Test GPU (Vulkan, DiscreteGpu, test 2.0)";
        assert_ne!(cache_file_in(&dir, other), path);
        assert_eq!(load_from(&dir, other), None);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_policy_measures_hardware_by_default() {
        assert!(Policy::Auto.measures(false) && !Policy::Auto.measures(true));
        assert!(Policy::Always.measures(true));
        assert!(!Policy::Never.measures(false));
    }
}
