//! Replaying a solution: the check every returned solution goes through.
//!
//! Invariants: [`verify_solution`] accepts a move list only if every move is legal in
//! turn (same card, from and to as a generated move) and the final position is won;
//! [`verify_with_redeals`] also plays each redeal step with the game's stream, and only
//! where a redeal is allowed (one left, and the variant's rule allows one there:
//! `redeal::redeal_allowed_at`).

use crate::moves::Move;
use crate::position::Position;
use crate::redeal::{redeal_allowed_at, redeal_shown, RedealStream, Redealt};
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
    /// Redeal step `redeal` (1-based) comes when no redeal is left.
    #[error("redeal {redeal} is one more than the {allowed} allowed")]
    NoRedealLeft {
        /// Which redeal step (1-based).
        redeal: usize,
        /// How many redeals the game allows.
        allowed: u8,
    },
    /// A redeal step comes after move `after` of a won game, where the variant allows
    /// none (`aisleriot`: a move is left), or where its place is outside the moves or
    /// before the previous redeal's.
    #[error("redeal {redeal} (after move {after}) is not possible there")]
    RedealNotPossible {
        /// Which redeal step (1-based).
        redeal: usize,
        /// How many moves come before it.
        after: usize,
    },
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

/// Replays a line with redeals from `start`: `moves`, with redeal `k + 1` played after
/// the first `redeal_at[k]` moves (so `redeal_at` does not decrease), each shuffled by
/// `stream` continued; at most `allowed` redeals. Returns the final position if it is won.
pub fn verify_with_redeals(
    start: &Position,
    variant: Variant,
    stream: &RedealStream,
    allowed: u8,
    moves: &[Move],
    redeal_at: &[usize],
) -> Result<Position, ReplayError> {
    replay_with_redeals(start, variant, stream, allowed, moves, redeal_at).map(|(won, _)| won)
}

/// [`verify_with_redeals`], also returning what each redeal did (the cards gathered
/// and the position dealt), so that a caller shows the line without replaying it again.
pub fn replay_with_redeals(
    start: &Position,
    variant: Variant,
    stream: &RedealStream,
    allowed: u8,
    moves: &[Move],
    redeal_at: &[usize],
) -> Result<(Position, Vec<Redealt>), ReplayError> {
    let mut stream = stream.clone();
    let mut pos = *start;
    let mut redealt = Vec::with_capacity(redeal_at.len());
    // Index `moves.len()` is after the last move: a line may end with redeals.
    for index in 0..=moves.len() {
        while redealt.len() < redeal_at.len() && redeal_at[redealt.len()] == index {
            let next = redealt.len();
            let done = play_redeal(&pos, variant, &mut stream, allowed, next, redeal_at)?;
            pos = done.position;
            redealt.push(done);
        }
        if let Some(&mv) = moves.get(index) {
            if !pos.try_play(variant, mv) {
                return Err(ReplayError::Illegal { index, mv });
            }
        }
    }
    if redealt.len() < redeal_at.len() {
        let next = redealt.len();
        return Err(ReplayError::RedealNotPossible {
            redeal: next + 1,
            after: redeal_at[next],
        });
    }
    if pos.is_won(variant) {
        Ok((pos, redealt))
    } else {
        Err(ReplayError::NotWon)
    }
}

/// Redeal `index + 1` of a replay, if allowed there.
fn play_redeal(
    pos: &Position,
    variant: Variant,
    stream: &mut RedealStream,
    allowed: u8,
    index: usize,
    redeal_at: &[usize],
) -> Result<Redealt, ReplayError> {
    if index >= allowed as usize {
        return Err(ReplayError::NoRedealLeft {
            redeal: index + 1,
            allowed,
        });
    }
    let not_possible = ReplayError::RedealNotPossible {
        redeal: index + 1,
        after: redeal_at[index],
    };
    if !redeal_allowed_at(pos, variant) {
        return Err(not_possible);
    }
    redeal_shown(pos, variant, stream).ok_or(not_possible)
}
