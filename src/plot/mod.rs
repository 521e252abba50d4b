//! Self-contained line plots written as PNG: axes, ticks, tick labels, title, axis
//! labels and a legend, drawn with a hand-made bitmap font ([`font`]) so nothing
//! beyond the `png` crate is needed (no system fonts, no freetype).
//!
//! Why not `plotters` (issue 26, tried 2026-11-26 on its bitmap backend with an
//! embedded DejaVu Sans): the frame renderer keeps needing [`canvas`] and [`font`],
//! so the port removed no code (+61 lines) and added 3.5 MB to the binary; and
//! plotters 0.3.7 drops each glyph's left side-bearing (legend entries read
//! "kineti c", "barri er") and rounds every point to a whole pixel, so curves
//! wobble. The plots lost readability for nothing gained; the port stays on the
//! local branch `plot-plotters`.

pub mod axis;
pub mod canvas;
pub mod font;

use axis::Axis;
use canvas::{Canvas, Rgb};
use std::path::Path;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// A polyline through the points.
    Line,
    /// A dot at every point.
    Markers,
    /// Both.
    LineMarkers,
}

/// One curve: a legend label and its `(x, y)` points in data units.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend text (empty: not listed in the legend).
    pub label: String,
    /// Points in data units; non-finite ones (and non-positive ones on log axes) are skipped.
    pub points: Vec<(f64, f64)>,
    /// Drawing style.
    pub style: Style,
}

impl Series {
    /// A line series from parallel `x` and `y` slices.
    pub fn line(label: impl Into<String>, x: &[f64], y: &[f64]) -> Self {
        Self {
            label: label.into(),
            points: x.iter().copied().zip(y.iter().copied()).collect(),
            style: Style::Line,
        }
    }
}

/// A line chart: title, axis labels, optional log axes and the series.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Chart {
    /// Title above the plot.
    pub title: String,
    /// Label under the x axis.
    pub x_label: String,
    /// Label left of the y axis (drawn upwards).
    pub y_label: String,
    /// Logarithmic x axis.
    pub x_log: bool,
    /// Logarithmic y axis.
    pub y_log: bool,
    /// The curves, drawn in order with the colours of [`PALETTE`].
    pub series: Vec<Series>,
}

/// Series colours, in order (they repeat after ten).
pub const PALETTE: [Rgb; 10] = [
    [31, 119, 180],
    [214, 39, 40],
    [44, 160, 44],
    [255, 127, 14],
    [148, 103, 189],
    [23, 190, 207],
    [140, 86, 75],
    [227, 119, 194],
    [127, 127, 127],
    [188, 189, 34],
];

const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];
const GRID: Rgb = [225, 225, 225];

/// Default image size in pixels.
pub const SIZE: (usize, usize) = (960, 560);

impl Chart {
    /// A chart with a title and axis labels and no series yet.
    pub fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Self {
        Self {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            ..Self::default()
        }
    }

    fn usable(&self, (x, y): (f64, f64)) -> bool {
        x.is_finite() && y.is_finite() && (!self.x_log || x > 0.0) && (!self.y_log || y > 0.0)
    }

