//! What the host reads back from the device, decoded in one place: each reduction's
//! lanes (see the kernel file named on each type) become named fields.

use super::layout::Lanes;

/// The active contact pairs at x and their smallest distance (`pair_stats`,
/// `shaders/kernels/pairs.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairTotals {
    /// Pairs closer than d̂.
    pub active: u64,
    /// The smallest distance (m) among them; `+∞` without one.
    pub min_distance: f64,
    /// Friction between primitives: lagged pairs whose slip is below ε_v h, and
    /// those whose slip is not.
    pub sticking: u64,
    pub sliding: u64,
    /// `Σ μ λ |T u|` over the lagged pairs (J).
    pub dissipation: f64,
}

impl Default for PairTotals {
    fn default() -> Self {
        Self {
            active: 0,
            min_distance: f64::INFINITY,
            sticking: 0,
            sliding: 0,
            dissipation: 0.0,
        }
    }
}

impl From<Lanes> for PairTotals {
    fn from(l: Lanes) -> Self {
        let min = l.mixed[2];
        Self {
            active: l.sums[0].round() as u64,
            min_distance: if min >= 1e38 { f64::INFINITY } else { min },
            sticking: l.sums[1].round() as u64,
            sliding: l.sums[2].round() as u64,
            dissipation: l.sums[3],
        }
    }
}

/// The incremental potential and the diagnostics at x (`energy_total`,
/// `shaders/kernels/energy.wgsl`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EnergyTotals {
    /// Incremental potential E (J).
    pub energy: f64,
    /// `½ Σ m |v|²` (J).
    pub kinetic: f64,
    /// `−Σ m g·x` (J).
    pub gravity: f64,
    /// Spring energy (J).
    pub elastic: f64,
    /// Barrier energy without the h² factor (J).
    pub barrier: f64,
    /// Smallest signed wall distance (m); `+∞` without walls.
    pub min_wall_distance: f64,
    /// Some node is at or behind a wall (E is then `+∞`).
    pub inadmissible: bool,
}

impl From<Lanes> for EnergyTotals {
    fn from(l: Lanes) -> Self {
        let min = l.mixed[2];
        Self {
            energy: l.sums[0],
            kinetic: l.sums[1],
            gravity: l.sums[2],
            elastic: l.sums[3],
            barrier: l.mixed[0],
            // the min lane starts at BIG (3e38, common.wgsl) where there is no wall
            min_wall_distance: if min >= 1e38 { f64::INFINITY } else { min },
            inadmissible: l.mixed[3] > 0.0,
        }
    }
}

impl EnergyTotals {
    /// E (J), `+∞` where the iterate is inadmissible.
    pub fn potential(&self) -> f64 {
        if self.inadmissible {
            f64::INFINITY
        } else {
            self.energy
        }
    }
}

/// `E(x + α p) − E(x)` of a line-search trial (`energy_change`,
/// `shaders/kernels/energy.wgsl`; the first trial by `reduce_trial`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EnergyChange {
    /// ΔE (J).
    pub change: f64,
    /// Some node of the trial point is at or behind a wall.
    pub inadmissible: bool,
}

impl From<Lanes> for EnergyChange {
    fn from(l: Lanes) -> Self {
        Self {
            change: l.sums[0],
            inadmissible: l.mixed[3] > 0.0,
        }
    }
}

impl EnergyChange {
    /// ΔE (J), `+∞` where the trial point is inadmissible.
    pub fn value(&self) -> f64 {
        if self.inadmissible {
            f64::INFINITY
        } else {
            self.change
        }
    }
}

/// The Newton direction's statistics (`direction_stats`,
/// `shaders/kernels/direction_stats.wgsl`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DirectionSummary {
    /// Nodes whose step is above one f32 ulp of their position.
    pub above_resolution: f64,
    /// Nodes whose step is above `NEAR_RESOLUTION_ULPS` ulps of their position.
    pub above_near_resolution: f64,
    /// The CCD step bound over every node and wall, at most 1.
    pub ccd_bound: f64,
    /// The Newton stopping measure `max_i Σ_k |p_ik|` (m).
    pub norm: f64,
}

impl From<Lanes> for DirectionSummary {
    fn from(l: Lanes) -> Self {
        Self {
            above_resolution: l.sums[0],
            above_near_resolution: l.sums[1],
            ccd_bound: (l.mixed[2]).min(1.0),
            norm: l.mixed[3],
        }
    }
}

/// Friction contacts of the last step (`friction_stats`,
/// `shaders/kernels/friction.wgsl`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrictionTotals {
    /// Contacts whose slip was below ε_v h.
    pub sticking: u64,
    /// Contacts whose slip was at least ε_v h.
    pub sliding: u64,
    /// `Σ μ λ |u|` (J).
    pub dissipation: f64,
}

impl From<Lanes> for FrictionTotals {
    fn from(l: Lanes) -> Self {
        Self {
            sticking: l.sums[0] as u64,
            sliding: l.sums[1] as u64,
            dissipation: l.sums[2],
        }
    }
}

/// The largest change of any lagged λ (N) in a friction lagging update
/// (`friction_lag_update`, `shaders/kernels/friction.wgsl`).
pub fn lag_change(l: Lanes) -> f64 {
    l.mixed[3]
}

/// `dᵀ H d` of the mat-vec probe (`newton_matvec` reduced by `reduce_nodes`).
pub fn quadratic_form(l: Lanes) -> f64 {
    l.sums[0]
}

/// Reals of `width` bytes (4 or 8), little-endian, as f64.
pub fn decode_reals(bytes: &[u8], width: u64) -> Vec<f64> {
    if width == 4 {
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")) as f64)
            .collect()
    } else {
        bytes
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    }
}

/// Maps the staging buffer `buf`, waits for the device, copies `len` bytes out, unmaps.
pub fn map_and_read(device: &wgpu::Device, buf: &wgpu::Buffer, len: u64) -> Vec<u8> {
    map_and_read_all(device, &[(buf, len)]).remove(0)
}

/// Maps every staging buffer of `reads` (each with its length in bytes), waits for
/// the device once, copies each out and unmaps it: one blocking readback.
pub fn map_and_read_all(device: &wgpu::Device, reads: &[(&wgpu::Buffer, u64)]) -> Vec<Vec<u8>> {
    for (buf, len) in reads {
        buf.slice(0..*len).map_async(wgpu::MapMode::Read, |r| {
            r.expect("mapping a staging buffer failed")
        });
    }
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("waiting for the GPU failed");
    reads
        .iter()
        .map(|(buf, len)| {
            let out = buf
                .slice(0..*len)
                .get_mapped_range()
                .expect("reading a mapped staging buffer failed")
                .to_vec();
            buf.unmap();
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inadmissible_results_read_as_infinite() {
        let l = Lanes {
            sums: [2.0, 0.0, 0.0, 0.0],
            mixed: [0.0, 0.0, 3e38, 1.0],
        };
        assert_eq!(EnergyTotals::from(l).potential(), f64::INFINITY);
        assert_eq!(EnergyTotals::from(l).min_wall_distance, f64::INFINITY);
        assert_eq!(EnergyChange::from(l).value(), f64::INFINITY);
        let ok = Lanes {
            mixed: [0.0, 0.0, 0.5, 0.0],
            ..l
        };
        assert_eq!(EnergyTotals::from(ok).potential(), 2.0);
        assert_eq!(EnergyChange::from(ok).value(), 2.0);
        assert_eq!(DirectionSummary::from(l).ccd_bound, 1.0);
    }
}
