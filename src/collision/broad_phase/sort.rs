//! One level of one list of the hierarchical grid: its boxes sorted by the cell
//! of their lower corner (each box once), and the scan that finds, for a box on
//! this level or a finer one, the boxes of the level that overlap it. The sort
//! is a counting sort into a dense table of the level's occupied cells (merging
//! up to 4 × 4 × 4 cells into one where the level is sparse); failing that,
//! counting sorts into a dense table of rows along x, sorted by x within each
//! row; failing that, a comparison sort by cell (the algorithm is described in
//! the parent module's docs).

use super::Aabb;
use std::ops::Range;

/// A dense table (of cells, or of rows) has at most this many entries per box
/// of its level, plus [`DENSE_SLACK`].
const DENSE_CELLS_PER_BOX: usize = 8;

/// Entries a dense table may always have, however few boxes its level holds.
const DENSE_SLACK: usize = 1024;

/// A dense table of cells may merge up to `2^MAX_SHIFT` cells of its level per
/// axis into one of its own to stay small.
const MAX_SHIFT: u32 = 2;

/// A box's cell range: its level-0 lower cell, the level it is stored on and
/// its span there.
#[derive(Clone, Copy)]
pub(super) struct Cells {
    /// Lower level-0 cell indices.
    pub(super) lo: [i64; 3],
    /// Upper minus lower cell index on the box's level, per axis (at most
    /// `SPAN`).
    pub(super) span: [u8; 3],
    /// The lowest level at which the box spans at most `SPAN` cells per axis
    /// (`NO_LEVEL` for a NaN or empty box).
    pub(super) level: u8,
}

impl Cells {
    /// Upper cell indices at `level`, not below the box's level.
    #[inline]
    fn hi(&self, level: u8) -> [i64; 3] {
        let own = |k: usize| (self.lo[k] >> self.level) + i64::from(self.span[k]);
        [0, 1, 2].map(|k| own(k) >> (level - self.level))
    }
}

/// How a level finds the entries of a row of cells.
enum Index {
    /// A dense table of the level's cells: the first entry of each cell, then
    /// the number of entries.
    Cells(Vec<u32>),
    /// A dense table of its rows of cells along x: the first entry of each row,
    /// then the number of entries; the entries of a row are sorted by `keys`.
    Rows(Vec<u32>),
    /// None: the entries are sorted by `keys`.
    Sorted,
}

/// One occupied level of one list's grid: its boxes grouped by the cell (of the
/// table) of their lower corner, the cells in `(z, y, x)` order.
pub(super) struct Level {
    /// The level (cells `2^level` level-0 cells wide).
    pub(super) level: u8,
    /// The largest span (upper minus lower cell) of its boxes on each axis.
    reach: [i64; 3],
    /// The cells of a table of cells are `2^shift` cells of the level wide.
    shift: u32,
    /// The table's lowest occupied cell on each axis (`x`, `y`, `z`).
    base: [i64; 3],
    /// The table's number of cells from the lowest to the highest occupied one,
    /// per axis.
    dims: [i64; 3],
    /// How rows are found.
    index: Index,
    /// Cell `[z, y, x]` of each entry (without [`Index::Cells`]).
    keys: Vec<[i64; 3]>,
    /// Box index of each entry.
    idx: Vec<u32>,
    /// Box of each entry as `lo` and `-hi` (a copy, so that a scan reads memory
    /// in order, and the overlap test is six comparisons of the same direction).
    boxes: Vec<[f64; 6]>,
}

/// `order` stably sorted by `key` (below `n`), and the first position of each
/// key in it, then its length.
fn counting_sort(order: &[u32], n: usize, key: impl Fn(u32) -> usize) -> (Vec<u32>, Vec<u32>) {
    let mut starts = vec![0u32; n + 1];
    for &i in order {
        starts[key(i) + 1] += 1;
    }
    for c in 0..n {
        starts[c + 1] += starts[c];
    }
    let (mut next, mut out) = (starts.clone(), vec![0; order.len()]);
    for &i in order {
        let slot = &mut next[key(i)];
        out[*slot as usize] = i;
        *slot += 1;
    }
    (out, starts)
}

