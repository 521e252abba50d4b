//! The hierarchical grid behind the fast pair lists of the broad phase: the
//! level-0 cell size, the mapping of bounds to integer cells, the choice of a
//! level per box, the per-level cell tables, and the queries that find each
//! overlapping pair exactly once (the algorithm is described in the parent
//! module's docs).

use super::sort::{Cells, Level};
use super::Aabb;
use rayon::prelude::*;
use std::ops::Range;

/// The level-0 cell index of the cell that starts at 0 m; indices lie in
/// `[0, 2 OFFSET]`, bounds beyond are clamped onto the ends.
const OFFSET: i64 = 1 << 61;

/// The most cells (upper minus lower cell index) a box may span per axis on its
/// level.
const SPAN: i64 = 2;

/// The coarsest grid level. Level-0 indices lie in `[0, 2⁶²]`, so at level 62
/// every index is 0 or 1 and every box spans at most [`SPAN`] cells per axis.
const MAX_LEVEL: u8 = 62;

/// `Cells::level` of a box kept out of the grid (NaN or empty).
const NO_LEVEL: u8 = u8::MAX;

/// Lower bound of the level-0 cell size relative to the sampled scene size, so
/// that the scene spans at most about 2⁴⁰ cells per axis.
const MIN_CELL_FRACTION: f64 = 1.0 / (1u64 << 40) as f64;

/// At most about this many boxes per list are sampled for the cell size.
const SAMPLE: usize = 4096;

/// Boxes per parallel task; fewer than two tasks' worth run on the calling
/// thread.
const CHUNK: usize = 1024;

/// A pair of box indices.
type Pair = [u32; 2];

/// Whether a box goes into the grid: no NaN bound and not empty.
fn in_grid(b: &Aabb) -> bool {
    (0..3).all(|k| b.lo[k] <= b.hi[k])
}

/// `[f(0), …, f(n − 1)]`, in parallel tasks of at least `len` items from two
/// tasks on.
fn par_map<T: Send>(n: usize, len: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    if n < 2 * len {
        return (0..n).map(f).collect();
    }
    (0..n).into_par_iter().with_min_len(len).map(&f).collect()
}

/// The level-0 cells: cell [`OFFSET`] starts at 0 m, every cell is `1 / inv_h`
/// wide.
struct Frame {
    /// Inverse of the level-0 cell size (1/m).
    inv_h: f64,
}

impl Frame {
    /// The cells for the grid boxes of `sides`: half the median of the positive
    /// finite largest extents of a strided sample of about [`SAMPLE`] boxes per
    /// list (so that most boxes of similar sizes fit on level 0), guarded
    /// against samples spanning more than about 2⁴⁰ cells per axis.
    fn new(sides: &[&[Aabb]]) -> Self {
        let sample: Vec<&Aabb> = sides
            .iter()
            .flat_map(|s| s.iter().step_by(s.len().div_ceil(SAMPLE).max(1)))
            .filter(|b| in_grid(b))
            .collect();
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for b in &sample {
            for k in 0..3 {
                for v in [b.lo[k], b.hi[k]].into_iter().filter(|v| v.is_finite()) {
                    lo[k] = lo[k].min(v);
                    hi[k] = hi[k].max(v);
                }
            }
        }
        let scene = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
        let mut extents: Vec<f64> = sample
            .iter()
            .map(|b| (0..3).map(|k| b.hi[k] - b.lo[k]).fold(0.0, f64::max))
            .filter(|e| e.is_finite() && *e > 0.0)
            .collect();
        let mut h = if extents.is_empty() {
            // Points only: about one point per cell in a uniform scene.
            scene / (sample.len() as f64).cbrt()
        } else {
            let mid = extents.len() / 2;
            0.5 * *extents.select_nth_unstable_by(mid, f64::total_cmp).1
        };
        if scene.is_finite() {
            h = h.max(scene * MIN_CELL_FRACTION);
        }
        if !(h.is_finite() && h > 0.0 && (1.0 / h).is_finite()) {
            h = 1.0;
        }
        Frame { inv_h: 1.0 / h }
    }

