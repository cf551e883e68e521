//! A game in progress between the public JSON and the engine (docs/notation.md, "A game
//! in progress"): the played steps read from their solution-step form, the answer's
//! fields (`played_position`, `redeals_left`, `hint`) and the review's, for the command
//! line and the service alike.
//!
//! Invariants:
//! - Steps are read on the board the game is shown on: a PySolFC game's board (its
//!   cards and columns), else the position itself; the engine checks each one
//!   (`gaps_engine::PlayedLine`), and a refusal names the step's index and why.
//! - Redeal steps of an answer keep counting from the redeals already played.
//! - Every line shown was replayed by the engine from the state it starts from.
//!
//! Rooms: `game.rs` holds the two kinds of game (the engine's positions, a PySolFC
//! game's own board) behind one [`GameInProgress`]; `review.rs` the review;
//! `earlier.rs` the answers an earlier answer about the same game gives.

mod earlier;
mod game;
mod review;

pub use earlier::{answer_from_earlier, EarlierAnswer};
pub use game::{line_of, AnswerError, GameInProgress, Rest};
pub use review::{review_game, ReviewJson};

use crate::report::{MoveJson, PlayedJson, RoundsJson, StepJson};
use gaps_engine::{
    parse_card, PlayedStep, SearchStats, SolveControls, SolveOptions, Solver, Verdict,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Why played steps cannot be read or played (bad input: a 422, exit 2).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayedInputError {
    /// A step's card is not a card.
    #[error("played step {index}: `{card}` is not a card")]
    NotACard {
        /// 0-based index of the step.
        index: usize,
        /// The text given.
        card: String,
    },
    /// A step the game's rules refuse where it comes.
    #[error(transparent)]
    Illegal(#[from] gaps_engine::PlayedError),
    /// A board game asked with more redeals than its own.
    #[error(transparent)]
    Board(#[from] gaps_engine::BoardSolveError),
}

/// The engine's form of played steps given in solution-step form.
pub fn played_steps(steps: &[StepJson]) -> Result<Vec<PlayedStep>, PlayedInputError> {
    steps
        .iter()
        .enumerate()
        .map(|(index, step)| match step {
            StepJson::Move(m) => {
                let card =
                    parse_card(&m.card)
                        .flatten()
                        .ok_or_else(|| PlayedInputError::NotACard {
                            index,
                            card: m.card.clone(),
                        })?;
                Ok(PlayedStep::Move {
                    card,
                    from: (m.from[0], m.from[1]),
                    to: (m.to[0], m.to[1]),
                })
            }
            StepJson::Redeal { redeal } => Ok(PlayedStep::Redeal { number: *redeal }),
        })
        .collect()
}

/// The fields of `game`'s answer whose rest was solved by `rest`; also the solution and
/// its board form, redeals numbered on from the played ones.
pub fn played_json(
    game: &GameInProgress,
    rest: &Rest,
) -> (PlayedJson, Vec<StepJson>, Option<Vec<StepJson>>) {
    let (solution, on_board) = game.steps_json(game.steps().len(), &rest.line());
    let json = played_fields(game, &solution, on_board.as_deref(), rest.fewest_redeals());
    (json, solution, on_board)
}

/// The fields of an answer about `game` whose continuation from its last position is
/// `solution` (`on_board` on a PySolFC game's board).
pub(crate) fn played_fields(
    game: &GameInProgress,
    solution: &[StepJson],
    on_board: Option<&[StepJson]>,
    fewest_redeals: bool,
) -> PlayedJson {
    PlayedJson {
        played_steps: game.steps().len(),
        played_position: game.position_text(),
        played_board: game.board_text(),
        redeals_left: game.redeals_left(),
        hint: solution.first().cloned(),
        board_hint: on_board.and_then(|s| s.first().cloned()),
        fewest_redeals,
        legal_moves: game.legal_moves_json(),
    }
}

/// What a game in progress's job keeps beside its verdict and solution: where the steps
/// led, the hint and, for a review, the review.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, ToSchema)]
pub struct PlayedAnswer {
    /// Where the steps led, the redeals left, the hint.
    #[serde(flatten)]
    pub played: PlayedJson,
    /// The review (a job with `"review": true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<ReviewJson>,
}

/// The canonical form of checked steps (cards upper case, as the notation writes them).
pub fn canonical_steps(steps: &[PlayedStep]) -> Vec<StepJson> {
    steps
        .iter()
        .map(|step| match *step {
            PlayedStep::Move { card, from, to } => StepJson::Move(MoveJson {
                card: card.to_string(),
                from: [from.0, from.1],
                to: [to.0, to.1],
            }),
            PlayedStep::Redeal { number } => StepJson::Redeal { redeal: number },
        })
        .collect()
}

/// The whole answer about a game in progress, as a job stores it.
#[derive(Clone, Debug)]
pub struct GameAnswer {
    /// About the position the steps reach.
    pub verdict: Verdict,
    /// A winning continuation from there (redeals numbered on), else empty.
    pub solution: Vec<StepJson>,
    /// The same on a PySolFC game's board.
    pub board_solution: Option<Vec<StepJson>>,
    /// Every search's statistics, added up.
    pub stats: SearchStats,
    /// Why the last position's search stopped, for an `unknown` answer.
    pub stopped: Option<gaps_engine::StopReason>,
    /// The algorithm of the last position's answer.
    pub algorithm: gaps_engine::Algorithm,
    /// What the job keeps beside the verdict.
    pub answer: PlayedAnswer,
    /// The rounds of the last position's search (a solve with redeals, not a review).
    pub rounds: Option<RoundsJson>,
    /// The last position's search (a solve, not a review).
    pub rest: Option<Rest>,
}

/// Answers about `game`: the rest of it, or with `review` its review (whose verdict is
/// the last position's as the review found it).
pub fn answer_game(
    game: &GameInProgress,
    review: bool,
    solver: &mut Solver,
    options: &SolveOptions,
    controls: SolveControls<'_>,
) -> Result<GameAnswer, AnswerError> {
    let steps = game.steps().len();
    if !review {
        let rest = game.solve_after(steps, solver, options, controls)?;
        let (played, solution, board_solution) = played_json(game, &rest);
        return Ok(GameAnswer {
            verdict: rest.verdict(),
            board_solution: board_solution.filter(|_| !solution.is_empty()),
            solution,
            stats: rest.stats(),
            stopped: rest.stopped(),
            algorithm: rest.algorithm(),
            answer: PlayedAnswer {
                played,
                review: None,
            },
            rounds: game.rounds_json(&rest),
            rest: Some(rest),
        });
    }
    let (found, stats) = review_game(game, solver, options, controls)?;
    let verdict = if found.still_winnable {
        Verdict::Solvable
    } else if found.known_lost_after.is_some() {
        Verdict::Unsolvable
    } else {
        Verdict::Unknown
    };
    let (solution, board_solution) = if found.still_winnable {
        (
            found.winning_line.clone().unwrap_or_default(),
            found.board_winning_line.clone(),
        )
    } else {
        (Vec::new(), None)
    };
    let played = played_fields(game, &solution, board_solution.as_deref(), false);
    Ok(GameAnswer {
        verdict,
        solution,
        board_solution,
        stats,
        stopped: None,
        algorithm: options.algorithm,
        answer: PlayedAnswer {
            played,
            review: Some(found),
        },
        rounds: None,
        rest: None,
    })
}
