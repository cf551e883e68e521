//! Answers about a game in progress that an earlier exact answer about the same game
//! (the same deal, rules and redeals, after fewer of its steps) gives without a search.
//!
//! Invariant: a winning rest is returned only after it replayed, from the state the
//! played steps reached, to a won position.

use super::{played_fields, played_steps, GameInProgress};
use crate::report::{PlayedJson, StepJson};
use gaps_engine::Verdict;

/// An earlier exact answer about the same game (the same deal, rules and redeals) after
/// some of its steps, as a job stored it.
#[derive(Clone, Copy, Debug)]
pub struct EarlierAnswer<'a> {
    /// Its played steps, in canonical form.
    pub played: &'a [StepJson],
    /// `solvable` or `unsolvable`.
    pub verdict: Verdict,
    /// Its winning continuation (the engine's form, redeals numbered on).
    pub solution: &'a [StepJson],
    /// Whether that continuation's redeals were proved the fewest.
    pub fewest_redeals: bool,
}

/// What an earlier answer says about `game` (whose canonical steps are `played`) without
/// a search, when its steps are a proper prefix of `played`:
/// - it was lost: the game is lost (a lost position stays lost whatever is played);
/// - it was won by a line that the later steps followed, step for step: the rest of that
///   line wins from where they led, with the fewest redeals if the line had them (a line
///   with fewer from there would have been one with fewer from the earlier position).
///
/// The rest is replayed from the state the steps reached before it is returned. `None`
/// when the earlier answer does not decide this game.
pub fn answer_from_earlier(
    game: &GameInProgress,
    played: &[StepJson],
    earlier: &EarlierAnswer,
) -> Option<(Verdict, Vec<StepJson>, PlayedJson)> {
    let before = earlier.played.len();
    if before >= played.len() || !played.starts_with(earlier.played) {
        return None;
    }
    match earlier.verdict {
        Verdict::Unsolvable => Some((
            Verdict::Unsolvable,
            Vec::new(),
            played_fields(game, &[], None, false),
        )),
        Verdict::Solvable => {
            let since = game.steps().len() - before;
            let (followed, _) = game.steps_json(before, &game.steps()[before..]);
            // A step in this form is its card and cells (no gap slot): equal steps are
            // the same card between the same cells.
            let line = earlier.solution;
            if line.len() < since || followed[..] != line[..since] {
                return None;
            }
            let rest = line[since..].to_vec();
            // Replayed from the state reached: a legal line that ends won.
            let steps = played_steps(&rest).ok()?;
            if !game.wins_from_last(&steps) {
                return None;
            }
            let on_board = game.on_board(&rest);
            let json = played_fields(game, &rest, on_board.as_deref(), earlier.fewest_redeals);
            Some((Verdict::Solvable, rest, json))
        }
        Verdict::Unknown => None,
    }
}
