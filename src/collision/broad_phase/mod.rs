//! Broad phase: candidate pairs of primitives from axis-aligned bounding boxes.
//!
//! Every primitive (a node, an edge, a triangle, or its linear sweep over a step)
//! gets an [`Aabb`] in metres; the functions here list the pairs whose boxes
//! overlap, so that the narrow phase (distances, CCD, exact intersection tests)
//! runs on those pairs only.
//!
//! # Box semantics
//!
//! * Boxes are **closed**: two boxes that only touch (share a face, an edge or a
//!   corner, or have equal bounds) overlap. 2D boxes have `lo[2] = hi[2] = 0`;
//!   all three axes are always tested.
//! * A box with `lo[k] > hi[k]` on some axis (for example [`Aabb::empty`]) is
//!   **empty** and overlaps nothing.
//! * A box with a NaN bound anywhere is **conservative**: it overlaps everything
//!   (empty boxes and other NaN boxes included), so that a broken coordinate can
//!   never hide a contact. [`Aabb::of_points`] and [`Aabb::swept`] turn a NaN
//!   coordinate into NaN bounds on that axis (plain `f64::min`/`max` would drop it).
//! * Infinite bounds are ordinary (huge) boxes.
//!
//! [`Aabb::overlaps`] is the single definition of overlap; the fast and the
//! brute-force pair lists are both exactly "the pairs for which `overlaps` is
//! true and `keep` accepts", so they are equal.
//!
//! # Algorithm of the fast versions
//!
//! A hierarchy of uniform grids stored as sorted tables (no hash maps, so the
//! work and the output are deterministic, whatever the number of threads):
//!
//! 1. The level-0 cell size `h` is half the median of the largest extents
//!    (positive, finite ones) of a strided sample of about 4096 boxes per list,
//!    guarded so the sampled scene spans at most about 2⁴⁰ cells per axis. Each
//!    bound maps to the integer level-0 cell index `floor(v / h) + 2⁶¹` clamped
//!    to `[0, 2⁶²]`; this map is monotone, so overlapping boxes always get
//!    overlapping cell ranges, even for infinite or astronomically large bounds.
//! 2. Level `l` has cells `2^l` times larger (index `c >> l`, so levels nest
//!    exactly). Each box goes to the lowest level at which it spans at most three
//!    cells per axis, so a few huge boxes cost no more memory than small ones; at
//!    level 62 every box fits.
//! 3. Each occupied level of each list holds each of its boxes once, in the cell
//!    of the box's lower corner (`sort.rs`), the cells in `(z, y, x)` order: a
//!    counting sort into a dense table of the level's occupied cell range when
//!    that has at most about eight cells per box (merging up to 4 × 4 × 4 cells
//!    into one table cell to get there: a surface spread in 3D); else a dense
//!    table of its rows along x, sorted by x within rows (binary search); else
//!    a list sorted by cell (binary search). The boxes are copied in that order.
//! 4. A box finds the boxes of a level at or above its own that overlap it among
//!    those whose lower corner cell lies between `reach` cells below its own
//!    lower cell and its upper cell on each axis (`reach`, at most 2, is the
//!    level's largest span): rows of consecutive entries along x, each entry
//!    checked with the exact box test. A pair on one level is found from its
//!    lower index (from its box of `a` in the two-list version), a pair across
//!    levels from its box on the finer level, so each pair is found once,
//!    without a deduplication pass.
//! 5. The boxes of `a` search in parallel chunks of 1024 boxes on the rayon
//!    pool. The pairs `[i, j]` a chunk finds from its box `i` come out sorted,
//!    so their concatenation in chunk order is sorted; `keep` runs on them on the
//!    calling thread, chunk after chunk as they come in (the thread works on
//!    chunks while none is ready). The other pairs (found from the higher index
//!    or from a box of `b`, across levels, and the pairs with a NaN box) are
//!    sorted, filtered and merged in at the end.
//!
//! NaN boxes are paired with every other box directly; empty boxes are skipped.
//! The cost is about linear in the number of boxes plus candidate pairs for
//! boxes of similar size (times a logarithm for levels stored as sorted lists);
//! a cell crowded with boxes that do not overlap each other costs quadratically
//! in that cell's population.
//!
//! # Files
//!
//! This file holds [`Aabb`] and the pair-list functions; `grid.rs` the
//! hierarchical grid behind the fast versions (cell size, levels, the parallel
//! search and `keep`); `sort.rs` one level's boxes sorted by cell and its scan;
//! `tests.rs` and `proptests.rs` the hand cases and the property tests against
//! the brute-force twins.

