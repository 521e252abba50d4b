//! The engine's reads and writes of whole node vectors and raw buffer ranges (the
//! probes' and the run loop's host traffic besides the fixed readbacks).

use super::{Engine, Staging};
use crate::backend::gpu::buffers::BufferSet;
use crate::backend::gpu::readback::{decode_reals, map_and_read, map_and_read_all};
use crate::precision::RealClass;

impl Engine {
    /// Reads node vector `slot` of `buffer`, whose reals are of `class` (see
    /// [`Self::write_vector`]) (m, m/s, …).
    pub fn read_vector(
        &mut self,
        buffer: fn(&BufferSet<wgpu::Buffer>) -> &wgpu::Buffer,
        class: RealClass,
        slot: u64,
    ) -> Vec<f64> {
        let width = self.width(class);
        let len = self.vector_reals * width;
        if len == 0 {
            return vec![];
        }
        let mut enc = self.encoder();
        enc.copy_buffer_to_buffer(buffer(&self.buffers), slot * len, &self.vec_staging, 0, len);
        self.submit(enc);
        let bytes = self.read_staging(Staging::Vector, len);
        decode_reals(&bytes, width)
    }

    /// Submits `enc`, which ends in a copy of `len` bytes into the staging buffer
    /// `stage`, and reads them; with `x`, also node vector 0 of `buffers.x` as it
    /// stands after `enc` (m, the state's reals). One blocking readback for both.
    pub fn submit_and_read(
        &mut self,
        mut enc: wgpu::CommandEncoder,
        stage: &wgpu::Buffer,
        len: u64,
        x: bool,
    ) -> (Vec<u8>, Option<Vec<f64>>) {
        let width = self.width(RealClass::State);
        let x_len = if x { self.vector_reals * width } else { 0 };
        if x_len > 0 {
            enc.copy_buffer_to_buffer(&self.buffers.x, 0, &self.vec_staging, 0, x_len);
        }
        self.submit(enc);
        let mut reads = vec![(stage, len)];
        if x_len > 0 {
            reads.push((&self.vec_staging, x_len));
        }
        let mut out = map_and_read_all(&self.ctx.device, &reads);
        self.traffic.readbacks += 1;
        let positions = x.then(|| out.get(1).map_or(vec![], |b| decode_reals(b, width)));
        (out.swap_remove(0), positions)
    }

    /// Writes the node vector `data` (rounded to the width of `class`) into `buffer`,
    /// starting at node vector `slot` (the blocks of the step anchors: 0 xⁿ,
    /// 1 x̃ − xⁿ, 2 x − xⁿ).
    pub fn write_vector(
        &mut self,
        buffer: fn(&BufferSet<wgpu::Buffer>) -> &wgpu::Buffer,
        class: RealClass,
        slot: u64,
        data: &[f64],
    ) {
        self.flush_deferred();
        self.end_positions = None;
        assert_eq!(data.len() as u64, self.vector_reals);
        let width = self.width(class);
        let bytes = crate::backend::gpu::layout::state_bytes(data, width);
        let at = slot * self.vector_reals * width;
        self.ctx
            .queue
            .write_buffer(buffer(&self.buffers), at, &bytes);
    }

    /// The u32 word `index` of `buffer` (one readback; for counts the kernels leave).
    pub fn read_word(
        &mut self,
        buffer: fn(&BufferSet<wgpu::Buffer>) -> &wgpu::Buffer,
        index: u64,
    ) -> u32 {
        let bytes = self.read_raw(buffer, 4 * index, 4);
        u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes"))
    }

    /// `size` bytes of `buffer` from `offset`, through a staging buffer of their own
    /// (for probes; the stepping path reads through the fixed staging buffers).
    pub fn read_raw(
        &mut self,
        buffer: fn(&BufferSet<wgpu::Buffer>) -> &wgpu::Buffer,
        offset: u64,
        size: u64,
    ) -> Vec<u8> {
        let stage = self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("probe staging"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self.encoder();
        enc.copy_buffer_to_buffer(buffer(&self.buffers), offset, &stage, 0, size);
        self.submit(enc);
        let bytes = map_and_read(&self.ctx.device, &stage, size);
        self.traffic.readbacks += 1;
        bytes
    }
}
