//! The animated GIF of `springsim render`, encoded by the `gif` crate: GIF89a, one
//! global palette of up to 256 colours, frames of palette indices with their delays,
//! looping forever.

use std::borrow::Cow;

/// An animated GIF being built in memory.
pub struct GifWriter {
    encoder: Option<gif::Encoder<Vec<u8>>>,
    width: u16,
    height: u16,
    error: Option<String>,
}

impl GifWriter {
    /// Starts a `width × height` animation with `palette` (RGB; the encoder pads it
    /// to a power of two).
    pub fn new(width: u16, height: u16, palette: &[[u8; 3]]) -> Self {
        let flat: Vec<u8> = palette.iter().flatten().copied().collect();
        let (encoder, error) = match gif::Encoder::new(Vec::new(), width, height, &flat)
            .and_then(|mut e| e.set_repeat(gif::Repeat::Infinite).map(|_| e))
        {
            Ok(e) => (Some(e), None),
            Err(e) => (None, Some(format!("GIF encoder: {e}"))),
        };
        Self {
            encoder,
            width,
            height,
            error,
        }
    }

    /// Appends a frame of palette indices (row-major, `width · height`) shown for
    /// `delay_cs` hundredths of a second. An encoding error is kept for
    /// [`Self::try_finish`].
    pub fn frame(&mut self, indices: &[u8], delay_cs: u16) {
        let Some(e) = self.encoder.as_mut() else {
            return;
        };
        let frame = gif::Frame {
            width: self.width,
            height: self.height,
            delay: delay_cs,
            buffer: Cow::Borrowed(indices),
            ..gif::Frame::default()
        };
        if let Err(err) = e.write_frame(&frame) {
            self.error.get_or_insert(format!("GIF encoder: {err}"));
        }
    }

    /// The finished file, or the first encoding error.
    pub fn try_finish(mut self) -> Result<Vec<u8>, String> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        match self.encoder.take() {
            Some(e) => e.into_inner().map_err(|e| format!("GIF encoder: {e}")),
            None => Err("GIF encoder: not started".into()),
        }
    }

    /// The finished file (empty when encoding failed; see [`Self::try_finish`]).
    pub fn finish(self) -> Vec<u8> {
        self.try_finish().unwrap_or_default()
    }
}