mod grid;
#[cfg(test)]
mod proptests;
mod sort;
#[cfg(test)]
mod tests;

/// An axis-aligned box (m); 2D boxes have `lo[2] = hi[2] = 0`.
///
/// Closed on all sides. A box with `lo[k] > hi[k]` on some axis is empty; a box
/// with any NaN bound overlaps everything (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Lower corner (m).
    pub lo: [f64; 3],
    /// Upper corner (m).
    pub hi: [f64; 3],
}

/// Accumulates the bounds of a set of points, remembering NaN coordinates.
struct BoxBuilder {
    /// Number of coordinates used per point (1, 2 or 3).
    dim: usize,
    /// Lower bounds of the non-NaN coordinates seen so far.
    lo: [f64; 3],
    /// Upper bounds of the non-NaN coordinates seen so far.
    hi: [f64; 3],
    /// Whether a NaN coordinate was seen on each axis.
    nan: [bool; 3],
    /// Whether any point was added.
    any: bool,
}

impl BoxBuilder {
    /// An empty builder for points of dimension `dim`.
    ///
    /// Panics if `dim` is not 1, 2 or 3.
    fn new(dim: usize) -> Self {
        assert!(
            (1..=3).contains(&dim),
            "Aabb: dimension must be 1, 2 or 3, got {dim}"
        );
        BoxBuilder {
            dim,
            lo: [f64::INFINITY; 3],
            hi: [f64::NEG_INFINITY; 3],
            nan: [false; 3],
            any: false,
        }
    }

    /// Adds the point `p` (the first `dim` entries are used).
    fn add(&mut self, p: &[f64]) {
        self.any = true;
        for (k, &v) in p.iter().enumerate().take(self.dim) {
            if v.is_nan() {
                self.nan[k] = true;
            } else {
                self.lo[k] = self.lo[k].min(v);
                self.hi[k] = self.hi[k].max(v);
            }
        }
    }

    /// The box of the points added: [`Aabb::empty`] if none, axes at and beyond
    /// `dim` set to 0, and NaN bounds on every axis that saw a NaN coordinate.
    fn finish(self) -> Aabb {
        if !self.any {
            return Aabb::empty();
        }
        let mut b = Aabb {
            lo: self.lo,
            hi: self.hi,
        };
        for k in 0..3 {
            if k >= self.dim {
                b.lo[k] = 0.0;
                b.hi[k] = 0.0;
            } else if self.nan[k] {
                b.lo[k] = f64::NAN;
                b.hi[k] = f64::NAN;
            }
        }
        b
    }
}

impl Aabb {
    /// The empty box (`lo = +∞`, `hi = -∞` on every axis): overlaps nothing except
    /// NaN boxes, and is the neutral start for growing a box.
    pub fn empty() -> Self {
        Aabb {
            lo: [f64::INFINITY; 3],
            hi: [f64::NEG_INFINITY; 3],
        }
    }

    /// The box of the nodes `nodes` of the flat `nodes × dim` position array `x`
    /// (m). Axes at and beyond `dim` are set to 0; an empty node list gives
    /// [`Aabb::empty`]; a NaN coordinate makes that axis NaN (the box then overlaps
    /// everything).
    ///
    /// Panics if `dim` is not 1, 2 or 3 or a node index is out of range.
    pub fn of_points(dim: usize, x: &[f64], nodes: &[u32]) -> Self {
        let mut b = BoxBuilder::new(dim);
        for &n in nodes {
            let i = n as usize * dim;
            b.add(&x[i..i + dim]);
        }
        b.finish()
    }

    /// The box of the nodes `nodes` both at `x` and at `x + alpha p` (m), which
    /// contains the whole linear sweep of every node between the two (boxes are
    /// convex). `x` and `p` are flat `nodes × dim` arrays (positions in m and a
    /// displacement direction, `alpha` dimensionless). Axes at and beyond `dim`
    /// are 0; NaN coordinates (including `0 · ∞`) give a NaN axis, so the box
    /// overlaps everything.
    ///
    /// Panics if `dim` is not 1, 2 or 3 or a node index is out of range.
    pub fn swept(dim: usize, x: &[f64], p: &[f64], alpha: f64, nodes: &[u32]) -> Self {
        let mut b = BoxBuilder::new(dim);
        for &n in nodes {
            let i = n as usize * dim;
            let xi = &x[i..i + dim];
            let pi = &p[i..i + dim];
            b.add(xi);
            let mut y = [0.0; 3];
            for k in 0..dim {
                y[k] = xi[k] + alpha * pi[k];
            }
            b.add(&y[..dim]);
        }
        b.finish()
    }

