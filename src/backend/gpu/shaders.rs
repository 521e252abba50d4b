//! The WGSL sources in `shaders/`, embedded in the binary, and their composition:
//! a line `// #import PATH` pulls in another file (once, depth first, before the
//! importing file), so pure helpers are written once and shared by every kernel.

use crate::precision::GpuPrecision;

/// Every WGSL file under `shaders/`, by its path relative to that folder.
pub const SOURCES: &[(&str, &str)] = &[
    ("common.wgsl", include_str!("../../../shaders/common.wgsl")),
    (
        "ensemble/state.wgsl",
        include_str!("../../../shaders/ensemble/state.wgsl"),
    ),
    (
        "ensemble/round.wgsl",
        include_str!("../../../shaders/ensemble/round.wgsl"),
    ),
    (
        "ensemble/friction.wgsl",
        include_str!("../../../shaders/ensemble/friction.wgsl"),
    ),
    (
        "ensemble/walls.wgsl",
        include_str!("../../../shaders/ensemble/walls.wgsl"),
    ),
    (
        "ensemble/pairs.wgsl",
        include_str!("../../../shaders/ensemble/pairs.wgsl"),
    ),
    (
        "ensemble/watch.wgsl",
        include_str!("../../../shaders/ensemble/watch.wgsl"),
    ),
    (
        "ensemble/pair_friction.wgsl",
        include_str!("../../../shaders/ensemble/pair_friction.wgsl"),
    ),
    (
        "precision/f32.wgsl",
        include_str!("../../../shaders/precision/f32.wgsl"),
    ),
    (
        "precision/f64.wgsl",
        include_str!("../../../shaders/precision/f64.wgsl"),
    ),
    (
        "precision/mixed.wgsl",
        include_str!("../../../shaders/precision/mixed.wgsl"),
    ),
    (
        "precision/f64_math.wgsl",
        include_str!("../../../shaders/precision/f64_math.wgsl"),
    ),
    (
        "bindings.wgsl",
        include_str!("../../../shaders/bindings.wgsl"),
    ),
    ("state.wgsl", include_str!("../../../shaders/state.wgsl")),
    (
        "spring_adjacency.wgsl",
        include_str!("../../../shaders/spring_adjacency.wgsl"),
    ),
    ("reduce.wgsl", include_str!("../../../shaders/reduce.wgsl")),
    (
        "calibrate.wgsl",
        include_str!("../../../shaders/calibrate.wgsl"),
    ),
    (
        "newton/machine.wgsl",
        include_str!("../../../shaders/newton/machine.wgsl"),
    ),
    (
        "newton/machine_probe.wgsl",
        include_str!("../../../shaders/newton/machine_probe.wgsl"),
    ),
    ("wall.wgsl", include_str!("../../../shaders/wall.wgsl")),
    (
        "contact.wgsl",
        include_str!("../../../shaders/contact.wgsl"),
    ),
    (
        "contact_pairs.wgsl",
        include_str!("../../../shaders/contact_pairs.wgsl"),
    ),
    (
        "pair_derivatives.wgsl",
        include_str!("../../../shaders/pair_derivatives.wgsl"),
    ),
    (
        "pair_distance.wgsl",
        include_str!("../../../shaders/pair_distance.wgsl"),
    ),
    (
        "broad_phase_grid.wgsl",
        include_str!("../../../shaders/broad_phase_grid.wgsl"),
    ),
    (
        "pair_friction.wgsl",
        include_str!("../../../shaders/pair_friction.wgsl"),
    ),
    (
        "kernels/pair_friction.wgsl",
        include_str!("../../../shaders/kernels/pair_friction.wgsl"),
    ),
    (
        "pair_candidates.wgsl",
        include_str!("../../../shaders/pair_candidates.wgsl"),
    ),
    (
        "kernels/pair_assemble.wgsl",
        include_str!("../../../shaders/kernels/pair_assemble.wgsl"),
    ),
    (
        "pair_blocks.wgsl",
        include_str!("../../../shaders/pair_blocks.wgsl"),
    ),
    (
        "kernels/broad_phase.wgsl",
        include_str!("../../../shaders/kernels/broad_phase.wgsl"),
    ),
    (
        "kernels/device_newton.wgsl",
        include_str!("../../../shaders/kernels/device_newton.wgsl"),
    ),
    (
        "kernels/pairs.wgsl",
        include_str!("../../../shaders/kernels/pairs.wgsl"),
    ),
    (
        "integrator.wgsl",
        include_str!("../../../shaders/integrator.wgsl"),
    ),
    (
        "energy/spring.wgsl",
        include_str!("../../../shaders/energy/spring.wgsl"),
    ),
    (
        "energy/barrier.wgsl",
        include_str!("../../../shaders/energy/barrier.wgsl"),
    ),
    (
        "energy/friction.wgsl",
        include_str!("../../../shaders/energy/friction.wgsl"),
    ),
    (
        "node_friction.wgsl",
        include_str!("../../../shaders/node_friction.wgsl"),
    ),
    (
        "kernels/friction.wgsl",
        include_str!("../../../shaders/kernels/friction.wgsl"),
    ),
    (
        "energy/inertia.wgsl",
        include_str!("../../../shaders/energy/inertia.wgsl"),
    ),
    (
        "kernels/step.wgsl",
        include_str!("../../../shaders/kernels/step.wgsl"),
    ),
    (
        "kernels/assemble.wgsl",
        include_str!("../../../shaders/kernels/assemble.wgsl"),
    ),
    (
        "kernels/newton_matvec.wgsl",
        include_str!("../../../shaders/kernels/newton_matvec.wgsl"),
    ),
    ("mas.wgsl", include_str!("../../../shaders/mas.wgsl")),
    (
        "kernels/mas_factor.wgsl",
        include_str!("../../../shaders/kernels/mas_factor.wgsl"),
    ),
    (
        "kernels/mas_apply.wgsl",
        include_str!("../../../shaders/kernels/mas_apply.wgsl"),
    ),
    (
        "kernels/mas_cycle.wgsl",
        include_str!("../../../shaders/kernels/mas_cycle.wgsl"),
    ),
    (
        "kernels/cg.wgsl",
        include_str!("../../../shaders/kernels/cg.wgsl"),
    ),
    (
        "kernels/direction_stats.wgsl",
        include_str!("../../../shaders/kernels/direction_stats.wgsl"),
    ),
    (
        "kernels/energy.wgsl",
        include_str!("../../../shaders/kernels/energy.wgsl"),
    ),
    (
        "kernels/reduce_final.wgsl",
        include_str!("../../../shaders/kernels/reduce_final.wgsl"),
    ),
    (
        "kernels/line_search.wgsl",
        include_str!("../../../shaders/kernels/line_search.wgsl"),
    ),
    (
        "implicit/dual.wgsl",
        include_str!("../../../shaders/implicit/dual.wgsl"),
    ),
    (
        "implicit/interval.wgsl",
        include_str!("../../../shaders/implicit/interval.wgsl"),
    ),
    (
        "implicit/slope.wgsl",
        include_str!("../../../shaders/implicit/slope.wgsl"),
    ),
    (
        "implicit/wall.wgsl",
        include_str!("../../../shaders/implicit/wall.wgsl"),
    ),
    (
        "implicit/frame.wgsl",
        include_str!("../../../shaders/implicit/frame.wgsl"),
    ),
];