    /// The axes that fit every usable point.
    pub fn axes(&self) -> (Axis, Axis) {
        let mut lim = [
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for p in self.series.iter().flat_map(|s| &s.points) {
            if self.usable(*p) {
                lim = [
                    lim[0].min(p.0),
                    lim[1].max(p.0),
                    lim[2].min(p.1),
                    lim[3].max(p.1),
                ];
            }
        }
        (
            Axis::fit(lim[0], lim[1], self.x_log),
            Axis::fit(lim[2], lim[3], self.y_log),
        )
    }

    /// Draws the chart on a `width × height` canvas.
    pub fn render(&self, width: usize, height: usize) -> Canvas {
        let mut c = Canvas::new(width, height, WHITE);
        let (xa, ya) = self.axes();
        let labelled: Vec<usize> = (0..self.series.len())
            .filter(|&i| !self.series[i].label.is_empty())
            .collect();
        let legend_w = labelled
            .iter()
            .map(|&i| font::text_width(&self.series[i].label, 1))
            .max()
            .map_or(0, |w| w + 44);
        let tick_w = ya
            .ticks
            .iter()
            .map(|t| font::text_width(&t.1, 1))
            .max()
            .unwrap_or(0);
        let left = (tick_w + 36) as i64;
        let right = width as i64 - 16 - legend_w as i64;
        let top = 44i64;
        let bottom = height as i64 - 46;
        let (pw, ph) = ((right - left) as f64, (bottom - top) as f64);
        let px = |v: f64| left as f64 + xa.fraction(v) * pw;
        let py = |v: f64| bottom as f64 - ya.fraction(v) * ph;

        // Grid, frame, ticks and labels.
        for (v, label) in &xa.ticks {
            let x = px(*v).round() as i64;
            c.fill_rect(x, top, x + 1, bottom, GRID);
            c.fill_rect(x, bottom, x + 1, bottom + 5, BLACK);
            let w = font::text_width(label, 1) as i64;
            c.text(x - w / 2, bottom + 9, label, 1, BLACK);
        }
        for (v, label) in &ya.ticks {
            let y = py(*v).round() as i64;
            c.fill_rect(left, y, right, y + 1, GRID);
            c.fill_rect(left - 5, y, left, y + 1, BLACK);
            let w = font::text_width(label, 1) as i64;
            c.text(left - 9 - w, y - 3, label, 1, BLACK);
        }
        c.fill_rect(left, top, right + 1, top + 1, BLACK);
        c.fill_rect(left, bottom, right + 1, bottom + 1, BLACK);
        c.fill_rect(left, top, left + 1, bottom + 1, BLACK);
        c.fill_rect(right, top, right + 1, bottom + 1, BLACK);
        let scale = if font::text_width(&self.title, 2) + 20 <= width {
            2
        } else {
            1
        };
        let tw = font::text_width(&self.title, scale) as i64;
        let tx = ((left + right) / 2 - tw / 2).clamp(4, (width as i64 - tw - 4).max(4));
        c.text(tx, 12, &self.title, scale, BLACK);
        let xw = font::text_width(&self.x_label, 1) as i64;
        c.text(
            (left + right) / 2 - xw / 2,
            bottom + 27,
            &self.x_label,
            1,
            BLACK,
        );
        let yw = font::text_width(&self.y_label, 1) as i64;
        c.text_up(8, (top + bottom) / 2 + yw / 2, &self.y_label, 1, BLACK);

        // Curves, skipping points less than a pixel from the last one drawn.
        for (i, s) in self.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let pts: Vec<(f64, f64)> = s
                .points
                .iter()
                .filter(|p| self.usable(**p))
                .map(|p| (px(p.0) + 0.5, py(p.1) + 0.5))
                .collect();
            if s.style != Style::Markers {
                let mut last: Option<(f64, f64)> = None;
                for (k, &p) in pts.iter().enumerate() {
                    match last {
                        None => last = Some(p),
                        Some(l) => {
                            let far = (p.0 - l.0).hypot(p.1 - l.1) >= 0.75;
                            if far || k + 1 == pts.len() {
                                c.line(l, p, 1.6, color);
                                last = Some(p);
                            }
                        }
                    }
                }
            }
            if s.style != Style::Line {
                for &p in &pts {
                    c.line(p, p, 6.0, color);
                }
            }
        }

        // Legend, right of the plot.
        for (row, &i) in labelled.iter().enumerate() {
            let y = top + 6 + row as i64 * 16;
            let x = right + 12;
            let color = PALETTE[i % PALETTE.len()];
            c.line(
                (x as f64, y as f64 + 3.5),
                (x as f64 + 22.0, y as f64 + 3.5),
                2.0,
                color,
            );
            c.text(x + 28, y, &self.series[i].label, 1, BLACK);
        }
        c
    }

    /// Renders at [`SIZE`] and writes the PNG to `path`.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        self.render(SIZE.0, SIZE.1).save_png(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixel(c: &Canvas, x: usize, y: usize) -> [u8; 3] {
        let i = (y * c.width + x) * 3;
        [c.pixels[i], c.pixels[i + 1], c.pixels[i + 2]]
    }

    #[test]
    fn a_line_lands_where_its_data_says() {
        let mut chart = Chart::new("T", "x", "y");
        chart
            .series
            .push(Series::line("a", &[0.0, 10.0], &[0.0, 10.0]));
        chart
            .series
            .push(Series::line("b", &[0.0, 10.0], &[8.0, 8.0]));
        let c = chart.render(400, 300);
        let (xa, ya) = chart.axes();
        assert_eq!((xa.lo, xa.hi, ya.lo, ya.hi), (0.0, 10.0, 0.0, 10.0));
        // Down the column x = 200: series b (at y = 8) first, then the diagonal a.
        let near =
            |p: [u8; 3], q: [u8; 3]| (0..3).map(|k| p[k].abs_diff(q[k]) as u32).sum::<u32>() < 60;
        let colours: Vec<[u8; 3]> = (0..300).map(|y| pixel(&c, 200, y)).collect();
        let yb_row = colours.iter().position(|p| near(*p, PALETTE[1]));
        let ya_row = colours.iter().position(|p| near(*p, PALETTE[0]));
        let (Some(ya_row), Some(yb_row)) = (ya_row, yb_row) else {
            panic!("a series is missing in column 200: a {ya_row:?}, b {yb_row:?}");
        };
        assert!(ya_row > yb_row + 30, "a at row {ya_row}, b at row {yb_row}");
        // The title is drawn in black near the top.
        assert!((0..400).any(|x| (10..30).any(|y| pixel(&c, x, y) == [0, 0, 0])));
    }

    #[test]
    fn log_axes_skip_what_they_cannot_show() {
        let mut chart = Chart::new("log", "x", "y");
        chart.x_log = true;
        chart.series.push(Series::line(
            "s",
            &[0.0, 1.0, 10.0, 100.0, f64::NAN],
            &[1.0, 2.0, 3.0, 4.0, 5.0],
        ));
        let (xa, _) = chart.axes();
        assert_eq!((xa.lo, xa.hi), (1.0, 100.0));
        let c = chart.render(300, 200);
        assert_eq!(c.pixels.len(), 300 * 200 * 3);
        // An empty chart renders too.
        let _ = Chart::new("", "", "").render(50, 40);
    }
}
