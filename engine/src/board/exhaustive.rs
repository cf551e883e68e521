//! The exhaustive search of a round without redeals: a depth-first search that keeps
//! the key of every position it reaches in an exact key set (`search::visited`, about
//! 18 bytes a key at its limit) and nothing else but its stack, so that a round of
//! six times as many positions fits the memory as the best-first search's (whose
//! positions are kept whole, for their lines and redeals).
//!
//! Why: a round without redeals is lost only when every position reachable in it has
//! been reached without a win; the best-first search keeps every position it reaches,
//! so on the largest rounds it fills the memory first. Here only the keys are kept
//! (a line is the stack), which is what `exact` does for the variants.
//!
//! Invariants:
//! - A graph search with a set of every key reached (128-bit Zobrist keys, the engine's
//!   collision bound): each position is expanded at most once, and when the stack is
//!   empty every position reachable from the start without passing a position with a
//!   card frozen out of place (`frozen.rs`) has been reached. No line through such a
//!   position wins (what `frozen.rs` proves, for every rule), and every position of a
//!   winning line can still win, so a winning line never passes one: `Exhausted` is
//!   exact. In complete mode ([`DepthFirstRound::counting`]) nothing is cut and wins
//!   do not stop it: it reaches every position of the round, and counts them.
//! - Memory: the set holds at most 15/16 of the bytes given, the stack at most the
//!   rest; a frame beyond them, or a key beyond them when the set has no store to
//!   spill to, stops the search with [`StopReason::MemoryLimit`]. With a store the set
//!   moves its keys there when full and goes on (`search::visited::spill`: exact, the
//!   same positions in the same order) until it can spill no more. A stop (memory or budget) is final: the search is not
//!   run again after it, and a stopped search says nothing of the round.
//! - Deterministic: the moves are tried in the board's own order
//!   ([`BoardPosition::order_moves`]); the budget is checked every `CHECK_INTERVAL`
//!   positions reached. The returned line replays from the start.

use super::best_first::RoundEnd;
use super::position::{BoardPosition, BOARD_MAX_MOVES};
use crate::moves::{Move, MoveList};
use crate::search::budget::{Budget, StopReason};
use crate::search::stats::SearchStats;
use crate::search::visited::key_set::Insert;
use crate::search::visited::spill::{SpillStore, Spilled, SpillingSet};
use crate::tuning::CHECK_INTERVAL;
use std::sync::Arc;

/// One expanded position on the stack: where its moves start in the stack's move
/// arena and how many there are, the next to try, and the move that reached it (unused
/// at the root). Its moves are kept in one arena for the whole line, so a frame takes
/// 12 bytes and its moves 4 each, not a whole move list of `BOARD_MAX_MOVES`.
#[derive(Clone, Copy)]
struct Frame {
    first: u32,
    len: u8,
    next: u8,
    reached_by: Move,
}

/// The depth-first search of one round, resumable ([`DepthFirstRound::run`] goes on
/// where the last call stopped). It owns its set and stack; their memory is freed
/// with it.
pub(super) struct DepthFirstRound {
    /// The position of the top frame (moves are made and unmade in place).
    position: BoardPosition,
    frames: Vec<Frame>,
    /// The moves of every frame, each frame's after its parent's.
    moves: Vec<Move>,
    /// Most bytes the frames and their moves may take.
    stack_bytes: usize,
    seen: SpillingSet,
    /// Complete mode: no frozen-card cut, and a win does not end the search.
    complete: bool,
}

impl DepthFirstRound {
    /// A verdict search from `start` within about `bytes`, or the round's end when the
    /// start alone decides it (won, or a card frozen out of place).
    pub(super) fn start(
        start: &BoardPosition,
        bytes: usize,
        store: Option<Arc<dyn SpillStore>>,
        stats: &mut SearchStats,
    ) -> Result<DepthFirstRound, RoundEnd> {
        stats.nodes += 1;
        if start.is_won() {
            stats.wins += 1;
            return Err(RoundEnd::Won(Vec::new()));
        }
        if start.frozen_out_of_place() {
            stats.dead_cuts += 1;
            return Err(RoundEnd::Exhausted);
        }
        Ok(DepthFirstRound::new(start, bytes, false, store, stats))
    }

