//! Best-first search of one round of a board: the positions reached are kept (packed,
//! with the move that first reached each and its parent), and the next one expanded is
//! the most promising ([`BoardPosition::promise`]), the earliest reached first among
//! equals.
//!
//! Why: in these games a gap takes many cards, so the rounds' spaces are far larger
//! than a depth-first search can cover in seconds, and it wanders among moves that
//! build nothing; a win is a board whose runs fill the rows, and the runs' length is a
//! good guide to it (measured in docs/performance.md).
//!
//! Invariants: it is a graph search with a set of every key reached (128-bit Zobrist
//! keys, the engine's bound), so when nothing is left to expand every position
//! reachable from the start has been reached: [`RoundEnd::Exhausted`] is exact, and
//! the kept positions are then the whole round (what the redeals start from). In the
//! last round only (no redeal left), the positions with a card frozen out of place
//! (`frozen.rs`: no line of the round wins from them) are neither kept nor expanded,
//! which keeps `Exhausted` exact. Entry 0 is the start; a parent comes before its
//! children; each entry's line replays.

use super::position::{BoardPosition, Packed, BOARD_MAX_MOVES};
use super::BoardRules;
use crate::moves::{Move, MoveList};
use crate::search::budget::{Budget, StopReason};
use crate::search::stats::SearchStats;
use crate::tuning::CHECK_INTERVAL;
use crate::zobrist::Key;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

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
    /// Searches from `start`, keeping at most `max_entries` positions (and keys). With
    /// `last_round` (no redeal left after it), a position with a card frozen out of
    /// place (`frozen.rs`) is neither kept nor expanded: no line of the round wins from
    /// it, and no redeal is taken from it.
    pub(super) fn search(
        start: &BoardPosition,
        max_entries: usize,
        last_round: bool,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (Round, RoundEnd) {
        let mut round = Round {
            rules: start.rules(),
            entries: vec![Entry {
                packed: start.pack(),
                parent: u32::MAX,
                mv: Move::default(),
            }],
        };
        stats.nodes += 1;
        if start.is_won() {
            return (round, RoundEnd::Won(Vec::new()));
        }
        if last_round && start.frozen_out_of_place() {
            stats.dead_cuts += 1;
            return (round, RoundEnd::Exhausted);
        }
        let mut seen: HashSet<Key> = HashSet::from([start.key()]);
        let mut open: BinaryHeap<(u8, Reverse<u32>)> =
            BinaryHeap::from([(start.promise(), Reverse(0))]);
        let mut moves = MoveList::<BOARD_MAX_MOVES>::default();
        while let Some((_, Reverse(at))) = open.pop() {
            let mut pos = BoardPosition::unpack(round.rules, &round.entries[at as usize].packed);
            pos.moves(&mut moves);
            stats.expanded += 1;
            for &m in moves.as_slice() {
                pos.play(m);
                if seen.insert(pos.key()) {
                    stats.nodes += 1;
                    if stats.nodes.is_multiple_of(CHECK_INTERVAL) {
                        debug_assert_eq!(pos.key(), pos.compute_key(), "incremental key");
                        if let Some(reason) = budget.exhausted(stats.nodes) {
                            return (round, RoundEnd::Stopped(reason));
                        }
                    }
                    // The keys count against the cap, not only the entries: a cut
                    // position keeps its key (so it is not judged twice).
                    if seen.len() > max_entries {
                        return (round, RoundEnd::Stopped(StopReason::MemoryLimit));
                    }
                    if last_round && pos.frozen_out_of_place() {
                        stats.dead_cuts += 1;
                        pos.unplay(m);
                        continue;
                    }
                    round.entries.push(Entry {
                        packed: pos.pack(),
                        parent: at,
                        mv: m,
                    });
                    let child = (round.entries.len() - 1) as u32;
                    if pos.is_won() {
                        stats.wins += 1;
                        let line = round.line_to(child as usize);
                        return (round, RoundEnd::Won(line));
                    }
                    open.push((pos.promise(), Reverse(child)));
                } else {
                    stats.tt_hits += 1;
                }
                pos.unplay(m);
            }
        }
        (round, RoundEnd::Exhausted)
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
