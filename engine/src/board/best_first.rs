//! Best-first search of one round of a board: the positions reached are kept (packed,
//! with the move that first reached each and its parent), and the next one expanded is
//! the most promising by the search's [`Order`], the earliest reached first among
//! equals, or, for a search with a seed (`restarts.rs`), the one whose key hashes
//! highest with the seed. A search can be run in slices ([`RoundSearch::run`]), so that several
//! searches of one round can share its time (`portfolio.rs`).
//!
//! Why: in these games a gap takes many cards, so the rounds' spaces are far larger
//! than a depth-first search can cover in seconds, and it wanders among moves that
//! build nothing; a win is a board whose runs fill the rows, and the runs' length is a
//! good guide to it (measured in docs/performance.md).
//!
//! Invariants: it is a graph search with a set of every key reached (128-bit Zobrist
//! keys, the engine's bound), so when nothing is left to expand every position
//! reachable from the start has been reached: [`RoundEnd::Exhausted`] is exact, and
//! the kept positions are then the whole round (what the redeals start from). The
//! order changes which positions are expanded first, never which are reached. In the
//! last round only (no redeal left), a position with a card frozen out of place
//! (`frozen.rs`: no line of the round wins from it) is never expanded (it is judged
//! when taken from the queue, and none is won), which keeps `Exhausted` exact. Entry 0 is the start; a parent comes before its
//! children; each entry's line replays.

use super::position::{BoardPosition, Packed, BOARD_MAX_MOVES};
use super::BoardRules;
use crate::moves::{Move, MoveList};
use crate::search::budget::{Budget, StopReason};
use crate::search::stats::SearchStats;
use crate::search::visited::key_set::{Insert, KeySet};
use crate::tuning::CHECK_INTERVAL;
use crate::zobrist::{self, Key};
use std::collections::BinaryHeap;

/// What a best-first search expands first. Every order counts the cards in the rows'
/// runs and the *ready* rows (whose cell after the run is a gap, which the run's next
/// card can fill); the `ThenMoves` orders break ties by the most legal moves (at most
/// 15 counted): a board whose gaps follow low cards can still move much, one whose gaps
/// follow top cards or gaps is near its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Order {
    /// Twice the cards in runs, plus the ready rows.
    Runs,
    /// [`Order::Runs`], then the legal moves.
    RunsThenMoves,
    /// The cards in runs plus the ready rows (a ready row weighs as much as a card),
    /// then the legal moves.
    ReadyThenMoves,
}

impl Order {
    /// The priority of `pos` (higher first).
    #[inline(always)]
    fn priority(self, pos: &BoardPosition) -> u32 {
        let (runs, ready) = pos.progress();
        let (runs, ready) = (u32::from(runs), u32::from(ready));
        match self {
            Order::Runs => 2 * runs + ready,
            Order::RunsThenMoves => 16 * (2 * runs + ready) + u32::from(pos.mobility().min(15)),
            Order::ReadyThenMoves => 16 * (runs + ready) + u32::from(pos.mobility().min(15)),
        }
    }
}

/// The queue's order of entry `at`, of key `key`, at `priority`: higher priority
/// first, then the earliest reached (`seed` 0) or the highest hash of the key and
/// `seed` (a tie-break of its own for each seed, `restarts.rs`).
#[inline(always)]
fn queue_key(priority: u32, at: u32, seed: u64, key: Key) -> (u64, u32) {
    let tie = if seed == 0 {
        u32::MAX - at
    } else {
        zobrist::index_hash(key ^ Key::from(seed)) as u32
    };
    (u64::from(priority) << 32 | u64::from(tie), at)
}

/// A position reached.
pub(super) struct Entry {
    packed: Packed,
    parent: u32,
    mv: Move,
}

/// How a round's search ended.
pub(super) enum RoundEnd {
    /// A won position: the moves from the start.
    Won(Vec<Move>),
    /// Every reachable position was reached; none is won.
    Exhausted,
    /// A limit stopped it (`MemoryLimit`: the entry cap).
    Stopped(StopReason),
}

/// The positions one round's search reached.
pub(super) struct Round {
    rules: BoardRules,
    entries: Vec<Entry>,
}

