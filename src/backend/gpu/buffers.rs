//! The device buffers of a scene, one named field per binding of
//! `shaders/bindings.wgsl`. [`BufferSet`] is generic so that the same field ↔
//! binding map serves the wgpu buffers and, as [`BINDING_NAMES`], the WGSL names a
//! test compares with `bindings.wgsl`.

/// One value per GPU buffer (group 0), field by field as `shaders/bindings.wgsl`
/// declares them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferSet<T> {
    /// Binding 0: the uniform scene and solver parameters (`Params`).
    pub params: T,
    /// Binding 1: per-node constants (`NodeInfo`).
    pub nodes: T,
    /// Binding 2: the springs.
    pub springs: T,
    /// Binding 3: node → springs adjacency (offsets, then spring indices).
    pub adjacency: T,
    /// Binding 4: positions x (m), `nodes × dim`.
    pub x: T,
    /// Binding 5: the step anchors xⁿ, x̃ − xⁿ, x − xⁿ (m), three node vectors.
    pub anchors: T,
    /// Binding 6: lagged friction contacts (unit normal, λ in N) per node and slot.
    pub friction: T,
    /// Binding 7: velocities (m/s).
    pub v: T,
    /// Binding 8: accelerations (m/s², Newmark).
    pub acc: T,
    /// Binding 9: the Newton direction p (m).
    pub p: T,
    /// Binding 10: the CG residual, starting as −∇E.
    pub r: T,
    /// Binding 11: the preconditioned residual z.
    pub z: T,
    /// Binding 12: the CG search direction d.
    pub d: T,
    /// Binding 13: q = H d.
    pub q: T,
    /// Binding 14: per-workgroup partial reductions (`Lanes`).
    pub partials: T,
    /// Binding 15: the CG scalars and flags (`CgState`).
    pub cg: T,
    /// Binding 16: reduction results, two slots of `Lanes`.
    pub results: T,
    /// Binding 17: the Newton node blocks, then the preconditioner's inverse blocks.
    pub blocks: T,
    /// Binding 18: the multilevel preconditioner's node order and ranks.
    pub mas_index: T,
    /// Binding 19: its supernode frames (centroid, radius in m).
    pub mas_frames: T,
    /// Binding 20: its inverted domain matrices.
    pub mas_matrices: T,
    /// Binding 21: its restricted residuals and corrections.
    pub mas_vectors: T,
    /// Binding 22: the level its level-by-level kernels work on.
    pub mas_state: T,
    /// Binding 23: partial blocks of its coarse levels' matrices.
    pub mas_partials: T,
    /// Binding 24: the collision mesh and the excluded pairs (u32).
    pub contact_mesh: T,
    /// Binding 25: the broad phase's counters and grid (atomic u32).
    pub contact_grid: T,
    /// Binding 26: the pair list and each node's incidence (u32).
    pub pairs: T,
    /// Binding 27: per pair its weighted barrier gradient and Hessian (`real`).
    pub pair_terms: T,
    /// Binding 28: the device Newton solve's gates, indirect dispatch arguments
    /// (`vec4<u32>`, [`super::device_newton`]).
    pub gates: T,
    /// Binding 29: the device Newton solve's rules, state and logs (`real`).
    pub newton: T,
}

/// Number of bindings (buffers) of a scene.
pub const BINDINGS: u32 = 30;

/// The WGSL variable name of every binding.
pub const BINDING_NAMES: BufferSet<&str> = BufferSet {
    params: "P",
    nodes: "nodes",
    springs: "springs",
    adjacency: "adjacency",
    x: "x",
    anchors: "anchors",
    friction: "friction",
    v: "v",
    acc: "acc",
    p: "p",
    r: "r",
    z: "z",
    d: "d",
    q: "q",
    partials: "partials",
    cg: "cg",
    results: "results",
    blocks: "blocks",
    mas_index: "mas_index",
    mas_frames: "mas_frames",
    mas_matrices: "mas_matrices",
    mas_vectors: "mas_vectors",
    mas_state: "mas_state",
    mas_partials: "mas_partials",
    contact_mesh: "contact_mesh",
    contact_grid: "contact_grid",
    pairs: "pairs",
    pair_terms: "pair_terms",
    gates: "gates",
    newton: "newton",
};

impl<T> BufferSet<T> {
    /// The buffer at binding `b` of group 0 (`None` past the last binding).
    pub fn at_binding(&self, b: u32) -> Option<&T> {
        Some(match b {
            0 => &self.params,
            1 => &self.nodes,
            2 => &self.springs,
            3 => &self.adjacency,
            4 => &self.x,
            5 => &self.anchors,
            6 => &self.friction,
            7 => &self.v,
            8 => &self.acc,
            9 => &self.p,
            10 => &self.r,
            11 => &self.z,
            12 => &self.d,
            13 => &self.q,
            14 => &self.partials,
            15 => &self.cg,
            16 => &self.results,
            17 => &self.blocks,
            18 => &self.mas_index,
            19 => &self.mas_frames,
            20 => &self.mas_matrices,
            21 => &self.mas_vectors,
            22 => &self.mas_state,
            23 => &self.mas_partials,
            24 => &self.contact_mesh,
            25 => &self.contact_grid,
            26 => &self.pairs,
            27 => &self.pair_terms,
            28 => &self.gates,
            29 => &self.newton,
            _ => return None,
        })
    }

    /// Every buffer, in binding order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        (0..BINDINGS).filter_map(|b| self.at_binding(b))
    }
}

/// The smallest buffer: one element of the largest array element type (`Lanes`
/// in f64), so that an empty array still binds.
pub const MIN_BUFFER_BYTES: u64 = 64;

/// A zero-initialised storage buffer of `size` bytes (never empty: wgpu rejects
/// zero-sized bindings), readable and writable by copies.
pub fn zeroed_storage(dev: &wgpu::Device, name: &str, size: u64) -> wgpu::Buffer {
    dev.create_buffer(&wgpu::BufferDescriptor {
        label: Some(name),
        size: size.max(MIN_BUFFER_BYTES),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// The `(binding, name)` of every `@group(0) @binding(N) var… NAME:` line of a WGSL
/// text, in order.
pub fn declared_bindings(wgsl: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for line in wgsl.lines() {
        let Some(rest) = line.trim().strip_prefix("@group(0) @binding(") else {
            continue;
        };
        let Some((num, decl)) = rest.split_once(')') else {
            continue;
        };
        let Some(var) = decl.trim().strip_prefix("var") else {
            continue;
        };
        let after = var.split_once('>').map_or(var, |(_, a)| a);
        let name = after.split(':').next().unwrap_or("").trim();
        if let Ok(n) = num.parse() {
            out.push((n, name.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_is_the_binding_bindings_wgsl_declares() {
        let wgsl = super::super::shaders::source("bindings.wgsl").unwrap();
        let declared = declared_bindings(wgsl);
        assert_eq!(declared.len(), BINDINGS as usize, "{declared:?}");
        for (b, name) in &declared {
            assert_eq!(
                BINDING_NAMES.at_binding(*b).copied(),
                Some(name.as_str()),
                "binding {b}"
            );
        }
        assert_eq!(BINDING_NAMES.at_binding(BINDINGS), None);
    }
}
