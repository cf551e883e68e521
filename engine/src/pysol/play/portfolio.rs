//! A round without redeals searched by one best-first search per [`Order`] of the
//! rule's [`orders`], taking turns of [`SLICE`] positions: the round ends with the
//! first search that wins or is exhausted.
//!
//! Why: in such a round only a win or the round's end matters (no redeal is taken
//! from its positions), and which games a best-first search wins within a time depends
//! much on its order. Under "any higher card of the suit" and "the next rank, any
//! suit", two orders that break ties by the legal moves win largely different games,
//! and two searches sharing the time win more than either alone; under the
//! right-neighbour rule one search in [`Order::Runs`] won more (docs/performance.md,
//! "The games played on their own boards").
//!
//! Invariants:
//! - Each search is a whole graph search of the round with its own set of keys, so
//!   the first to be exhausted proves the round lost (with the frozen-card cut, as
//!   `best_first.rs` says): `Exhausted` stays exact. A win is a line of one search and
//!   replays from the start.
//! - The searches share the memory: while several run, each holds at most its share
//!   of `max_keys`; one that would hold more is dropped (its memory freed) unless it is
//!   the last, which may then hold them all. So the round is exhausted within the same
//!   memory as one search, at up to twice the positions.
//! - Deterministic: turns are counted in positions, never in time.

use super::best_first::{Order, RoundEnd, RoundSearch};
use super::position::BoardPosition;
use crate::pysol::Accepts;
use crate::search::budget::{Budget, StopReason};
use crate::search::stats::SearchStats;

/// The orders of the searches of a round without redeals under `accepts`, in turn
/// order.
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

/// The round from `start`, with no redeal after it: won, exhausted, or stopped by
/// `budget` or the memory (at most `max_keys` keys in all).
pub(super) fn search_last_round(
    start: &BoardPosition,
    max_keys: usize,
    budget: &Budget,
    stats: &mut SearchStats,
) -> RoundEnd {
    let orders = orders(start.rules().accepts);
    let mut searches = Vec::with_capacity(orders.len());
    for &order in orders {
        match RoundSearch::start(start, order, true, max_keys, stats) {
            Ok(search) => searches.push(search),
            // The start alone decides the round, whatever the order.
            Err((_, end)) => return end,
        }
    }
    let mut turn = 0;
    loop {
        let share = max_keys / searches.len();
        match searches[turn].run(SLICE, share, budget, stats) {
            None => turn += 1,
            Some(RoundEnd::Stopped(StopReason::MemoryLimit)) if searches.len() > 1 => {
                searches.remove(turn);
            }
            Some(end) => return end,
        }
        if turn >= searches.len() {
            turn = 0;
        }
    }
}