    /// The level-0 cell index of the bound `v`: `floor(v / h) + OFFSET` clamped
    /// to `[0, 2 OFFSET]`, monotone in `v` (infinities included).
    #[inline]
    fn cell(&self, v: f64) -> i64 {
        let t = (v * self.inv_h).clamp(-OFFSET as f64, OFFSET as f64);
        let i = t as i64; // towards zero: one less for negative non-integers
        i - i64::from(i as f64 > t) + OFFSET
    }

    /// The cell range and level of the box `b`.
    fn cells(&self, b: &Aabb) -> Cells {
        let lo = [self.cell(b.lo[0]), self.cell(b.lo[1]), self.cell(b.lo[2])];
        let hi = [self.cell(b.hi[0]), self.cell(b.hi[1]), self.cell(b.hi[2])];
        let (mut span, mut level) = ([0; 3], NO_LEVEL);
        if in_grid(b) {
            // A first guess from the widest span, then up until every axis fits.
            let widest = (0..3).map(|k| hi[k] - lo[k]).max().unwrap_or(0);
            level = (64 - widest.leading_zeros()).saturating_sub(64 - SPAN.leading_zeros()) as u8;
            let at = |k: usize, l: u8| (hi[k] >> l) - (lo[k] >> l);
            while level < MAX_LEVEL && (0..3).any(|k| at(k, level) > SPAN) {
                level += 1;
            }
            span = [0, 1, 2].map(|k| at(k, level) as u8);
        }
        Cells { lo, span, level }
    }
}

/// One list's grid: the cell range of each box and the occupied levels.
struct Grid<'a> {
    /// The caller's boxes.
    boxes: &'a [Aabb],
    /// Cell range and level of each box.
    cells: Vec<Cells>,
    /// The occupied levels, increasing.
    levels: Vec<Level>,
    /// The indices of the boxes with a NaN bound, increasing.
    nan: Vec<u32>,
}

impl<'a> Grid<'a> {
    /// The grid of `boxes` in `frame`.
    fn new(frame: &Frame, boxes: &'a [Aabb]) -> Self {
        let cells = par_map(boxes.len(), CHUNK, |i| frame.cells(&boxes[i]));
        let (mut occupied, mut nan) = (0u64, Vec::new());
        for (i, c) in cells.iter().enumerate() {
            if c.level != NO_LEVEL {
                occupied |= 1 << c.level;
            } else if boxes[i].has_nan() {
                nan.push(i as u32);
            }
        }
        let levels = (0..=MAX_LEVEL)
            .filter(|&l| occupied >> l & 1 == 1)
            .map(|l| Level::new(l, boxes, &cells))
            .collect();
        Grid {
            boxes,
            cells,
            levels,
            nan,
        }
    }

    /// Whether box `i` has a NaN bound.
    fn nan(&self, i: u32) -> bool {
        self.nan.binary_search(&i).is_ok()
    }

    /// Calls `f(i, j, same)` for each grid box `i` in `range` and each box `j` of
    /// `other` that overlaps it and lies on `i`'s level (`same`) or a coarser
    /// one; only coarser ones with `coarser_only`.
    fn find(
        &self,
        other: &Grid,
        range: Range<usize>,
        coarser_only: bool,
        mut f: impl FnMut(u32, u32, bool),
    ) {
        for i in range {
            let c = &self.cells[i];
            for lv in other.levels.iter().filter(|lv| lv.level >= c.level) {
                let same = lv.level == c.level;
                if !(same && coarser_only) {
                    lv.scan(&self.boxes[i], c, |j| f(i as u32, j, same));
                }
            }
        }
    }
}

/// Runs `work(t)` for every task `t < n` in parallel, and `take` on each result
/// on the calling thread, in order of `t`, as they come in; the calling thread
/// works on tasks while it waits.
fn pipeline<T: Send>(n: usize, work: impl Fn(usize) -> T + Sync, mut take: impl FnMut(T)) {
    if n < 2 {
        return (0..n).for_each(|t| take(work(t)));
    }
    let (tx, rx) = std::sync::mpsc::channel();
    rayon::in_place_scope_fifo(|s| {
        for t in 0..n {
            let (tx, work) = (tx.clone(), &work);
            s.spawn_fifo(move |_| drop(tx.send((t, work(t)))));
        }
        drop(tx);
        let mut ready: Vec<Option<T>> = (0..n).map(|_| None).collect();
        let mut next = 0;
        while next < n {
            if let Some(done) = ready[next].take() {
                take(done);
                next += 1;
                continue;
            }
            let got = match rx.try_recv() {
                Ok(got) => got,
                // Work on a task while none is done; wait when none is left.
                Err(_) if rayon::yield_now() == Some(rayon::Yield::Executed) => continue,
                // A closed channel means a task panicked: the scope re-raises it.
                Err(_) => match rx.recv() {
                    Ok(got) => got,
                    Err(_) => break,
                },
            };
            ready[got.0] = Some(got.1);
        }
    });
}

