//! What the study reads off a trajectory: the coefficient of restitution of the first
//! contact, the smallest height, how long the contact lasted, Newton's work.

use super::particle::Trajectory;

/// How the first contact of a run went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contact {
    /// The particle never came within d̂ of the ground: no contact, no COR.
    None,
    /// It entered the barrier zone and had not left it, moving up, by the end (COR 0).
    Stuck,
    /// It entered the barrier zone and left it again moving up.
    Rebounded,
}

impl Contact {
    /// The word written in tables: `none`, `stuck` or `rebounded`.
    pub fn name(self) -> &'static str {
        match self {
            Contact::None => "none",
            Contact::Stuck => "stuck",
            Contact::Rebounded => "rebounded",
        }
    }
}

/// Measurements of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measurement {
    /// Whether the particle came within d̂ of the ground at all.
    pub touched: bool,
    /// Whether it left the barrier zone again (moving up) before the end.
    pub rebounded: bool,
    /// Incoming speed |v| (m/s) at the last state above d̂ before the first contact.
    pub v_in: f64,
    /// Outgoing speed |v| (m/s) at the first state back above d̂; 0 when it never left.
    pub v_out: f64,
    /// Coefficient of restitution `v_out / v_in` (0 when it never left; NaN without contact).
    pub cor: f64,
    /// Smallest height over the run (m).
    pub min_x: f64,
    /// Steps spent below d̂ in the first contact.
    pub contact_steps: u64,
    /// `contact_steps · h` (s).
    pub contact_duration: f64,
    /// Newton updates over the run.
    pub newton_iterations: u64,
    /// Most Newton updates in one step.
    pub max_newton_per_step: u32,
    /// Newton updates during the first contact (its steps and the step that leaves it).
    pub contact_newton_iterations: u64,
    /// Steps whose line search halved α to zero.
    pub line_search_failures: u32,
    /// Steps taken.
    pub steps: u64,
}

impl Measurement {
    /// How the first contact went.
    pub fn contact(&self) -> Contact {
        match (self.touched, self.rebounded) {
            (false, _) => Contact::None,
            (true, false) => Contact::Stuck,
            (true, true) => Contact::Rebounded,
        }
    }

    /// The coefficient of restitution, `None` without contact (never NaN).
    pub fn cor(&self) -> Option<f64> {
        self.touched.then_some(self.cor)
    }
}

/// Measures `tr`, a run with barrier distance `dhat` (m) and time step `h` (s).
///
/// The contact is the first stretch of states with `x < d̂`. The incoming speed is
/// taken at the state before it, the outgoing one at the state that ends it (for
/// g = 0 both are the free-flight speeds, so the ratio is exact).
pub fn measure(tr: &Trajectory, dhat: f64, h: f64) -> Measurement {
    let n = tr.x.len();
    let newton_iterations = tr.newton_iterations.iter().map(|&k| k as u64).sum();
    let max_newton_per_step = tr.newton_iterations.iter().copied().max().unwrap_or(0);
    let min_x = tr.x.iter().copied().fold(f64::INFINITY, f64::min);
    let mut m = Measurement {
        touched: false,
        rebounded: false,
        v_in: f64::NAN,
        v_out: f64::NAN,
        cor: f64::NAN,
        min_x,
        contact_steps: 0,
        contact_duration: 0.0,
        newton_iterations,
        max_newton_per_step,
        contact_newton_iterations: 0,
        line_search_failures: tr.line_search_failures,
        steps: n.saturating_sub(1) as u64,
    };
    let Some(entry) = tr.x.iter().position(|&x| x < dhat) else {
        return m;
    };
    m.touched = true;
    m.v_in = if entry > 0 {
        tr.v[entry - 1].abs()
    } else {
        tr.v[0].abs()
    };
    let exit = (entry..n).find(|&i| tr.x[i] >= dhat);
    let end = exit.unwrap_or(n);
    m.contact_steps = (end - entry) as u64;
    m.contact_duration = m.contact_steps as f64 * h;
    m.contact_newton_iterations = tr.newton_iterations[entry..(end + 1).min(n)]
        .iter()
        .map(|&k| k as u64)
        .sum();
    match exit {
        Some(i) if tr.v[i] > 0.0 => {
            m.rebounded = true;
            m.v_out = tr.v[i].abs();
        }
        _ => m.v_out = 0.0,
    }
    m.cor = m.v_out / m.v_in;
    m
}
