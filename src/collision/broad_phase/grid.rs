//! The hierarchical grid behind the fast pair lists of the broad phase: the
//! level-0 cell size, the mapping of bounds to integer cells, the choice of a
//! level per box, and the enumeration of each overlapping pair exactly once (the
//! algorithm is described in the parent module's docs).

use super::Aabb;

/// The largest level-0 cell index; bounds beyond are clamped onto it.
const MAX_CELL: f64 = (1u64 << 62) as f64;

/// The coarsest grid level. Level-0 indices lie in `[0, 2⁶²]`, so at level 62
/// every index is 0 or 1 and every box spans at most two cells per axis.
const MAX_LEVEL: u32 = 62;

/// Lower bound of the level-0 cell size relative to the scene size, so that the
/// finite part of the scene spans at most about 2⁴⁰ cells per axis.
const MIN_CELL_FRACTION: f64 = 1.0 / (1u64 << 40) as f64;

/// A box stored in the grid: its index, its level-0 cell range and its level.
struct GridBox {
    /// Index of the box in the caller's slice.
    idx: usize,
    /// Lower level-0 cell indices.
    lo: [i64; 3],
    /// Upper level-0 cell indices.
    hi: [i64; 3],
    /// The level the box is stored on.
    level: u32,
}

/// Cell indices at `level` from level-0 indices.
fn at_level(c: [i64; 3], level: u32) -> [i64; 3] {
    c.map(|v| v >> level)
}

/// Component-wise maximum: the cell of the lower corner of two boxes' common
/// region.
fn corner(a: [i64; 3], b: [i64; 3]) -> [i64; 3] {
    [a[0].max(b[0]), a[1].max(b[1]), a[2].max(b[2])]
}

