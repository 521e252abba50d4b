//! A minimal animated-GIF encoder (GIF89a, one global palette of up to 256 colours,
//! LZW-compressed frames, looping forever), written here so that rendering needs no
//! outside crate. Frames are indices into the palette.

/// An animated GIF being built in memory.
pub struct GifWriter {
    bytes: Vec<u8>,
    width: u16,
    height: u16,
}

impl GifWriter {
    /// Starts a `width × height` animation with `palette` (RGB, padded to a power of two).
    pub fn new(width: u16, height: u16, palette: &[[u8; 3]]) -> Self {
        let mut bytes = b"GIF89a".to_vec();
        bytes.extend_from_slice(&width.to_le_bytes());
        bytes.extend_from_slice(&height.to_le_bytes());
        let bits = palette_bits(palette.len());
        bytes.push(0x80 | ((bits - 1) << 4) | (bits - 1));
        bytes.extend_from_slice(&[0, 0]);
        for k in 0..1usize << bits {
            bytes.extend_from_slice(palette.get(k).unwrap_or(&[0, 0, 0]));
        }
        // NETSCAPE2.0 application extension: loop forever
        bytes.extend_from_slice(&[0x21, 0xFF, 0x0B]);
        bytes.extend_from_slice(b"NETSCAPE2.0");
        bytes.extend_from_slice(&[0x03, 0x01, 0x00, 0x00, 0x00]);
        Self {
            bytes,
            width,
            height,
        }
    }

    /// Appends a frame of palette indices (row-major, `width · height`) shown for
    /// `delay_cs` hundredths of a second.
    pub fn frame(&mut self, indices: &[u8], delay_cs: u16) {
        let b = &mut self.bytes;
        b.extend_from_slice(&[0x21, 0xF9, 0x04, 0x00]);
        b.extend_from_slice(&delay_cs.to_le_bytes());
        b.extend_from_slice(&[0x00, 0x00]);
        b.push(0x2C);
        b.extend_from_slice(&[0, 0, 0, 0]);
        b.extend_from_slice(&self.width.to_le_bytes());
        b.extend_from_slice(&self.height.to_le_bytes());
        b.push(0);
        let min_code = 8u8;
        b.push(min_code);
        let data = lzw(indices, min_code);
        for chunk in data.chunks(255) {
            b.push(chunk.len() as u8);
            b.extend_from_slice(chunk);
        }
        b.push(0);
    }

    /// The finished file.
    pub fn finish(mut self) -> Vec<u8> {
        self.bytes.push(0x3B);
        self.bytes
    }
}

fn palette_bits(n: usize) -> u8 {
    let mut bits = 1;
    while (1usize << bits) < n {
        bits += 1;
    }
    bits
}

/// Packs codes least-significant bit first.
struct BitSink {
    out: Vec<u8>,
    acc: u32,
    n: u32,
}

impl BitSink {
    fn put(&mut self, code: u16, width: u32) {
        self.acc |= (code as u32) << self.n;
        self.n += width;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }
}

/// GIF's variable-width LZW over `data` with `min_code`-bit symbols.
fn lzw(data: &[u8], min_code: u8) -> Vec<u8> {
    use std::collections::HashMap;
    let clear = 1u16 << min_code;
    let end = clear + 1;
    let mut sink = BitSink {
        out: Vec::new(),
        acc: 0,
        n: 0,
    };
    let mut dict: HashMap<(u16, u8), u16> = HashMap::new();
    let mut next = end + 1;
    let mut width = min_code as u32 + 1;
    sink.put(clear, width);
    let mut prefix: Option<u16> = None;
    for &c in data {
        let Some(p) = prefix else {
            prefix = Some(c as u16);
            continue;
        };
        if let Some(&code) = dict.get(&(p, c)) {
            prefix = Some(code);
            continue;
        }
        sink.put(p, width);
        if next < 4096 {
            dict.insert((p, c), next);
            if next == 1 << width && width < 12 {
                width += 1;
            }
            next += 1;
        } else {
            sink.put(clear, width);
            dict.clear();
            next = end + 1;
            width = min_code as u32 + 1;
        }
        prefix = Some(c as u16);
    }
    if let Some(p) = prefix {
        sink.put(p, width);
    }
    sink.put(end, width);
    if sink.n > 0 {
        sink.out.push(sink.acc as u8);
    }
    sink.out
}
