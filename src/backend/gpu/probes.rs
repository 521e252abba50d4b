//! [`Probe`] on the GPU backend: the device state read and overwritten between
//! kernels, for the tests that compare every kernel with its CPU twin.

use super::kernels::Kernel;
use super::layout::node_block_bytes;
use super::readback::{quadratic_form, DirectionSummary, EnergyTotals};
use super::GpuBackend;
use crate::backend::probe::Probe;
use crate::precision::RealClass;

impl GpuBackend {
    /// The stored iterate, prediction and step start as absolute positions (m):
    /// (x, x̃, xⁿ).
    fn state_vectors(&mut self) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let x = self.engine.read_vector(|b| &b.x, RealClass::State, 0);
        let xn = self.engine.read_vector(|b| &b.anchors, RealClass::State, 0);
        let offset = self.engine.read_vector(|b| &b.anchors, RealClass::State, 1);
        let xp = xn.iter().zip(&offset).map(|(a, b)| a + b).collect();
        (x, xp, xn)
    }

    /// Stores the absolute x, x̃ and xⁿ (m), rounded to the state's precision, as the
    /// device keeps them: x, and xⁿ with the offsets x̃ − xⁿ and x − xⁿ.
    fn write_state(&mut self, x: &[f64], xp: &[f64], xn: &[f64]) {
        let f32 = self.engine.width(RealClass::State) == 4;
        let round = |v: &[f64]| {
            v.iter()
                .map(|c| if f32 { (*c as f32) as f64 } else { *c })
                .collect::<Vec<f64>>()
        };
        let (x, xp, xn) = (round(x), round(xp), round(xn));
        let minus = |a: &[f64]| a.iter().zip(&xn).map(|(p, q)| p - q).collect::<Vec<f64>>();
        self.engine.write_vector(|b| &b.x, RealClass::State, 0, &x);
        self.engine
            .write_vector(|b| &b.anchors, RealClass::State, 0, &xn);
        self.engine
            .write_vector(|b| &b.anchors, RealClass::State, 1, &minus(&xp));
        self.engine
            .write_vector(|b| &b.anchors, RealClass::State, 2, &minus(&x));
        self.rebuild_pairs();
    }
}

impl GpuBackend {
    /// The current contact pair list as the broad phase left it, in list order
    /// (empty without contact). For tests.
    pub fn contact_pair_list(&mut self) -> Vec<crate::collision::Pair> {
        use crate::collision::{Pair, PairKind};
        if self.engine.contact.is_none() {
            return vec![];
        }
        // the candidates (pairs[2]); the lagged friction pairs follow them
        let count = self.engine.read_word(|b| &b.pairs, 2) as u64;
        if count == 0 {
            return vec![];
        }
        let record = super::contact::PAIR_WORDS as usize;
        let bytes = self
            .engine
            .read_raw(|b| &b.pairs, 16, 4 * record as u64 * count);
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
        let kinds = [
            PairKind::PointEdge,
            PairKind::PointTriangle,
            PairKind::EdgeEdge,
        ];
        words
            .chunks_exact(record)
            .map(|w| Pair {
                kind: kinds[w[0] as usize],
                prims: [w[1], w[2]],
            })
            .collect()
    }

    /// Each listed pair's weighted barrier terms as the last assembly left them, in
    /// list order: the gradient (12 reals, N·s², stacked as the pair's nodes, the
    /// first k·dim used), then the row-major (k·dim)² Hessian (kg), zeros for a pair
    /// without terms (no slot); f64 mode only (empty otherwise). For tests.
    pub fn contact_pair_terms(&mut self) -> Vec<Vec<f64>> {
        let count = self.contact_pair_list().len() as u64;
        if count == 0 || self.engine.width(crate::precision::RealClass::State) != 8 {
            return vec![];
        }
        let plan = self.engine.contact.clone().expect("contact");
        let bytes = self
            .engine
            .read_raw(|b| &b.pairs, plan.term_slot_offset(), 4 * count);
        let slots: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
        let per = super::contact::PAIR_TERM_REALS;
        let all = plan.term_slots as u64;
        let bytes = self.engine.read_raw(|b| &b.pair_terms, 0, 8 * per * all);
        let reals: Vec<f64> = bytemuck::pod_collect_to_vec(&bytes);
        slots
            .iter()
            .map(
                |&s| match reals.chunks_exact(per as usize).nth(s as usize) {
                    Some(t) => t.to_vec(),
                    None => vec![0.0; per as usize],
                },
            )
            .collect()
    }

    /// How many times the contact pair buffers grew (0 without contact). For tests.
    pub fn pair_buffer_growths(&self) -> u32 {
        self.engine.contact.as_ref().map_or(0, |c| c.growths)
    }
}

impl Probe for GpuBackend {
    fn set_positions(&mut self, x: &[f64]) {
        let (_, xp, xn) = self.state_vectors();
        self.write_state(x, &xp, &xn);
    }

