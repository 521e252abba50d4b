//! Measuring bounces: run a scene and read each contact's coefficient of restitution
//! off a normal velocity (a node's, a body's centre of mass, or two bodies'
//! relative one) at the state before the contact and the state that leaves it.

use springsim::backend::Backend;
use springsim::model::Model;
use springsim::sim::{Simulation, StepRecord};

/// A scene on the ground plane through the origin with normal +y, in `dim`
/// dimensions: `solver` and `contact` are the lines of those sections, `wall` more
/// keys of the ground, `bodies` the `[[bodies]]` sections.
pub fn on_ground(dim: usize, solver: &str, contact: &str, wall: &str, bodies: &str) -> Model {
    let (zero, up) = match dim {
        2 => ("[0.0, 0.0]", "[0.0, 1.0]"),
        _ => ("[0.0, 0.0, 0.0]", "[0.0, 1.0, 0.0]"),
    };
    super::scene(&format!(
        "dimension = {dim}\n[solver]\n{solver}\n[contact]\n{contact}\n\
         [[walls]]\ntype = \"plane\"\npoint = {zero}\nnormal = {up}\n{wall}\n{bodies}"
    ))
    .model
}

/// One contact, from its first state within d̂ to the first state out of it.
#[derive(Clone, Copy, Debug)]
pub struct Bounce {
    /// First step whose end is in contact.
    pub entry: u64,
    /// First step whose end is out of contact again.
    pub exit: u64,
    /// Normal velocity (m/s) at the state before `entry`.
    pub v_in: f64,
    /// Normal velocity (m/s) at `exit`.
    pub v_out: f64,
}

impl Bounce {
    /// `−v_out / v_in`.
    pub fn cor(&self) -> f64 {
        -self.v_out / self.v_in
    }
}

/// What a bounce run gave: its bounces, every step's record, and whether a contact
/// was still under way at the end.
pub struct Bounces {
    pub bounces: Vec<Bounce>,
    pub records: Vec<StepRecord>,
    pub stuck: bool,
}

/// The normal speed a body in free flight under normal gravity `a` (m/s², negative
/// towards the contact) has at distance `dhat` when it has `rate` (m/s) at `d`: the
/// measurement at the barrier's edge whatever height a step's state is at.
pub fn at_edge(rate: f64, a: f64, d: f64, dhat: f64) -> f64 {
    let s = (rate * rate + 2.0 * a * (dhat - d)).max(0.0).sqrt();
    s.copysign(rate)
}

/// Runs `steps` steps of `model` on `backend`; `touching(record)` says whether a
/// step's end is in contact and `rate(v, record)` gives the normal velocity (m/s)
/// from the node velocities (after the first step, with that step's record).
pub fn measure(
    model: &Model,
    backend: Box<dyn Backend>,
    steps: u64,
    touching: impl Fn(&StepRecord) -> bool,
    rate: impl Fn(&[f64], Option<&StepRecord>) -> f64,
) -> Bounces {
    let mut sim = Simulation::new(backend, model);
    let mut prev = rate(&model.v0, None);
    let mut open: Option<(u64, f64)> = None;
    let mut out = Bounces {
        bounces: vec![],
        records: vec![],
        stuck: false,
    };
    for _ in 0..steps {
        let rec = sim.step().expect("step");
        let v = sim.backend().velocities();
        let now = rate(&v, Some(&rec));
        match (open, touching(&rec)) {
            (None, true) => open = Some((rec.step, prev)),
            (Some((entry, v_in)), false) => {
                out.bounces.push(Bounce {
                    entry,
                    exit: rec.step,
                    v_in,
                    v_out: now,
                });
                open = None;
            }
            _ => {}
        }
        prev = now;
        out.records.push(rec);
    }
    out.stuck = open.is_some();
    out
}

/// The mass-weighted mean of component `c` of `v` over nodes `nodes`.
pub fn centre_velocity(model: &Model, v: &[f64], nodes: std::ops::Range<usize>, c: usize) -> f64 {
    let dim = model.dim;
    let (mut p, mut m) = (0.0, 0.0);
    for i in nodes {
        p += model.mass[i] * v[i * dim + c];
        m += model.mass[i];
    }
    p / m
}

/// The node range of body `b`.
pub fn body_nodes(model: &Model, b: usize) -> std::ops::Range<usize> {
    let info = &model.bodies[b];
    info.first_node..info.first_node + info.nodes
}
