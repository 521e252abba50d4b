//! Axis scales: data limits widened to round numbers, tick positions (1-2-5 steps on
//! linear axes, decades on logarithmic ones) and compact tick labels.

/// A linear or logarithmic (base 10) axis over `[lo, hi]` in data units.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// Lower limit (data units).
    pub lo: f64,
    /// Upper limit (data units).
    pub hi: f64,
    /// Whether positions are logarithmic.
    pub log: bool,
    /// Tick positions (data units) with their labels.
    pub ticks: Vec<(f64, String)>,
}

impl Axis {
    /// An axis covering `[min, max]` (finite; for `log` also positive), widened to
    /// whole tick steps (linear) or whole decades (log).
    pub fn fit(min: f64, max: f64, log: bool) -> Self {
        if log {
            return Self::fit_log(min, max);
        }
        let (mut lo, mut hi) = (min, max);
        if !(lo.is_finite() && hi.is_finite()) {
            (lo, hi) = (0.0, 1.0);
        }
        // Halves and eighths, not differences, so that data near ±f64::MAX (a run
        // that blew up) give a finite span instead of inf and ~2⁶³ ticks.
        if hi / 2.0 - lo / 2.0 <= 0.5e-12 * lo.abs().max(hi.abs()).max(1e-300) {
            let pad = if lo == 0.0 { 1.0 } else { 0.1 * lo.abs() };
            lo = (lo - pad).max(f64::MIN);
            hi = (hi + pad).min(f64::MAX);
        }
        let step = nice_step(hi / 8.0 - lo / 8.0);
        let lo = ((lo / step).floor() * step).max(f64::MIN);
        let hi = ((hi / step).ceil() * step).min(f64::MAX);
        let n = (hi / step - lo / step).round().min(100.0) as i64;
        let ticks = (0..=n)
            .map(|k| lo + k as f64 * step)
            .filter(|v| v.is_finite())
            .map(|v| {
                let v = if v.abs() < 1e-9 * step { 0.0 } else { v };
                (v, tick_label(v, step))
            })
            .collect();
        Self {
            lo,
            hi,
            log: false,
            ticks,
        }
    }

    fn fit_log(min: f64, max: f64) -> Self {
        let (min, max) = if min > 0.0 && max >= min && max.is_finite() {
            (min, max)
        } else {
            (1.0, 10.0)
        };
        let mut a = min.log10().floor() as i32;
        let mut b = max.log10().ceil() as i32;
        if a == b {
            a -= 1;
            b += 1;
        }
        let every = ((b - a) as f64 / 8.0).ceil().max(1.0) as i32;
        let mut ticks = Vec::new();
        for k in a..=b {
            if (k - a) % every == 0 {
                ticks.push((10f64.powi(k), decade_label(k)));
            }
        }
        Self {
            lo: 10f64.powi(a),
            hi: 10f64.powi(b),
            log: true,
            ticks,
        }
    }

    /// Where `v` lies on the axis, 0 at `lo` and 1 at `hi` (NaN for v ≤ 0 on a log axis).
    pub fn fraction(&self, v: f64) -> f64 {
        if self.log {
            if v <= 0.0 {
                return f64::NAN;
            }
            (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        }
    }
}

/// The smallest of 1, 2, 5 × 10ᵏ not below `raw` (> 0).
pub fn nice_step(raw: f64) -> f64 {
    let raw = if raw > 0.0 && raw.is_finite() {
        raw
    } else {
        1.0
    };
    let p = 10f64.powf(raw.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if m * p >= raw * (1.0 - 1e-9) {
            return m * p;
        }
    }
    10.0 * p
}

/// Label of a linear tick `v` on an axis with spacing `step`: plain decimals while
/// they stay short, else `m e k` notation.
pub fn tick_label(v: f64, step: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let mag = v.abs().max(step);
    if (1e-3..1e5).contains(&mag) {
        let decimals = (-step.log10().floor()).max(0.0) as usize;
        format!("{v:.decimals$}")
    } else {
        let exp = v.abs().log10().floor() as i32;
        let digits = (exp as f64 - step.log10().floor()).clamp(0.0, 12.0) as usize;
        let m = v / 10f64.powi(exp);
        let s = format!("{m:.digits$}");
        format!("{s}e{exp}")
    }
}

/// Label of the decade tick `10^k`.
pub fn decade_label(k: i32) -> String {
    if (-2..=4).contains(&k) {
        fmt_g(10f64.powi(k))
    } else {
        format!("1e{k}")
    }
}

/// A short general number format for legends and tables: up to 4 significant
/// digits, exponent notation outside `[1e-3, 1e5)`.
pub fn fmt_g(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    if (1e-3..1e5).contains(&a) {
        let decimals = (3 - a.log10().floor() as i32).max(0) as usize;
        let s = format!("{v:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        let s = format!("{v:.3e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.')
        } else {
            m
        };
        format!("{m}e{e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_round_and_cover_the_data() {
        let a = Axis::fit(0.3, 9.7, false);
        assert_eq!((a.lo, a.hi), (0.0, 10.0));
        let labels: Vec<_> = a.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["0", "2", "4", "6", "8", "10"]);
        let b = Axis::fit(-0.013, 0.0021, false);
        assert!(b.lo <= -0.013 && b.hi >= 0.0021);
        assert!(b.ticks.iter().any(|t| t.1 == "0"));
        let c = Axis::fit(5.0, 5.0, false);
        assert!(c.lo < 5.0 && c.hi > 5.0);
    }

    #[test]
    fn huge_data_give_a_few_finite_ticks() {
        for (lo, hi) in [
            (-f64::MAX, f64::MAX),
            (f64::MAX, f64::MAX),
            (-f64::MAX, -f64::MAX),
            (-1e308, 1e300),
        ] {
            let a = Axis::fit(lo, hi, false);
            assert!(a.lo.is_finite() && a.hi.is_finite(), "{lo} {hi}: {a:?}");
            assert!(a.lo <= lo && a.hi >= hi, "{lo} {hi}: {a:?}");
            assert!((2..=20).contains(&a.ticks.len()), "{lo} {hi}: {a:?}");
        }
    }

    #[test]
    fn log_ticks_are_decades() {
        let a = Axis::fit(1.0, 1e4, true);
        assert_eq!((a.lo, a.hi), (1.0, 1e4));
        let labels: Vec<_> = a.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["1", "10", "100", "1000", "10000"]);
        assert!((a.fraction(100.0) - 0.5).abs() < 1e-12);
        assert_eq!(decade_label(-5), "1e-5");
    }

    #[test]
    fn general_format() {
        assert_eq!(fmt_g(0.001), "0.001");
        assert_eq!(fmt_g(1e-5), "1e-5");
        assert_eq!(fmt_g(100.0), "100");
        assert_eq!(fmt_g(0.013461328), "0.01346");
        assert_eq!(fmt_g(-10.0), "-10");
        assert_eq!(fmt_g(123456.0), "1.235e5");
        assert_eq!(tick_label(2.5e-4, 5e-5), "2.5e-4");
    }
}