    /// The box grown by `r` (m, meant to be ≥ 0) on every side of all three axes.
    ///
    /// The third axis of a 2D box becomes `[-r, r]`, which is harmless since all
    /// 2D boxes (inflated or not) still overlap in it. Empty boxes stay empty,
    /// NaN boxes stay NaN, and a NaN `r` gives a NaN box.
    pub fn inflated(self, r: f64) -> Self {
        Aabb {
            lo: self.lo.map(|v| v - r),
            hi: self.hi.map(|v| v + r),
        }
    }

    /// Whether any bound is NaN (such a box overlaps everything).
    pub fn has_nan(&self) -> bool {
        self.lo.iter().chain(&self.hi).any(|v| v.is_nan())
    }

    /// Whether the box is empty: no NaN bound and `lo[k] > hi[k]` on some axis.
    pub fn is_empty(&self) -> bool {
        !self.has_nan() && (0..3).any(|k| self.lo[k] > self.hi[k])
    }

    /// Whether the closed boxes share at least one point; `true` whenever either
    /// box has a NaN bound (conservative), otherwise `false` whenever either box
    /// is empty.
    pub fn overlaps(&self, other: &Aabb) -> bool {
        if self.has_nan() || other.has_nan() {
            return true;
        }
        (0..3).all(|k| {
            self.lo[k] <= self.hi[k]
                && other.lo[k] <= other.hi[k]
                && self.lo[k] <= other.hi[k]
                && other.lo[k] <= self.hi[k]
        })
    }
}

/// Every `(i, j)` with `a[i]` overlapping `b[j]` and `keep(i, j)`, sorted by
/// `(i, j)`, each once.
///
/// Uses the hierarchical grid of the module docs, searched on the rayon pool:
/// about linear cost in the number of boxes plus overlapping pairs. `keep` is
/// called once for each pair of overlapping boxes (in no particular order, on
/// the calling thread) and never for other pairs. The result equals
/// [`brute_force_pairs`].
///
/// Panics if either slice has more than `u32::MAX` boxes.
pub fn overlapping_pairs(a: &[Aabb], b: &[Aabb], keep: impl Fn(u32, u32) -> bool) -> Vec<[u32; 2]> {
    check_len(a);
    check_len(b);
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    grid::overlaps(a, Some(b), keep)
}

/// Every `(i, j)`, `i < j`, with `a[i]` overlapping `a[j]` and `keep(i, j)`,
/// sorted by `(i, j)`, each once.
///
/// Uses the hierarchical grid of the module docs, searched on the rayon pool:
/// about linear cost in the number of boxes plus overlapping pairs. `keep` is
/// called once for each pair of overlapping boxes (in no particular order, on
/// the calling thread) and never for other pairs. The result equals
/// [`brute_force_self_pairs`].
///
/// Panics if the slice has more than `u32::MAX` boxes.
pub fn self_overlapping_pairs(a: &[Aabb], keep: impl Fn(u32, u32) -> bool) -> Vec<[u32; 2]> {
    check_len(a);
    grid::overlaps(a, None, keep)
}

/// The brute-force twin of [`overlapping_pairs`]: tests all `a.len() · b.len()`
/// pairs with [`Aabb::overlaps`]. The reference for tests; same output.
pub fn brute_force_pairs(a: &[Aabb], b: &[Aabb], keep: impl Fn(u32, u32) -> bool) -> Vec<[u32; 2]> {
    check_len(a);
    check_len(b);
    let mut out = Vec::new();
    for (i, bi) in a.iter().enumerate() {
        for (j, bj) in b.iter().enumerate() {
            let (i, j) = (i as u32, j as u32);
            if bi.overlaps(bj) && keep(i, j) {
                out.push([i, j]);
            }
        }
    }
    out
}

/// The brute-force twin of [`self_overlapping_pairs`]: tests all
/// `n (n - 1) / 2` pairs with [`Aabb::overlaps`]. The reference for tests; same
/// output.
pub fn brute_force_self_pairs(a: &[Aabb], keep: impl Fn(u32, u32) -> bool) -> Vec<[u32; 2]> {
    check_len(a);
    let mut out = Vec::new();
    for (i, bi) in a.iter().enumerate() {
        for (j, bj) in a.iter().enumerate().skip(i + 1) {
            let (i, j) = (i as u32, j as u32);
            if bi.overlaps(bj) && keep(i, j) {
                out.push([i, j]);
            }
        }
    }
    out
}

/// Panics if `a` has more boxes than `u32` can index.
fn check_len(a: &[Aabb]) {
    assert!(
        u32::try_from(a.len()).is_ok(),
        "broad phase: more than u32::MAX boxes"
    );
}
