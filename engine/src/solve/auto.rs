//! The `auto` portfolio on `common`: a chain of searches within one set of limits that
//! returns the first exact verdict.
//!
//! 1. Iterative sampling: wins are frequent and random probes find them fast.
//! 2. The `basic` search under each suit assignment, capped by
//!    [`AUTO_ASSIGNMENT_CAPS`]: it finds wins whose random probes are rare.
//! 3. Breadth-first search with a probe per node, which also proves small spaces lost,
//!    within at most [`AUTO_HYBRID_BYTES`] (more memory only delays the next phase).
//! 4. If that fills its memory, the exact search (`search::exact`: settled positions
//!    by depth-first search, the rest in an exact visited set) with the rest of the
//!    limits, the whole memory budget and the request's threads.
//! 5. If that fills its memory too, the depth-first search with a replacing table,
//!    which needs no more memory and may still find a win or prove the loss.
//!
//! Invariant: the chain moves on only past a phase that ended [`Outcome::NoWin`] (the
//! first two, which never prove a loss) or that ran out of memory (the third and
//! fourth); any other end (a win, a proof, a limit, a cancel) is the answer, so
//! `unsolvable` can only come from an exhausted breadth-first, exact or depth-first
//! search.

use super::{Algorithm, SolveOptions, Solver};
use crate::deal::SplitMix64;
use crate::position::Position;
use crate::search::budget::{Budget, StopReason};
use crate::search::hybrid::HybridSearch;
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;

/// Probes of the sampling phase of `auto` on `common` when the request names none.
pub const AUTO_PROBES: u64 = 100_000;

/// Most memory of the breadth-first phase of `auto` on `common` (10.1M positions): on
/// 4x13 deals 0..999 at 10 s per deal its median decision took about a second.
pub const AUTO_HYBRID_BYTES: usize = 256 << 20;

/// Node limits of a suit-assignment search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AssignmentCaps {
    /// Most nodes for one assignment.
    pub per_assignment: u64,
    /// Most nodes for all of them.
    pub total: u64,
}

/// The assignment phase of `auto` on `common`: on 4x13 deals 0..99 an uncapped search
/// of all 24 assignments took a median 0.6M nodes and at most 25M; these caps keep the
/// phase under about two seconds, leaving the rest to breadth-first search.
pub const AUTO_ASSIGNMENT_CAPS: AssignmentCaps = AssignmentCaps {
    per_assignment: 1 << 20,
    total: 24 << 20,
};

impl Solver {
    /// Runs the portfolio (see the module doc) and returns how it ended and which
    /// algorithm gave that end.
    pub(super) fn auto(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        rng: &mut SplitMix64,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (Outcome, Algorithm) {
        let probes = options.probes.unwrap_or(AUTO_PROBES);
        let sampled = self.sample(start, options.variant, probes, rng, budget, stats);
        if !matches!(sampled, Outcome::NoWin(_)) {
            return (sampled, Algorithm::Sampling);
        }
        let caps = Some(AUTO_ASSIGNMENT_CAPS);
        let assigned = self.assignment_search(start, options, caps, budget, stats);
        if !matches!(assigned, Outcome::NoWin(_)) {
            return (assigned, Algorithm::Assign);
        }
        let hybrid_options = SolveOptions {
            table_limit: Some(
                options
                    .table_limit
                    .map_or(AUTO_HYBRID_BYTES, |limit| limit.min(AUTO_HYBRID_BYTES)),
            ),
            ..*options
        };
        let breadth_first = self.hybrid_search(start, &hybrid_options, rng, budget, stats);
        if breadth_first != Outcome::Stopped(StopReason::MemoryLimit) {
            return (breadth_first, Algorithm::Hybrid);
        }
        // The breadth-first buffers are full: give them back before the exact search
        // takes the whole budget (they grow again on the next solve that needs them).
        self.hybrid = HybridSearch::default();
        let exact = self.exact_search(start, options, budget, stats);
        if exact != Outcome::Stopped(StopReason::MemoryLimit) {
            return (exact, Algorithm::Exact);
        }
        (
            self.depth_first(start, options, budget, stats),
            Algorithm::Dfs,
        )
    }
}