    /// A complete search from `start` within about `bytes`: it reaches every position
    /// of the round (`stats.nodes` counts them, `stats.wins` the won ones) and ends
    /// `Exhausted`, or stopped by a limit.
    pub(super) fn counting(
        start: &BoardPosition,
        bytes: usize,
        store: Option<Arc<dyn SpillStore>>,
        stats: &mut SearchStats,
    ) -> DepthFirstRound {
        stats.nodes += 1;
        stats.wins += u64::from(start.is_won());
        DepthFirstRound::new(start, bytes, true, store, stats)
    }

    fn new(
        start: &BoardPosition,
        bytes: usize,
        complete: bool,
        store: Option<Arc<dyn SpillStore>>,
        stats: &mut SearchStats,
    ) -> DepthFirstRound {
        let stack_bytes = bytes / 16;
        let mut seen = SpillingSet::new(bytes - stack_bytes, store);
        seen.insert(start.key());
        stats.stored += 1;
        let mut search = DepthFirstRound {
            position: *start,
            frames: Vec::new(),
            moves: Vec::new(),
            stack_bytes: stack_bytes.max(std::mem::size_of::<Frame>() + BOARD_MAX_MOVES * 4),
            seen,
            complete,
        };
        search.push(Move::default(), stats);
        search
    }

    /// Keys the set moved to its store so far.
    pub(super) fn spilled_keys(&self) -> u64 {
        self.seen.spilled_keys()
    }

    /// Keys in the set: the positions reached (with the start).
    #[cfg(test)]
    pub(super) fn keys(&self) -> usize {
        self.seen.len()
    }

    /// Expands the current position onto the stack (its children's slots start
    /// loading at once, so that their lookups overlap their cache misses).
    fn push(&mut self, reached_by: Move, stats: &mut SearchStats) {
        let mut moves = MoveList::<BOARD_MAX_MOVES>::default();
        self.position.moves(&mut moves);
        self.position.order_moves(&mut moves);
        for &m in moves.as_slice() {
            self.seen.prefetch(self.position.key_after(m));
        }
        stats.expanded += 1;
        self.frames.push(Frame {
            first: self.moves.len() as u32,
            len: moves.as_slice().len() as u8,
            next: 0,
            reached_by,
        });
        self.moves.extend_from_slice(moves.as_slice());
    }

    /// Bytes the stack takes with one more frame of `BOARD_MAX_MOVES` moves (the most
    /// the next push can add).
    fn stack_bytes_after_a_push(&self) -> usize {
        (self.frames.len() + 1) * std::mem::size_of::<Frame>()
            + (self.moves.len() + BOARD_MAX_MOVES) * std::mem::size_of::<Move>()
    }

    /// The moves from the start to the current position, then `last`.
    fn line(&self, last: Move) -> Vec<Move> {
        let mut line: Vec<Move> = self.frames[1..].iter().map(|f| f.reached_by).collect();
        line.push(last);
        line
    }

