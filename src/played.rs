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

use crate::report::{steps_on_board, MoveJson, PlayedJson, StepJson};
use gaps_engine::{
    format_position, parse_card, review, solve_rest, Answer, BoardMap, DealSource, GameState,
    PlayedLine, PlayedStep, RestReport, Review, SearchStats, SolveControls, SolveError,
    SolveOptions, Solver, Step, Variant, Verdict,
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

/// A game in progress: where it comes from, its rules, and the states its steps reach.
#[derive(Clone, Debug)]
pub struct GameInProgress {
    /// The deal.
    pub source: DealSource,
    /// The rules its positions are played under.
    pub variant: Variant,
    /// A PySolFC game's board map (steps are given on its board).
    pub map: Option<BoardMap>,
    /// The checked steps and the state after each prefix.
    pub line: PlayedLine,
}

impl GameInProgress {
    /// Plays `steps` (on the game's board) from `source`'s deal under `variant`, with
    /// `redeals` allowed in all.
    pub fn replay(
        source: DealSource,
        variant: Variant,
        redeals: u8,
        steps: &[StepJson],
    ) -> Result<GameInProgress, PlayedInputError> {
        let map = match source {
            DealSource::Pysol(deal) => Some(deal.board_map()),
            _ => None,
        };
        let start = GameState::start(source.start(), source.redeals(redeals).as_ref());
        let line = PlayedLine::replay(start, variant, map.as_ref(), &played_steps(steps)?)?;
        Ok(GameInProgress {
            source,
            variant,
            map,
            line,
        })
    }

    /// The state the steps reach.
    pub fn last(&self) -> &GameState {
        self.line.last()
    }

    /// Solves the rest of the game from the state after `steps` of them.
    pub fn solve_after(
        &self,
        steps: usize,
        solver: &mut Solver,
        options: &SolveOptions,
        controls: SolveControls<'_>,
    ) -> Result<RestReport, SolveError> {
        solve_rest(solver, &self.line.states[steps], options, controls)
    }

    /// Steps of the engine from the state after `steps` played ones, in solution-step
    /// form (redeals numbered on from the ones played), and on the game's board.
    pub fn steps_json(
        &self,
        steps: usize,
        line: &[Step],
    ) -> (Vec<StepJson>, Option<Vec<StepJson>>) {
        let mut redeal = self.line.states[steps].redeals_used;
        let json: Vec<StepJson> = line
            .iter()
            .map(|step| match *step {
                Step::Move(m) => StepJson::Move(MoveJson::from(m)),
                Step::Redeal => {
                    redeal += 1;
                    StepJson::Redeal { redeal }
                }
            })
            .collect();
        let on_board = self.map.as_ref().map(|map| steps_on_board(map, &json));
        (json, on_board)
    }
}

/// The steps of a solve's line, in the engine's terms.
pub fn line_of(report: &gaps_engine::SolveReport) -> Vec<Step> {
    let redeal_at = report.rounds.as_ref().map_or(&[][..], |r| &r.redeal_at[..]);
    gaps_engine::steps_of(&report.solution, redeal_at)
}

/// The fields of `game`'s answer whose rest was solved by `rest`; also the solution and
/// its board form, redeals numbered on from the played ones.
pub fn played_json(
    game: &GameInProgress,
    rest: &RestReport,
) -> (PlayedJson, Vec<StepJson>, Option<Vec<StepJson>>) {
    let (solution, on_board) = game.steps_json(game.line.steps.len(), &line_of(&rest.report));
    let fewest = rest.report.verdict == Verdict::Solvable && rest.fewest_redeals;
    let json = played_fields(game, &solution, on_board.as_deref(), fewest);
    (json, solution, on_board)
}

/// The fields of an answer about `game` whose continuation from its last position is
/// `solution` (`on_board` on a PySolFC game's board).
fn played_fields(
    game: &GameInProgress,
    solution: &[StepJson],
    on_board: Option<&[StepJson]>,
    fewest_redeals: bool,
) -> PlayedJson {
    let state = game.last();
    PlayedJson {
        played_steps: game.line.steps.len(),
        played_position: format_position(&state.position),
        played_board: game.map.map(|m| m.board(&state.position).to_string()),
        redeals_left: state.redeals_left(),
        hint: solution.first().cloned(),
        board_hint: on_board.and_then(|s| s.first().cloned()),
        fewest_redeals,
    }
}

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
            let since = game.line.steps.len() - before;
            let (followed, _) = game.steps_json(before, &game.line.steps[before..]);
            // A step in this form is its card and cells (no gap slot): equal steps are
            // the same card between the same cells.
            let line = earlier.solution;
            if line.len() < since || followed[..] != line[..since] {
                return None;
            }
            let rest = line[since..].to_vec();
            // Replayed from the state reached: a legal line that ends won.
            let steps = played_steps(&rest).ok()?;
            let replayed =
                PlayedLine::replay(game.last().clone(), game.variant, None, &steps).ok()?;
            if !replayed.last().position.is_won(game.variant) {
                return None;
            }
            let on_board = game.map.as_ref().map(|map| steps_on_board(map, &rest));
            let json = played_fields(game, &rest, on_board.as_deref(), earlier.fewest_redeals);
            Some((Verdict::Solvable, rest, json))
        }
        Verdict::Unknown => None,
    }
}

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
) -> Result<(ReviewJson, SearchStats), SolveError> {
    let mut stats = SearchStats::default();
    let mut failure = None;
    let played = &game.line.steps;
    let found: Review<Vec<Step>> = review(
        played.len(),
        |k| match game.solve_after(k, solver, options, controls) {
            Ok(rest) => {
                stats.absorb(&rest.report.stats);
                stats.elapsed += rest.report.stats.elapsed;
                match rest.report.verdict {
                    Verdict::Solvable => Answer::Won(line_of(&rest.report)),
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
    /// The last position's search, for its rounds (a solve, not a review).
    pub report: Option<gaps_engine::SolveReport>,
}

/// Answers about `game`: the rest of it, or with `review` its review (whose verdict is
/// the last position's as the review found it).
pub fn answer_game(
    game: &GameInProgress,
    review: bool,
    solver: &mut Solver,
    options: &SolveOptions,
    controls: SolveControls<'_>,
) -> Result<GameAnswer, SolveError> {
    let steps = game.line.steps.len();
    if !review {
        let rest = game.solve_after(steps, solver, options, controls)?;
        let (played, solution, board_solution) = played_json(game, &rest);
        return Ok(GameAnswer {
            verdict: rest.report.verdict,
            board_solution: board_solution.filter(|_| !solution.is_empty()),
            solution,
            stats: rest.report.stats,
            stopped: rest.report.stopped,
            algorithm: rest.report.algorithm,
            answer: PlayedAnswer {
                played,
                review: None,
            },
            report: Some(rest.report),
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
        report: None,
    })
}
