// Precision f64: every real of the GPU in f64 (adapters with SHADER_F64). The kernels
// import the mode's file as `precision.wgsl` (src/backend/gpu/shaders.rs picks it).
// #import precision/f64_math.wgsl

// Positions, velocities, energies, CCD and every scalar of the Newton driver.
alias real = f64;
// What a CG iteration streams: z, d, q, the Newton node blocks, the preconditioner
// (CG's accumulators p and r are `real`).
alias lreal = f64;

// One unit in the last place of `real`, relative (2⁻⁵²).
const REAL_EPSILON: real = 2.220446049250313e-16;

// The largest finite `real`: `abs(x) <= REAL_MAX` is false for NaN and ±∞
// (real_finite).
const REAL_MAX: real = 1.7976931348623157e308;

fn real_finite(x: real) -> bool { return abs(x) <= REAL_MAX; }
