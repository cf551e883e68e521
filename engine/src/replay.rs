//! Replaying a solution: the check every returned solution goes through.
//!
//! Invariant: [`verify_solution`] accepts a move list only if every move is legal in
//! turn (same card, from and to as a generated move) and the final position is won.

use crate::moves::Move;
use crate::position::Position;
use crate::variant::Variant;

/// Why a move list is not a solution.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ReplayError {
    /// Move number `index` (0-based) is not legal where it is played.
    #[error("move {index} ({mv:?}) is illegal")]
    Illegal {
        /// 0-based index in the list.
        index: usize,
        /// The move.
        mv: Move,
    },
    /// All moves are legal but the last position is not won.
    #[error("the moves end in a position that is not won")]
    NotWon,
}

/// Replays `moves` from `start` and returns the final position if it is won.
pub fn verify_solution(
    start: &Position,
    variant: Variant,
    moves: &[Move],
) -> Result<Position, ReplayError> {
    let mut pos = *start;
    for (index, &mv) in moves.iter().enumerate() {
        if !pos.try_play(variant, mv) {
            return Err(ReplayError::Illegal { index, mv });
        }
    }
    if pos.is_won(variant) {
        Ok(pos)
    } else {
        Err(ReplayError::NotWon)
    }
}
