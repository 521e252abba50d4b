//! Selecting a body's nodes by their initial position: `fixed_where` and
//! `velocity_where`, each a condition over `x, y[, z]` (m) in the expression
//! language of implicit walls with comparisons and `and`/`or`/`not`
//! ([`crate::implicit::expr::cond`]).

use super::format::BodySection;
use super::{Builder, SceneError};
use crate::implicit::expr::parse_condition;
use crate::model::Model;

impl Builder<'_> {
    /// Fixes the nodes `first..` of body `bi` (just added to `model`) whose initial
    /// position satisfies its `fixed_where`, in addition to `fixed`, and sets the
    /// initial velocity of those that do not satisfy its `velocity_where` to zero. A
    /// condition that does not parse, or that no node satisfies, is an error at
    /// `bodies.N.fixed_where` (`velocity_where`).
    pub(super) fn fixed_where(
        &self,
        model: &mut Model,
        bi: usize,
        b: &BodySection,
        first: usize,
    ) -> Result<(), SceneError> {
        if let Some(src) = &b.fixed_where {
            let holds = self.select(model, &format!("bodies.{bi}.fixed_where"), src, first)?;
            for (i, h) in holds.into_iter().enumerate() {
                model.fixed[first + i] |= h;
            }
        }
        if let Some(src) = &b.velocity_where {
            let path = format!("bodies.{bi}.velocity_where");
            if b.velocity.is_none() && b.speed.is_none() {
                return Err(self.err(
                    &path,
                    "velocity_where selects the nodes that get `velocity`, but the body gives none",
                ));
            }
            let holds = self.select(model, &path, src, first)?;
            let dim = model.dim;
            for (i, h) in holds.into_iter().enumerate() {
                if !h {
                    let n = first + i;
                    model.v0[n * dim..(n + 1) * dim].fill(0.0);
                }
            }
        }
        Ok(())
    }

    /// Whether condition `src` (at `path`) holds at each node `first..` of `model`;
    /// an error where it does not parse or holds at no node.
    pub(super) fn select(
        &self,
        model: &Model,
        path: &str,
        src: &str,
        first: usize,
    ) -> Result<Vec<bool>, SceneError> {
        let dim = model.dim;
        let cond = parse_condition(src, dim).map_err(|e| self.err(path, format!("`{src}` {e}")))?;
        let holds: Vec<bool> = (first..model.num_nodes())
            .map(|i| cond.holds(&model.x0[i * dim..(i + 1) * dim]))
            .collect();
        if !holds.contains(&true) {
            return Err(self.err(
                path,
                format!(
                    "`{src}` holds at none of this body's {} nodes (their initial positions, m, in scene coordinates)",
                    holds.len()
                ),
            ));
        }
        Ok(holds)
    }
}
