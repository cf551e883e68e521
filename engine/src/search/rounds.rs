//! The positions of one round, as redeal points: every position reachable from a
//! round's start, each once, with the move that first reached it, so that a line to any
//! of them can be rebuilt.
//!
//! A redeal may be taken from any position reached (PySolFC allows it at any time), so
//! an exact answer over rounds needs the whole reachable set of a round, not the part a
//! pruned search visits: this enumeration uses no pruning (no dead cells, no stubborn
//! sets, no Two-shuffle classes) and keeps every position under its 128-bit Zobrist key
//! (the key bound of docs/engine.md).
//!
//! Invariants: entry 0 is the start; every other entry's parent comes before it and its
//! move, played in the parent, gives the entry's position; entries are in breadth-first
//! order, so each one's line is a shortest one; with [`TreeEnd::Complete`] the entries
//! are exactly the positions reachable from the start.

use crate::moves::{Move, MoveList};
use crate::position::{Position, MAX_MOVES};
use crate::redeal::kept_cards;
use crate::search::budget::{Budget, StopReason};
use crate::tuning::CHECK_INTERVAL;
use crate::variant::Variant;
use crate::zobrist::Key;
use std::collections::HashMap;

/// One reached position.
#[derive(Clone, Copy, Debug)]
struct Entry {
    parent: u32,
    mv: Move,
    /// Cards a redeal here keeps in place (the candidates' order).
    kept: u8,
}

/// How the enumeration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeEnd {
    /// Every reachable position is an entry, and none is won.
    Complete,
    /// Entry `index` is won (the enumeration stopped there).
    Won(usize),
    /// A limit stopped it (`MemoryLimit`: the entry cap), so the entries are a part.
    Stopped(StopReason),
}

/// The positions reached in one round.
#[derive(Debug, Default)]
pub struct RoundTree {
    entries: Vec<Entry>,
}

/// About how many bytes one entry takes (the entry and its slot in the key map), to
/// turn a memory budget into an entry cap.
pub const BYTES_PER_ENTRY: usize = 64;

impl RoundTree {
    /// Enumerates the positions reachable from `start` under `variant`, breadth first,
    /// stopping at the first won one, at `max_entries`, or when `budget` runs out.
    /// Returns the tree, how it ended, and the nodes (positions expanded).
    ///
    /// Breadth first, so that every entry's line is a shortest one: rebuilding a
    /// position from its line (here, to expand it, and for each redeal point tried)
    /// costs its depth, which stays small, where a depth-first tree's lines can be as
    /// long as the tree is large. Only keys and lines are kept, no positions.
    pub fn build(
        start: &Position,
        variant: Variant,
        max_entries: usize,
        budget: &Budget,
    ) -> (RoundTree, TreeEnd, u64) {
        let mut entries = vec![Entry {
            parent: u32::MAX,
            mv: Move::default(),
            kept: kept_cards(start, variant) as u8,
        }];
        let mut index: HashMap<Key, u32> = HashMap::new();
        index.insert(start.key(), 0);
        let mut moves = MoveList::<MAX_MOVES>::default();
        let mut nodes = 0u64;
        // Entries are appended in the order they are reached, so expanding them in
        // index order is breadth first.
        let mut next = 0usize;
        let mut line = Vec::new(); // reused: no allocation per position
        let end = loop {
            if next == entries.len() {
                break TreeEnd::Complete;
            }
            let at = next as u32;
            next += 1;
            let pos = replay(start, &entries, at as usize, &mut line);
            if pos.is_won(variant) {
                break TreeEnd::Won(at as usize);
            }
            nodes += 1;
            if nodes.is_multiple_of(CHECK_INTERVAL) {
                if let Some(reason) = budget.exhausted(nodes) {
                    break TreeEnd::Stopped(reason);
                }
            }
            pos.legal_moves(variant, &mut moves);
            let mut full = false;
            for &m in moves.as_slice() {
                let key = pos.key_after(m);
                if index.contains_key(&key) {
                    continue;
                }
                if entries.len() >= max_entries {
                    full = true;
                    break;
                }
                let mut child = pos;
                child.play(m);
                index.insert(key, entries.len() as u32);
                entries.push(Entry {
                    parent: at,
                    mv: m,
                    kept: kept_cards(&child, variant) as u8,
                });
            }
            if full {
                break TreeEnd::Stopped(StopReason::MemoryLimit);
            }
        };
        (RoundTree { entries }, end, nodes)
    }

    /// How many positions it holds.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len()
    }

    /// The moves from the start to entry `at`.
    pub fn line_to(&self, at: usize) -> Vec<Move> {
        let mut line = Vec::new();
        line_into(&self.entries, at, &mut line);
        line
    }

    /// The position of entry `at`, replayed from `start`.
    pub fn position(&self, start: &Position, at: usize) -> Position {
        replay(start, &self.entries, at, &mut Vec::new())
    }

    /// The entries as redeal points, best first: most cards kept by a redeal (a smaller
    /// next round), then in the order they were reached.
    pub fn candidates(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.entries[i].kept));
        order
    }
}

/// The moves from the start to entry `at` of `entries`, into `line` (cleared first).
fn line_into(entries: &[Entry], at: usize, line: &mut Vec<Move>) {
    line.clear();
    let mut at = at;
    while at != 0 {
        let entry = entries[at];
        line.push(entry.mv);
        at = entry.parent as usize;
    }
    line.reverse();
}

/// The position of entry `at` of `entries`, replayed from `start` (`line` is scratch).
fn replay(start: &Position, entries: &[Entry], at: usize, line: &mut Vec<Move>) -> Position {
    line_into(entries, at, line);
    let mut pos = *start;
    for &m in line.iter() {
        pos.play(m);
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Layout;
    use crate::deal::deal;
    use crate::exhaustive::reachable;

    #[test]
    fn a_complete_tree_holds_the_reachable_set_and_lines_to_each() {
        for seed in 0..300 {
            let start = deal(seed, Layout::new(3, 4).unwrap());
            for variant in Variant::ALL {
                let (tree, end, _) =
                    RoundTree::build(&start, variant, usize::MAX, &Budget::unlimited());
                let reference = reachable(&start, variant, 1 << 20);
                match end {
                    TreeEnd::Complete => {
                        assert_eq!(reference.winnable, Some(false), "deal {seed} {variant}");
                        assert_eq!(tree.len(), reference.positions, "deal {seed} {variant}");
                    }
                    TreeEnd::Won(at) => {
                        assert_eq!(reference.winnable, Some(true));
                        assert!(tree.position(&start, at).is_won(variant));
                    }
                    TreeEnd::Stopped(reason) => panic!("stopped: {reason}"),
                }
                for at in [0, tree.len() / 2, tree.len() - 1] {
                    let pos = tree.position(&start, at);
                    assert_eq!(pos.key(), pos.compute_key());
                    let mut replay = start;
                    for m in tree.line_to(at) {
                        assert!(replay.try_play(variant, m));
                    }
                    assert_eq!(replay.key(), pos.key());
                }
            }
        }
    }

    #[test]
    fn the_entry_cap_stops_the_enumeration() {
        let start = deal(3, Layout::STANDARD);
        let (tree, end, _) = RoundTree::build(&start, Variant::Common, 50, &Budget::unlimited());
        assert!(tree.len() <= 50);
        assert!(matches!(
            end,
            TreeEnd::Stopped(StopReason::MemoryLimit) | TreeEnd::Won(_)
        ));
    }
}
