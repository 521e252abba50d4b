// Precision f32: every real of the GPU in f32 (any adapter). The kernels import the
// mode's file as `precision.wgsl` (src/backend/gpu/shaders.rs picks it).

// Positions, velocities, energies, CCD and every scalar of the Newton driver.
alias real = f32;
// What a CG iteration streams: z, d, q, the Newton node blocks, the preconditioner
// (CG's accumulators p and r are `real`).
alias lreal = f32;

// One unit in the last place of `real`, relative (2⁻²³): below it a step of x is
// rounding noise.
const REAL_EPSILON: real = 1.1920929e-7;

// The largest finite `real`: `abs(x) <= REAL_MAX` is false for NaN and ±∞
// (real_finite).
const REAL_MAX: real = 3.4028235e38;

fn real_finite(x: real) -> bool { return abs(x) <= REAL_MAX; }

fn real_log(x: real) -> real { return log(x); }
fn real_exp(x: real) -> real { return exp(x); }
fn real_pow(b: real, c: real) -> real { return pow(b, c); }
fn real_sin(x: real) -> real { return sin(x); }
fn real_cos(x: real) -> real { return cos(x); }
