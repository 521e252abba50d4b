//! springsim's contact primitives against ipc-toolkit's Python bindings (`ipctk`):
//! squared distances and their gradients, the IPC barrier value and additive CCD,
//! on seeded random and degenerate pairs (2D/3D point–edge, point–triangle,
//! edge–edge). Our values go to a JSON file that `scripts/ipctk_reference.py`
//! recomputes with ipctk and compares (see the script for the tolerances and why
//! each CCD comparison is fair).
//!
//! `SPRINGSIM_PYTHON` names a Python with numpy and ipctk. Without it (or when it
//! cannot import ipctk) the test fails under `CI` and is skipped with a note
//! otherwise.

use serde_json::{json, Value};
use springsim::collision::ccd::{additive_ccd_outcome, CcdParams, CcdStop, PairKind};
use springsim::collision::distance::{
    edge_edge_distance_sq, edge_edge_distance_sq_derivatives, point_edge_distance_sq,
    point_edge_distance_sq_derivatives, point_triangle_distance_sq,
    point_triangle_distance_sq_derivatives,
};
use springsim::energy::barrier::{barrier_value, BarrierKind, BarrierParams};
use std::process::Command;

/// SplitMix64: a small seeded generator, so the cases are the same every run.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [lo, hi).
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    fn vec(&mut self, n: usize, scale: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(-scale, scale)).collect()
    }
}

fn sub(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(a, b)| a - b).collect()
}