    /// Goes on for about `nodes` more positions reached (`None`: not ended yet), to the
    /// round's end, or until `budget` or the memory stops it.
    pub(super) fn run(
        &mut self,
        nodes: u64,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Option<RoundEnd> {
        let until = stats.nodes.saturating_add(nodes);
        while stats.nodes < until {
            let Some(top) = self.frames.last_mut() else {
                return Some(RoundEnd::Exhausted);
            };
            if top.next == top.len {
                let reached_by = top.reached_by;
                self.moves.truncate(top.first as usize);
                self.frames.pop();
                if !self.frames.is_empty() {
                    self.position.unplay(reached_by);
                }
                continue;
            }
            let m = self.moves[top.first as usize + usize::from(top.next)];
            top.next += 1;
            match self.seen.insert(self.position.key_after(m)) {
                Insert::Present => {
                    stats.tt_hits += 1;
                    continue;
                }
                Insert::Full => {
                    // The move is tried again once the set has spilled to its store.
                    top.next -= 1;
                    if self.seen.spill() == Spilled::Moved {
                        continue;
                    }
                    return Some(RoundEnd::Stopped(StopReason::MemoryLimit));
                }
                Insert::New => stats.stored += 1,
            }
            stats.nodes += 1;
            self.position.play(m);
            if stats.nodes.is_multiple_of(CHECK_INTERVAL) {
                debug_assert_eq!(
                    self.position.key(),
                    self.position.compute_key(),
                    "incremental key"
                );
                if let Some(reason) = budget.exhausted(stats.nodes) {
                    self.position.unplay(m);
                    return Some(RoundEnd::Stopped(reason));
                }
            }
            if self.position.is_won() {
                stats.wins += 1;
                if !self.complete {
                    let line = self.line(m);
                    self.position.unplay(m);
                    return Some(RoundEnd::Won(line));
                }
            }
            if !self.complete && self.position.frozen_out_of_place() {
                stats.dead_cuts += 1;
                self.position.unplay(m);
                continue;
            }
            if self.stack_bytes_after_a_push() > self.stack_bytes {
                self.position.unplay(m);
                return Some(RoundEnd::Stopped(StopReason::MemoryLimit));
            }
            self.push(m, stats);
            stats.max_depth = stats.max_depth.max(self.frames.len() as u64 - 1);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::BoardDeal;
    use crate::pysol::PysolGame;

    /// Game 1 of Spaces and Aces, dealt.
    fn spaces_and_aces_1() -> BoardPosition {
        let deal = BoardDeal::new(PysolGame::SpacesAndAces, 1).expect("a game number");
        BoardPosition::of_board(&deal.board()).expect("played on its board")
    }

    #[test]
    fn slices_search_as_one_call_does() {
        // The same positions, the same end, whether it runs in slices or at once.
        let start = spaces_and_aces_1();
        let budget = Budget::new(Some(300_000), None, None);
        let (mut one, mut sliced) = (SearchStats::default(), SearchStats::default());
        let mut a = DepthFirstRound::start(&start, 64 << 20, None, &mut one)
            .ok()
            .unwrap();
        let end_a = a.run(u64::MAX, &budget, &mut one);
        let mut b = DepthFirstRound::start(&start, 64 << 20, None, &mut sliced)
            .ok()
            .unwrap();
        let end_b = loop {
            if let Some(end) = b.run(777, &budget, &mut sliced) {
                break end;
            }
        };
        assert_eq!(one.nodes, sliced.nodes);
        assert_eq!(one.expanded, sliced.expanded);
        assert_eq!(a.keys(), b.keys());
        assert_eq!(
            std::mem::discriminant(&end_a.unwrap()),
            std::mem::discriminant(&end_b)
        );
    }

    #[test]
    fn a_set_spilled_to_a_store_reaches_the_same_positions() {
        use crate::search::visited::spill::MemoryStore;
        // 5,000,000 positions of Jungle 1 (a shallow search: 172 deep), counted and
        // searched for a verdict, with 256 MiB in memory and with 64 MiB whose set
        // spills its keys (about 3.2M fit in memory at once).
        let deal = BoardDeal::new(PysolGame::Jungle, 1).expect("a game number");
        let start = BoardPosition::of_board(&deal.board()).expect("played on its board");
        let budget = Budget::new(Some(5_000_000), None, None);
        for complete in [false, true] {
            let run = |bytes: usize, store: Option<Arc<dyn SpillStore>>| {
                let mut stats = SearchStats::default();
                let mut search = if complete {
                    DepthFirstRound::counting(&start, bytes, store, &mut stats)
                } else {
                    DepthFirstRound::start(&start, bytes, store, &mut stats)
                        .ok()
                        .unwrap()
                };
                let end = search.run(u64::MAX, &budget, &mut stats);
                (end, stats, search.keys(), search.spilled_keys())
            };
            let (end, all, keys, none) = run(256 << 20, None);
            let store: Arc<dyn SpillStore> = Arc::new(MemoryStore::default());
            let (end_spilled, part, keys_spilled, spilled) = run(64 << 20, Some(store));
            assert_eq!(none, 0);
            assert!(spilled > 1_000_000, "{complete}: {spilled} {part:?}");
            assert!(matches!(
                end,
                Some(RoundEnd::Stopped(StopReason::NodeLimit))
            ));
            assert!(matches!(
                end_spilled,
                Some(RoundEnd::Stopped(StopReason::NodeLimit))
            ));
            assert_eq!(
                (all.nodes, all.stored, all.tt_hits, all.dead_cuts, keys),
                (
                    part.nodes,
                    part.stored,
                    part.tt_hits,
                    part.dead_cuts,
                    keys_spilled
                )
            );
        }
    }

    #[test]
    fn a_full_set_stops_for_memory() {
        let start = spaces_and_aces_1();
        let mut stats = SearchStats::default();
        let mut search = DepthFirstRound::counting(&start, 1 << 16, None, &mut stats);
        let end = search.run(u64::MAX, &Budget::unlimited(), &mut stats);
        assert!(matches!(
            end,
            Some(RoundEnd::Stopped(StopReason::MemoryLimit))
        ));
        assert!(search.keys() as u64 <= stats.nodes);
    }
}