impl Round {
    /// Searches from `start` in [`Order::Runs`] to its end, keeping at most
    /// `max_entries` positions (and keys). With `last_round` (no redeal left after it),
    /// a position with a card frozen out of place (`frozen.rs`) is not expanded: no
    /// line of the round wins from it, and no redeal is taken from it.
    pub(super) fn search(
        start: &BoardPosition,
        max_entries: usize,
        last_round: bool,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (Round, RoundEnd) {
        let mut search =
            match RoundSearch::start(start, Order::Runs, last_round, max_entries, 0, stats) {
                Ok(search) => search,
                Err((round, end)) => return (round, end),
            };
        let end = search.run(u64::MAX, max_entries, budget, stats);
        (
            search.round,
            end.expect("a search run without a node bound ends"),
        )
    }

    /// How many positions it holds.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The position of entry `at`.
    pub(super) fn position(&self, at: usize) -> BoardPosition {
        BoardPosition::unpack(self.rules, &self.entries[at].packed)
    }

    /// The moves from the start to entry `at`.
    pub(super) fn line_to(&self, mut at: usize) -> Vec<Move> {
        let mut line = Vec::new();
        while at != 0 {
            let entry = &self.entries[at];
            line.push(entry.mv);
            at = entry.parent as usize;
        }
        line.reverse();
        line
    }
}

/// Bytes of key set a search may take for each key it may keep: a shard of 16-byte
/// slots is at most 7/8 full and grows by doubling, so 40 leave room for `max_keys`
/// keys before the set is full (the cap on keys stops the search first).
const KEY_SET_BYTES_PER_KEY: usize = 40;

/// A best-first search of one round, resumable: [`RoundSearch::run`] goes on from where
/// the last call stopped.
pub(super) struct RoundSearch {
    round: Round,
    order: Order,
    last_round: bool,
    seen: KeySet,
    open: BinaryHeap<(u64, u32)>,
    seed: u64,
    moves: MoveList<BOARD_MAX_MOVES>,
}

impl RoundSearch {
    /// A search from `start` in `order`, equals taken earliest first (`seed` 0) or by
    /// a hash of their keys and `seed`; or the round's end when the start alone decides
    /// it (won, or in the last round frozen out of place).
    pub(super) fn start(
        start: &BoardPosition,
        order: Order,
        last_round: bool,
        max_keys: usize,
        seed: u64,
        stats: &mut SearchStats,
    ) -> Result<RoundSearch, (Round, RoundEnd)> {
        let round = Round {
            rules: start.rules(),
            entries: vec![Entry {
                packed: start.pack(),
                parent: u32::MAX,
                mv: Move::default(),
            }],
        };
        stats.nodes += 1;
        if start.is_won() {
            return Err((round, RoundEnd::Won(Vec::new())));
        }
        if last_round && start.frozen_out_of_place() {
            stats.dead_cuts += 1;
            return Err((round, RoundEnd::Exhausted));
        }
        Ok(RoundSearch {
            round,
            order,
            last_round,
            seen: {
                let mut seen = KeySet::default();
                seen.reset(max_keys.saturating_mul(KEY_SET_BYTES_PER_KEY));
                seen.insert(start.key());
                seen
            },
            open: BinaryHeap::from([queue_key(order.priority(start), 0, seed, start.key())]),
            seed,
            moves: MoveList::default(),
        })
    }

    /// Goes on until about `nodes` more positions are reached (`None`: not ended
    /// yet), the round ends, or `budget` stops it; a key beyond `max_keys` stops it
    /// with [`StopReason::MemoryLimit`].
    pub(super) fn run(
        &mut self,
        nodes: u64,
        max_keys: usize,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Option<RoundEnd> {
        let until = stats.nodes.saturating_add(nodes);
        let round = &mut self.round;
        while stats.nodes < until {
            let Some((_, at)) = self.open.pop() else {
                return Some(RoundEnd::Exhausted);
            };
            let mut pos = BoardPosition::unpack(round.rules, &round.entries[at as usize].packed);
            // Judged when taken rather than when reached: most positions reached are
            // never taken, and the judgment is the costliest step of a position.
            if self.last_round && at != 0 && pos.frozen_out_of_place() {
                stats.dead_cuts += 1;
                continue;
            }
            pos.moves(&mut self.moves);
            stats.expanded += 1;
            // The children's slots are fetched at once, so that their cache misses
            // overlap (most lookups of a large round miss the cache).
            for &m in self.moves.as_slice() {
                self.seen
                    .prefetch(pos.key() ^ zobrist::move_delta(m.card, m.from, m.to));
            }
            for &m in self.moves.as_slice() {
                pos.play(m);
                let inserted = self.seen.insert(pos.key());
                if inserted == Insert::Full {
                    return Some(RoundEnd::Stopped(StopReason::MemoryLimit));
                }
                if inserted == Insert::New {
                    stats.nodes += 1;
                    if stats.nodes.is_multiple_of(CHECK_INTERVAL) {
                        debug_assert_eq!(pos.key(), pos.compute_key(), "incremental key");
                        if let Some(reason) = budget.exhausted(stats.nodes) {
                            return Some(RoundEnd::Stopped(reason));
                        }
                    }
                    // The keys count against the cap (one entry at most for each).
                    if self.seen.len() > max_keys {
                        return Some(RoundEnd::Stopped(StopReason::MemoryLimit));
                    }
                    round.entries.push(Entry {
                        packed: pos.pack(),
                        parent: at,
                        mv: m,
                    });
                    let child = (round.entries.len() - 1) as u32;
                    if pos.is_won() {
                        stats.wins += 1;
                        return Some(RoundEnd::Won(round.line_to(child as usize)));
                    }
                    self.open.push(queue_key(
                        self.order.priority(&pos),
                        child,
                        self.seed,
                        pos.key(),
                    ));
                } else {
                    stats.tt_hits += 1;
                }
                pos.unplay(m);
            }
        }
        None
    }
}
