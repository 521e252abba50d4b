//! WGSL code generation for the scene's implicit walls: the module
//! `generated/implicit_walls.wgsl` that the kernels import (`src/backend/gpu/shaders.rs`
//! resolves it from the scene instead of from `shaders/`). It defines
//! `N_IMPLICIT_WALLS` and, dispatching on the wall index,
//! `implicit_wall_value` (value in `real`), `implicit_wall_dual` (value, gradient and
//! Hessian through `shaders/implicit/dual.wgsl`), `implicit_wall_gradient`,
//! `implicit_wall_hessian`, `implicit_wall_interval` (a range over a box through
//! `shaders/implicit/interval.wgsl`) and `implicit_wall_slope` (the ranges of the
//! value and of the derivative along a direction over a box, through
//! `shaders/implicit/slope.wgsl`). Every function mirrors the CPU evaluation of
//! the same [`Expr`] operation for operation, written flat: one `let` per node of
//! the expression tree (`lib`), never nested calls, so that any expression the
//! parser accepts compiles.

use super::expr::{Expr, Func};
use super::wall::ImplicitWall;
use std::fmt::Write;

/// The path under which kernels import the generated module.
pub const GENERATED_PATH: &str = "generated/implicit_walls.wgsl";

/// `c` as a `real` of the kernels' precision: the shortest decimal of the f64, which
/// WGSL rounds to f32 in the f32 mode (as `c as f32`) and keeps exactly in the f64
/// modes. Beyond f32's range it is the largest f32 of its sign (an `inf` literal is
/// not WGSL, and a larger one does not fit f32, so a wall constant such as `1e39`
/// made every kernel fail to compile); a NaN, which no expression or shape
/// produces, is written as 0.
fn lit(c: f64) -> String {
    let big = f32::MAX as f64;
    let v = if c.is_nan() { 0.0 } else { c.clamp(-big, big) };
    format!("real({v:?})")
}

fn var(k: usize) -> &'static str {
    ["x", "y", "z"][k]
}

/// Flat WGSL for `e`: one `let tN = …;` line per node of the tree, children first
/// (SSA form), then `return` of the root. `node(e, args)` writes the right-hand side
/// of node `e` given the names of its children's values (`t3`, …). No WGSL
/// expression nests deeper than one call, so long sums and deep trees stay within
/// naga's and the drivers' recursion limits; the Rust recursion here is as deep as
/// the tree, which the parser bounds ([`super::expr::MAX_DEPTH`]).
fn ssa(e: &Expr, node: &dyn Fn(&Expr, &[String]) -> String) -> String {
    fn walk(
        e: &Expr,
        node: &dyn Fn(&Expr, &[String]) -> String,
        out: &mut String,
        n: &mut usize,
    ) -> String {
        let args: Vec<String> = match e {
            Expr::Const(_) | Expr::Var(_) => vec![],
            Expr::Neg(a) | Expr::PowI(a, _) | Expr::PowC(a, _) | Expr::Call(_, a) => {
                vec![walk(a, node, out, n)]
            }
            Expr::Add(a, b)
            | Expr::Sub(a, b)
            | Expr::Mul(a, b)
            | Expr::Div(a, b)
            | Expr::Min(a, b)
            | Expr::Max(a, b) => {
                let a = walk(a, node, out, n);
                vec![a, walk(b, node, out, n)]
            }
        };
        let name = format!("t{n}");
        *n += 1;
        let _ = writeln!(out, "    let {name} = {};", node(e, &args));
        name
    }
    let mut out = String::new();
    let root = walk(e, node, &mut out, &mut 0);
    let _ = writeln!(out, "    return {root};");
    out
}

