//! The ParaView collection `frames.pvd`: lists every `.vtu` frame with its simulated
//! time, so ParaView plays the series at real times. It is rewritten atomically after
//! each frame, so it is always a complete file naming the frames written so far.

use super::write_atomically;
use std::path::PathBuf;

/// A `.pvd` collection being built as frames are written.
pub struct PvdCollection {
    path: PathBuf,
    entries: Vec<(f64, String)>,
}

impl PvdCollection {
    /// A collection to be written to `path` (nothing is written yet).
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            entries: Vec::new(),
        }
    }

    /// Adds the frame `file` (relative to the collection's folder) at simulated time
    /// `time` (s) and rewrites the collection.
    pub fn add(&mut self, time: f64, file: String) -> Result<(), String> {
        self.entries.push((time, file));
        let mut xml = String::from(
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n  <Collection>\n",
        );
        for (t, f) in &self.entries {
            xml.push_str(&format!(
                "    <DataSet timestep=\"{t:?}\" group=\"\" part=\"0\" file=\"{f}\"/>\n"
            ));
        }
        xml.push_str("  </Collection>\n</VTKFile>\n");
        write_atomically(&self.path, xml.as_bytes())
    }
}
