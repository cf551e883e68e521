//! A deliberately plain reference search: breadth-first over exact positions in a
//! `HashSet`, no hashing tricks, no pruning. Tests use it to cross-check the fast
//! algorithms; it is only fit for small boards.
//!
//! [`winnable_with_redeals`] is the same over rounds: every reachable position of a
//! round is a redeal point, each distinct next round explored in turn.
//!
//! Invariant: it stores whole positions, so it cannot alias two of them; with no limit
//! hit its answer is exact by construction.

use crate::moves::MoveList;
use crate::position::{Position, MAX_MOVES};
use crate::redeal::{redeal, RedealStream};
use crate::variant::Variant;
use std::collections::HashSet;

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
    let (positions, won, complete) = explore(start, variant, max_positions);
    Reachable {
        winnable: if complete {
            Some(won)
        } else {
            won.then_some(true)
        },
        positions: positions.len(),
    }
}

/// Whether a won position can be reached from `start` using at most `redeals` redeals
/// shuffled by `stream` (`None`: some round had more than `max_positions` positions
/// and nothing was won). Plainly: every position reachable in a round is a redeal point,
/// and each distinct next round is explored the same way.
pub fn winnable_with_redeals(
    start: &Position,
    variant: Variant,
    stream: &RedealStream,
    redeals: u8,
    max_positions: usize,
) -> Option<bool> {
    let (positions, won, complete) = explore(start, variant, max_positions);
    if won {
        return Some(true);
    }
    if redeals == 0 {
        return complete.then_some(false);
    }
    let mut unknown = !complete;
    let mut next_rounds: HashSet<Vec<u8>> = HashSet::new();
    for point in &positions {
        let mut next_stream = stream.clone();
        let Some(next) = redeal(point, variant, &mut next_stream) else {
            continue;
        };
        if next_rounds.insert(exact_cells(&next)) {
            match winnable_with_redeals(&next, variant, &next_stream, redeals - 1, max_positions) {
                Some(true) => return Some(true),
                Some(false) => {}
                None => unknown = true,
            }
        }
    }
    (!unknown).then_some(false)
}

/// Breadth-first over the positions reachable from `start`: the positions seen (at most
/// `max_positions` + 1), whether one is won, and whether the exploration was complete.
pub(crate) fn explore(
    start: &Position,
    variant: Variant,
    max_positions: usize,
) -> (Vec<Position>, bool, bool) {
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut positions = vec![*start];
    let mut won = false;
    seen.insert(exact_cells(start));
    let mut moves = MoveList::<MAX_MOVES>::default();
    let mut next = 0;
    while next < positions.len() {
        let pos = positions[next];
        next += 1;
        if pos.is_won(variant) {
            won = true;
        }
        pos.legal_moves(variant, &mut moves);
        for &m in moves.as_slice() {
            let mut child = pos;
            child.play(m);
            if seen.insert(exact_cells(&child)) {
                positions.push(child);
                if seen.len() > max_positions {
                    return (positions, won, false);
                }
            }
        }
    }
    (positions, won, true)
}

/// The board's cells as bytes (card code + 1, 0 for a gap): an exact, compact identity.
fn exact_cells(pos: &Position) -> Vec<u8> {
    pos.to_cells()
        .into_iter()
        .map(|c| c.map_or(0, |c| c.code() + 1))
        .collect()
}
