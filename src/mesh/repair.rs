//! Meshes as users have them: what [`super::read`] fixes, with a note each, and the
//! checks of how elements meet. Springs do not care how a file numbers its nodes, so
//! nodes written twice at one position (seams of OBJ exports) are merged and an
//! element written twice is dropped; elements that overlap (a triangle edge of a
//! planar mesh, or a tetrahedron face, shared by more than two elements) are refused;
//! a surface's edge shared by more than two triangles and a file of several
//! disconnected pieces load with a note.

use super::{Mesh, MeshError};
use std::collections::HashMap;

/// The nodes of every kept element (after [`Mesh::keep_top_dimension`], one kind).
fn elements(mesh: &Mesh) -> Vec<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = mesh.lines.iter().map(|e| e.to_vec()).collect();
    out.extend(mesh.triangles.iter().map(|e| e.to_vec()));
    out.extend(mesh.tetrahedra.iter().map(|e| e.to_vec()));
    out
}

/// Renumbers every element's nodes through `map` and drops the points no element
/// uses any more (kept in their order).
pub fn renumber(mesh: &mut Mesh, map: &[u32]) {
    let n = mesh.points.len();
    let mut used = vec![false; n];
    let mut apply = |el: &mut [u32]| {
        for i in el.iter_mut() {
            *i = map[*i as usize];
            used[*i as usize] = true;
        }
    };
    mesh.lines.iter_mut().for_each(|e| apply(e));
    mesh.triangles.iter_mut().for_each(|e| apply(e));
    mesh.tetrahedra.iter_mut().for_each(|e| apply(e));
    let mut new = vec![u32::MAX; n];
    let mut points = Vec::new();
    for i in 0..n {
        if used[i] {
            new[i] = points.len() as u32;
            points.push(mesh.points[i]);
        }
    }
    mesh.points = points;
    let re = |el: &mut [u32]| el.iter_mut().for_each(|i| *i = new[*i as usize]);
    mesh.lines.iter_mut().for_each(|e| re(e));
    mesh.triangles.iter_mut().for_each(|e| re(e));
    mesh.tetrahedra.iter_mut().for_each(|e| re(e));
}

/// Merges nodes at the same position (their coordinates equal after rounding to
/// 1e-9 of the bounding box's diagonal) into the first of them; returns how many
/// nodes were merged away.
pub fn weld(mesh: &mut Mesh) -> usize {
    let diag = super::topology::bbox_diagonal(&mesh.points);
    let q = 1e-9 * diag.max(f64::MIN_POSITIVE);
    let mut first: HashMap<[i64; 3], u32> = HashMap::with_capacity(mesh.points.len());
    let mut map: Vec<u32> = Vec::with_capacity(mesh.points.len());
    let mut merged = 0;
    for (i, p) in mesh.points.iter().enumerate() {
        let key = p.map(|c| (c / q).round() as i64);
        let to = *first.entry(key).or_insert(i as u32);
        merged += usize::from(to != i as u32);
        map.push(to);
    }
    if merged > 0 {
        renumber(mesh, &map);
    }
    merged
}

/// Drops every element whose nodes (in any order) repeat an earlier element's;
/// returns how many were dropped.
pub fn drop_repeated(mesh: &mut Mesh) -> usize {
    fn dedup<const K: usize>(els: &mut Vec<[u32; K]>, ids: &mut Vec<usize>) -> usize {
        let mut seen = std::collections::HashSet::with_capacity(els.len());
        let keep: Vec<bool> = els
            .iter()
            .map(|e| {
                let mut s = *e;
                s.sort_unstable();
                seen.insert(s)
            })
            .collect();
        let before = els.len();
        let mut k = keep.iter();
        els.retain(|_| *k.next().unwrap());
        let mut k = keep.iter();
        ids.retain(|_| *k.next().unwrap());
        before - els.len()
    }
    let [l, t, v] = &mut mesh.ids;
    dedup(&mut mesh.lines, l) + dedup(&mut mesh.triangles, t) + dedup(&mut mesh.tetrahedra, v)
}

/// How the kept elements meet: a tetrahedron face or an edge of a planar triangle
/// mesh shared by more than two elements is an overlap, refused naming the third
/// element; edges of a surface in 3D shared by more than two triangles are counted
/// (non-manifold, returned for a note).
pub fn check_sharing(mesh: &Mesh) -> Result<usize, MeshError> {
    let diag = super::topology::bbox_diagonal(&mesh.points);
    if !mesh.tetrahedra.is_empty() {
        let mut count: HashMap<[u32; 3], u32> = HashMap::new();
        for (e, t) in mesh.tetrahedra.iter().enumerate() {
            for skip in 0..4 {
                let mut f = [0u32; 3];
                let mut k = 0;
                for (j, &i) in t.iter().enumerate() {
                    if j != skip {
                        f[k] = i;
                        k += 1;
                    }
                }
                f.sort_unstable();
                let c = count.entry(f).or_insert(0);
                *c += 1;
                if *c > 2 {
                    return Err(MeshError::at(
                        "tetrahedron",
                        mesh.ids[2][e],
                        "overlapping elements: its face shares nodes with two other tetrahedra' faces (a face belongs to at most two)",
                    ));
                }
            }
        }
        return Ok(0);
    }
    if mesh.triangles.is_empty() {
        return Ok(0);
    }
    let planar = mesh.points.iter().all(|p| p[2].abs() <= 1e-9 * diag);
    let mut count: HashMap<[u32; 2], u32> = HashMap::new();
    let mut shared = 0;
    for (e, t) in mesh.triangles.iter().enumerate() {
        for (a, b) in [(0, 1), (1, 2), (2, 0)] {
            let edge = [t[a].min(t[b]), t[a].max(t[b])];
            let c = count.entry(edge).or_insert(0);
            *c += 1;
            if *c == 3 {
                if planar {
                    return Err(MeshError::at(
                        "triangle",
                        mesh.ids[1][e],
                        "overlapping elements: its edge is also an edge of two other triangles of this planar mesh (an edge belongs to at most two)",
                    ));
                }
                shared += 1;
            }
        }
    }
    Ok(shared)
}

/// The node counts of the mesh's connected pieces (nodes joined by elements),
/// largest first.
pub fn pieces(mesh: &Mesh) -> Vec<usize> {
    let n = mesh.points.len();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(parent: &mut [u32], mut i: u32) -> u32 {
        while parent[i as usize] != i {
            let up = parent[parent[i as usize] as usize];
            parent[i as usize] = up;
            i = up;
        }
        i
    }
    for el in elements(mesh) {
        for w in el.windows(2) {
            let (a, b) = (root(&mut parent, w[0]), root(&mut parent, w[1]));
            if a != b {
                parent[a.max(b) as usize] = a.min(b);
            }
        }
    }
    let mut sizes: HashMap<u32, usize> = HashMap::new();
    for i in 0..n as u32 {
        *sizes.entry(root(&mut parent, i)).or_insert(0) += 1;
    }
    let mut out: Vec<usize> = sizes.into_values().collect();
    out.sort_unstable_by(|a, b| b.cmp(a));
    out
}

/// "a, b and c" for the piece sizes in a note.
pub fn and_list(v: &[usize]) -> String {
    let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    match s.len() {
        0 => String::new(),
        1 => s[0].clone(),
        k => format!("{} and {}", s[..k - 1].join(", "), s[k - 1]),
    }
}
