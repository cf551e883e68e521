//! Restarts: short best-first searches of a round without redeals, each from the
//! start, each breaking ties among equal priorities by a hash of the position's key
//! and a seed of its own, each stopped after its allowance of positions (the Luby
//! sequence times [`UNIT`]), the rule's orders taken in turn.
//!
//! Why: the orders' priorities (runs, ready rows, legal moves) are coarse, so most
//! positions of a round tie with many others, and which of them a search expands
//! first decides whether it wins within seconds or not within minutes: the time a
//! search takes to win is heavy-tailed over its tie-breaks. Many short searches with
//! different tie-breaks sample that distribution instead of sinking into one long
//! tail; the Luby sequence (1, 1, 2, 1, 1, 2, 4, ...) is within a logarithmic factor
//! of the best fixed allowance whatever the distribution (Luby, Sinclair and Zuckerman,
//! 1993). Measured in docs/performance.md ("Restarts").
//!
//! Invariants:
//! - Deterministic: restart `i` has the seed `SplitMix64(seed)`'s `i`-th output and its
//!   allowance is counted in positions, never in time.
//! - A restart is a whole graph search of the round (`best_first.rs`, the frozen-card
//!   cut included) stopped early by its allowance: one that runs out of positions
//!   before its allowance has reached every reachable position, so `Exhausted` is
//!   exact. A restart stopped by its allowance proves nothing, and the next one begins.
//! - A restart keeps at most its allowance of keys, its memory freed when it ends. The
//!   restarts end, stopped by the memory, when an allowance outgrows `max_keys` (so
//!   that they end without a time limit).

use super::best_first::{Order, RoundEnd, RoundSearch};
use super::position::{BoardPosition, BOARD_MAX_MOVES};
use crate::deal::SplitMix64;
use crate::search::budget::Budget;
use crate::search::stats::SearchStats;

/// Positions of the shortest restart: the Luby sequence's unit. Measured on the
/// hardest first rounds of Spaces and Aces, Jungle, Galary and Free Parking
/// (docs/performance.md, "Restarts").
pub(super) const UNIT: u64 = 1024;

/// The `i`-th term (from 1) of the Luby sequence: 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, ...
pub(super) fn luby(mut i: u64) -> u64 {
    loop {
        // The k with 2^(k-1) <= i < 2^k.
        let k = 64 - i.leading_zeros();
        if i == (1u64 << k) - 1 {
            return 1 << (k - 1);
        }
        i -= (1 << (k - 1)) - 1;
    }
}

/// The restarts of one round, resumable: [`Restarts::run`] goes on from where the last
/// call stopped.
pub(super) struct Restarts {
    start: BoardPosition,
    orders: &'static [Order],
    seeds: SplitMix64,
    /// Restarts begun.
    begun: u64,
    /// The running restart, the positions it may still reach, and the keys it may
    /// hold.
    current: Option<(RoundSearch, u64, usize)>,
}

impl Restarts {
    /// Restarts from `start` in `orders` (in turn), their tie-breaks drawn from `seed`.
    pub(super) fn new(start: &BoardPosition, orders: &'static [Order], seed: u64) -> Restarts {
        Restarts {
            start: *start,
            orders,
            seeds: SplitMix64::new(seed),
            begun: 0,
            current: None,
        }
    }

    /// Goes on until about `nodes` more positions are reached (`None`: not ended),
    /// a restart wins or exhausts the round, or `budget` stops it. A restart keeps at
    /// most `max_keys` keys.
    pub(super) fn run(
        &mut self,
        nodes: u64,
        max_keys: usize,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Option<RoundEnd> {
        let until = stats.nodes.saturating_add(nodes);
        while stats.nodes < until {
            let (search, left, keys) = match &mut self.current {
                Some(current) => current,
                None => {
                    let order = self.orders[(self.begun % self.orders.len() as u64) as usize];
                    self.begun += 1;
                    // A tie-break seed of 0 would mean "earliest first": never drawn.
                    let seed = self.seeds.next_u64() | 1;
                    let allowance = luby(self.begun).saturating_mul(UNIT);
                    // Room for the allowance and the last expansion's children.
                    let keys = (allowance as usize + BOARD_MAX_MOVES).min(max_keys);
                    match RoundSearch::start(&self.start, order, true, keys, seed, stats) {
                        Ok(search) => self.current.insert((search, allowance, keys)),
                        // The start alone decides the round, whatever the order.
                        Err((_, end)) => return Some(end),
                    }
                }
            };
            let before = stats.nodes;
            let slice = (*left).min(until - stats.nodes);
            let end = search.run(slice, (*keys).min(max_keys), budget, stats);
            *left = left.saturating_sub(stats.nodes - before);
            match end {
                None if *left > 0 => {}
                // Its allowance is spent: the next restart begins.
                None => self.current = None,
                // A won or exhausted round, the budget, or the memory: a restart keeps
                // at most its allowance of keys unless `max_keys` is fewer, so the
                // allowances have outgrown the memory and so would every later one.
                Some(end) => return Some(end),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{luby, Restarts};
    use crate::board::best_first::{Order, RoundEnd};
    use crate::board::{BoardDeal, BoardPosition};
    use crate::pysol::PysolGame;
    use crate::search::budget::Budget;
    use crate::search::stats::SearchStats;

    /// Runs restarts from `start` in calls of `slice` positions to their end or
    /// `nodes` positions: how they ended (won: the line's length) and the positions.
    fn run_in_slices(start: &BoardPosition, slice: u64, nodes: u64) -> (Option<usize>, u64) {
        let mut restarts = Restarts::new(start, &[Order::RunsThenMoves, Order::ReadyThenMoves], 7);
        let (budget, mut stats) = (Budget::unlimited(), SearchStats::default());
        while stats.nodes < nodes {
            match restarts.run(slice, usize::MAX, &budget, &mut stats) {
                None => {}
                Some(RoundEnd::Won(line)) => return (Some(line.len()), stats.nodes),
                Some(_) => panic!("restarts of an unlimited budget end only by a win here"),
            }
        }
        (None, stats.nodes)
    }

    /// A restart cut into many calls searches as it would in one: the same positions,
    /// the same win (a restart's allowance and keys belong to it, not to a call).
    #[test]
    fn restarts_do_not_depend_on_how_they_are_sliced() {
        let game = PysolGame::named("spaces-and-aces").unwrap();
        let mut won = 0;
        for number in 1..=6 {
            let start =
                BoardPosition::of_board(&BoardDeal::new(game, number).unwrap().board()).unwrap();
            let whole = run_in_slices(&start, u64::MAX, 300_000);
            let sliced = run_in_slices(&start, 100, 300_000);
            won += usize::from(whole.0.is_some());
            // A call ends after the expansion that reaches its positions, and a
            // restart's allowance counts every position reached: the same expansions.
            assert_eq!(whole, sliced, "game {number}");
        }
        assert!(
            won >= 3,
            "restarts win most of these games within 300,000 positions"
        );
    }

    #[test]
    fn luby_sequence() {
        let first: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(first, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
    }
}
