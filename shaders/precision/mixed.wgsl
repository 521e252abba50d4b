// Precision mixed (adapters with SHADER_F64): the state, the energies and their
// differences, the CCD and the Newton driver's scalars in f64; what a CG iteration
// streams (the CG vectors, the Newton node blocks, the preconditioner's data) stored
// in f32 and widened to f64 on load, so a CG iteration moves about the bytes of the
// f32 mode (BENCHMARKS.md, "Precision"). The kernels import the mode's file as
// `precision.wgsl` (src/backend/gpu/shaders.rs picks it).
// #import precision/f64_math.wgsl

// Positions, velocities, energies, CCD and every scalar of the Newton driver.
alias real = f64;
// The CG vectors (p, r, z, d, q), the Newton node blocks and the preconditioner.
alias lreal = f32;

// One unit in the last place of `real`, relative (2⁻⁵²).
const REAL_EPSILON: real = 2.220446049250313e-16;