/// Every pair of overlapping boxes (per [`Aabb::overlaps`]) that `keep`
/// accepts, each once, sorted: with `b = None` the pairs `[i, j]`, `i < j`, of
/// `a`; otherwise the pairs `[i, j]` of `a[i]` and `b[j]`. `keep` is called once
/// per overlapping pair, on the calling thread, while the grid finds the next
/// pairs.
///
/// Both lists have at most `u32::MAX` boxes.
pub(super) fn overlaps(
    a: &[Aabb],
    b: Option<&[Aabb]>,
    keep: impl Fn(u32, u32) -> bool,
) -> Vec<Pair> {
    let sides: Vec<&[Aabb]> = [Some(a), b].into_iter().flatten().collect();
    let frame = Frame::new(&sides);
    let ga = Grid::new(&frame, a);
    let gb = b.map(|b| Grid::new(&frame, b));
    // Pairs with a NaN box, NaN–NaN pairs once.
    let mut cross: Vec<Pair> = Vec::new();
    match &gb {
        None => {
            for &s in &ga.nan {
                let others = (0..a.len() as u32).filter(|&t| t != s && !(t < s && ga.nan(t)));
                cross.extend(others.map(|t| [s.min(t), s.max(t)]));
            }
        }
        Some(gb) => {
            for &i in &ga.nan {
                cross.extend((0..gb.boxes.len() as u32).map(|j| [i, j]));
            }
            for &j in &gb.nan {
                cross.extend((0..a.len() as u32).filter(|&i| !ga.nan(i)).map(|i| [i, j]));
            }
        }
    }
    // Each box of `a` looks for boxes of `a` (of `b`) on its level and coarser
    // ones: a pair on one level is found from its lower index (from its box of
    // `a`), a pair across levels from its box on the finer level.
    let mut out = Vec::new();
    let task = |t: usize| {
        let (mut own, mut more) = (Vec::new(), Vec::new());
        let range = t * CHUNK..((t + 1) * CHUNK).min(a.len());
        match &gb {
            None => ga.find(&ga, range, false, |i, j, same| {
                if j > i {
                    own.push([i, j]);
                } else if !same {
                    more.push([j, i]);
                }
            }),
            Some(gb) => ga.find(gb, range, false, |i, j, _| own.push([i, j])),
        }
        for group in own.chunk_by_mut(|p, q| p[0] == q[0]) {
            group.sort_unstable();
        }
        (own, more)
    };
    pipeline(a.len().div_ceil(CHUNK), task, |(own, more)| {
        out.extend(own.into_iter().filter(|&[i, j]| keep(i, j)));
        cross.extend(more);
    });
    // Boxes of `b` find those of `a` on strictly coarser levels.
    if let Some(gb) = gb
        .as_ref()
        .filter(|gb| match (gb.levels.first(), ga.levels.last()) {
            (Some(fine), Some(coarse)) => fine.level < coarse.level,
            _ => false,
        })
    {
        let parts = par_map(gb.boxes.len().div_ceil(CHUNK), 1, |t| {
            let mut more = Vec::new();
            let range = t * CHUNK..((t + 1) * CHUNK).min(gb.boxes.len());
            gb.find(&ga, range, true, |j, i, _| more.push([i, j]));
            more
        });
        cross.extend(parts.into_iter().flatten());
    }
    cross.sort_unstable();
    cross.retain(|&[i, j]| keep(i, j));
    merge(out, cross)
}

/// The sorted union of the sorted lists `a` and `b`.
fn merge(a: Vec<Pair>, b: Vec<Pair>) -> Vec<Pair> {
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] <= b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}
