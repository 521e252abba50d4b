//! A reader of Gmsh MSH 4.1 files, ASCII and binary: `$MeshFormat`, `$Nodes` (entity
//! blocks, parametric coordinates skipped) and `$Elements` (type 1 line, 2 triangle,
//! 4 tetrahedron; type 15 points ignored; any other type is an error). Other
//! sections (`$PhysicalNames`, `$Entities`, data) are skipped.

use super::{Mesh, MeshError};
use std::collections::HashMap;

/// A cursor over the file's bytes, reading ASCII words or binary numbers.
struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
    binary: bool,
    /// Bytes of a `size_t` in binary files (the format line's data size).
    size_t: usize,
}

fn bad(reason: impl Into<String>) -> MeshError {
    MeshError::file(reason)
}

impl<'a> Cursor<'a> {
    fn skip_space(&mut self) {
        while self.at < self.b.len() && self.b[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    /// The next whitespace-separated word.
    fn word(&mut self) -> Result<&'a str, MeshError> {
        self.skip_space();
        let start = self.at;
        while self.at < self.b.len() && !self.b[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        if start == self.at {
            return Err(bad("unexpected end of file"));
        }
        std::str::from_utf8(&self.b[start..self.at])
            .map_err(|_| bad("unreadable text (not UTF-8) where a word was expected"))
    }

    fn ascii<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, MeshError> {
        let w = self.word()?;
        w.parse()
            .map_err(|_| bad(format!("`{w}` is not a valid {what}")))
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8], MeshError> {
        if self.at + n > self.b.len() {
            return Err(bad("unexpected end of file in binary data"));
        }
        let s = &self.b[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    /// A `size_t` (binary) or an unsigned integer (ASCII).
    fn size(&mut self, what: &str) -> Result<usize, MeshError> {
        if !self.binary {
            return self.ascii(what);
        }
        let s = self.bytes(self.size_t)?;
        Ok(match self.size_t {
            4 => u32::from_le_bytes(s.try_into().unwrap()) as usize,
            _ => u64::from_le_bytes(s.try_into().unwrap()) as usize,
        })
    }

    /// An `int` (binary, 4 bytes) or an integer (ASCII).
    fn int(&mut self, what: &str) -> Result<i64, MeshError> {
        if !self.binary {
            return self.ascii(what);
        }
        Ok(i32::from_le_bytes(self.bytes(4)?.try_into().unwrap()) as i64)
    }

    /// A `double` (binary, 8 bytes) or a number (ASCII).
    fn double(&mut self, what: &str) -> Result<f64, MeshError> {
        if !self.binary {
            return self.ascii(what);
        }
        Ok(f64::from_le_bytes(self.bytes(8)?.try_into().unwrap()))
    }

    /// Expects the line `$End<name>` next.
    fn end(&mut self, name: &str) -> Result<(), MeshError> {
        let w = self.word()?;
        if w != format!("$End{name}") {
            return Err(bad(format!("expected $End{name}, found `{w}`")));
        }
        Ok(())
    }

    /// Skips the section `name` up to its `$End<name>` line.
    fn skip_section(&mut self, name: &str) -> Result<(), MeshError> {
        let tag = format!("\n$End{name}");
        let rest = &self.b[self.at..];
        match rest.windows(tag.len()).position(|w| w == tag.as_bytes()) {
            Some(p) => {
                self.at += p + tag.len();
                Ok(())
            }
            None => Err(bad(format!("section ${name} has no $End{name}"))),
        }
    }
}

/// Nodes per element of the types springsim reads, with the names errors use.
fn element_type(t: i64) -> Option<(usize, &'static str)> {
    match t {
        1 => Some((2, "line")),
        2 => Some((3, "triangle")),
        4 => Some((4, "tetrahedron")),
        15 => Some((1, "point")),
        _ => None,
    }
}

/// Reads a Gmsh MSH 4.1 file (ASCII or binary).
pub fn read(bytes: &[u8]) -> Result<Mesh, MeshError> {
    let mut c = Cursor {
        b: bytes,
        at: 0,
        binary: false,
        size_t: 8,
    };
    if c.word().ok() != Some("$MeshFormat") {
        return Err(bad(
            "not a Gmsh MSH file: it does not start with $MeshFormat",
        ));
    }
    let version = c.word()?;
    if version != "4.1" {
        return Err(bad(format!(
            "MSH version {version} is not supported; save as MSH 4.1 (Gmsh: -format msh41)"
        )));
    }
    let file_type: u32 = c.ascii("file type")?;
    c.size_t = c.ascii("data size")?;
    if c.size_t != 4 && c.size_t != 8 {
        return Err(bad(format!(
            "data size {} is not supported (4 or 8)",
            c.size_t
        )));
    }
    if file_type == 1 {
        // The binary check: the integer 1 after the format line's newline.
        c.at += 1;
        let one = i32::from_le_bytes(c.bytes(4)?.try_into().unwrap());
        if one != 1 {
            return Err(bad(
                "binary MSH file of the other byte order (big-endian) is not supported",
            ));
        }
        c.binary = true;
    }
    c.end("MeshFormat")?;
    let mut mesh = Mesh::default();
    let mut tag_of: HashMap<usize, u32> = HashMap::new();
    let mut seen_nodes = false;
    let mut seen_elements = false;
    loop {
        c.skip_space();
        if c.at >= bytes.len() {
            break;
        }
        let section = c.word()?;
        let Some(name) = section.strip_prefix('$') else {
            return Err(bad(format!(
                "expected a section such as $Nodes, found `{section}`"
            )));
        };
        match name {
            "Nodes" => {
                read_nodes(&mut c, &mut mesh, &mut tag_of)?;
                seen_nodes = true;
                if c.binary {
                    c.skip_space();
                }
                c.end("Nodes")?;
            }
            "Elements" => {
                if !seen_nodes {
                    return Err(bad("$Elements comes before $Nodes"));
                }
                read_elements(&mut c, &mut mesh, &tag_of)?;
                seen_elements = true;
                c.end("Elements")?;
            }
            _ => c.skip_section(name)?,
        }
    }
    if !seen_nodes || !seen_elements {
        return Err(bad("the file has no $Nodes or no $Elements section"));
    }
    Ok(mesh)
}

fn read_nodes(
    c: &mut Cursor,
    mesh: &mut Mesh,
    tag_of: &mut HashMap<usize, u32>,
) -> Result<(), MeshError> {
    if c.binary {
        c.at += 1; // the newline after $Nodes
    }
    let blocks = c.size("number of entity blocks")?;
    let total = c.size("number of nodes")?;
    let _min = c.size("node tag")?;
    let _max = c.size("node tag")?;
    if total > c.b.len() {
        return Err(bad(format!(
            "$Nodes claims {total} nodes, more than the file can hold"
        )));
    }
    for _ in 0..blocks {
        let entity_dim = c.int("entity dimension")?;
        let _entity = c.int("entity tag")?;
        let parametric = c.int("parametric flag")?;
        let count = c.size("number of nodes in block")?;
        if count > c.b.len() {
            return Err(bad(format!(
                "a node block claims {count} nodes, more than the file can hold"
            )));
        }
        let mut tags = Vec::with_capacity(count);
        for _ in 0..count {
            tags.push(c.size("node tag")?);
        }
        let extra = if parametric != 0 {
            entity_dim.clamp(0, 3) as usize
        } else {
            0
        };
        for tag in tags {
            let mut p = [0.0; 3];
            for v in &mut p {
                *v = c.double("coordinate")?;
            }
            for _ in 0..extra {
                c.double("parametric coordinate")?;
            }
            if p.iter().any(|v| !v.is_finite()) {
                return Err(bad(format!(
                    "node {tag} has a coordinate that is not a finite number"
                )));
            }
            if tag_of.insert(tag, mesh.points.len() as u32).is_some() {
                return Err(bad(format!("node tag {tag} appears twice")));
            }
            mesh.points.push(p);
        }
    }
    Ok(())
}

fn read_elements(
    c: &mut Cursor,
    mesh: &mut Mesh,
    tag_of: &HashMap<usize, u32>,
) -> Result<(), MeshError> {
    if c.binary {
        c.at += 1; // the newline after $Elements
    }
    let blocks = c.size("number of entity blocks")?;
    let _total = c.size("number of elements")?;
    let _min = c.size("element tag")?;
    let _max = c.size("element tag")?;
    for _ in 0..blocks {
        let _dim = c.int("entity dimension")?;
        let _entity = c.int("entity tag")?;
        let etype = c.int("element type")?;
        let count = c.size("number of elements in block")?;
        if count > c.b.len() {
            return Err(bad(format!(
                "an element block claims {count} elements, more than the file can hold"
            )));
        }
        let Some((nodes, kind)) = element_type(etype) else {
            let first = c.size("element tag")?;
            return Err(MeshError {
                element: Some(format!("element {first}")),
                reason: format!(
                    "unsupported element type {etype}: springsim reads lines (1), triangles (2) and tetrahedra (4), and ignores points (15)"
                ),
            });
        };
        for _ in 0..count {
            let id = c.size("element tag")?;
            let mut el = [0u32; 4];
            for slot in el.iter_mut().take(nodes) {
                let tag = c.size("node tag")?;
                *slot = *tag_of.get(&tag).ok_or_else(|| {
                    MeshError::at(kind, id, format!("node tag {tag} is not in $Nodes"))
                })?;
            }
            match etype {
                1 => {
                    mesh.lines.push([el[0], el[1]]);
                    mesh.ids[0].push(id);
                }
                2 => {
                    mesh.triangles.push([el[0], el[1], el[2]]);
                    mesh.ids[1].push(id);
                }
                4 => {
                    mesh.tetrahedra.push(el);
                    mesh.ids[2].push(id);
                }
                _ => {}
            }
        }
    }
    if c.binary {
        c.skip_space();
    }
    Ok(())
}