fn cross(a: &[f64], b: &[f64]) -> Vec<f64> {
    vec![
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn unit(v: Vec<f64>) -> Vec<f64> {
    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.iter().map(|x| x / n).collect()
}

fn node(x: &[f64], dim: usize, i: usize) -> &[f64] {
    &x[i * dim..(i + 1) * dim]
}

fn set_node(x: &mut [f64], dim: usize, i: usize, v: &[f64]) {
    x[i * dim..(i + 1) * dim].copy_from_slice(v);
}

/// Our squared distance and its gradient for stacked nodes `x`.
fn ours(kind: PairKind, dim: usize, x: &[f64]) -> (f64, Vec<f64>) {
    let n = |i| node(x, dim, i);
    let (d2, der) = match kind {
        PairKind::PointEdge => (
            point_edge_distance_sq(n(0), n(1), n(2)),
            point_edge_distance_sq_derivatives(x, dim),
        ),
        PairKind::PointTriangle => (
            point_triangle_distance_sq(n(0), n(1), n(2), n(3)),
            point_triangle_distance_sq_derivatives(x),
        ),
        PairKind::EdgeEdge => (
            edge_edge_distance_sq(n(0), n(1), n(2), n(3)),
            edge_edge_distance_sq_derivatives(x),
        ),
    };
    (d2, der.gradient[..x.len()].to_vec())
}

/// A point of the second primitive (random barycentric weights) and a unit
/// normal to it there (to the edge in 2D, to the triangle / both edges in 3D).
fn target_and_normal(kind: PairKind, dim: usize, x: &[f64], rng: &mut Rng) -> (Vec<f64>, Vec<f64>) {
    let (u, w) = (rng.uniform(0.05, 0.95), rng.uniform(0.05, 0.95));
    let (u, w) = if u + w > 1.0 {
        (1.0 - u, 1.0 - w)
    } else {
        (u, w)
    };
    let lerp = |a: &[f64], b: &[f64], s: f64| -> Vec<f64> {
        a.iter().zip(b).map(|(a, b)| a + s * (b - a)).collect()
    };
    match kind {
        PairKind::PointEdge => {
            let e = sub(node(x, dim, 2), node(x, dim, 1));
            let normal = if dim == 2 {
                unit(vec![-e[1], e[0]])
            } else {
                unit(cross(&e, &rng.vec(3, 1.0)))
            };
            (lerp(node(x, dim, 1), node(x, dim, 2), u), normal)
        }
        PairKind::PointTriangle => {
            let (t0, t1, t2) = (node(x, 3, 1), node(x, 3, 2), node(x, 3, 3));
            let q: Vec<f64> = (0..3)
                .map(|i| t0[i] + u * (t1[i] - t0[i]) + w * (t2[i] - t0[i]))
                .collect();
            (q, unit(cross(&sub(t1, t0), &sub(t2, t0))))
        }
        PairKind::EdgeEdge => {
            let e = sub(node(x, 3, 1), node(x, 3, 0));
            let f = sub(node(x, 3, 3), node(x, 3, 2));
            (lerp(node(x, 3, 2), node(x, 3, 3), u), unit(cross(&e, &f)))
        }
    }
}

/// Picks a point `q` of the second primitive with its unit normal (see
/// [`target_and_normal`]), draws `gap(rng)` and moves the first side (the point,
/// or edge a) rigidly so that its point `anchor` lands on `q + gap · normal`;
/// returns the normal.
fn place_first_side(
    kind: PairKind,
    dim: usize,
    x: &mut [f64],
    rng: &mut Rng,
    gap: impl FnOnce(&mut Rng) -> f64,
) -> Vec<f64> {
    let (q, normal) = target_and_normal(kind, dim, x, rng);
    let gap = gap(rng);
    let first = if kind == PairKind::EdgeEdge { 2 } else { 1 };
    let anchor: Vec<f64> = if first == 1 {
        node(x, dim, 0).to_vec()
    } else {
        (0..3).map(|i| 0.5 * (x[i] + x[3 + i])).collect()
    };
    let shift: Vec<f64> = (0..dim)
        .map(|i| q[i] + gap * normal[i] - anchor[i])
        .collect();
    for k in 0..first {
        let moved: Vec<f64> = node(x, dim, k)
            .iter()
            .zip(&shift)
            .map(|(a, s)| a + s)
            .collect();
        set_node(x, dim, k, &moved);
    }
    normal
}

/// One case: positions and displacement of a pair, with a label.
fn make_case(
    kind: PairKind,
    dim: usize,
    family: usize,
    rng: &mut Rng,
) -> (String, Vec<f64>, Vec<f64>) {
    let k = if kind == PairKind::PointEdge { 3 } else { 4 };
    let n = k * dim;
    let scale = [1e-3, 1.0, 1.0, 1e3][rng.below(4)];
    let mut x = rng.vec(n, scale);
    let speed = [0.1, 1.0, 4.0][rng.below(3)] * scale;
    let mut p = rng.vec(n, speed);
    let first = if kind == PairKind::EdgeEdge { 2 } else { 1 };
    let label = match family {
        0 => "random",
        1 => {
            // Pass-through: the first side moves through the other primitive.
            let normal = place_first_side(kind, dim, &mut x, rng, |r| r.uniform(0.05, 1.0) * scale);
            for k in 0..first {
                for i in 0..dim {
                    p[k * dim + i] = -2.0 * scale * normal[i] + 0.01 * p[k * dim + i];
                }
            }
            "pass-through"
        }
        2 => {
            // Tiny gap, 1e-8 to 1e-4 of the scale, random motion.
            place_first_side(kind, dim, &mut x, rng, |r| {
                10f64.powf(r.uniform(-8.0, -4.0)) * scale
            });
            "tiny-gap"
        }
        3 => {
            // Sliding: the first side moves parallel to the other primitive.
            place_first_side(kind, dim, &mut x, rng, |r| r.uniform(0.01, 0.5) * scale);
            let along = sub(node(&x, dim, first + 1), node(&x, dim, first));
            for k in 0..n {
                p[k] = if k < first * dim { along[k % dim] } else { 0.0 };
            }
            "sliding"
        }
        4 => {
            // Degenerate geometry: region boundaries, collinear / coplanar, parallel.
            match (kind, rng.below(3)) {
                (PairKind::PointEdge, 0) => {
                    // Point on the edge's line beyond e1.
                    let e = sub(node(&x, dim, 2), node(&x, dim, 1));
                    let q: Vec<f64> = node(&x, dim, 2)
                        .iter()
                        .zip(&e)
                        .map(|(a, e)| a + 0.5 * e)
                        .collect();
                    set_node(&mut x, dim, 0, &q);
                }
                (PairKind::PointEdge, _) | (PairKind::PointTriangle, 0) => {
                    // Point straight above a vertex (closest-point region boundary).
                    let v = node(&x, dim, 1).to_vec();
                    let (_, normal) = target_and_normal(kind, dim, &x, rng);
                    let q: Vec<f64> = v
                        .iter()
                        .zip(&normal)
                        .map(|(a, b)| a + 0.3 * scale * b)
                        .collect();
                    set_node(&mut x, dim, 0, &q);
                }
                (PairKind::PointTriangle, _) => {
                    // Point in the triangle's plane, outside it.
                    let (t0, t1, t2) = (node(&x, 3, 1), node(&x, 3, 2), node(&x, 3, 3));
                    let q: Vec<f64> = (0..3)
                        .map(|i| t0[i] + 1.2 * (t1[i] - t0[i]) + 0.7 * (t2[i] - t0[i]))
                        .collect();
                    set_node(&mut x, 3, 0, &q);
                }
                (PairKind::EdgeEdge, 0) => {
                    // Exactly parallel edges (b a scaled, shifted copy of a).
                    let e = sub(node(&x, 3, 1), node(&x, 3, 0));
                    let off = rng.vec(3, 0.5 * scale);
                    let b0: Vec<f64> = (0..3).map(|i| x[i] + off[i] + 0.25 * e[i]).collect();
                    let b1: Vec<f64> = (0..3).map(|i| b0[i] + 0.5 * e[i]).collect();
                    set_node(&mut x, 3, 2, &b0);
                    set_node(&mut x, 3, 3, &b1);
                }
                (PairKind::EdgeEdge, 1) => {
                    // Nearly parallel: tilted by ~1e-9.
                    let e = sub(node(&x, 3, 1), node(&x, 3, 0));
                    let off = rng.vec(3, 0.5 * scale);
                    let tilt = rng.vec(3, 1e-9 * scale);
                    let b0: Vec<f64> = (0..3).map(|i| x[i] + off[i]).collect();
                    let b1: Vec<f64> = (0..3).map(|i| b0[i] + e[i] + tilt[i]).collect();
                    set_node(&mut x, 3, 2, &b0);
                    set_node(&mut x, 3, 3, &b1);
                }
                _ => {
                    // Coplanar edges whose lines cross outside the segments.
                    let z = x[2];
                    for i in 0..4 {
                        x[3 * i + 2] = z;
                    }
                }
            }
            if rng.below(3) == 0 {
                // Rigid translation of the whole pair.
                let t = rng.vec(dim, speed);
                for k in 0..n {
                    p[k] = t[k % dim];
                }
            }
            "degenerate"
        }
        _ => unreachable!(),
    };
    (label.to_string(), x, p)
}

/// The pair kinds with their dimension and the script's name for them.
const KINDS: [(PairKind, usize, &str); 4] = [
    (PairKind::PointEdge, 2, "point_edge"),
    (PairKind::PointEdge, 3, "point_edge"),
    (PairKind::PointTriangle, 3, "point_triangle"),
    (PairKind::EdgeEdge, 3, "edge_edge"),
];

fn all_cases() -> Value {
    let mut rng = Rng(0x5EED_1C7C_0000_0001);
    let mut cases = Vec::new();
    for (kind, dim, kind_name) in KINDS {
        for i in 0..300 {
            let family = [0, 0, 1, 2, 3, 4][i % 6];
            let (label, x, p) = make_case(kind, dim, family, &mut rng);
            let (d2, grad) = ours(kind, dim, &x);
            let xi = match rng.below(10) {
                0..=5 => 0.0,
                6..=8 => rng.uniform(0.0, 0.9) * d2.sqrt(),
                _ => rng.uniform(1.0, 2.0) * d2.sqrt(),
            };
            let params = CcdParams {
                min_separation: xi,
                keep: 0.1,
                t_max: 1.0,
                max_iterations: 10_000_000,
            };
            let o = additive_ccd_outcome(kind, dim, &x, &p, &params);
            let stop = if o.stop == CcdStop::IterationCap {
                "IterationCap"
            } else {
                "other"
            };
            cases.push(json!({
                "name": format!("{kind_name}{dim}d-{label}-{i}"),
                "kind": kind_name, "dim": dim, "x": x, "p": p,
                "distance_sq": d2, "gradient": grad,
                "ccd": {"min_separation": xi, "keep": params.keep, "t_max": params.t_max,
                        "t": o.t, "stop": stop},
            }));
        }
    }
    let mut barrier = Vec::new();
    for dhat in [1e-3, 1e-2, 1.0] {
        for j in 0..40 {
            let d = dhat * 10f64.powf(-6.0 + 6.3 * f64::from(j) / 39.0);
            let bp = BarrierParams {
                kind: BarrierKind::Ipc,
                dhat,
                kappa: 1.0,
            };
            barrier.push(json!({"d": d, "dhat": dhat, "value": barrier_value(&bp, 1.0, d)}));
        }
    }
    json!({ "cases": cases, "barrier": barrier })
}

/// The Python to use, or why there is none.
fn python_with_ipctk() -> Result<String, String> {
    let python = std::env::var("SPRINGSIM_PYTHON")
        .map_err(|_| "SPRINGSIM_PYTHON is not set (a Python with numpy and ipctk)".to_string())?;
    let ok = Command::new(&python)
        .args(["-c", "import numpy, ipctk"])
        .output()
        .map_err(|e| format!("cannot run SPRINGSIM_PYTHON={python}: {e}"))?;
    if !ok.status.success() {
        return Err(format!(
            "SPRINGSIM_PYTHON={python} cannot import numpy and ipctk: {}",
            String::from_utf8_lossy(&ok.stderr)
                .trim()
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    Ok(python)
}

#[test]
fn distances_gradients_barrier_and_ccd_match_ipctk() {
    let python = match python_with_ipctk() {
        Ok(p) => p,
        Err(why) if std::env::var_os("CI").is_some() => {
            panic!("ipctk reference comparison cannot run under CI: {why}")
        }
        Err(why) => {
            eprintln!("note: ipctk reference comparison skipped: {why}");
            return;
        }
    };
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ipctk_reference_{}.json", std::process::id()));
    std::fs::write(&path, serde_json::to_string(&all_cases()).unwrap()).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/ipctk_reference.py");
    let out = Command::new(&python)
        .arg(script)
        .arg(&path)
        .output()
        .expect("run scripts/ipctk_reference.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}{stderr}");
    assert!(
        out.status.success(),
        "scripts/ipctk_reference.py reported mismatches ({}), cases in {}:\n{stdout}{stderr}",
        out.status,
        path.display()
    );
    assert!(
        stdout.contains("ipctk_reference: 1320 cases compared, 0 mismatches"),
        "{stdout}"
    );
    std::fs::remove_file(&path).ok();
}
