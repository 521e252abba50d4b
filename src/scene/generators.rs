//! Mesh generators: a 2D grid (square/rectangle, the course's node order and
//! springs), a 3D lattice box and a 3D cloth sheet.

/// A generated mass-spring mesh, before materials are applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    /// Spatial dimension (2 or 3).
    pub dim: usize,
    /// Node positions (m), `nodes × dim`.
    pub x: Vec<f64>,
    /// Springs as node-index pairs.
    pub springs: Vec<[u32; 2]>,
    /// Size of the body (m² for 2D bodies and cloth, m³ for lattices); mass = density × measure.
    pub measure: f64,
    /// Measure of the contact surface (m in 2D: perimeter; m² in 3D: surface or sheet area).
    pub contact_measure: f64,
    /// Nodes on the contact surface, among which `contact_measure` is split evenly.
    pub contact_nodes: usize,
}

impl Mesh {
    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.x.len() / self.dim
    }
}

/// A 2D grid of `cells[0] × cells[1]` cells over `size` (m) centred at `center`.
/// Node `(i, j)` (i along x, j along y) has index `i (ny + 1) + j`; springs come in
/// the course's order: edges along x, edges along y, then both diagonals of each cell.
pub fn grid(size: [f64; 2], cells: [usize; 2], center: [f64; 2]) -> Mesh {
    let [nx, ny] = cells;
    let step = [size[0] / nx as f64, size[1] / ny as f64];
    let id = |i: usize, j: usize| (i * (ny + 1) + j) as u32;
    let mut x = Vec::with_capacity((nx + 1) * (ny + 1) * 2);
    for i in 0..=nx {
        for j in 0..=ny {
            x.push(center[0] - size[0] / 2.0 + i as f64 * step[0]);
            x.push(center[1] - size[1] / 2.0 + j as f64 * step[1]);
        }
    }
    let mut springs = Vec::new();
    for i in 0..nx {
        for j in 0..=ny {
            springs.push([id(i, j), id(i + 1, j)]);
        }
    }
    for i in 0..=nx {
        for j in 0..ny {
            springs.push([id(i, j), id(i, j + 1)]);
        }
    }
    for i in 0..nx {
        for j in 0..ny {
            springs.push([id(i, j), id(i + 1, j + 1)]);
            springs.push([id(i + 1, j), id(i, j + 1)]);
        }
    }
    Mesh {
        dim: 2,
        x,
        springs,
        measure: size[0] * size[1],
        contact_measure: 2.0 * (size[0] + size[1]),
        contact_nodes: 2 * (nx + ny),
    }
}

/// A 3D lattice box of `cells` over `size` (m) centred at `center`. Node `(i, j, k)`
/// has index `(i (ny + 1) + j)(nz + 1) + k`; springs: edges along each axis, both
/// diagonals of every face square, and the four body diagonals of every cell.
pub fn lattice(size: [f64; 3], cells: [usize; 3], center: [f64; 3]) -> Mesh {
    let [nx, ny, nz] = cells;
    let id = |i: usize, j: usize, k: usize| ((i * (ny + 1) + j) * (nz + 1) + k) as u32;
    let mut x = Vec::with_capacity((nx + 1) * (ny + 1) * (nz + 1) * 3);
    let mut boundary = 0;
    for i in 0..=nx {
        for j in 0..=ny {
            for k in 0..=nz {
                for (a, n) in [(i, nx), (j, ny), (k, nz)].into_iter().enumerate() {
                    x.push(center[a] - size[a] / 2.0 + n.0 as f64 * size[a] / n.1 as f64);
                }
                if i == 0 || i == nx || j == 0 || j == ny || k == 0 || k == nz {
                    boundary += 1;
                }
            }
        }
    }
    let mut springs = Vec::new();
    let cell_range = |n: usize, lower: bool| if lower { 0..n } else { 0..n + 1 };
    // Edges along each axis.
    for axis in 0..3 {
        for i in cell_range(nx, axis == 0) {
            for j in cell_range(ny, axis == 1) {
                for k in cell_range(nz, axis == 2) {
                    let (di, dj, dk) = [(1, 0, 0), (0, 1, 0), (0, 0, 1)][axis];
                    springs.push([id(i, j, k), id(i + di, j + dj, k + dk)]);
                }
            }
        }
    }
    // Face diagonals: the square spanned by two axes, at every position of the third.
    for normal in 0..3 {
        for i in cell_range(nx, normal != 0) {
            for j in cell_range(ny, normal != 1) {
                for k in cell_range(nz, normal != 2) {
                    let (u, v) = match normal {
                        0 => ((0, 1, 0), (0, 0, 1)),
                        1 => ((1, 0, 0), (0, 0, 1)),
                        _ => ((1, 0, 0), (0, 1, 0)),
                    };
                    springs.push([id(i, j, k), id(i + u.0 + v.0, j + u.1 + v.1, k + u.2 + v.2)]);
                    springs.push([id(i + u.0, j + u.1, k + u.2), id(i + v.0, j + v.1, k + v.2)]);
                }
            }
        }
    }
    // Body diagonals.
    for i in 0..nx {
        for j in 0..ny {
            for k in 0..nz {
                springs.push([id(i, j, k), id(i + 1, j + 1, k + 1)]);
                springs.push([id(i + 1, j, k), id(i, j + 1, k + 1)]);
                springs.push([id(i, j + 1, k), id(i + 1, j, k + 1)]);
                springs.push([id(i, j, k + 1), id(i + 1, j + 1, k)]);
            }
        }
    }
    Mesh {
        dim: 3,
        x,
        springs,
        measure: size[0] * size[1] * size[2],
        contact_measure: 2.0 * (size[0] * size[1] + size[1] * size[2] + size[0] * size[2]),
        contact_nodes: boundary,
    }
}

