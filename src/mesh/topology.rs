//! What a mass-spring body needs from a mesh: element measures, the unique element
//! edges with each one's share of the measure, bending pairs across interior edges
//! of surfaces, and the boundary (edges in 2D, faces of tetrahedra in 3D).

use super::{Kind, Mesh};
use glam::DVec3;
use std::collections::HashMap;

/// Euclidean distance between two points (m).
pub fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    DVec3::from(a).distance(DVec3::from(b))
}

/// Area of the triangle `abc` (m²).
pub fn triangle_area(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> f64 {
    let [a, b, c] = [a, b, c].map(DVec3::from);
    0.5 * (b - a).cross(c - a).length()
}

/// Signed volume of the tetrahedron `abcd` (m³), positive when `(b − a) × (c − a)`
/// points towards `d`.
pub fn tet_signed_volume(a: [f64; 3], b: [f64; 3], c: [f64; 3], d: [f64; 3]) -> f64 {
    let [a, b, c, d] = [a, b, c, d].map(DVec3::from);
    (b - a).cross(c - a).dot(d - a) / 6.0
}

/// Diagonal of the axis-aligned bounding box of `points` (m); 0 for none.
pub fn bbox_diagonal(points: &[[f64; 3]]) -> f64 {
    let (lo, hi) = bbox(points);
    if points.is_empty() {
        return 0.0;
    }
    dist(lo, hi)
}

/// Lower and upper corners of the bounding box of `points` (m).
pub fn bbox(points: &[[f64; 3]]) -> ([f64; 3], [f64; 3]) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    (lo, hi)
}

/// The elements of `kind` as node lists.
pub fn elements(mesh: &Mesh, kind: Kind) -> Vec<&[u32]> {
    match kind {
        Kind::Lines => mesh.lines.iter().map(|e| &e[..]).collect(),
        Kind::Triangles => mesh.triangles.iter().map(|e| &e[..]).collect(),
        Kind::Tetrahedra => mesh.tetrahedra.iter().map(|e| &e[..]).collect(),
    }
}

/// The measure of each element of `kind` (m, m² or m³).
pub fn measures(mesh: &Mesh, kind: Kind) -> Vec<f64> {
    let p = |i: u32| mesh.points[i as usize];
    elements(mesh, kind)
        .iter()
        .map(|e| match e.len() {
            2 => dist(p(e[0]), p(e[1])),
            3 => triangle_area(p(e[0]), p(e[1]), p(e[2])),
            _ => tet_signed_volume(p(e[0]), p(e[1]), p(e[2]), p(e[3])).abs(),
        })
        .collect()
}

/// The springs of a mesh: each unique element edge once (in order of first
/// appearance, as `[lower, higher]` node index), with `bending` also a spring
/// between the two opposite vertices of every interior edge of a triangle surface.
/// Each spring carries its share of the body's measure: an element of measure V
/// with m edges gives V/m to each of its edges; a bending spring gets a third of
/// each of its two triangles' areas, (A₁ + A₂)/6; then all shares are scaled to sum
/// to the body's measure (a no-op without bending springs).
pub fn springs(mesh: &Mesh, kind: Kind, bending: bool) -> Vec<([u32; 2], f64)> {
    let els = elements(mesh, kind);
    let meas = measures(mesh, kind);
    let mut index: HashMap<[u32; 2], usize> = HashMap::new();
    let mut out: Vec<([u32; 2], f64)> = Vec::new();
    type Springs = Vec<([u32; 2], f64)>;
    fn add(index: &mut HashMap<[u32; 2], usize>, out: &mut Springs, a: u32, b: u32, share: f64) {
        let key = [a.min(b), a.max(b)];
        match index.get(&key) {
            Some(&s) => out[s].1 += share,
            None => {
                index.insert(key, out.len());
                out.push((key, share));
            }
        }
    }
    for (e, el) in els.iter().enumerate() {
        let m = el.len() * (el.len() - 1) / 2;
        for a in 0..el.len() {
            for b in a + 1..el.len() {
                add(&mut index, &mut out, el[a], el[b], meas[e] / m as f64);
            }
        }
    }
    if bending && kind == Kind::Triangles {
        let mut opposite: HashMap<[u32; 2], Vec<(u32, f64)>> = HashMap::new();
        for (e, t) in mesh.triangles.iter().enumerate() {
            for k in 0..3 {
                let (a, b, c) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3]);
                opposite
                    .entry([a.min(b), a.max(b)])
                    .or_default()
                    .push((c, meas[e]));
            }
        }
        let edges: Vec<[u32; 2]> = out.iter().map(|s| s.0).collect();
        for edge in edges {
            if let Some(o) = opposite.get(&edge).filter(|o| o.len() == 2) {
                let (c, d) = (o[0].0, o[1].0);
                if c != d && !index.contains_key(&[c.min(d), c.max(d)]) {
                    add(&mut index, &mut out, c, d, (o[0].1 + o[1].1) / 6.0);
                }
            }
        }
        let total: f64 = meas.iter().sum();
        let shares: f64 = out.iter().map(|s| s.1).sum();
        out.iter_mut().for_each(|s| s.1 *= total / shares);
    }
    out
}

