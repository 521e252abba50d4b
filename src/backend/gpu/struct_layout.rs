//! The byte layout of one WGSL struct as naga computes it (member offsets, scalar
//! types and counts), and reading and writing members by name: how
//! [`super::layout::Layouts`] encodes the host's values in any precision mode.

/// The scalar type of a struct member (every member is a run of one scalar type:
/// a scalar, a vector or an array of vectors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// u32.
    U32,
    /// A float of this many bytes (4 or 8).
    Real(u32),
}

/// One member of a WGSL struct: name, byte offset, scalar type, scalar count.
#[derive(Clone, Debug)]
pub struct Member {
    /// The WGSL member name.
    pub name: String,
    /// Byte offset in the struct.
    pub offset: u32,
    /// Its scalar type.
    pub scalar: Scalar,
    /// Scalars it holds (1, 4, 4 × array length).
    pub count: u32,
}

/// The layout of one WGSL struct in one precision mode.
#[derive(Clone, Debug)]
pub struct StructLayout {
    /// The struct's name.
    pub name: String,
    /// Its size in bytes (the stride of an array of it).
    pub size: u32,
    /// Its members.
    pub members: Vec<Member>,
}

impl StructLayout {
    /// The member `name`; a missing one is a programming error (the test of every
    /// mode encodes and decodes each struct, so it cannot reach a user).
    pub fn member(&self, name: &str) -> &Member {
        self.members
            .iter()
            .find(|m| m.name == name)
            .unwrap_or_else(|| panic!("WGSL struct {} has no member {name}", self.name))
    }

    /// Byte offset of member `name`.
    pub fn offset(&self, name: &str) -> u64 {
        self.member(name).offset as u64
    }

    /// Writes `values` into member `name` of the struct at `base` of `out`
    /// (reals rounded to the member's width, u32 members take them as integers).
    pub fn put(&self, out: &mut [u8], base: usize, name: &str, values: &[f64]) {
        let m = self.member(name);
        assert!(values.len() <= m.count as usize, "{}.{name}", self.name);
        for (k, v) in values.iter().enumerate() {
            put_scalar(out, base + m.offset as usize, m.scalar, k, *v);
        }
    }

    /// Reads member `name` of the struct at `base` of `bytes`, every scalar as f64.
    pub fn get(&self, bytes: &[u8], base: usize, name: &str) -> Vec<f64> {
        let m = self.member(name);
        (0..m.count as usize)
            .map(|k| get_scalar(bytes, base + m.offset as usize, m.scalar, k))
            .collect()
    }

    /// The first scalar of member `name`.
    pub fn get1(&self, bytes: &[u8], base: usize, name: &str) -> f64 {
        let m = self.member(name);
        get_scalar(bytes, base + m.offset as usize, m.scalar, 0)
    }
}

fn put_scalar(out: &mut [u8], at: usize, scalar: Scalar, k: usize, v: f64) {
    match scalar {
        Scalar::U32 => out[at + 4 * k..at + 4 * k + 4].copy_from_slice(&(v as u32).to_le_bytes()),
        Scalar::Real(4) => {
            out[at + 4 * k..at + 4 * k + 4].copy_from_slice(&(v as f32).to_le_bytes())
        }
        Scalar::Real(_) => out[at + 8 * k..at + 8 * k + 8].copy_from_slice(&v.to_le_bytes()),
    }
}

fn get_scalar(bytes: &[u8], at: usize, scalar: Scalar, k: usize) -> f64 {
    let four = |o: usize| -> [u8; 4] { bytes[o..o + 4].try_into().expect("4 bytes") };
    match scalar {
        Scalar::U32 => u32::from_le_bytes(four(at + 4 * k)) as f64,
        Scalar::Real(4) => f32::from_le_bytes(four(at + 4 * k)) as f64,
        Scalar::Real(_) => f64::from_le_bytes(
            bytes[at + 8 * k..at + 8 * k + 8]
                .try_into()
                .expect("8 bytes"),
        ),
    }
}

/// The layout of WGSL struct `name` of `module`.
pub(super) fn struct_layout(
    module: &naga::Module,
    layouter: &naga::proc::Layouter,
    name: &str,
) -> Result<StructLayout, String> {
    let (h, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .ok_or_else(|| format!("bindings.wgsl has no struct {name}"))?;
    let naga::TypeInner::Struct { members, .. } = &ty.inner else {
        return Err(format!("{name} is not a struct"));
    };
    let mut out = Vec::new();
    for m in members {
        let (scalar, count) = scalar_run(module, m.ty)
            .ok_or_else(|| format!("{name}.{:?}: not a run of one scalar type", m.name))?;
        out.push(Member {
            name: m.name.clone().unwrap_or_default(),
            offset: m.offset,
            scalar,
            count,
        });
    }
    Ok(StructLayout {
        name: name.to_string(),
        size: layouter[h].size,
        members: out,
    })
}

/// The scalar type and count of a scalar, a vector of 4 (or fewer, packed) or an
/// array of vectors of 4 (whose stride is the vector's size, so the scalars are
/// contiguous).
fn scalar_run(module: &naga::Module, ty: naga::Handle<naga::Type>) -> Option<(Scalar, u32)> {
    let of = |s: naga::Scalar| match s.kind {
        naga::ScalarKind::Uint if s.width == 4 => Some(Scalar::U32),
        naga::ScalarKind::Float => Some(Scalar::Real(s.width as u32)),
        _ => None,
    };
    match &module.types[ty].inner {
        naga::TypeInner::Scalar(s) => Some((of(*s)?, 1)),
        naga::TypeInner::Vector { size, scalar } => Some((of(*scalar)?, *size as u32)),
        naga::TypeInner::Array {
            base,
            size: naga::ArraySize::Constant(n),
            stride,
        } => {
            let (s, c) = scalar_run(module, *base)?;
            let width = match s {
                Scalar::U32 => 4,
                Scalar::Real(w) => w,
            };
            (c * width == *stride).then_some((s, c * n.get()))
        }
        _ => None,
    }
}
