//! Implicit walls' generated WGSL (no device needed): the module of every bundled
//! implicit-wall scene, every operation of the language, the longest sums and the
//! deepest expressions compose into every kernel and validate with naga.

mod common;
use springsim::backend::gpu::kernels::Kernel;
use springsim::backend::gpu::pipelines::reflect_with;
use springsim::implicit::wgsl::generate;
use springsim::scene;

const SCENES: [&str; 5] = [
    "circle_balls",
    "diamond_balls",
    "sextic_balls",
    "square_in_bowl",
    "lattice_in_sphere",
];

#[test]
fn generated_wall_modules_validate_in_every_kernel() {
    let mut walls = Vec::new();
    for name in SCENES {
        let s = scene::load(&format!("scenes/{name}.toml")).unwrap();
        walls.extend(s.model.implicit_walls.clone());
        let gen = generate(&s.model.implicit_walls);
        for (path, _) in Kernel::files() {
            reflect_with(path, &gen).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
    // every operation of the language at once, as a user expression
    let e = springsim::implicit::parse(
        "abs(x)^2.5 + sqrt(1 + y^2) * exp(-x) / (2 + cos(x)) - ln(3 + sin(y)) + min(x, y) - max(x, -y)^3 + x^-2",
        2,
    )
    .unwrap();
    walls.push(springsim::implicit::ImplicitWall {
        expr: e,
        label: "all".into(),
        frame: None,
    });
    let gen = generate(&walls);
    for (path, _) in Kernel::files() {
        reflect_with(path, &gen).unwrap_or_else(|e| panic!("all walls: {e}"));
    }
}

/// Defect: a 200-term sum failed on the GPU with naga's "recursion limit" (the
/// generated WGSL nested one call per term). The generated code is flat now: the
/// longest sum and the deepest expressions the parser accepts validate in every kernel.
#[test]
fn longest_sums_and_deepest_expressions_validate_in_every_kernel() {
    use springsim::implicit::expr::MAX_DEPTH;
    let mut srcs = vec![format!("x{}", " + y".repeat(MAX_DEPTH))];
    srcs.push(format!("{}x", "-".repeat(MAX_DEPTH)));
    srcs.push((0..MAX_DEPTH).fold("x".to_string(), |e, _| format!("sin({e})")));
    srcs.push((0..MAX_DEPTH - 1).fold("1 - x".to_string(), |e, _| format!("min({e}, 2 - y)")));
    srcs.push((0..MAX_DEPTH / 3).fold("x".to_string(), |e, _| format!("sqrt(1 + abs({e}))")));
    // constants beyond f32's range
    srcs.push("1e39 * x - 1e300 + abs(y)^1e40 - 1e-50".to_string());
    let walls: Vec<_> = srcs
        .iter()
        .map(|src| springsim::implicit::ImplicitWall {
            expr: springsim::implicit::parse(src, 2).unwrap(),
            label: "deep".into(),
            frame: None,
        })
        .collect();
    let gen = generate(&walls);
    // flat: no line of the generated module holds more than one library call
    assert!(
        gen.lines().all(|l| l.matches('(').count() <= 3),
        "nested calls in the generated WGSL"
    );
    for (path, _) in Kernel::files() {
        reflect_with(path, &gen).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
}
