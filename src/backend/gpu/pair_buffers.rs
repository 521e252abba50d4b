//! Reallocating the contact pair buffers when the pair list or the term slots must
//! grow (what [`super::contact`] plans): the new sizes, the check against the
//! device's limits, the lagged friction pairs carried over, the dispatch sizes and
//! uniform parameters that depend on the capacity, and every kernel bound again.

use super::contact::{ContactPlan, PAIRS_HEADER};

impl super::engine::Engine {
    /// Grows the pair list to hold `found` pairs with headroom ([`ContactPlan::grown`]),
    /// with the per-element dispatch, its partials and the uniform parameters that
    /// depend on the capacity, and binds every kernel again. The list's contents are
    /// lost (the caller runs the broad phase again); the lagged friction pairs are
    /// kept. False (with `failure` set) where the device has no room.
    pub fn grow_pairs(&mut self, found: u32) -> bool {
        let Some(old) = self.contact.clone() else {
            return false;
        };
        // the list only grows, so the term slots stay within it
        let mut next = old.clone();
        next.capacity = old.grown(found);
        let mut exact = old.clone();
        exact.capacity = found.max(old.capacity);
        let what = format!("contact between bodies needs room for {found} pairs");
        self.resize_pairs(next, exact, &what, |p| p.growths += 1)
    }

    /// Grows the term slots to hold the `active` pairs the last assembly found with
    /// terms ([`ContactPlan::grown_slots`]), as [`Self::grow_pairs`] does the list; the
    /// caller assembles again.
    pub fn grow_term_slots(&mut self, active: u32) -> bool {
        let Some(old) = self.contact.clone() else {
            return false;
        };
        let mut next = old.clone();
        next.term_slots = old.grown_slots(active);
        let mut exact = old.clone();
        exact.term_slots = active.max(old.term_slots).min(old.capacity);
        let what =
            format!("contact between bodies needs room for the terms of {active} active pairs");
        self.resize_pairs(next, exact, &what, |p| p.term_growths += 1)
    }

    /// Reallocates the pair buffers for `next` (or, where it does not fit, `exact`:
    /// no headroom), counting the growth with `count`.
    fn resize_pairs(
        &mut self,
        mut next: ContactPlan,
        exact: ContactPlan,
        what: &str,
        count: impl Fn(&mut ContactPlan),
    ) -> bool {
        let old = self.contact.clone().expect("contact");
        let limits = self.ctx.device.limits();
        let most = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size)
            .min(old.max_bytes);
        let width = self.width(crate::precision::RealClass::State);
        let fits = |p: &ContactPlan| p.pairs_bytes().max(p.terms_bytes(width)) <= most;
        if !fits(&next) {
            next = exact;
        }
        if !fits(&next) {
            self.failure = Some(format!(
                "{what} ({} bytes of pair list, {} bytes of pair terms), more than the {most} bytes per storage buffer the device allows; use --backend cpu",
                next.pairs_bytes(),
                next.terms_bytes(width)
            ));
            return false;
        }
        count(&mut next);
        self.contact = Some(next.clone());
        let plan = next;
        self.flush_deferred();
        let zeroed =
            |name: &str, size: u64| super::buffers::zeroed_storage(&self.ctx.device, name, size);
        // A list of the same capacity keeps its buffer (and the list in it).
        let pairs = (plan.capacity != old.capacity).then(|| zeroed("pairs", plan.pairs_bytes()));
        let terms = zeroed("pair_terms", plan.terms_bytes(width));
        if plan.lagged {
            // the lagged friction pairs: the header (their count), records and reals
            let mut enc = self.encoder();
            if let Some(pairs) = &pairs {
                let (from, len) = old.lag_region();
                enc.copy_buffer_to_buffer(&self.buffers.pairs, 0, pairs, 0, 4 * PAIRS_HEADER);
                enc.copy_buffer_to_buffer(
                    &self.buffers.pairs,
                    from,
                    pairs,
                    plan.lag_region().0,
                    len,
                );
            }
            let (from, len) = old.lagged_terms(width);
            let to = plan.lagged_terms(width).0;
            enc.copy_buffer_to_buffer(&self.buffers.pair_terms, from, &terms, to, len);
            self.submit(enc);
        }
        if let Some(pairs) = pairs {
            self.buffers.pairs = pairs;
        }
        self.buffers.pair_terms = terms;
        let dev = &self.ctx.device;
        let zeroed = |name: &str, size: u64| super::buffers::zeroed_storage(dev, name, size);
        let elements = plan.base_elements.max(plan.capacity);
        let d = &mut self.dispatch;
        d.elements = super::setup::dims(elements.div_ceil(super::layout::WORKGROUP), d.max_x);
        let element_partials = d.elements.0 * d.elements.1;
        let partials = super::kernel_lists::partial_slots(d.nodes.0 * d.nodes.1, element_partials)
            * self.layouts.lanes.size as u64;
        if partials > self.buffers.partials.size() {
            self.buffers.partials = zeroed("partials", partials);
        }
        let q = &self.ctx.queue;
        let at = |name| self.layouts.params.offset(name);
        q.write_buffer(
            &self.buffers.params,
            at("element_partials"),
            &element_partials.to_le_bytes(),
        );
        let cap: Vec<u8> = [plan.capacity, plan.term_slots, 0, 0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        q.write_buffer(&self.buffers.params, at("contact_pairs"), &cap);
        self.groups = super::pipelines::bind_groups(dev, &self.pipes, &self.buffers);
        true
    }
}

impl super::engine::Engine {
    /// Records what a broad phase found (`pairs_found` alone may also come from a
    /// readback that ran none).
    pub fn note_pairs_found(&mut self, found: u32) {
        self.pairs_found = found;
        if let Some(c) = self.contact.as_mut() {
            c.broad_phases += 1;
            c.candidates += found as u64;
        }
    }
}
