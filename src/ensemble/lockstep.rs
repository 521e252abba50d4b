//! Lock-step rounds: each variant of a batch runs the ordinary run loop on its own
//! thread ([`super::member::Member`] is its backend); every backend call that needs
//! the device posts a request and waits. When every live variant has posted, the
//! coordinator runs them all as one device round and hands each its answer. A variant
//! whose run ends (completed, failed or stopped) leaves, and the others go on.

use super::device::{EnsembleDevice, NodeState, NA, RS};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

/// What a variant asks of a round.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Operation flags (`OP_*` of `shaders/ensemble/state.wgsl`).
    pub ops: u32,
    /// Their arguments.
    pub args: [f64; NA],
    /// How many of the variant's node vectors to read after the round: 0 none, 1
    /// positions, 2 also velocities, 3 also accelerations.
    pub read_nodes: usize,
    /// Writes into the batch's `reals` (first index, values) before the round: the
    /// variant's own data only.
    pub writes: Vec<(usize, Vec<f64>)>,
}

/// A round's answer to one variant.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The variant's results (`Q_*`).
    pub results: [f64; RS],
    /// Positions (m), velocities (m/s) and accelerations (m/s²), `nodes × dim`,
    /// where asked for.
    pub nodes: Option<NodeState>,
}

/// One variant's place at the meeting: its request for the next round and the
/// round's answer. Each variant waits on its own seat, so a round's wake-ups do not
/// queue behind one lock (10,000 variants on one lock cost ~0.1 s a round).
#[derive(Default)]
struct Seat {
    state: Mutex<SeatState>,
    ready: Condvar,
}

#[derive(Default)]
struct SeatState {
    request: Option<Request>,
    reply: Option<Reply>,
}

/// Variants still running, and how many of them have posted this round.
struct Count {
    live: usize,
    waiting: usize,
}

/// The meeting point of a batch's variants and its device.
pub struct Lockstep {
    count: Mutex<Count>,
    coordinator: Condvar,
    seats: Vec<Seat>,
}

/// Seats one waking thread answers: below twice this the coordinator answers all.
const SEATS_PER_WAKER: usize = 256;

