//! The review of a game in progress (`review`): the first played step after which the
//! game could no longer be won, found by the engine's search over prefixes
//! (`gaps_engine::review`, which says how it uses that a lost position stays lost),
//! each prefix's state solved as the answer about the rest of the game is.
//!
//! Invariant: a fatal step is reported only between a state a search answered
//! winnable, with its line (replayed by the engine), and the next state a search
//! proved lost.

use super::{AnswerError, GameInProgress};
use crate::report::StepJson;
use gaps_engine::{
    review, Answer, Review, SearchStats, SolveControls, SolveOptions, Solver, Step, Verdict,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The review of a game (`review`): its fatal step and what would have won.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, ToSchema)]
pub struct ReviewJson {
    /// The 0-based index of the first played step after which the game could no longer
    /// be won; `null` when it can still be won, was lost from the deal, or is not known.
    pub fatal_step: Option<usize>,
    /// The deal itself was lost.
    pub lost_from_start: bool,
    /// From the position just before the fatal step (or, when the game can still be
    /// won, from the last position), a winning continuation.
    pub winning_line: Option<Vec<StepJson>>,
    /// The same on the PySolFC game's board.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board_winning_line: Option<Vec<StepJson>>,
    /// Whether the game can still be won after the last step.
    pub still_winnable: bool,
    /// Step indices whose resulting position stayed unknown within the limits and that
    /// the answers around them do not decide.
    pub unknown_steps: Vec<usize>,
    /// Whether the deal itself stayed unknown (and is not decided by the others).
    pub start_unknown: bool,
    /// Steps after which the game was still known winnable (`null`: not even the deal).
    pub known_winnable_after: Option<usize>,
    /// Steps after which the game was known lost (`null`: never shown lost).
    pub known_lost_after: Option<usize>,
    /// Positions searched (each within the request's limits).
    pub searches: usize,
}

/// Reviews `game`: each position searched within `options`' limits, by `solver`; the
/// statistics add up every search.
pub fn review_game(
    game: &GameInProgress,
    solver: &mut Solver,
    options: &SolveOptions,
    controls: SolveControls<'_>,
) -> Result<(ReviewJson, SearchStats), AnswerError> {
    let mut stats = SearchStats::default();
    let mut failure = None;
    let played = game.steps();
    let found: Review<Vec<Step>> = review(
        played.len(),
        |k| match game.solve_after(k, solver, options, controls) {
            Ok(rest) => {
                let searched = rest.stats();
                stats.absorb(&searched);
                stats.elapsed += searched.elapsed;
                match rest.verdict() {
                    Verdict::Solvable => Answer::Won(rest.line()),
                    Verdict::Unsolvable => Answer::Lost,
                    Verdict::Unknown => Answer::Unknown,
                }
            }
            Err(e) => {
                failure.get_or_insert(e);
                Answer::Unknown
            }
        },
        |k, line: &Vec<Step>| {
            let followed = line
                .iter()
                .zip(&played[k..])
                .take_while(|(a, b)| a.same_as(b))
                .count();
            (followed, line[followed..].to_vec())
        },
    );
    if let Some(e) = failure {
        return Err(e);
    }
    let still_winnable = found.winnable_through == Some(played.len());
    let from = if still_winnable {
        Some(played.len())
    } else {
        found.fatal_step
    };
    let (winning_line, board_winning_line) = match (from, &found.winning_line) {
        (Some(from), Some(line)) => {
            let (json, on_board) = game.steps_json(from, line);
            (Some(json), on_board)
        }
        _ => (None, None),
    };
    let json = ReviewJson {
        fatal_step: found.fatal_step,
        lost_from_start: found.lost_from_start,
        winning_line,
        board_winning_line,
        still_winnable,
        unknown_steps: found
            .unknown_states
            .iter()
            .filter(|&&s| s > 0)
            .map(|s| s - 1)
            .collect(),
        start_unknown: found.unknown_states.first() == Some(&0),
        known_winnable_after: found.winnable_through,
        known_lost_after: found.lost_from,
        searches: found.searches,
    };
    Ok((json, stats))
}