/// The boundary of a mesh in a scene of dimension `dim`: its measure (m in 2D, m²
/// in 3D) and the nodes on it, plus the surface triangles for output (the
/// boundary faces of tetrahedra, outward; a surface mesh's own triangles). For 2D
/// triangles: the edges used by one triangle; for tetrahedra: the faces used by one
/// tetrahedron; for surfaces and polylines: the whole mesh (area or length).
pub fn boundary(mesh: &Mesh, kind: Kind, dim: usize) -> (f64, Vec<bool>, Vec<[u32; 3]>) {
    let n = mesh.points.len();
    let p = |i: u32| mesh.points[i as usize];
    let mut on = vec![false; n];
    match (kind, dim) {
        (Kind::Tetrahedra, _) => {
            let mut faces: HashMap<[u32; 3], (usize, [u32; 3])> = HashMap::new();
            for t in &mesh.tetrahedra {
                // Faces with outward normals for a positively oriented tetrahedron.
                for f in [
                    [t[0], t[2], t[1]],
                    [t[0], t[1], t[3]],
                    [t[0], t[3], t[2]],
                    [t[1], t[2], t[3]],
                ] {
                    let mut key = f;
                    key.sort_unstable();
                    faces.entry(key).or_insert((0, f)).0 += 1;
                }
            }
            let mut tris: Vec<[u32; 3]> =
                faces.values().filter(|v| v.0 == 1).map(|v| v.1).collect();
            tris.sort_unstable();
            let mut area = 0.0;
            for f in &tris {
                area += triangle_area(p(f[0]), p(f[1]), p(f[2]));
                f.iter().for_each(|&i| on[i as usize] = true);
            }
            (area, on, tris)
        }
        (Kind::Triangles, 2) => {
            let mut count: HashMap<[u32; 2], usize> = HashMap::new();
            for t in &mesh.triangles {
                for k in 0..3 {
                    let (a, b) = (t[k], t[(k + 1) % 3]);
                    *count.entry([a.min(b), a.max(b)]).or_default() += 1;
                }
            }
            let mut length = 0.0;
            for (e, c) in &count {
                if *c == 1 {
                    length += dist(p(e[0]), p(e[1]));
                    on[e[0] as usize] = true;
                    on[e[1] as usize] = true;
                }
            }
            (length, on, mesh.triangles.clone())
        }
        _ => {
            let total = measures(mesh, kind).iter().sum();
            (total, vec![true; n], mesh.triangles.clone())
        }
    }
}

/// The boundary edges of a 2D triangle mesh (those used by one triangle), each
/// oriented as its triangle lists it, sorted.
pub fn boundary_edges(mesh: &Mesh) -> Vec<[u32; 2]> {
    let mut count: HashMap<[u32; 2], (usize, [u32; 2])> = HashMap::new();
    for t in &mesh.triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            count.entry([a.min(b), a.max(b)]).or_insert((0, [a, b])).0 += 1;
        }
    }
    let mut out: Vec<[u32; 2]> = count.values().filter(|c| c.0 == 1).map(|c| c.1).collect();
    out.sort_unstable();
    out
}

/// Each node's share of the body's measure: every element's measure split evenly
/// over its vertices (lumped mass = density × share).
pub fn node_shares(mesh: &Mesh, kind: Kind) -> Vec<f64> {
    let mut share = vec![0.0; mesh.points.len()];
    for (el, m) in elements(mesh, kind).iter().zip(measures(mesh, kind)) {
        for &i in el.iter() {
            share[i as usize] += m / el.len() as f64;
        }
    }
    share
}
