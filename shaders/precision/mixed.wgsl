// Precision mixed (adapters with SHADER_F64): the state, the energies and their
// differences, the CCD, the Newton driver's scalars and CG's accumulators (the
// solution p and the residual r) in f64; the rest of what a CG iteration streams
// (z, d, q, the Newton node blocks, the preconditioner's data) stored in f32 and
// widened on load (BENCHMARKS.md, "Precision"). With p and r in f32 too, CG's
// directions at rest were not descent directions of the f64 energy (lattice_drop:
// 82 Newton iterations against the CPU's 307). The kernels import the mode's file as
// `precision.wgsl` (src/backend/gpu/shaders.rs picks it).
// #import precision/f64_math.wgsl

// Positions, velocities, energies, CCD and every scalar of the Newton driver.
alias real = f64;
// What a CG iteration streams: z, d, q, the Newton node blocks, the preconditioner
// (CG's accumulators p and r are `real`).
alias lreal = f32;

// One unit in the last place of `real`, relative (2⁻⁵²).
const REAL_EPSILON: real = 2.220446049250313e-16;

// The largest finite `real`: `abs(x) <= REAL_MAX` is false for NaN and ±∞
// (real_finite).
const REAL_MAX: real = 1.7976931348623157e308;

fn real_finite(x: real) -> bool { return abs(x) <= REAL_MAX; }
