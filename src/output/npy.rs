//! NumPy `.npy` files (format version 1.0): whole arrays ([`write_npy`]) and arrays
//! that grow along their first axis as a run goes ([`NpyWriter`]). A growing array's
//! header keeps room for the first dimension, which is patched after every appended
//! row, so the file on disk is always a valid array of the rows written so far
//! (`numpy.load(path, mmap_mode="r")` works on a run that is still going or was
//! killed).

use super::io_error;
use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The element type of a float array: `f32` (`<f4`, half the bytes) or `f64` (`<f8`,
/// the simulation's own values, bit for bit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Precision {
    /// 4-byte IEEE floats.
    #[default]
    F32,
    /// 8-byte IEEE floats.
    F64,
}

impl Precision {
    /// The NumPy type string of this precision.
    pub fn descr(self) -> &'static str {
        match self {
            Precision::F32 => "<f4",
            Precision::F64 => "<f8",
        }
    }
}

/// Characters kept for the first dimension of a growing array's shape.
const ROWS_WIDTH: usize = 20;

/// The complete `.npy` header (magic, version, length, dictionary padded with
/// spaces and a newline to a multiple of 64 bytes) of an array of type `descr` with
/// `rows` along the first axis (written in [`ROWS_WIDTH`] characters) and `tail`
/// after it.
fn header(descr: &str, rows: u64, tail: &[usize]) -> Vec<u8> {
    let mut shape = format!("{rows:<ROWS_WIDTH$}");
    for d in tail {
        shape.push_str(&format!(", {d}"));
    }
    if tail.is_empty() {
        shape.push(',');
    }
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({shape}), }}");
    let unpadded = 10 + dict.len() + 1;
    let total = unpadded.div_ceil(64) * 64;
    let mut h = b"\x93NUMPY\x01\x00".to_vec();
    h.extend_from_slice(&((total - 10) as u16).to_le_bytes());
    h.extend_from_slice(dict.as_bytes());
    h.resize(total - 1, b' ');
    h.push(b'\n');
    h
}

/// Appends `values` to `out` as little-endian `precision` floats.
pub fn push_floats(out: &mut Vec<u8>, values: &[f64], precision: Precision) {
    match precision {
        Precision::F32 => {
            out.reserve(4 * values.len());
            for v in values {
                out.extend_from_slice(&(*v as f32).to_le_bytes());
            }
        }
        Precision::F64 => {
            out.reserve(8 * values.len());
            for v in values {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
}

/// Writes a whole array of type `descr` (`<i4`, `<f8`, …) and `shape` whose
/// little-endian element bytes are `data`, atomically.
pub fn write_npy(path: &Path, descr: &str, shape: &[usize], data: &[u8]) -> Result<(), String> {
    let (first, tail) = shape.split_first().map_or((0, &[][..]), |(f, t)| (*f, t));
    let mut bytes = header(descr, first as u64, tail);
    bytes.extend_from_slice(data);
    super::write_atomically(path, &bytes)
}

/// A `.npy` float array of shape `[rows, tail…]` that grows one row at a time
/// (little-endian: the host's byte order, as on every platform springsim targets).
pub struct NpyWriter {
    path: PathBuf,
    out: BufWriter<File>,
    tail: Vec<usize>,
    row_len: usize,
    rows: u64,
    precision: Precision,
    buf: Vec<f32>,
}

impl NpyWriter {
    /// Creates `path` holding an empty `[0, tail…]` array of `precision` floats.
    pub fn create(path: PathBuf, tail: &[usize], precision: Precision) -> Result<Self, String> {
        let mut out = File::create(&path)
            .map(|f| BufWriter::with_capacity(1 << 20, f))
            .map_err(|e| io_error(&path, e))?;
        out.write_all(&header(precision.descr(), 0, tail))
            .and_then(|_| out.flush())
            .map_err(|e| io_error(&path, e))?;
        Ok(Self {
            path,
            out,
            tail: tail.to_vec(),
            row_len: tail.iter().product(),
            rows: 0,
            precision,
            buf: Vec::new(),
        })
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Appends one row (`values`: the product of the tail dimensions, row-major; f64
    /// values are converted to the file's precision), then patches the row count in
    /// the header so the file is complete.
    pub fn append(&mut self, values: &[f64]) -> Result<(), String> {
        if values.len() != self.row_len {
            return Err(format!(
                "{}: a row of {} values where the array's rows have {}",
                self.path.display(),
                values.len(),
                self.row_len
            ));
        }
        let bytes: &[u8] = match self.precision {
            Precision::F32 => {
                self.buf.clear();
                self.buf.extend(values.iter().map(|v| *v as f32));
                bytemuck::cast_slice(&self.buf)
            }
            Precision::F64 => bytemuck::cast_slice(values),
        };
        let r: io::Result<()> = (|| {
            self.out.write_all(bytes)?;
            self.out.flush()?;
            let h = header(self.precision.descr(), self.rows + 1, &self.tail);
            let f = self.out.get_mut();
            let end = f.stream_position()?;
            f.seek(SeekFrom::Start(0))?;
            f.write_all(&h)?;
            f.seek(SeekFrom::Start(end))?;
            Ok(())
        })();
        r.map_err(|e| io_error(&self.path, e))?;
        self.rows += 1;
        Ok(())
    }
}

/// The header of a `.npy` file as [`NpyWriter`] and [`write_npy`] write it.
#[derive(Clone, Debug, PartialEq)]
pub struct NpyHeader {
    /// The NumPy type string (`<f4`, `<f8`, `<i4`).
    pub descr: String,
    /// The shape.
    pub shape: Vec<usize>,
    /// Byte offset of the data.
    pub data_offset: u64,
}

/// Reads the header at the start of the `.npy` file `path` (version 1.0 or 2.0, C
/// order); errors are one line naming the file and the reason.
pub fn read_header(path: &Path, file: &mut impl io::Read) -> Result<NpyHeader, String> {
    let bad = |why: &str| {
        format!(
            "{}: not a .npy file this reader knows ({why})",
            path.display()
        )
    };
    let mut pre = [0u8; 8];
    file.read_exact(&mut pre).map_err(|e| io_error(path, e))?;
    if &pre[..6] != b"\x93NUMPY" {
        return Err(bad("no NUMPY magic"));
    }
    let (len, offset) = if pre[6] == 1 {
        let mut l = [0u8; 2];
        file.read_exact(&mut l).map_err(|e| io_error(path, e))?;
        (u16::from_le_bytes(l) as usize, 10)
    } else {
        let mut l = [0u8; 4];
        file.read_exact(&mut l).map_err(|e| io_error(path, e))?;
        (u32::from_le_bytes(l) as usize, 12)
    };
    let mut dict = vec![0u8; len];
    file.read_exact(&mut dict).map_err(|e| io_error(path, e))?;
    let dict = String::from_utf8_lossy(&dict);
    let after = |key: &str| dict.split(key).nth(1).map(str::trim_start);
    let descr = after("'descr':")
        .and_then(|r| r.strip_prefix('\'')?.split('\'').next())
        .ok_or_else(|| bad("no descr"))?
        .to_string();
    if after("'fortran_order':").is_some_and(|r| r.starts_with("True")) {
        return Err(bad("Fortran order"));
    }
    let shape = after("'shape':")
        .and_then(|r| r.strip_prefix('(')?.split(')').next())
        .ok_or_else(|| bad("no shape"))?
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            d.parse::<usize>()
                .map_err(|_| bad("a shape that is not whole numbers"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(NpyHeader {
        descr,
        shape,
        data_offset: (offset + len) as u64,
    })
}
