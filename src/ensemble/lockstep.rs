//! Lock-step rounds: each variant of a batch runs the ordinary run loop on its own
//! thread ([`super::member::Member`] is its backend); every backend call that needs
//! the device posts a request and waits. When every live variant has posted, the
//! coordinator runs them all as one device round and hands each its answer. A variant
//! whose run ends (completed, failed or stopped) leaves, and the others go on.

use super::device::{EnsembleDevice, NA, RS};
use std::sync::{Condvar, Mutex, MutexGuard};

/// What a variant asks of a round.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    /// Operation flags (`OP_*` of `shaders/ensemble/state.wgsl`).
    pub ops: u32,
    /// Their arguments.
    pub args: [f64; NA],
    /// Also read the variant's positions and velocities after the round.
    pub read_nodes: bool,
}

/// A round's answer to one variant.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The variant's results (`Q_*`).
    pub results: [f64; RS],
    /// Positions (m) and velocities (m/s), `nodes × dim`, where asked for.
    pub nodes: Option<(Vec<f64>, Vec<f64>)>,
}

struct Slots {
    requests: Vec<Option<Request>>,
    replies: Vec<Option<Reply>>,
    live: usize,
    waiting: usize,
}

/// The meeting point of a batch's variants and its device.
pub struct Lockstep {
    slots: Mutex<Slots>,
    coordinator: Condvar,
    members: Vec<Condvar>,
}

impl Lockstep {
    /// A batch of `k` live variants.
    pub fn new(k: usize) -> Self {
        Self {
            slots: Mutex::new(Slots {
                requests: vec![None; k],
                replies: vec![None; k],
                live: k,
                waiting: 0,
            }),
            coordinator: Condvar::new(),
            members: (0..k).map(|_| Condvar::new()).collect(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Slots> {
        // A variant that panicked holding the lock leaves consistent slots behind.
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Variant `v` posts `req` and waits for the round that answers it.
    pub fn call(&self, v: usize, req: Request) -> Reply {
        let mut g = self.lock();
        g.requests[v] = Some(req);
        g.waiting += 1;
        if g.waiting == g.live {
            self.coordinator.notify_one();
        }
        loop {
            if let Some(r) = g.replies[v].take() {
                return r;
            }
            g = self.members[v].wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Variant `v`'s run has ended: rounds no longer wait for it.
    pub fn leave(&self, _v: usize) {
        let mut g = self.lock();
        g.live -= 1;
        if g.waiting == g.live {
            self.coordinator.notify_one();
        }
    }

    /// Runs rounds on `dev` until every variant has left.
    pub fn serve(&self, dev: &mut EnsembleDevice) {
        let k = self.members.len();
        let dim = dev.dim;
        loop {
            let requests = {
                let mut g = self.lock();
                while g.live > 0 && g.waiting < g.live {
                    g = self.coordinator.wait(g).unwrap_or_else(|e| e.into_inner());
                }
                if g.live == 0 {
                    return;
                }
                g.waiting = 0;
                std::mem::replace(&mut g.requests, vec![None; k])
            };
            let mut ops = vec![0u32; k];
            let mut args = vec![0.0f64; k * NA];
            for (v, r) in requests.iter().enumerate() {
                if let Some(r) = r {
                    ops[v] = r.ops;
                    args[v * NA..(v + 1) * NA].copy_from_slice(&r.args);
                }
            }
            let results = if ops.iter().any(|&o| o != 0) {
                dev.round(&ops, &args)
            } else {
                vec![0.0; k * RS]
            };
            let nodes = requests
                .iter()
                .any(|r| r.is_some_and(|r| r.read_nodes))
                .then(|| dev.read_nodes());
            let mut g = self.lock();
            for (v, r) in requests.iter().enumerate() {
                let Some(r) = r else { continue };
                let mut res = [0.0; RS];
                res.copy_from_slice(&results[v * RS..(v + 1) * RS]);
                let own = |all: &[f64]| {
                    let (off, n) = dev.node_ranges[v];
                    (0..n)
                        .flat_map(|i| (0..dim).map(move |c| (i, c)))
                        .map(|(i, c)| all[(off + i) * 3 + c])
                        .collect::<Vec<f64>>()
                };
                let mine = match (&nodes, r.read_nodes) {
                    (Some((x, vel)), true) => Some((own(x), own(vel))),
                    _ => None,
                };
                g.replies[v] = Some(Reply {
                    results: res,
                    nodes: mine,
                });
                self.members[v].notify_one();
            }
        }
    }
}
