//! A deliberately plain reference search: breadth-first over exact positions in a
//! `HashSet`, no hashing tricks, no pruning. Tests use it to cross-check the fast
//! algorithms; it is only fit for small boards.
//!
//! Invariant: it stores whole positions, so it cannot alias two of them; with no limit
//! hit its answer is exact by construction.

use crate::moves::MoveList;
use crate::position::{Position, MAX_MOVES};
use crate::variant::Variant;
use std::collections::{HashSet, VecDeque};

/// What the reference search found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Reachable {
    /// Whether a won position is reachable (`None`: the state limit was hit first).
    pub winnable: Option<bool>,
    /// Distinct positions visited.
    pub positions: usize,
}

/// Explores every position reachable from `start`, up to `max_positions`.
pub fn reachable(start: &Position, variant: Variant, max_positions: usize) -> Reachable {
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut queue = VecDeque::new();
    let mut winnable = false;
    seen.insert(exact_cells(start));
    queue.push_back(*start);
    let mut moves = MoveList::<MAX_MOVES>::default();
    while let Some(pos) = queue.pop_front() {
        if pos.is_won(variant) {
            winnable = true;
        }
        pos.legal_moves(variant, &mut moves);
        for &m in moves.as_slice() {
            let mut child = pos;
            child.play(m);
            if seen.insert(exact_cells(&child)) {
                if seen.len() > max_positions {
                    return Reachable {
                        winnable: winnable.then_some(true),
                        positions: seen.len(),
                    };
                }
                queue.push_back(child);
            }
        }
    }
    Reachable {
        winnable: Some(winnable),
        positions: seen.len(),
    }
}

/// The board's cells as bytes (card code + 1, 0 for a gap): an exact, compact identity.
fn exact_cells(pos: &Position) -> Vec<u8> {
    pos.to_cells()
        .into_iter()
        .map(|c| c.map_or(0, |c| c.code() + 1))
        .collect()
}
