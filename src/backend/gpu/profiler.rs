//! Per-kernel GPU time from timestamp queries (`bench --profile-kernels`): the
//! measured side of the cost model (`super::cost_model`). With a profiler
//! every kernel is recorded in a compute pass of its own with a timestamp at its
//! start and end; each submission resolves its timestamps and reads them back (one
//! blocking read more per submission, so a profiled run is slower as a whole, while
//! each kernel's own time is what it is without the profiler).

use std::cell::RefCell;

use super::kernels::Kernel;

/// Timestamp queries per query set (wgpu's limit on a query set's size).
const QUERIES_PER_SET: u32 = 4096;

/// One query set with the buffers its timestamps are resolved into and read from.
struct Set {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    staging: wgpu::Buffer,
}

/// Calls and GPU time of one kernel over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KernelTime {
    /// The kernel's entry point.
    pub kernel: &'static str,
    /// Dispatches timed.
    pub calls: u64,
    /// GPU time of those dispatches, start of its pass to end (s).
    pub seconds: f64,
}

/// The timestamp queries of the kernels recorded since the last submission, and
/// the totals per kernel so far.
pub struct Profiler {
    sets: RefCell<Vec<Set>>,
    /// Kernels recorded since the last submission, in query order (two queries each).
    pending: RefCell<Vec<Kernel>>,
    /// (calls, seconds) per kernel, by [`Kernel::index`].
    totals: RefCell<Vec<(u64, f64)>>,
    /// Dispatches whose timestamps were unusable (end before start).
    pub untimed: RefCell<u64>,
    /// Nanoseconds per timestamp tick.
    period_ns: f64,
}

impl Profiler {
    /// A profiler for `queue`'s timestamps.
    pub fn new(queue: &wgpu::Queue) -> Self {
        Self {
            sets: RefCell::new(Vec::new()),
            pending: RefCell::new(Vec::new()),
            totals: RefCell::new(vec![(0, 0.0); Kernel::ALL.len()]),
            untimed: RefCell::new(0),
            period_ns: queue.get_timestamp_period() as f64,
        }
    }

    /// Makes room for `more` kernels beyond those pending.
    pub fn reserve(&self, device: &wgpu::Device, more: usize) {
        let need = (2 * (self.pending.borrow().len() + more)).div_ceil(QUERIES_PER_SET as usize);
        let mut sets = self.sets.borrow_mut();
        while sets.len() < need {
            let bytes = 8 * QUERIES_PER_SET as u64;
            sets.push(Set {
                queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("kernel timestamps"),
                    ty: wgpu::QueryType::Timestamp,
                    count: QUERIES_PER_SET,
                }),
                resolve: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("kernel timestamps resolved"),
                    size: bytes,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                }),
                staging: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("kernel timestamps staging"),
                    size: bytes,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
            });
        }
    }

    /// Records `kernel` into `enc` in a pass of its own, timed; `dispatch` sets the
    /// pipeline and dispatches. Call [`Self::reserve`] first.
    pub fn record(
        &self,
        enc: &mut wgpu::CommandEncoder,
        kernel: Kernel,
        dispatch: impl FnOnce(&mut wgpu::ComputePass<'_>),
    ) {
        let i = self.pending.borrow().len() as u32;
        let sets = self.sets.borrow();
        let set = &sets[(2 * i / QUERIES_PER_SET) as usize];
        let q = 2 * i % QUERIES_PER_SET;
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: &set.queries,
                beginning_of_pass_write_index: Some(q),
                end_of_pass_write_index: Some(q + 1),
            }),
        });
        dispatch(&mut pass);
        drop(pass);
        self.pending.borrow_mut().push(kernel);
    }

    /// Resolves the pending timestamps into `enc` (the encoder about to be
    /// submitted) and copies them to the staging buffers; true when there were any.
    pub fn resolve(&self, enc: &mut wgpu::CommandEncoder) -> bool {
        let used = 2 * self.pending.borrow().len() as u32;
        for (s, set) in self.sets.borrow().iter().enumerate() {
            let first = s as u32 * QUERIES_PER_SET;
            if used <= first {
                break;
            }
            let n = (used - first).min(QUERIES_PER_SET);
            enc.resolve_query_set(&set.queries, 0..n, &set.resolve, 0);
            enc.copy_buffer_to_buffer(&set.resolve, 0, &set.staging, 0, 8 * n as u64);
        }
        used > 0
    }

    /// After the submission of [`Self::resolve`]'s encoder: reads the timestamps back
    /// and adds each kernel's time to its total; `read` maps a staging buffer.
    pub fn collect(&self, read: impl Fn(&wgpu::Buffer, u64) -> Vec<u8>) {
        let pending = std::mem::take(&mut *self.pending.borrow_mut());
        let mut stamps = Vec::with_capacity(2 * pending.len());
        for set in self.sets.borrow().iter() {
            let left = 2 * pending.len() - stamps.len();
            if left == 0 {
                break;
            }
            let n = left.min(QUERIES_PER_SET as usize);
            let bytes = read(&set.staging, 8 * n as u64);
            stamps.extend(
                bytes
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))),
            );
        }
        let mut totals = self.totals.borrow_mut();
        for (k, t) in pending.iter().zip(stamps.chunks_exact(2)) {
            if t[1] < t[0] {
                *self.untimed.borrow_mut() += 1;
                continue;
            }
            let e = &mut totals[k.index()];
            e.0 += 1;
            e.1 += (t[1] - t[0]) as f64 * self.period_ns * 1e-9;
        }
    }

    /// The kernels timed so far with their calls and time, the most time first.
    pub fn times(&self) -> Vec<KernelTime> {
        let mut out: Vec<KernelTime> = Kernel::ALL
            .iter()
            .zip(self.totals.borrow().iter())
            .filter(|(_, t)| t.0 > 0)
            .map(|(k, t)| KernelTime {
                kernel: k.entry_point(),
                calls: t.0,
                seconds: t.1,
            })
            .collect();
        out.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        out
    }
}

/// `now` less `before` kernel by kernel (the kernels timed between two readings).
pub fn since(now: Vec<KernelTime>, before: &[KernelTime]) -> Vec<KernelTime> {
    let mut out: Vec<KernelTime> = now
        .into_iter()
        .map(|mut k| {
            if let Some(b) = before.iter().find(|b| b.kernel == k.kernel) {
                k.calls -= b.calls;
                k.seconds -= b.seconds;
            }
            k
        })
        .filter(|k| k.calls > 0)
        .collect();
    out.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    out
}
