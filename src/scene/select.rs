//! Selecting a body's nodes by their initial position: `fixed_where`, a condition
//! over `x, y[, z]` (m) in the expression language of implicit walls with
//! comparisons and `and`/`or`/`not` ([`crate::implicit::expr::cond`]).

use super::format::BodySection;
use super::{Builder, SceneError};
use crate::implicit::expr::parse_condition;
use crate::model::Model;

impl Builder<'_> {
    /// Fixes the nodes `first..` of body `bi` (just added to `model`) whose initial
    /// position satisfies its `fixed_where`, in addition to `fixed`. A condition that
    /// does not parse, or that no node satisfies, is an error at `bodies.N.fixed_where`.
    pub(super) fn fixed_where(
        &self,
        model: &mut Model,
        bi: usize,
        b: &BodySection,
        first: usize,
    ) -> Result<(), SceneError> {
        let Some(src) = &b.fixed_where else {
            return Ok(());
        };
        let path = format!("bodies.{bi}.fixed_where");
        let dim = model.dim;
        let cond =
            parse_condition(src, dim).map_err(|e| self.err(&path, format!("`{src}` {e}")))?;
        let mut matched = 0;
        for i in first..model.num_nodes() {
            if cond.holds(&model.x0[i * dim..(i + 1) * dim]) {
                model.fixed[i] = true;
                matched += 1;
            }
        }
        if matched == 0 {
            return Err(self.err(
                &path,
                format!(
                    "`{src}` holds at none of this body's {} nodes (their initial positions, m, in scene coordinates)",
                    model.num_nodes() - first
                ),
            ));
        }
        Ok(())
    }
}
