//! The memory a scene needs, estimated from its node and spring counts before any
//! body is generated, so that a scene too large for the machine is refused with one
//! line instead of an allocation failure or the OOM killer.
//!
//! The estimate counts the arrays of the model (held twice: the scene's and the
//! backend's copy) and of the CPU backend, per node and per spring. Calibrated with
//! `/usr/bin/time -v` (maximum resident set size) on `springsim run --backend cpu
//! --steps 2`: a 700 × 700 grid (491 401 nodes, 1 961 400 springs) held 413 MB, of
//! which 17 MB is the program itself (a 4 × 4 grid), against 463 MB estimated; a
//! 60³ lattice (226 981 nodes, 2 851 380 springs) held 596 MB against 631 MB
//! estimated. The estimate is thus 10–15 % above what a run holds.

/// Most nodes a body may have: node indices are `u32`, and the GPU backend indexes
/// `4 × nodes` entries.
pub const MAX_NODES: u64 = 1 << 28;

/// Bytes a CPU-backend run holds per node of a `dim`-dimensional scene (model,
/// its copy in the backend, the backend's state, Newton and PCG vectors, the node
/// blocks and their inverses).
pub fn bytes_per_node(dim: u64) -> u64 {
    // 2 copies of x0, v0; x, xⁿ, x̃, v, a, p, trial, rhs, accumulators and ~6 PCG
    // vectors: ~24 f64 per coordinate; node block and its inverse: 2 dim² f64;
    // mass, area, fixed (twice), adjacency offset.
    24 * 8 * dim + 2 * 8 * dim * dim + 48
}

/// Bytes a CPU-backend run holds per spring of a `dim`-dimensional scene (the
/// generated pair, two copies of the [`crate::model::Spring`], the node → spring
/// adjacency, the per-spring gradient and Hessian block).
pub fn bytes_per_spring(dim: u64) -> u64 {
    8 + 2 * 24 + 8 + 8 * dim + 8 * dim * dim
}

/// Estimated bytes of a run of a `dim`-dimensional scene with `nodes` nodes and
/// `springs` springs; `None` when the product overflows 64 bits.
pub fn estimate_bytes(dim: u64, nodes: u64, springs: u64) -> Option<u64> {
    nodes
        .checked_mul(bytes_per_node(dim))?
        .checked_add(springs.checked_mul(bytes_per_spring(dim))?)
}

/// The memory available to a new allocation (bytes): `MemAvailable` of
/// `/proc/meminfo` on Linux; `None` elsewhere or when it cannot be read.
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line
        .trim_start_matches("MemAvailable:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// Bytes as GiB with up to three significant decimals, for messages.
pub fn gib(bytes: u64) -> String {
    let g = bytes as f64 / (1u64 << 30) as f64;
    if g >= 100.0 {
        format!("{g:.0}")
    } else if g >= 0.1 {
        format!("{g:.1}")
    } else {
        format!("{g:.3}")
    }
}

/// Checks that a scene of `nodes` and `springs` (`None`: the count overflowed 64 bits)
/// fits: at most [`MAX_NODES`] nodes and an estimated footprint within `available`
/// bytes (unchecked when `None`). The error is the reason, in words.
pub fn check(
    dim: u64,
    nodes: Option<u64>,
    springs: Option<u64>,
    available: Option<u64>,
) -> Result<(), String> {
    let (Some(nodes), Some(springs)) = (nodes, springs) else {
        return Err(format!(
            "the node or spring count overflows 64-bit arithmetic; springsim handles at most {MAX_NODES} nodes"
        ));
    };
    if nodes > MAX_NODES {
        return Err(format!(
            "{nodes} nodes is more than springsim handles (at most {MAX_NODES})"
        ));
    }
    let need = estimate_bytes(dim, nodes, springs).unwrap_or(u64::MAX);
    match available {
        Some(have) if need > have => Err(format!(
            "{nodes} nodes and {springs} springs need about {} GiB; this machine has {} GiB available",
            gib(need),
            gib(have)
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_overflow_too_many_nodes_and_more_than_available() {
        let e = check(2, None, Some(1), Some(1 << 40)).unwrap_err();
        assert!(e.contains("overflows"), "{e}");
        let e = check(2, Some(MAX_NODES + 1), Some(0), None).unwrap_err();
        assert!(e.contains("more than springsim handles"), "{e}");
        let (n, s) = (100_020_001, 400_020_000);
        let need = estimate_bytes(2, n, s).unwrap();
        assert!(check(2, Some(n), Some(s), Some(need)).is_ok());
        assert!(check(2, Some(n), Some(s), None).is_ok());
        let e = check(2, Some(n), Some(s), Some(need - 1)).unwrap_err();
        assert!(
            e.starts_with("100020001 nodes and 400020000 springs need about ")
                && e.ends_with(" GiB available"),
            "{e}"
        );
        assert!(estimate_bytes(3, u64::MAX / 2, 0).is_none());
    }

    #[test]
    fn meminfo_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            let a = available_bytes().expect("MemAvailable in /proc/meminfo");
            assert!(a > 1 << 20, "{a}");
        }
        assert_eq!(gib(3 << 30), "3.0");
        assert_eq!(gib(200 << 30), "200");
    }
}
