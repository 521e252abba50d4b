//! Helpers shared by the integration tests.
#![allow(dead_code)]

use springsim::scene::{self, Scene};

/// Parses a scene from TOML text, panicking with the error (tests only).
pub fn scene(text: &str) -> Scene {
    scene::parse(text, "test.toml", "test").unwrap_or_else(|e| panic!("{e}"))
}

/// A small deterministic pseudo-random generator (xorshift) for test inputs.
pub struct Rng(pub u64);

impl Rng {
    /// Uniform in [-1, 1).
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// A 2D scene: a 3×2-cell grid near a slanted wall and the ground, with options spliced in.
pub fn grid_scene(barrier: &str, integrator: &str, extra_body: &str) -> Scene {
    scene(&format!(
        r#"
dimension = 2
[solver]
dt = 0.01
integrator = "{integrator}"
cg_tolerance = 1e-12
[contact]
dhat = 0.05
kappa = 1e4
barrier = "{barrier}"
[[walls]]
type = "plane"
point = [0.0, -0.6]
normal = [0.0, 1.0]
[[walls]]
type = "plane"
point = [-0.8, 0.0]
normal = [1.0, 0.3]
[[bodies]]
generator = "grid"
size = [0.9, 0.6]
cells = [3, 2]
density = 100.0
spring_stiffness = 500.0
{extra_body}
"#
    ))
}

/// A 3D scene: a 2×1×2 lattice above the ground and beside a slanted wall.
pub fn lattice_scene(barrier: &str) -> Scene {
    scene(&format!(
        r#"
dimension = 3
[solver]
dt = 0.01
cg_tolerance = 1e-12
[contact]
dhat = 0.05
kappa = 1e4
barrier = "{barrier}"
[[walls]]
type = "plane"
point = [0.0, -0.4, 0.0]
normal = [0.0, 1.0, 0.0]
[[walls]]
type = "plane"
point = [-0.6, 0.0, 0.0]
normal = [1.0, 0.2, 0.1]
[[bodies]]
generator = "lattice"
size = [0.6, 0.4, 0.5]
cells = [2, 1, 2]
density = 100.0
spring_stiffness = 500.0
"#
    ))
}
