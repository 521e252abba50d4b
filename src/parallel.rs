//! Deterministic data-parallel helpers for the CPU backend.
//!
//! Work is split into fixed chunks, so sums are added in the same order whatever
//! the thread count: a run gives bit-identical results on 1 or 64 cores. Small
//! problems (the seed's 25-node square) stay on the calling thread, where a
//! thread-pool dispatch would cost more than the work.

use rayon::prelude::*;

/// Runs `f` on a worker of the global thread pool (at once when called on one) and
/// returns its result. A thread outside the pool hands every parallel loop over and
/// waits, while the pool's workers, spinning between loops, compete with it for the
/// cores whenever it works alone: 16 % of a step on the 4,225-node square on 2 cores
/// (benchmarks/NOTES.md).
pub fn in_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::join(f, || ()).0
}

/// Items per parallel chunk; below two chunks everything runs serially.
pub const CHUNK: usize = 2048;

/// Calls `f(i, out_i)` for every `width`-long piece `out_i` of `out`.
pub fn for_each_piece<F>(out: &mut [f64], width: usize, f: F)
where
    F: Fn(usize, &mut [f64]) + Sync + Send,
{
    let n = out.len() / width;
    if n < 2 * CHUNK {
        out.chunks_mut(width).enumerate().for_each(|(i, o)| f(i, o));
    } else {
        out.par_chunks_mut(width * CHUNK)
            .enumerate()
            .for_each(|(c, block)| {
                for (j, o) in block.chunks_mut(width).enumerate() {
                    f(c * CHUNK + j, o);
                }
            });
    }
}

/// As [`for_each_piece`] for pieces that are each much work (a dense factorisation,
/// say): every piece may go to its own task, however few there are. The pieces are
/// independent, so the result does not depend on the thread count either.
pub fn for_each_heavy_piece<F>(out: &mut [f64], width: usize, f: F)
where
    F: Fn(usize, &mut [f64]) + Sync + Send,
{
    out.par_chunks_mut(width)
        .enumerate()
        .for_each(|(i, o)| f(i, o));
}

/// `Σ_{i<n} f(i)`, summed chunk by chunk in a fixed order.
pub fn sum<F>(n: usize, f: F) -> f64
where
    F: Fn(usize) -> f64 + Sync + Send,
{
    if n < 2 * CHUNK {
        return (0..n).map(f).sum();
    }
    let parts: Vec<f64> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| (c * CHUNK..((c + 1) * CHUNK).min(n)).map(&f).sum::<f64>())
        .collect();
    parts.iter().sum()
}

/// `min_{i<n} f(i)` (`+∞` for n = 0).
pub fn min<F>(n: usize, f: F) -> f64
where
    F: Fn(usize) -> f64 + Sync + Send,
{
    if n < 2 * CHUNK {
        return (0..n).map(f).fold(f64::INFINITY, f64::min);
    }
    (0..n)
        .into_par_iter()
        .with_min_len(CHUNK)
        .map(f)
        .reduce(|| f64::INFINITY, f64::min)
}

/// Items per parallel task of [`map`], whose items are heavier than a node's loop
/// (a contact pair's distance and derivatives).
pub const MAP_CHUNK: usize = 256;

/// `[f(0), …, f(n − 1)]` in order, computed in parallel from `2 MAP_CHUNK` items on.
pub fn map<T, F>(n: usize, f: F) -> Vec<T>
where
    T: Send,
    F: Fn(usize) -> T + Sync + Send,
{
    if n < 2 * MAP_CHUNK {
        return (0..n).map(f).collect();
    }
    (0..n)
        .into_par_iter()
        .with_min_len(MAP_CHUNK)
        .map(f)
        .collect()
}

/// Dot product `aᵀb` in the fixed chunk order.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    sum(a.len(), |i| a[i] * b[i])
}

#[cfg(test)]
mod tests {
    #[test]
    fn in_pool_runs_on_a_worker_and_returns_the_result() {
        assert_eq!(
            rayon::current_thread_index(),
            None,
            "the test thread is outside"
        );
        let (worker, sum) = super::in_pool(|| {
            (
                rayon::current_thread_index(),
                super::dot(&[1.0; 5000], &[2.0; 5000]),
            )
        });
        assert!(worker.is_some(), "ran outside the pool");
        assert_eq!(sum, 10000.0);
        // Called on a worker, it runs right there.
        let nested = super::in_pool(|| {
            let me = rayon::current_thread_index();
            super::in_pool(|| rayon::current_thread_index() == me)
        });
        assert!(nested);
    }
}