impl Level {
    /// The level `level` of the boxes `boxes` with cell ranges `cells`.
    pub(super) fn new(level: u8, boxes: &[Aabb], cells: &[Cells]) -> Self {
        let on: Vec<u32> = (0..cells.len() as u32)
            .filter(|&i| cells[i as usize].level == level)
            .collect();
        let corner = |i: u32| {
            let lo = cells[i as usize].lo;
            [lo[0] >> level, lo[1] >> level, lo[2] >> level]
        };
        let (mut base, mut top, mut reach) = ([i64::MAX; 3], [i64::MIN; 3], [0; 3]);
        for &i in &on {
            let c = corner(i);
            for k in 0..3 {
                base[k] = base[k].min(c[k]);
                top[k] = top[k].max(c[k]);
                reach[k] = reach[k].max(i64::from(cells[i as usize].span[k]));
            }
        }
        // Whether a table of `d[0] · d[1] · …` entries is small enough.
        let small = |d: &[i64]| {
            let n = d.iter().try_fold(1usize, |n, &d| n.checked_mul(d as usize));
            n.filter(|&n| n <= DENSE_CELLS_PER_BOX * on.len() + DENSE_SLACK)
        };
        // The finest table of cells `2^t` level cells wide that is small enough.
        let table = |t: u32| {
            let d = [0, 1, 2].map(|k| (top[k] >> t) - (base[k] >> t) + 1);
            small(&d).map(|n| (t, d, n))
        };
        let (mut shift, mut dims) = (0, [0, 1, 2].map(|k| top[k] - base[k] + 1));
        let key = |i: u32| {
            let c = corner(i);
            [c[2], c[1], c[0]]
        };
        let (idx, index) = if let Some((t, d, n)) = (0..=MAX_SHIFT).find_map(table) {
            (shift, dims, base) = (t, d, base.map(|v| v >> t));
            let at = |i: u32, k: usize| ((corner(i)[k] >> t) - base[k]) as usize;
            let lin = |i: u32| (at(i, 2) * d[1] as usize + at(i, 1)) * d[0] as usize + at(i, 0);
            let (idx, starts) = counting_sort(&on, n, lin);
            (idx, Index::Cells(starts))
        } else if let (Some(nx), Some(nrow)) = (small(&dims[..1]), small(&dims[1..])) {
            let at = |i: u32, k: usize| (corner(i)[k] - base[k]) as usize;
            let (by_x, _) = counting_sort(&on, nx, |i| at(i, 0));
            let (idx, starts) =
                counting_sort(&by_x, nrow, |i| at(i, 2) * dims[1] as usize + at(i, 1));
            (idx, Index::Rows(starts))
        } else {
            let mut idx = on;
            idx.sort_unstable_by_key(|&i| (key(i), i));
            (idx, Index::Sorted)
        };
        let keys = match index {
            Index::Cells(_) => Vec::new(),
            _ => idx.iter().map(|&i| key(i)).collect(),
        };
        let boxes = idx.iter().map(|&i| lo_neg_hi(&boxes[i as usize])).collect();
        Level {
            level,
            reach,
            shift,
            base,
            dims,
            index,
            keys,
            idx,
            boxes,
        }
    }

    /// Calls `f(entries)` for the entries whose lower corners lie in the cells
    /// `lo..=hi` (level indices), one range of consecutive entries per row of
    /// cells along x.
    #[inline]
    fn rows(&self, lo: [i64; 3], hi: [i64; 3], mut f: impl FnMut(Range<usize>)) {
        let (starts, per_cell) = match &self.index {
            Index::Cells(starts) => (starts, true),
            Index::Rows(starts) => (starts, false),
            Index::Sorted => {
                for z in lo[2]..=hi[2] {
                    for y in lo[1]..=hi[1] {
                        let s = self.keys.partition_point(|k| *k < [z, y, lo[0]]);
                        f(s..s + self.keys[s..].partition_point(|k| *k <= [z, y, hi[0]]));
                    }
                }
                return;
            }
        };
        // Within the table, cells counted from its lowest one.
        let (b, d, t) = (self.base, self.dims, self.shift);
        let lo = [0, 1, 2].map(|k| (lo[k] >> t).max(b[k]) - b[k]);
        let hi = [0, 1, 2].map(|k| (hi[k] >> t).min(b[k] + d[k] - 1) - b[k]);
        if lo[0] > hi[0] {
            return;
        }
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                let r = (z * d[1] + y) as usize;
                f(if per_cell {
                    let r = r * d[0] as usize;
                    starts[r + lo[0] as usize] as usize..starts[r + hi[0] as usize + 1] as usize
                } else {
                    let (s, e) = (starts[r] as usize, starts[r + 1] as usize);
                    let x = |v: i64| s + self.keys[s..e].partition_point(|k| k[2] - b[0] < v);
                    x(lo[0])..x(hi[0] + 1)
                });
            }
        }
    }

    /// Calls `f(j)` for each box `j` of this level that overlaps `q`, a grid box
    /// with cell range `c` on this level or a finer one.
    ///
    /// Such a `j` spans at most `reach` cells here and its cells meet those of
    /// `q`, so its lower corner cell lies at most `reach` cells below `q`'s lower
    /// cell and not above `q`'s upper cell on every axis.
    #[inline]
    pub(super) fn scan(&self, q: &Aabb, c: &Cells, mut f: impl FnMut(u32)) {
        let l = self.level;
        let lo = [0, 1, 2].map(|k| (c.lo[k] >> l) - self.reach[k]);
        let hi = c.hi(l);
        let q = [q.hi[0], q.hi[1], q.hi[2], -q.lo[0], -q.lo[1], -q.lo[2]];
        self.rows(lo, hi, |r| {
            for (b, &j) in self.boxes[r.clone()].iter().zip(&self.idx[r]) {
                if touch(b, &q) {
                    f(j);
                }
            }
        });
    }
}

/// `[lo, -hi]` of the box `b`.
fn lo_neg_hi(b: &Aabb) -> [f64; 6] {
    [b.lo[0], b.lo[1], b.lo[2], -b.hi[0], -b.hi[1], -b.hi[2]]
}

/// [`Aabb::overlaps`] of boxes `a` and `b` without NaN that are not empty, from
/// `a`'s `[lo, -hi]` and `b`'s `[hi, -lo]`: `a.lo ≤ b.hi` and `b.lo ≤ a.hi` on
/// every axis (negation is exact).
#[inline]
fn touch(a: &[f64; 6], b: &[f64; 6]) -> bool {
    (a[0] <= b[0])
        & (a[1] <= b[1])
        & (a[2] <= b[2])
        & (a[3] <= b[3])
        & (a[4] <= b[4])
        & (a[5] <= b[5])
}