/// A horizontal cloth sheet in the x–z plane at height `center[1]`, `size` (m) along
/// x and z, `cells` cells. Node `(i, k)` has index `i (nz + 1) + k`; springs: edges,
/// both cell diagonals, and with `bending` the skip-one edges along x and z.
pub fn cloth(size: [f64; 2], cells: [usize; 2], center: [f64; 3], bending: bool) -> Mesh {
    let [nx, nz] = cells;
    let id = |i: usize, k: usize| (i * (nz + 1) + k) as u32;
    let mut x = Vec::with_capacity((nx + 1) * (nz + 1) * 3);
    for i in 0..=nx {
        for k in 0..=nz {
            x.push(center[0] - size[0] / 2.0 + i as f64 * size[0] / nx as f64);
            x.push(center[1]);
            x.push(center[2] - size[1] / 2.0 + k as f64 * size[1] / nz as f64);
        }
    }
    let mut springs = Vec::new();
    for i in 0..=nx {
        for k in 0..=nz {
            if i < nx {
                springs.push([id(i, k), id(i + 1, k)]);
            }
            if k < nz {
                springs.push([id(i, k), id(i, k + 1)]);
            }
            if i < nx && k < nz {
                springs.push([id(i, k), id(i + 1, k + 1)]);
                springs.push([id(i + 1, k), id(i, k + 1)]);
            }
            if bending && i + 2 <= nx {
                springs.push([id(i, k), id(i + 2, k)]);
            }
            if bending && k + 2 <= nz {
                springs.push([id(i, k), id(i, k + 2)]);
            }
        }
    }
    let nodes = (nx + 1) * (nz + 1);
    Mesh {
        dim: 3,
        x,
        springs,
        measure: size[0] * size[1],
        contact_measure: size[0] * size[1],
        contact_nodes: nodes,
    }
}

/// Node and spring counts of [`grid`] with `cells` (nx, ny), computed without building
/// it; `None` when a count overflows 64 bits.
pub fn count_grid(cells: [u64; 2]) -> Option<(u64, u64)> {
    let [nx, ny] = cells;
    let (px, py) = (nx.checked_add(1)?, ny.checked_add(1)?);
    let nodes = px.checked_mul(py)?;
    let springs = nx
        .checked_mul(py)?
        .checked_add(px.checked_mul(ny)?)?
        .checked_add(nx.checked_mul(ny)?.checked_mul(2)?)?;
    Some((nodes, springs))
}

/// Node and spring counts of [`lattice`] with `cells` (nx, ny, nz), computed without
/// building it; `None` when a count overflows 64 bits.
pub fn count_lattice(cells: [u64; 3]) -> Option<(u64, u64)> {
    let [nx, ny, nz] = cells;
    let (px, py, pz) = (nx.checked_add(1)?, ny.checked_add(1)?, nz.checked_add(1)?);
    let prod = |a: u64, b: u64, c: u64| a.checked_mul(b)?.checked_mul(c);
    let nodes = prod(px, py, pz)?;
    let edges = prod(nx, py, pz)?
        .checked_add(prod(px, ny, pz)?)?
        .checked_add(prod(px, py, nz)?)?;
    let faces = prod(nx, ny, pz)?
        .checked_add(prod(nx, py, nz)?)?
        .checked_add(prod(px, ny, nz)?)?
        .checked_mul(2)?;
    let diagonals = prod(nx, ny, nz)?.checked_mul(4)?;
    Some((nodes, edges.checked_add(faces)?.checked_add(diagonals)?))
}

