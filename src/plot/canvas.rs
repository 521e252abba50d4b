//! An RGB raster with the few drawing operations a line plot needs (anti-aliased
//! thick lines, rectangles, bitmap text) and PNG encoding through the `png` crate.

use super::font;
use std::path::Path;

/// An sRGB colour.
pub type Rgb = [u8; 3];

/// A `width × height` RGB image, row-major from the top-left corner.
pub struct Canvas {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `width · height · 3` bytes.
    pub pixels: Vec<u8>,
}

impl Canvas {
    /// A canvas filled with `background`.
    pub fn new(width: usize, height: usize, background: Rgb) -> Self {
        let mut pixels = Vec::with_capacity(width * height * 3);
        for _ in 0..width * height {
            pixels.extend_from_slice(&background);
        }
        Self {
            width,
            height,
            pixels,
        }
    }

    /// Mixes `color` into pixel (x, y) with coverage `alpha` in [0, 1]; outside pixels are ignored.
    pub fn blend(&mut self, x: i64, y: i64, color: Rgb, alpha: f64) {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 || alpha <= 0.0 {
            return;
        }
        let a = alpha.min(1.0);
        let i = (y as usize * self.width + x as usize) * 3;
        for (p, c) in self.pixels[i..i + 3].iter_mut().zip(color) {
            let old = *p as f64;
            *p = (old + (c as f64 - old) * a).round() as u8;
        }
    }

    /// Fills the rectangle `[x0, x1) × [y0, y1)`.
    pub fn fill_rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, color: Rgb) {
        for y in y0.max(0)..y1.min(self.height as i64) {
            for x in x0.max(0)..x1.min(self.width as i64) {
                self.blend(x, y, color, 1.0);
            }
        }
    }

    /// Draws a segment of `width` pixels between two points (pixel centres at +0.5),
    /// anti-aliased by the distance of each pixel centre to the segment.
    pub fn line(&mut self, p: (f64, f64), q: (f64, f64), width: f64, color: Rgb) {
        if !(p.0.is_finite() && p.1.is_finite() && q.0.is_finite() && q.1.is_finite()) {
            return;
        }
        let r = width / 2.0;
        let pad = r + 1.0;
        let x0 = (p.0.min(q.0) - pad).floor().max(-1.0) as i64;
        let x1 = (p.0.max(q.0) + pad).ceil().min(self.width as f64 + 1.0) as i64;
        let y0 = (p.1.min(q.1) - pad).floor().max(-1.0) as i64;
        let y1 = (p.1.max(q.1) + pad).ceil().min(self.height as f64 + 1.0) as i64;
        let (dx, dy) = (q.0 - p.0, q.1 - p.1);
        let len2 = dx * dx + dy * dy;
        for y in y0..=y1 {
            for x in x0..=x1 {
                let (cx, cy) = (x as f64 + 0.5, y as f64 + 0.5);
                let t = if len2 > 0.0 {
                    (((cx - p.0) * dx + (cy - p.1) * dy) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let (ex, ey) = (cx - (p.0 + t * dx), cy - (p.1 + t * dy));
                let d = (ex * ex + ey * ey).sqrt();
                let cover = (r + 0.5 - d).clamp(0.0, 1.0);
                self.blend(x, y, color, cover);
            }
        }
    }

    /// Draws `text` with its top-left corner at (x, y), each font pixel `scale` pixels wide.
    pub fn text(&mut self, x: i64, y: i64, text: &str, scale: usize, color: Rgb) {
        let s = scale as i64;
        for (n, c) in text.chars().enumerate() {
            let gx = x + (n * font::ADVANCE * scale) as i64;
            for (row, bits) in font::glyph(c).iter().enumerate() {
                for col in 0..font::WIDTH {
                    if bits & (1 << (font::WIDTH - 1 - col)) != 0 {
                        let px = gx + col as i64 * s;
                        let py = y + (row + font::descent(c)) as i64 * s;
                        self.fill_rect(px, py, px + s, py + s, color);
                    }
                }
            }
        }
    }

    /// Draws `text` rotated a quarter turn counter-clockwise (reading bottom to top),
    /// with the bottom-left corner of its first glyph at (x, y).
    pub fn text_up(&mut self, x: i64, y: i64, text: &str, scale: usize, color: Rgb) {
        let s = scale as i64;
        for (n, c) in text.chars().enumerate() {
            let gy = y - (n * font::ADVANCE * scale) as i64;
            for (row, bits) in font::glyph(c).iter().enumerate() {
                for col in 0..font::WIDTH {
                    if bits & (1 << (font::WIDTH - 1 - col)) != 0 {
                        let px = x + (row + font::descent(c)) as i64 * s;
                        let py = gy - (col as i64 + 1) * s;
                        self.fill_rect(px, py, px + s, py + s, color);
                    }
                }
            }
        }
    }

    /// Encodes the image as an 8-bit RGB PNG at `path`.
    pub fn save_png(&self, path: &Path) -> Result<(), String> {
        let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let file = std::fs::File::create(path).map_err(|e| err(&e))?;
        let mut enc = png::Encoder::new(
            std::io::BufWriter::new(file),
            self.width as u32,
            self.height as u32,
        );
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::High);
        let mut w = enc.write_header().map_err(|e| err(&e))?;
        w.write_image_data(&self.pixels).map_err(|e| err(&e))?;
        w.finish().map_err(|e| err(&e))
    }
}
