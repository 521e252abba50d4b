//! Drawing one state: the view that fits every frame, the walls' zero sets, springs,
//! nodes and particle discs, the corner labels, and the GIF palette.

use super::Frame;
use crate::plot::canvas::{Canvas, Rgb};
use crate::plot::PALETTE;
use crate::scene::Scene;
use crate::script::WallParts;

const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];
const SPRING: Rgb = [120, 120, 120];

/// The GIF palette: white, black, greys, and the plot palette for bodies and balls.
pub(super) fn palette() -> Vec<Rgb> {
    let mut p = vec![
        WHITE,
        BLACK,
        SPRING,
        [200, 200, 200],
        [60, 60, 60],
        [160, 160, 160],
    ];
    p.extend_from_slice(&PALETTE);
    p
}

/// The world → pixel map of a square view.
pub(super) struct View {
    min: [f64; 2],
    scale: f64,
    size: usize,
}

impl View {
    fn px(&self, p: &[f64]) -> (f64, f64) {
        (
            (p[0] - self.min[0]) * self.scale,
            self.size as f64 - (p[1] - self.min[1]) * self.scale,
        )
    }

    fn world(&self, x: f64, y: f64) -> [f64; 2] {
        [
            self.min[0] + x / self.scale,
            self.min[1] + (self.size as f64 - y) / self.scale,
        ]
    }
}

/// A wall as a function of a point (m), positive inside.
type WallFn<'a> = Box<dyn Fn(&[f64]) -> f64 + 'a>;

/// The walls at time `t` (s; moving walls where their script puts them) as a
/// function of a 3-vector point (m, positive where nodes may be), radius added back
/// so that the drawn line is the wall itself.
fn wall_functions(s: &Scene, t: f64) -> Vec<WallFn<'_>> {
    let dim = s.model.dim;
    let r = s.particle_radius;
    let (mut planes, mut implicit) = (s.model.walls.clone(), s.model.implicit_walls.clone());
    for m in &s.model.moving_walls {
        let Some(pose) = m.motion.pose(t) else {
            continue;
        };
        match &m.parts {
            WallParts::Plane(w) => {
                for (o, (a, u)) in planes[*w]
                    .origin
                    .iter_mut()
                    .zip(m.origin.iter().zip(pose.translate))
                {
                    *o = a + u;
                }
            }
            WallParts::Implicit(range) => {
                for w in &mut implicit[range.clone()] {
                    w.frame = Some(crate::implicit::Frame::of_pose(&pose, &m.origin));
                }
            }
        }
    }
    // One function, the smallest: the drawn line is the edge of where nodes may be
    // (a diamond's four half-planes meet at its corners instead of crossing).
    if planes.is_empty() && implicit.is_empty() {
        return vec![];
    }
    let all: WallFn<'_> = Box::new(move |p: &[f64]| {
        let x = &p[..dim];
        let plane = planes.iter().map(|w| w.distance(x));
        let curved = implicit.iter().map(|w| w.distance(x));
        plane.chain(curved).fold(f64::INFINITY, f64::min) + r
    });
    vec![all]
}