/// Node and spring counts of [`cloth`] with `cells` (nx, nz) and `bending`, computed
/// without building it; `None` when a count overflows 64 bits.
pub fn count_cloth(cells: [u64; 2], bending: bool) -> Option<(u64, u64)> {
    let [nx, nz] = cells;
    let (px, pz) = (nx.checked_add(1)?, nz.checked_add(1)?);
    let nodes = px.checked_mul(pz)?;
    let mut springs = nx
        .checked_mul(pz)?
        .checked_add(px.checked_mul(nz)?)?
        .checked_add(nx.checked_mul(nz)?.checked_mul(2)?)?;
    if bending {
        let skip = nx
            .saturating_sub(1)
            .checked_mul(pz)?
            .checked_add(px.checked_mul(nz.saturating_sub(1))?)?;
        springs = springs.checked_add(skip)?;
    }
    Some((nodes, springs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unique(springs: &[[u32; 2]]) -> bool {
        let mut s: Vec<_> = springs
            .iter()
            .map(|[a, b]| (*a.min(b), *a.max(b)))
            .collect();
        s.sort_unstable();
        s.windows(2).all(|w| w[0] != w[1]) && springs.iter().all(|[a, b]| a != b)
    }

    #[test]
    fn grid_matches_course_counts_and_order() {
        let m = grid([1.0, 1.0], [4, 4], [0.0, 0.0]);
        assert_eq!(m.num_nodes(), 25);
        assert_eq!(m.springs.len(), 20 + 20 + 32);
        assert_eq!(m.springs[0], [0, 5]);
        assert_eq!(&m.x[2..4], &[-0.5, -0.25]);
        assert!(unique(&m.springs));
        assert_eq!(m.contact_measure / m.contact_nodes as f64, 0.25);
    }

    #[test]
    fn lattice_counts() {
        let m = lattice([1.0, 2.0, 3.0], [2, 3, 4], [0.0; 3]);
        let (nx, ny, nz) = (2, 3, 4);
        assert_eq!(m.num_nodes(), 3 * 4 * 5);
        let edges = nx * (ny + 1) * (nz + 1) + (nx + 1) * ny * (nz + 1) + (nx + 1) * (ny + 1) * nz;
        let faces = 2 * (nx * ny * (nz + 1) + nx * (ny + 1) * nz + (nx + 1) * ny * nz);
        assert_eq!(m.springs.len(), edges + faces + 4 * nx * ny * nz);
        assert!(unique(&m.springs));
        assert_eq!(m.contact_nodes, 60 - 2 * 3);
        let xs: Vec<f64> = m.x.chunks(3).map(|p| p[2]).collect();
        assert_eq!(xs.iter().cloned().fold(f64::INFINITY, f64::min), -1.5);
    }

    #[test]
    fn cloth_counts() {
        let m = cloth([2.0, 1.0], [4, 2], [0.0, 1.0, 0.0], true);
        assert_eq!(m.num_nodes(), 15);
        assert_eq!(m.springs.len(), 12 + 10 + 16 + 9 + 5);
        assert!(unique(&m.springs));
        assert!(m.x.chunks(3).all(|p| p[1] == 1.0));
    }

    #[test]
    fn counts_match_the_generated_meshes_and_overflow_to_none() {
        for (nx, ny) in [(1, 1), (4, 3), (7, 1)] {
            let m = grid([1.0, 1.0], [nx, ny], [0.0; 2]);
            let c = (m.num_nodes() as u64, m.springs.len() as u64);
            assert_eq!(count_grid([nx as u64, ny as u64]), Some(c));
            for bending in [false, true] {
                let m = cloth([1.0, 1.0], [nx, ny], [0.0; 3], bending);
                let c = (m.num_nodes() as u64, m.springs.len() as u64);
                assert_eq!(count_cloth([nx as u64, ny as u64], bending), Some(c));
            }
            let m = lattice([1.0; 3], [nx, ny, 2], [0.0; 3]);
            let c = (m.num_nodes() as u64, m.springs.len() as u64);
            assert_eq!(count_lattice([nx as u64, ny as u64, 2]), Some(c));
        }
        assert_eq!(count_grid([4_000_000_000; 2]), None);
        assert_eq!(count_grid([u64::MAX, 1]), None);
        assert_eq!(count_lattice([3_000_000; 3]), None);
        assert_eq!(count_cloth([1 << 40, 1 << 30], false), None);
    }
}