const IMPORT: &str = "// #import ";

/// The import that resolves to the precision mode's file (`shaders/precision/`).
pub const PRECISION_PATH: &str = "precision.wgsl";

/// The source of one file under `shaders/`.
pub fn source(path: &str) -> Result<&'static str, String> {
    SOURCES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, s)| *s)
        .ok_or_else(|| format!("shader `{path}` is not embedded (src/backend/gpu/shaders.rs)"))
}

/// The complete WGSL module for `path`: its imports (recursively, each once) followed
/// by its own text; `generated/implicit_walls.wgsl` is the module for a scene
/// without implicit walls, `precision.wgsl` the f32 mode's file.
pub fn compose(path: &str) -> Result<String, String> {
    compose_with(path, &crate::implicit::wgsl::generate(&[]))
}

/// As [`compose`], with `generated` (from [`crate::implicit::wgsl::generate`]) as the
/// text of `generated/implicit_walls.wgsl`, the one import not read from `shaders/`.
pub fn compose_with(path: &str, generated: &str) -> Result<String, String> {
    compose_for(path, generated, GpuPrecision::F32)
}

/// As [`compose_with`], with `precision.wgsl` resolved to the file of `precision`.
pub fn compose_for(path: &str, generated: &str, precision: GpuPrecision) -> Result<String, String> {
    let mut out = String::new();
    let mut seen = Vec::new();
    let ctx = Imports {
        generated,
        precision,
    };
    compose_into(path, &ctx, &mut out, &mut seen, 0)?;
    Ok(out)
}

/// What the imports that are not plain files resolve to.
struct Imports<'a> {
    generated: &'a str,
    precision: GpuPrecision,
}

fn compose_into(
    path: &str,
    ctx: &Imports,
    out: &mut String,
    seen: &mut Vec<String>,
    depth: usize,
) -> Result<(), String> {
    let path = if path == PRECISION_PATH {
        ctx.precision.shader_file()
    } else {
        path
    };
    if seen.iter().any(|s| s == path) {
        return Ok(());
    }
    if depth > 32 {
        return Err(format!("shader imports nest too deep at `{path}`"));
    }
    seen.push(path.to_string());
    let text = if path == crate::implicit::wgsl::GENERATED_PATH {
        ctx.generated
    } else {
        source(path)?
    };
    for line in text.lines() {
        if let Some(dep) = line.trim().strip_prefix(IMPORT) {
            compose_into(dep.trim(), ctx, out, seen, depth + 1)?;
        }
    }
    out.push_str(&format!("// ---- {path}\n"));
    out.push_str(text);
    out.push('\n');
    Ok(())
}