/// A square view holding every state and the walls' zero sets near them.
pub(super) fn fit_view(s: &Scene, frames: &[Frame], size: usize) -> View {
    let dim = s.model.dim;
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for (_, x) in frames {
        for p in x.chunks(dim) {
            for k in 0..2 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
    }
    // walls: sign changes on a coarse grid over a box four times as wide
    let c = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
    let half = ((hi[0] - lo[0]).max(hi[1] - lo[1]) / 2.0).max(0.5) * 4.0;
    let walls = wall_functions(s, 0.0);
    let n = 160;
    let at = |i: usize, j: usize| {
        [
            c[0] - half + 2.0 * half * i as f64 / n as f64,
            c[1] - half + 2.0 * half * j as f64 / n as f64,
            0.0,
        ]
    };
    for f in &walls {
        for i in 0..n {
            for j in 0..n {
                let (a, b, d) = (f(&at(i, j)), f(&at(i + 1, j)), f(&at(i, j + 1)));
                if (a > 0.0) != (b > 0.0) || (a > 0.0) != (d > 0.0) {
                    let p = at(i, j);
                    for k in 0..2 {
                        lo[k] = lo[k].min(p[k]);
                        hi[k] = hi[k].max(p[k]);
                    }
                }
            }
        }
    }
    let span = (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1e-3) * 1.08;
    let mid = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
    View {
        min: [mid[0] - span / 2.0, mid[1] - span / 2.0],
        scale: size as f64 / span,
        size,
    }
}

/// The wall pixels at time `t` (s): where some wall function changes sign to a
/// neighbouring pixel.
pub(super) fn wall_mask(s: &Scene, view: &View, t: f64) -> Vec<bool> {
    let n = view.size;
    let mut mask = vec![false; n * n];
    for f in wall_functions(s, t) {
        let vals: Vec<bool> = (0..n * n)
            .map(|k| {
                let w = view.world((k % n) as f64 + 0.5, (k / n) as f64 + 0.5);
                f(&[w[0], w[1], 0.0]) > 0.0
            })
            .collect();
        for y in 0..n {
            for x in 0..n {
                let v = vals[y * n + x];
                if (x + 1 < n && vals[y * n + x + 1] != v)
                    || (y + 1 < n && vals[(y + 1) * n + x] != v)
                {
                    mask[y * n + x] = true;
                }
            }
        }
    }
    mask
}

/// Draws one state.
pub(super) fn draw(s: &Scene, view: &View, mask: &[bool], x: &[f64], time: f64) -> Canvas {
    let n = view.size;
    let dim = s.model.dim;
    let mut c = Canvas::new(n, n, WHITE);
    for (k, m) in mask.iter().enumerate() {
        if *m {
            let (px, py) = ((k % n) as i64, (k / n) as i64);
            c.fill_rect(px, py, px + 2, py + 2, BLACK);
        }
    }
    for sp in &s.model.springs {
        let (a, b) = (sp.a as usize, sp.b as usize);
        c.line(view.px(&x[a * dim..]), view.px(&x[b * dim..]), 1.0, SPRING);
    }
    let r_px = s.particle_radius * view.scale;
    for (bi, body) in s.model.bodies.iter().enumerate() {
        for i in body.first_node..body.first_node + body.nodes {
            let color = if body.nodes > 1 && s.model.springs.is_empty() {
                PALETTE[(i - body.first_node) % PALETTE.len()]
            } else {
                PALETTE[bi % PALETTE.len()]
            };
            let (px, py) = view.px(&x[i * dim..]);
            let r = if s.model.springs.is_empty() {
                r_px.max(2.0)
            } else {
                1.5
            };
            disc(&mut c, px, py, r, color);
        }
    }
    let label = match &s.nonsmooth {
        Some(p) => format!("e = {:.2}", p.restitution),
        None => "IPC".to_string(),
    };
    c.text(8, 8, &format!("t = {time:.2} s"), 2, BLACK);
    c.text(8, 28, &label, 2, BLACK);
    if dim == 3 {
        c.text(8, 48, "x-y view", 1, BLACK);
    }
    c
}

fn disc(c: &mut Canvas, cx: f64, cy: f64, r: f64, color: Rgb) {
    // Clipped to the canvas: a huge radius (or a far node) costs no more than the image.
    let (w, h) = (c.width as i64, c.height as i64);
    let x0 = ((cx - r - 1.0).floor() as i64).max(-1);
    let x1 = ((cx + r + 1.0).ceil() as i64).min(w + 1);
    let y0 = ((cy - r - 1.0).floor() as i64).max(-1);
    let y1 = ((cy + r + 1.0).ceil() as i64).min(h + 1);
    for y in y0..=y1 {
        for x in x0..=x1 {
            let d = ((x as f64 + 0.5 - cx).powi(2) + (y as f64 + 0.5 - cy).powi(2)).sqrt();
            c.blend(x, y, color, (r + 0.5 - d).clamp(0.0, 1.0));
        }
    }
}

/// Nearest palette index of every pixel.
pub(super) fn indices(c: &Canvas, pal: &[Rgb]) -> Vec<u8> {
    c.pixels
        .chunks(3)
        .map(|p| {
            let mut best = (u32::MAX, 0u8);
            for (k, q) in pal.iter().enumerate() {
                let d: u32 = (0..3)
                    .map(|i| (p[i] as i32 - q[i] as i32).pow(2) as u32)
                    .sum();
                if d < best.0 {
                    best = (d, k as u8);
                }
            }
            best.1
        })
        .collect()
}
