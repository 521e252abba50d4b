//! Float precision of the GPU backend (`solver.precision`, `--precision`). The CPU
//! reference always computes in f64; the GPU computes in f32 on every adapter and,
//! where the adapter has `SHADER_F64`, in f64 or in the mixed mode that keeps the
//! state in f64 and stores what a CG iteration streams in f32. The WGSL side is one
//! file per mode under `shaders/precision/`.

use serde::{Deserialize, Serialize};

/// `precision = "auto"` takes f64 only where a measured adapter runs f64
/// multiply-adds at least this fraction of its f32 rate: data-centre GPUs (1/2) and
/// lavapipe keep f64; consumer GPUs (1/16 to 1/64) run f32.
pub const F64_RATE_FLOOR: f64 = 0.25;

/// The precision a scene or the command line asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum PrecisionChoice {
    /// The mode [`GpuPrecision::auto_for`] picks for the adapter (the default).
    #[default]
    Auto,
    /// Every real in f32 (every adapter).
    F32,
    /// Every real in f64 (adapters with f64).
    F64,
    /// State, energies and CCD in f64, CG vectors and blocks in f32 (adapters with f64).
    Mixed,
}

/// The precision a GPU run computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GpuPrecision {
    /// Every real in f32.
    F32,
    /// Every real in f64.
    F64,
    /// The state, the driver's scalars and CG's p and r in f64; the CG vectors z, d,
    /// q, the Newton node blocks and the preconditioner data in f32.
    Mixed,
}

/// Which class of GPU data a buffer holds, for its element width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RealClass {
    /// Positions, velocities, anchors, friction contacts, springs, reductions, CG's
    /// solution p and residual r (`real`).
    State,
    /// The CG vectors z, d, q, node blocks, preconditioner data (`lreal` in WGSL).
    Linear,
}

impl GpuPrecision {
    /// Every mode, in the order tables list them.
    pub const ALL: [GpuPrecision; 3] = [GpuPrecision::F32, GpuPrecision::Mixed, GpuPrecision::F64];

    /// The name in scene files, on the command line, in summary.json and tables.
    pub fn name(self) -> &'static str {
        match self {
            GpuPrecision::F32 => "f32",
            GpuPrecision::F64 => "f64",
            GpuPrecision::Mixed => "mixed",
        }
    }

    /// Whether the mode needs an adapter with `SHADER_F64`.
    pub fn needs_f64(self) -> bool {
        self != GpuPrecision::F32
    }

    /// Bytes of one real of `class`.
    pub fn bytes(self, class: RealClass) -> u64 {
        match (self, class) {
            (GpuPrecision::F32, _) | (GpuPrecision::Mixed, RealClass::Linear) => 4,
            _ => 8,
        }
    }

    /// The mode `auto` runs in on an adapter: `f64` where it has f64 (measured on
    /// lavapipe, benchmarks/NOTES.md "Precision": f64 costs 1.0–1.7× f32 per step, no more
    /// than mixed, ends every resolution-limited step and follows the CPU to 1e-9 m)
    /// and, where the adapter was measured (`f64_rate`: its f64 multiply-adds' rate
    /// over f32's, `springsim devices --calibrate`), runs f64 at least
    /// [`F64_RATE_FLOOR`] of its f32 rate; `f32` otherwise (Metal and most mobile
    /// adapters have no f64; consumer GPUs run it at 1/16 to 1/64).
    pub fn auto_for(has_f64: bool, f64_rate: Option<f64>) -> GpuPrecision {
        match (has_f64, f64_rate) {
            (true, Some(r)) if r < F64_RATE_FLOOR => GpuPrecision::F32,
            (true, _) => GpuPrecision::F64,
            (false, _) => GpuPrecision::F32,
        }
    }

    /// The WGSL file under `shaders/` that defines the mode's `real` and `lreal`.
    pub fn shader_file(self) -> &'static str {
        match self {
            GpuPrecision::F32 => "precision/f32.wgsl",
            GpuPrecision::F64 => "precision/f64.wgsl",
            GpuPrecision::Mixed => "precision/mixed.wgsl",
        }
    }
}

impl PrecisionChoice {
    /// The choice that asks for exactly `mode`.
    pub fn of(mode: GpuPrecision) -> Self {
        match mode {
            GpuPrecision::F32 => PrecisionChoice::F32,
            GpuPrecision::F64 => PrecisionChoice::F64,
            GpuPrecision::Mixed => PrecisionChoice::Mixed,
        }
    }

    /// The name in scene files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            PrecisionChoice::Auto => "auto",
            PrecisionChoice::F32 => "f32",
            PrecisionChoice::F64 => "f64",
            PrecisionChoice::Mixed => "mixed",
        }
    }

    /// The mode asked for, `None` for `auto`.
    pub fn fixed(self) -> Option<GpuPrecision> {
        match self {
            PrecisionChoice::Auto => None,
            PrecisionChoice::F32 => Some(GpuPrecision::F32),
            PrecisionChoice::F64 => Some(GpuPrecision::F64),
            PrecisionChoice::Mixed => Some(GpuPrecision::Mixed),
        }
    }

    /// The mode for an adapter with or without f64 (`f64_rate`: its measured f64
    /// rate over f32's, where known): `Err` (one line) where an f64 mode is asked of
    /// an adapter without f64; `auto` as [`GpuPrecision::auto_for`].
    pub fn resolve(
        self,
        has_f64: bool,
        f64_rate: Option<f64>,
        adapter: &str,
    ) -> Result<GpuPrecision, String> {
        let Some(asked) = self.fixed() else {
            return Ok(GpuPrecision::auto_for(has_f64, f64_rate));
        };
        if asked.needs_f64() && !has_f64 {
            return Err(format!(
                "solver.precision = \"{}\" needs f64 shaders (SHADER_F64), which adapter {adapter} does not have; use --precision f32 or auto",
                asked.name()
            ));
        }
        Ok(asked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f64_modes_are_refused_without_f64_and_auto_falls_back() {
        assert_eq!(
            PrecisionChoice::Auto.resolve(false, None, "a"),
            Ok(GpuPrecision::F32)
        );
        assert_eq!(
            PrecisionChoice::Auto.resolve(true, None, "a"),
            Ok(GpuPrecision::F64)
        );
        assert_eq!(
            PrecisionChoice::F32.resolve(false, None, "a"),
            Ok(GpuPrecision::F32)
        );
        for c in [PrecisionChoice::F64, PrecisionChoice::Mixed] {
            let e = c.resolve(false, None, "X").unwrap_err();
            assert!(
                e.contains(c.name()) && e.contains("X") && !e.contains('\n'),
                "{e}"
            );
            assert!(c.resolve(true, None, "X").is_ok());
        }
    }

    #[test]
    fn mixed_stores_linear_data_in_f32() {
        assert_eq!(GpuPrecision::Mixed.bytes(RealClass::Linear), 4);
        assert_eq!(GpuPrecision::Mixed.bytes(RealClass::State), 8);
        assert_eq!(GpuPrecision::F32.bytes(RealClass::State), 4);
        assert_eq!(GpuPrecision::F64.bytes(RealClass::Linear), 8);
    }
}
