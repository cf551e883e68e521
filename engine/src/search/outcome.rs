//! How a search ends: one outcome type shared by every algorithm.
//!
//! Invariant: [`Outcome::Exhausted`] is only returned by a search that visited (or
//! soundly covered) every position reachable from its root, so it is a proof that no
//! win exists; algorithms that only look for wins (sampling, suit assignments) end in
//! [`Outcome::NoWin`] instead, which proves nothing. A `Won` line has not been replayed
//! yet: the solver replays it before it reports a verdict.

use crate::moves::Move;
use crate::search::budget::StopReason;

/// How a search ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<M = Move> {
    /// A win was found; the moves lead from the root to it (in complete mode: the first).
    Won(Vec<M>),
    /// The whole reachable space was searched and holds no win: a proof of loss.
    Exhausted,
    /// The search ran to its own end without finding a win and without proving there
    /// is none (the reason names what ran out: probes, assignments).
    NoWin(StopReason),
    /// A limit (nodes, time, cancel, memory) stopped the search first.
    Stopped(StopReason),
}

impl<M> Outcome<M> {
    /// True if the search found a win.
    pub fn is_won(&self) -> bool {
        matches!(self, Outcome::Won(_))
    }
}
