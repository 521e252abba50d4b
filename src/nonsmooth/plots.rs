//! The pictures of a nonsmooth run, as in seed 002: `gap.png` (gap to the nearest
//! wall, contact steps marked), `velocity.png` (vertical velocity), `lambda.png`
//! (impulse λ), `energy_balance.png` (E_kin, E_pot, E_dis, E_mech) and
//! `energy_variation.png` (E_total − E_total⁰ and E_total_alg − E_total_alg⁰).

use super::scheme::ParticleSystem;
use crate::plot::{Chart, Series, Style};
use std::path::{Path, PathBuf};

/// Particles drawn individually in the per-particle plots (the rest are left out).
pub const MAX_PLOTTED_PARTICLES: usize = 8;

/// What the plots need, gathered step by step.
#[derive(Clone, Debug, Default)]
pub struct History {
    /// Times (s).
    pub t: Vec<f64>,
    /// Gap to the nearest wall (m) per plotted particle.
    pub gap: Vec<Vec<f64>>,
    /// Vertical velocity (the last coordinate axis in 1D, y otherwise) per plotted particle.
    pub v: Vec<Vec<f64>>,
    /// Impulse λ per plotted particle.
    pub lambda: Vec<Vec<f64>>,
    /// Contact flag per plotted particle.
    pub contact: Vec<Vec<bool>>,
    /// Energies: kinetic, potential, dissipated, mechanical, total, total algorithmic.
    pub energies: [Vec<f64>; 6],
}

impl History {
    /// An empty history for `particles` particles.
    pub fn new(particles: usize) -> Self {
        let k = particles.min(MAX_PLOTTED_PARTICLES);
        Self {
            gap: vec![vec![]; k],
            v: vec![vec![]; k],
            lambda: vec![vec![]; k],
            contact: vec![vec![]; k],
            ..Self::default()
        }
    }

    /// Appends the current state of `s`.
    pub fn record(&mut self, s: &ParticleSystem) {
        self.t.push(s.time);
        let axis = if s.dim == 1 { 0 } else { 1 };
        for i in 0..self.gap.len() {
            self.gap[i].push(s.gap(i));
            self.v[i].push(s.v[i * s.dim + axis]);
            self.lambda[i].push(s.lambda[i]);
            self.contact[i].push(s.contact[i]);
        }
        let e = &s.energies;
        let vals = [
            e.kinetic,
            e.potential,
            e.dissipated,
            e.mechanical,
            e.total,
            e.total_algorithmic,
        ];
        for (h, v) in self.energies.iter_mut().zip(vals) {
            h.push(v);
        }
    }
}

/// Writes the five plots of `h` into `dir`; returns their paths.
pub fn write_plots(dir: &Path, name: &str, h: &History) -> Result<Vec<PathBuf>, String> {
    let many = h.gap.len() > 1;
    let who = |i: usize, what: &str| {
        if many {
            format!("{what} #{i}")
        } else {
            what.to_string()
        }
    };
    let mut charts = Vec::new();
    let mut gap = Chart::new(
        format!("{name}: gap to the nearest wall"),
        "t (s)",
        "gap (m)",
    );
    for i in 0..h.gap.len() {
        gap.series
            .push(Series::line(who(i, "gap"), &h.t, &h.gap[i]));
        let marks: Vec<(f64, f64)> = (0..h.t.len())
            .filter(|&k| h.contact[i][k])
            .map(|k| (h.t[k], h.gap[i][k]))
            .collect();
        gap.series.push(Series {
            label: who(i, "contact"),
            points: marks,
            style: Style::Markers,
        });
    }
    charts.push(("gap", gap));
    let mut vel = Chart::new(format!("{name}: velocity"), "t (s)", "v (m/s, up)");
    let mut lam = Chart::new(
        format!("{name}: contact impulse lambda = m w"),
        "t (s)",
        "lambda (kg m/s)",
    );
    for i in 0..h.gap.len() {
        vel.series.push(Series::line(who(i, "v"), &h.t, &h.v[i]));
        lam.series
            .push(Series::line(who(i, "lambda"), &h.t, &h.lambda[i]));
    }
    charts.push(("velocity", vel));
    charts.push(("lambda", lam));
    let mut bal = Chart::new(format!("{name}: energy balance"), "t (s)", "energy (J)");
    for (k, label) in [(0, "E_kin"), (1, "E_pot"), (2, "E_dis"), (3, "E_mech")] {
        bal.series.push(Series::line(label, &h.t, &h.energies[k]));
    }
    charts.push(("energy_balance", bal));
    let mut var = Chart::new(
        format!("{name}: total energy variation"),
        "t (s)",
        "energy variation (J)",
    );
    for (k, label) in [(4, "E_total"), (5, "E_total_alg")] {
        let e = &h.energies[k];
        let e0 = e.first().copied().unwrap_or(0.0);
        let d: Vec<f64> = e.iter().map(|x| x - e0).collect();
        var.series.push(Series::line(label, &h.t, &d));
    }
    charts.push(("energy_variation", var));
    let mut paths = Vec::new();
    for (file, chart) in charts {
        let path = dir.join(format!("{file}.png"));
        chart.save(&path)?;
        paths.push(path);
    }
    Ok(paths)
}
