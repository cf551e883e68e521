//! A round without redeals searched two ways taking turns of [`SLICE`] positions: one
//! whole best-first search in the first [`Order`] of the rule's [`orders`], and
//! restarts in its orders in turn (`restarts.rs`). The round ends with the first to
//! win or to exhaust it.
//!
//! Why: in such a round only a win or the round's end matters (no redeal is taken
//! from its positions). The restarts win most games within a second, the whole search
//! within minutes or not at all, but only the whole search can exhaust a round larger
//! than a restart's allowance (docs/performance.md, "The games played on their own
//! boards": "Restarts"). Under "any higher card of the suit" and "the next rank, any
//! suit" the orders break ties by the legal moves; under the right-neighbour rule
//! [`Order::Runs`] won more.
//!
//! Invariants:
//! - The whole search and each restart are graph searches of the round with their own
//!   sets of keys, so the first to be exhausted proves the round lost (with the
//!   frozen-card cut, as `best_first.rs` says): `Exhausted` stays exact. A win is a
//!   line of one search and replays from the start.
//! - They share the memory: while both run, each holds at most half of `max_keys`;
//!   the one that would hold more is dropped (its memory freed) and the other may then
//!   hold them all. So the round is exhausted within the same memory as one search.
//! - Deterministic: turns and allowances are counted in positions, never in time, and
//!   the restarts' tie-breaks come from the seed given.

use super::best_first::{Order, RoundEnd, RoundSearch};
use super::position::BoardPosition;
use super::restarts::Restarts;
use crate::pysol::Accepts;
use crate::search::budget::{Budget, StopReason};
use crate::search::stats::SearchStats;

/// The orders of a round without redeals under `accepts`: the whole search's first,
/// the restarts' in turn.
fn orders(accepts: Accepts) -> &'static [Order] {
    match accepts {
        Accepts::HigherSameSuit | Accepts::AnySuitSuccessor => {
            &[Order::RunsThenMoves, Order::ReadyThenMoves]
        }
        Accepts::Successor | Accepts::SuccessorOrBelowRight => &[Order::Runs],
    }
}

/// Positions a search reaches in one turn (the budget is still checked every
/// `CHECK_INTERVAL` positions within it).
const SLICE: u64 = 1 << 14;

/// One of the two ways a round without redeals is searched, taking turns.
// Two of them live a round, in one vector: their sizes do not matter.
#[allow(clippy::large_enum_variant)]
enum Member {
    /// The whole search.
    Whole(RoundSearch),
    /// The restarts (which end stopped by the memory when their allowance outgrows
    /// their share).
    Restarts(Restarts),
}

impl Member {
    /// Goes on for about `nodes` positions, holding at most `max_keys` keys.
    fn run(
        &mut self,
        nodes: u64,
        max_keys: usize,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Option<RoundEnd> {
        match self {
            Member::Whole(search) => search.run(nodes, max_keys, budget, stats),
            Member::Restarts(restarts) => restarts.run(nodes, max_keys, budget, stats),
        }
    }
}

/// The round from `start`, with no redeal after it: won, exhausted, or stopped by
/// `budget` or the memory (at most `max_keys` keys in all). The restarts' tie-breaks
/// are drawn from `seed`.
pub(super) fn search_last_round(
    start: &BoardPosition,
    max_keys: usize,
    seed: u64,
    budget: &Budget,
    stats: &mut SearchStats,
) -> RoundEnd {
    let orders = orders(start.rules().accepts);
    let whole = match RoundSearch::start(start, orders[0], true, max_keys, 0, stats) {
        Ok(search) => search,
        // The start alone decides the round, whatever the search.
        Err((_, end)) => return end,
    };
    let mut members = vec![
        Member::Whole(whole),
        Member::Restarts(Restarts::new(start, orders, seed)),
    ];
    let mut turn = 0;
    loop {
        let share = max_keys / members.len();
        match members[turn].run(SLICE, share, budget, stats) {
            None => turn += 1,
            // Too large for its share: the other goes on alone, with all of it.
            Some(RoundEnd::Stopped(StopReason::MemoryLimit)) if members.len() > 1 => {
                members.remove(turn);
            }
            Some(end) => return end,
        }
        if turn >= members.len() {
            turn = 0;
        }
    }
}

/// Restarts alone of the round from `start` for about `nodes` positions (keeping at
/// most `max_keys` keys), ties drawn from `seed`: a win, an exhausted round, a stop by
/// `budget`, or `None` when they neither won nor exhausted it. A search with redeals
/// tries them first: a first round won is a game won as played, and most are won so
/// within a second.
pub(super) fn restarts_of_round(
    start: &BoardPosition,
    nodes: u64,
    max_keys: usize,
    seed: u64,
    budget: &Budget,
    stats: &mut SearchStats,
) -> Option<RoundEnd> {
    let mut restarts = Restarts::new(start, orders(start.rules().accepts), seed);
    match restarts.run(nodes, max_keys, budget, stats) {
        // Their allowances outgrew the memory: the passes go on.
        Some(RoundEnd::Stopped(StopReason::MemoryLimit)) => None,
        end => end,
    }
}
