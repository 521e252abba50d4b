//! Particle bodies of several balls drawn from a seeded random generator (seed 004
//! draws five balls inside its containers): positions uniform in `center ± spread`,
//! kept only when clear of every wall by more than d̂ (and the radius), velocity
//! components uniform in `[−speed, speed]`.

use super::builder::{body_info, Body, GENERATOR_KEYS};
use super::{Builder, SceneError};
use crate::model::Model;

/// SplitMix64: a small, well-mixed, reproducible generator.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next uniform number in `[0, 1)`.
    pub fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl Builder<'_> {
    /// Adds a particle body of `count` random balls (one node each).
    pub(super) fn add_balls(&self, model: &mut Model, body: Body) -> Result<(), SceneError> {
        let Body { bi, b } = body;
        let dim = model.dim;
        let p = |f: &str| body.key(f);
        let sec = format!("bodies.{bi}");
        let by = "random particles (count)";
        let keys = [&GENERATOR_KEYS[..], &["velocity", "fixed"]].concat();
        self.reject_body_keys(bi, b, &keys, |_| {
            "random particles take mass, radius, count, seed, center, spread and speed, not this key"
                .into()
        })?;
        let count = self.required(&sec, "count", b.count, by)?;
        if count == 0 || count > 1_000_000 {
            return Err(self.err(
                &p("count"),
                format!("must be between 1 and 1000000, got {count}"),
            ));
        }
        self.check_memory(model, &p("count"), Some((count, 0)))?;
        let seed = self.required(&sec, "seed", b.seed, by)?;
        let mass = self.positive(&p("mass"), self.required(&sec, "mass", b.mass, by)?)?;
        let center = self.vector_or_zero(&p("center"), b.center.as_ref(), dim)?;
        let spread = self.vector(
            &p("spread"),
            self.required(&sec, "spread", b.spread.as_ref(), by)?,
            dim,
        )?;
        let speed = b.speed.unwrap_or(0.0);
        if !(speed.is_finite() && speed >= 0.0) {
            return Err(self.err(
                &p("speed"),
                format!(
                    "must be a finite number ≥ 0, got {}",
                    super::format::fmt_num(speed)
                ),
            ));
        }
        let area = self.contact_area(&p("contact_area"), b.contact_area.as_ref(), 1.0, false)?;
        let dhat = model.barrier.dhat;
        let mut rng = SplitMix(seed);
        let first = model.num_nodes();
        let mut x = vec![0.0; dim];
        for k in 0..count {
            let mut tries = 0;
            loop {
                for c in 0..dim {
                    x[c] = center[c] + spread[c] * (2.0 * rng.uniform() - 1.0);
                }
                let clear = model.walls.iter().all(|w| w.distance(&x) > dhat)
                    && model.implicit_walls.iter().all(|w| w.distance(&x) > dhat);
                if clear {
                    break;
                }
                tries += 1;
                if tries > 10_000 {
                    return Err(self.err(&p("spread"), format!("found no place clear of the walls for ball {k} in 10000 draws; make center ± spread lie inside the walls")));
                }
            }
            model.x0.extend_from_slice(&x);
            for _ in 0..dim {
                model.v0.push(speed * (2.0 * rng.uniform() - 1.0));
            }
            model.mass.push(mass);
            model.contact_area.push(area);
            model.fixed.push(false);
        }
        model
            .bodies
            .push(body_info(b, bi, first, count as usize, 0));
        self.add_collision_body(model, bi, b, count as usize, Default::default())?;
        Ok(())
    }
}