fn relock<T>(r: std::sync::LockResult<MutexGuard<'_, T>>) -> MutexGuard<'_, T> {
    // A variant that panicked holding a lock leaves consistent data behind.
    r.unwrap_or_else(|e| e.into_inner())
}

impl Lockstep {
    /// A batch of `k` live variants.
    pub fn new(k: usize) -> Self {
        Self {
            count: Mutex::new(Count {
                live: k,
                waiting: 0,
            }),
            coordinator: Condvar::new(),
            seats: (0..k).map(|_| Seat::default()).collect(),
        }
    }

    /// Variant `v` posts `req` and waits for the round that answers it.
    pub fn call(&self, v: usize, req: Request) -> Reply {
        let seat = &self.seats[v];
        relock(seat.state.lock()).request = Some(req);
        {
            let mut c = relock(self.count.lock());
            c.waiting += 1;
            if c.waiting == c.live {
                self.coordinator.notify_one();
            }
        }
        let mut g = relock(seat.state.lock());
        loop {
            if let Some(r) = g.reply.take() {
                return r;
            }
            g = relock(seat.ready.wait(g));
        }
    }

    /// Variant `v`'s run has ended: rounds no longer wait for it.
    pub fn leave(&self, _v: usize) {
        let mut c = relock(self.count.lock());
        c.live -= 1;
        if c.waiting == c.live {
            self.coordinator.notify_one();
        }
    }

    /// Runs rounds on `dev` until every variant has left; returns where the time
    /// went.
    pub fn serve(&self, dev: &mut EnsembleDevice) -> RoundTimes {
        let k = self.seats.len();
        let mut times = RoundTimes::default();
        loop {
            let t = Instant::now();
            {
                let mut c = relock(self.count.lock());
                while c.live > 0 && c.waiting < c.live {
                    c = relock(self.coordinator.wait(c));
                }
                if c.live == 0 {
                    times.members += t.elapsed().as_secs_f64();
                    return times;
                }
                c.waiting = 0;
            }
            times.members += t.elapsed().as_secs_f64();
            let t = Instant::now();
            // Every live variant has posted and waits on its seat.
            let requests: Vec<Option<Request>> = self
                .seats
                .iter()
                .map(|s| relock(s.state.lock()).request.take())
                .collect();
            let mut ops = vec![0u32; k];
            let mut args = vec![0.0f64; k * NA];
            for (v, r) in requests.iter().enumerate() {
                if let Some(r) = r {
                    ops[v] = r.ops;
                    args[v * NA..(v + 1) * NA].copy_from_slice(&r.args);
                    for (at, values) in &r.writes {
                        dev.write_reals(*at, values);
                    }
                }
            }
            let results = if ops.iter().any(|&o| o != 0) {
                dev.round(&ops, &args)
            } else {
                vec![0.0; k * RS]
            };
            let most = requests
                .iter()
                .flatten()
                .map(|r| r.read_nodes)
                .max()
                .unwrap_or(0);
            let nodes = (most > 0).then(|| dev.read_nodes(most));
            times.device += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let answer = Answer {
                requests: &requests,
                results: &results,
                nodes: nodes.as_ref(),
                node_ranges: &dev.node_ranges,
                dim: dev.dim,
            };
            let wakers = (k / SEATS_PER_WAKER).clamp(
                1,
                std::thread::available_parallelism().map_or(1, |n| n.get()),
            );
            if wakers == 1 {
                self.answer(&answer, 0..k);
            } else {
                let chunk = k.div_ceil(wakers);
                std::thread::scope(|s| {
                    for start in (0..k).step_by(chunk) {
                        let answer = &answer;
                        s.spawn(move || self.answer(answer, start..(start + chunk).min(k)));
                    }
                });
            }
            times.answers += t.elapsed().as_secs_f64();
        }
    }

    /// Hands the seats in `range` their answers and wakes them.
    fn answer(&self, a: &Answer<'_>, range: std::ops::Range<usize>) {
        for v in range {
            let Some(r) = &a.requests[v] else { continue };
            let mut results = [0.0; RS];
            results.copy_from_slice(&a.results[v * RS..(v + 1) * RS]);
            let own = |all: &[f64]| {
                let (off, n) = a.node_ranges[v];
                (0..n)
                    .flat_map(|i| (0..a.dim).map(move |c| (i, c)))
                    .map(|(i, c)| all[(off + i) * 3 + c])
                    .collect::<Vec<f64>>()
            };
            // the vectors asked for (the round may have read more for others)
            let nodes = match (a.nodes, r.read_nodes) {
                (Some(_), 0) | (None, _) => None,
                (Some((x, vel, acc)), k) => Some((
                    own(x),
                    if k > 1 { own(vel) } else { Vec::new() },
                    if k > 2 { own(acc) } else { Vec::new() },
                )),
            };
            let seat = &self.seats[v];
            relock(seat.state.lock()).reply = Some(Reply { results, nodes });
            seat.ready.notify_one();
        }
    }
}

/// Where a batch's wall-clock time went, in seconds, summed over its rounds.
#[derive(Clone, Copy, Debug, Default)]
pub struct RoundTimes {
    /// Waiting for every live variant to post: the variants' own host work (their
    /// Newton decisions and output) between rounds.
    pub members: f64,
    /// Packing the requests, the device round and its readbacks.
    pub device: f64,
    /// Handing out the answers and waking the variants.
    pub answers: f64,
}

/// One round's outcome, shared by the threads that hand it out.
struct Answer<'a> {
    requests: &'a [Option<Request>],
    results: &'a [f64],
    nodes: Option<&'a NodeState>,
    node_ranges: &'a [(usize, usize)],
    dim: usize,
}