/// Calls `visit(i, j)`, `i < j`, exactly once for each pair of boxes that
/// overlap (per [`Aabb::overlaps`]); with `split = Some(na)` only for pairs with
/// `i < na <= j`.
pub(super) fn for_each_overlap(
    boxes: &[Aabb],
    split: Option<usize>,
    mut visit: impl FnMut(usize, usize),
) {
    let n = boxes.len();
    let mut test = |i: usize, j: usize| {
        let (i, j) = if i < j { (i, j) } else { (j, i) };
        let cross_ok = match split {
            Some(na) => i < na && na <= j,
            None => true,
        };
        if cross_ok && boxes[i].overlaps(&boxes[j]) {
            visit(i, j);
        }
    };

    // NaN boxes overlap everything: pair them directly (NaN-NaN pairs once).
    let nan: Vec<bool> = boxes.iter().map(Aabb::has_nan).collect();
    for s in (0..n).filter(|&s| nan[s]) {
        for t in (0..n).filter(|&t| t != s && !(nan[t] && t < s)) {
            test(s, t);
        }
    }

    // Everything else that is not empty goes into the grid.
    let members: Vec<usize> = (0..n)
        .filter(|&i| !nan[i] && !boxes[i].is_empty())
        .collect();
    if members.len() < 2 {
        return;
    }

    // Origin and size of the finite part of the scene.
    let mut origin = [f64::INFINITY; 3];
    let mut top = [f64::NEG_INFINITY; 3];
    for &i in &members {
        let b = &boxes[i];
        for k in 0..3 {
            for v in [b.lo[k], b.hi[k]] {
                if v.is_finite() {
                    origin[k] = origin[k].min(v);
                    top[k] = top[k].max(v);
                }
            }
        }
    }
    let mut scene: f64 = 0.0;
    for k in 0..3 {
        if !origin[k].is_finite() {
            origin[k] = 0.0;
            top[k] = 0.0;
        }
        scene = scene.max(top[k] - origin[k]);
    }

    // Level-0 cell size: median of the positive finite largest extents.
    let mut extents: Vec<f64> = members
        .iter()
        .map(|&i| {
            let b = &boxes[i];
            (0..3).map(|k| b.hi[k] - b.lo[k]).fold(0.0, f64::max)
        })
        .filter(|e| e.is_finite() && *e > 0.0)
        .collect();
    let mut h = if extents.is_empty() {
        // Points only: about one point per cell in a uniform scene.
        scene / (members.len() as f64).cbrt()
    } else {
        let mid = extents.len() / 2;
        *extents.select_nth_unstable_by(mid, f64::total_cmp).1
    };
    if scene.is_finite() {
        h = h.max(scene * MIN_CELL_FRACTION);
    }
    if !(h.is_finite() && h > 0.0) {
        h = 1.0;
    }

    // Monotone map from a bound to its level-0 cell index.
    let cell =
        |v: f64, k: usize| -> i64 { ((v - origin[k]) / h).floor().clamp(0.0, MAX_CELL) as i64 };

    let grid: Vec<GridBox> = members
        .iter()
        .map(|&i| {
            let b = &boxes[i];
            let lo = [cell(b.lo[0], 0), cell(b.lo[1], 1), cell(b.lo[2], 2)];
            let hi = [cell(b.hi[0], 0), cell(b.hi[1], 1), cell(b.hi[2], 2)];
            let span = (0..3).map(|k| hi[k] - lo[k]).max().unwrap_or(0);
            // Below `bits - 1` the box spans at least 3 cells on the widest axis;
            // at `bits` it spans at most 2 on every axis.
            let bits = 64 - span.leading_zeros();
            let mut level = bits.saturating_sub(1);
            while level < MAX_LEVEL && (0..3).any(|k| (hi[k] >> level) - (lo[k] >> level) > 1) {
                level += 1;
            }
            GridBox {
                idx: i,
                lo,
                hi,
                level,
            }
        })
        .collect();

    // Sorted (cell, grid position) lists per level.
    let mut levels: Vec<Vec<([i64; 3], usize)>> = vec![Vec::new(); MAX_LEVEL as usize + 1];
    for (g, gb) in grid.iter().enumerate() {
        let lo = at_level(gb.lo, gb.level);
        let hi = at_level(gb.hi, gb.level);
        let list = &mut levels[gb.level as usize];
        for cx in lo[0]..=hi[0] {
            for cy in lo[1]..=hi[1] {
                for cz in lo[2]..=hi[2] {
                    list.push(([cx, cy, cz], g));
                }
            }
        }
    }
    for list in &mut levels {
        list.sort_unstable();
    }
    let occupied: Vec<u32> = (0..=MAX_LEVEL)
        .filter(|&l| !levels[l as usize].is_empty())
        .collect();

    // Pairs on the same level: runs of equal cells.
    for &l in &occupied {
        for run in levels[l as usize].chunk_by(|x, y| x.0 == y.0) {
            let key = run[0].0;
            for (p, &(_, ga)) in run.iter().enumerate() {
                let a = &grid[ga];
                let a_lo = at_level(a.lo, l);
                for &(_, gb) in &run[p + 1..] {
                    let b = &grid[gb];
                    if corner(a_lo, at_level(b.lo, l)) == key {
                        test(a.idx, b.idx);
                    }
                }
            }
        }
    }

    // Pairs across levels: each box looks up its cells on every occupied
    // coarser level.
    for a in &grid {
        for &l in occupied.iter().filter(|&&l| l > a.level) {
            let list = &levels[l as usize];
            let lo = at_level(a.lo, l);
            let hi = at_level(a.hi, l);
            for cx in lo[0]..=hi[0] {
                for cy in lo[1]..=hi[1] {
                    for cz in lo[2]..=hi[2] {
                        let key = [cx, cy, cz];
                        let start = list.partition_point(|e| e.0 < key);
                        for &(_, gb) in list[start..].iter().take_while(|e| e.0 == key) {
                            let b = &grid[gb];
                            if corner(lo, at_level(b.lo, l)) == key {
                                test(a.idx, b.idx);
                            }
                        }
                    }
                }
            }
        }
    }
}