/// Function body (flat, see [`ssa`]) of plain `real` arithmetic for the value of `e` at `xi`.
fn value(e: &Expr) -> String {
    ssa(e, &|e, a| match e {
        Expr::Const(c) => lit(*c),
        Expr::Var(k) => format!("xi.{}", var(*k)),
        Expr::Neg(_) => format!("-{}", a[0]),
        Expr::Add(..) => format!("{} + {}", a[0], a[1]),
        Expr::Sub(..) => format!("{} - {}", a[0], a[1]),
        Expr::Mul(..) => format!("{} * {}", a[0], a[1]),
        Expr::Div(..) => format!("{} / {}", a[0], a[1]),
        Expr::PowI(_, n) => format!("real_powi({}, {n})", a[0]),
        Expr::PowC(_, c) => format!("real_pow(max({}, 0.0), {})", a[0], lit(*c)),
        Expr::Call(f, _) => format!("{}({})", wgsl_func(*f), a[0]),
        Expr::Min(..) => format!("min({}, {})", a[0], a[1]),
        Expr::Max(..) => format!("max({}, {})", a[0], a[1]),
    })
}

fn wgsl_func(f: Func) -> &'static str {
    match f {
        Func::Abs => "abs",
        Func::Sqrt => "sqrt",
        Func::Exp => "real_exp",
        Func::Ln => "real_log",
        Func::Sin => "real_sin",
        Func::Cos => "real_cos",
    }
}

/// Function body (flat, see [`ssa`]) computing `e` through the `prefix_` library
/// functions (`dual_add`, `ival_sin`, …: one per operation, `prefix_const(c)` for a
/// number); `leaf(k)` writes variable k. The body ends in `return` of the value, so
/// a wall function is `fn name(params) -> Type {\n` + body + `}`.
fn lib(e: &Expr, prefix: &str, leaf: &dyn Fn(usize) -> String) -> String {
    ssa(e, &|e, a| match e {
        Expr::Const(c) => format!("{prefix}_const({})", lit(*c)),
        Expr::Var(k) => leaf(*k),
        Expr::Neg(_) => format!("{prefix}_neg({})", a[0]),
        Expr::Add(..) => format!("{prefix}_add({}, {})", a[0], a[1]),
        Expr::Sub(..) => format!("{prefix}_sub({}, {})", a[0], a[1]),
        Expr::Mul(..) => format!("{prefix}_mul({}, {})", a[0], a[1]),
        Expr::Div(..) => format!("{prefix}_div({}, {})", a[0], a[1]),
        Expr::PowI(_, n) => format!("{prefix}_powi({}, {n})", a[0]),
        Expr::PowC(_, c) => format!("{prefix}_powc({}, {})", a[0], lit(*c)),
        Expr::Call(f, _) => format!("{prefix}_{}({})", f.name(), a[0]),
        Expr::Min(..) => format!("{prefix}_min({}, {})", a[0], a[1]),
        Expr::Max(..) => format!("{prefix}_max({}, {})", a[0], a[1]),
    })
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
            "fn implicit_wall_value_{i}(xi: vec3<real>) -> real {{\n{}}}\n",
            value(&w.expr)
        );
        let dual = lib(&w.expr, "dual", &|k| format!("dual_var({k}u, xi)"));
        let _ = writeln!(
            s,
            "fn implicit_wall_dual_{i}(xi: vec3<real>) -> Dual {{\n{dual}}}\n"
        );
        let ival = lib(&w.expr, "ival", &|k| {
            format!("Ival(lo.{0}, hi.{0})", var(k))
        });
        let _ = writeln!(
            s,
            "fn implicit_wall_interval_{i}(lo: vec3<real>, hi: vec3<real>) -> Ival {{\n{ival}}}\n"
        );
        let slope = lib(&w.expr, "slope", &|k| {
            format!("slope_var(lo.{0}, hi.{0}, p.{0})", var(k))
        });
        let _ = writeln!(
            s,
            "fn implicit_wall_slope_{i}(lo: vec3<real>, hi: vec3<real>, p: vec3<real>) -> Slope {{\n{slope}}}\n"
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
