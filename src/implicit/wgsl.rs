//! WGSL code generation for the scene's implicit walls: the module
//! `generated/implicit_walls.wgsl` that the kernels import (`src/gpu/shaders.rs`
//! resolves it from the scene instead of from `shaders/`). It defines
//! `N_IMPLICIT_WALLS` and, dispatching on the wall index,
//! `implicit_wall_value` (f32 value), `implicit_wall_dual` (value, gradient and
//! Hessian through `shaders/implicit/dual.wgsl`), `implicit_wall_gradient`,
//! `implicit_wall_hessian`, `implicit_wall_interval` (a range over a box through
//! `shaders/implicit/interval.wgsl`) and `implicit_wall_slope` (the ranges of the
//! value and of the derivative along a direction over a box, through
//! `shaders/implicit/slope.wgsl`). Every function mirrors the CPU evaluation of
//! the same [`Expr`] operation for operation.

use super::expr::{Expr, Func};
use super::wall::ImplicitWall;
use std::fmt::Write;

/// The path under which kernels import the generated module.
pub const GENERATED_PATH: &str = "generated/implicit_walls.wgsl";

fn lit(c: f64) -> String {
    format!("real({:?})", c as f32)
}

fn var(k: usize) -> &'static str {
    ["x", "y", "z"][k]
}

/// Plain f32 arithmetic for the value of `e` at `xi`.
fn value(e: &Expr) -> String {
    match e {
        Expr::Const(c) => lit(*c),
        Expr::Var(k) => format!("xi.{}", var(*k)),
        Expr::Neg(a) => format!("(-{})", value(a)),
        Expr::Add(a, b) => format!("({} + {})", value(a), value(b)),
        Expr::Sub(a, b) => format!("({} - {})", value(a), value(b)),
        Expr::Mul(a, b) => format!("({} * {})", value(a), value(b)),
        Expr::Div(a, b) => format!("({} / {})", value(a), value(b)),
        Expr::PowI(a, n) => format!("real_powi({}, {n})", value(a)),
        Expr::PowC(a, c) => format!("pow(max({}, 0.0), {})", value(a), lit(*c)),
        Expr::Call(f, a) => format!("{}({})", wgsl_func(*f), value(a)),
        Expr::Min(a, b) => format!("min({}, {})", value(a), value(b)),
        Expr::Max(a, b) => format!("max({}, {})", value(a), value(b)),
    }
}

fn wgsl_func(f: Func) -> &'static str {
    match f {
        Func::Abs => "abs",
        Func::Sqrt => "sqrt",
        Func::Exp => "exp",
        Func::Ln => "log",
        Func::Sin => "sin",
        Func::Cos => "cos",
    }
}

/// Calls of the `prefix_` library functions (dual or interval) for `e`; `leaf(k)`
/// writes variable k.
fn lib(e: &Expr, prefix: &str, leaf: &dyn Fn(usize) -> String) -> String {
    let r = |a: &Expr| lib(a, prefix, leaf);
    match e {
        Expr::Const(c) => format!("{prefix}_const({})", lit(*c)),
        Expr::Var(k) => leaf(*k),
        Expr::Neg(a) => format!("{prefix}_neg({})", r(a)),
        Expr::Add(a, b) => format!("{prefix}_add({}, {})", r(a), r(b)),
        Expr::Sub(a, b) => format!("{prefix}_sub({}, {})", r(a), r(b)),
        Expr::Mul(a, b) => format!("{prefix}_mul({}, {})", r(a), r(b)),
        Expr::Div(a, b) => format!("{prefix}_div({}, {})", r(a), r(b)),
        Expr::PowI(a, n) => format!("{prefix}_powi({}, {n})", r(a)),
        Expr::PowC(a, c) => format!("{prefix}_powc({}, {})", r(a), lit(*c)),
        Expr::Call(f, a) => format!("{prefix}_{}({})", f.name(), r(a)),
        Expr::Min(a, b) => format!("{prefix}_min({}, {})", r(a), r(b)),
        Expr::Max(a, b) => format!("{prefix}_max({}, {})", r(a), r(b)),
    }
}

/// The generated module for `walls` (any number, zero included).
pub fn generate(walls: &[ImplicitWall]) -> String {
    let mut s = String::new();
    s.push_str("// Generated from the scene's implicit walls (src/implicit/wgsl.rs).\n");
    s.push_str(
        "// #import implicit/dual.wgsl\n// #import implicit/interval.wgsl\n// #import implicit/slope.wgsl\n\n",
    );
    let _ = writeln!(s, "const N_IMPLICIT_WALLS: u32 = {}u;\n", walls.len());
    for (i, w) in walls.iter().enumerate() {
        let label = w.label.replace('\n', " ");
        let _ = writeln!(s, "// wall {i}: {label}");
        let _ = writeln!(
            s,
            "fn implicit_wall_value_{i}(xi: vec3<real>) -> real {{\n    return {};\n}}\n",
            value(&w.expr)
        );
        let dual = lib(&w.expr, "dual", &|k| format!("dual_var({k}u, xi)"));
        let _ = writeln!(
            s,
            "fn implicit_wall_dual_{i}(xi: vec3<real>) -> Dual {{\n    return {dual};\n}}\n"
        );
        let ival = lib(&w.expr, "ival", &|k| {
            format!("Ival(lo.{0}, hi.{0})", var(k))
        });
        let _ = writeln!(
            s,
            "fn implicit_wall_interval_{i}(lo: vec3<real>, hi: vec3<real>) -> Ival {{\n    return {ival};\n}}\n"
        );
        let slope = lib(&w.expr, "slope", &|k| {
            format!("slope_var(lo.{0}, hi.{0}, p.{0})", var(k))
        });
        let _ = writeln!(
            s,
            "fn implicit_wall_slope_{i}(lo: vec3<real>, hi: vec3<real>, p: vec3<real>) -> Slope {{\n    return {slope};\n}}\n"
        );
    }
    let dispatch = |name: &str, args: &str, params: &str, ret: &str, default: &str| {
        let mut f =
            format!("fn implicit_wall_{name}(w: u32, {params}) -> {ret} {{\n    switch w {{\n");
        for i in 0..walls.len() {
            let _ = writeln!(
                f,
                "        case {i}u: {{ return implicit_wall_{name}_{i}({args}); }}"
            );
        }
        let _ = writeln!(f, "        default: {{ return {default}; }}\n    }}\n}}\n");
        f
    };
    s.push_str(&dispatch("value", "xi", "xi: vec3<real>", "real", "BIG"));
    s.push_str(&dispatch(
        "dual",
        "xi",
        "xi: vec3<real>",
        "Dual",
        "dual_const(BIG)",
    ));
    s.push_str(&dispatch(
        "interval",
        "lo, hi",
        "lo: vec3<real>, hi: vec3<real>",
        "Ival",
        "Ival(BIG, BIG)",
    ));
    s.push_str(&dispatch(
        "slope",
        "lo, hi, p",
        "lo: vec3<real>, hi: vec3<real>, p: vec3<real>",
        "Slope",
        "slope_const(BIG)",
    ));
    s.push_str(
        "fn implicit_wall_gradient(w: u32, xi: vec3<real>) -> vec3<real> {\n    return implicit_wall_dual(w, xi).g;\n}\n\n",
    );
    s.push_str(
        "fn implicit_wall_hessian(w: u32, xi: vec3<real>) -> mat3x3<real> {\n    return implicit_wall_dual(w, xi).h;\n}\n",
    );
    s
}
