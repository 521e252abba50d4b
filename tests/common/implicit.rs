//! Scene texts shared by the implicit-wall tests (CPU and GPU).

/// A scene of one particle (1 kg) inside the implicit `wall` (its keys after
/// `type = "implicit"`): dt 0.01 s, d̂ 0.01 m, κ 1e3, in `dim` dimensions, with
/// `solver_extra` and `body_extra` (whole lines, or empty) added to `[solver]` and to
/// the body. The text starts with an empty line.
pub fn particle_scene(dim: usize, solver_extra: &str, wall: &str, body_extra: &str) -> String {
    format!(
        r#"
dimension = {dim}
[solver]
dt = 0.01
{solver_extra}[contact]
dhat = 0.01
kappa = 1e3
[[walls]]
type = "implicit"
{wall}
[[bodies]]
generator = "particle"
mass = 1.0
{body_extra}"#
    )
}

/// One particle (1 kg, no radius) at `center` inside the implicit `wall`, in
/// [`particle_scene`] with gravity −9.81 m/s² along y; `dim` is 2 or 3.
pub fn one_particle(dim: usize, wall: &str, center: &str) -> String {
    let g = if dim == 2 {
        "[0.0, -9.81]"
    } else {
        "[0.0, -9.81, 0.0]"
    };
    particle_scene(
        dim,
        &format!("gravity = {g}\n"),
        wall,
        &format!("center = {center}\n"),
    )
}

/// A 2D ball (1 kg, radius 0.3 m) at `center` shot down at 30 m/s inside `wall` (the
/// whole `[[walls]]` entry): dt 1e-3 s, tolerance 1e-3, d̂ 0.01 m, κ 1e4, IPC barrier.
pub fn ball_shot_down(wall: &str, center: &str) -> String {
    format!(
        r#"
dimension = 2
[solver]
dt = 1e-3
tolerance = 1e-3
gravity = [0.0, -9.8]
[contact]
dhat = 0.01
kappa = 1e4
barrier = "ipc"
[[walls]]
{wall}
[[bodies]]
generator = "particle"
mass = 1.0
radius = 0.3
center = {center}
velocity = [0.0, -30.0]
"#
    )
}