    fn set_prediction(&mut self, x_pred: &[f64]) {
        let (x, _, xn) = self.state_vectors();
        self.write_state(&x, x_pred, &xn);
    }

    fn set_step_start(&mut self, xn: &[f64]) {
        let (x, xp, _) = self.state_vectors();
        self.write_state(&x, &xp, xn);
        if self.has_friction() {
            self.engine.defer(&[Kernel::FrictionLagStart]);
        }
    }

    fn set_direction(&mut self, p: &[f64]) {
        self.trials.drop_speculative();
        self.engine.write_vector(|b| &b.p, RealClass::State, 0, p);
    }

    fn direction_vector(&mut self) -> Vec<f64> {
        self.engine.read_vector(|b| &b.p, RealClass::State, 0)
    }

    fn potential(&mut self) -> f64 {
        EnergyTotals::from(self.engine.reduce(&self.solve.energy_total)).potential()
    }

    fn potential_gradient(&mut self) -> Vec<f64> {
        let assemble = self.solve.assemble.clone();
        self.run_assembly(&assemble);
        let r = self.engine.read_vector(|b| &b.r, RealClass::State, 0);
        r.iter().map(|r| -r).collect()
    }

    fn hessian_product(&mut self, u: &[f64]) -> (Vec<f64>, f64) {
        // term slots for every active pair at x, before the mat-vec assembles again
        let assemble = self.solve.assemble.clone();
        self.run_assembly(&assemble);
        self.engine.write_vector(|b| &b.d, RealClass::Linear, 0, u);
        // The mat-vec kernel idles once a CG solve is done: open it again.
        let done = self.engine.layouts.cg_state.offset("done");
        self.engine.write_cg_field(done, &0u32.to_le_bytes());
        let uhu = quadratic_form(self.engine.reduce(&self.solve.matvec));
        // ... and close it, so that no swept broad phase takes it for a running solve
        // (which holds the pair list).
        self.engine.write_cg_field(done, &1u32.to_le_bytes());
        (self.engine.read_vector(|b| &b.q, RealClass::Linear, 0), uhu)
    }

    fn jacobi_blocks(&mut self) -> Vec<f64> {
        let assemble = self.solve.assemble.clone();
        self.run_assembly(&assemble);
        let (n, dim) = (self.model.num_nodes(), self.model.dim);
        let width = self.engine.width(RealClass::Linear);
        let set = (n * node_block_bytes(dim, width)) as u64;
        if set == 0 {
            return vec![];
        }
        let bytes = self.engine.read_raw(|b| &b.blocks, set, set);
        let v = super::readback::decode_reals(&bytes, width);
        let mut out = Vec::with_capacity(n * dim * dim);
        for b in v.chunks(4 * (dim - 1)) {
            if dim == 2 {
                // (xx, yy, xy, 0)
                out.extend_from_slice(&[b[0], b[2], b[2], b[1]]);
            } else {
                // (xx, yy, zz, 0), (xy, xz, yz, 0)
                out.extend_from_slice(&[b[0], b[4], b[5], b[4], b[1], b[6], b[5], b[6], b[2]]);
            }
        }
        out
    }

    fn lagged_normal_forces(&mut self) -> Vec<f64> {
        if !self.has_friction() {
            return vec![];
        }
        // (unit normal, λ) per node and slot; the buffer may be padded beyond them
        let width = self.engine.width(RealClass::State);
        let slots = super::setup::friction_slots(&self.model);
        let size = (self.model.num_nodes() * slots) as u64 * 4 * width;
        let bytes = self.engine.read_raw(|b| &b.friction, 0, size);
        super::readback::decode_reals(&bytes, width)
            .chunks_exact(4)
            .map(|f| f[3])
            .collect()
    }

    fn precondition(&mut self, r: &[f64]) -> Vec<f64> {
        let assemble = self.solve.assemble.clone();
        self.run_assembly(&assemble);
        self.engine.run(&self.solve.factor);
        self.engine.write_vector(|b| &b.r, RealClass::State, 0, r);
        let apply = match self.solve.factor.is_empty() {
            true => vec![Kernel::CgStart],
            false => [vec![Kernel::MasCgStart], self.solve.apply.clone()].concat(),
        };
        self.engine.run(&apply);
        self.engine.read_vector(|b| &b.z, RealClass::Linear, 0)
    }

    fn direction_summary(&mut self) -> (f64, f64) {
        let s = DirectionSummary::from(self.engine.reduce(&self.solve.direction_stats));
        // the swept list may hold more pairs than the one built at x: grow it and
        // check again, as a Newton iteration's direction check does
        if self.engine.contact.is_some() && self.engine.list_grew() {
            return self.direction_summary();
        }
        (s.norm, s.ccd_bound)
    }
}
