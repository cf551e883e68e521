//! `gaps solve ... --played FILE` and `gaps review ... --played FILE`: a game in
//! progress (docs/notation.md, "A game in progress"), its steps read from a file or standard
//! input in solution-step form, on the board the game is shown on.
//!
//! Invariant: a step the game's rules refuse, or a file that is not steps, is bad input
//! (exit 2, the step's index and why); a verdict is only ever about the position the
//! steps reach, with the redeals they left.

use super::args::redeal_count;
use super::caller::Caller;
use super::solve::{engine_error, print_answer, PositionInput, SolveCmd};
use super::text::{numbered_step, step_words};
use super::{refused, SearchArgs, Subject};
use crate::played::{played_json, review_game, AnswerError, GameInProgress, Rest};
use crate::report::{board_variant, PysolJson, SolveJson, StatsJson, StepJson};
use clap::Args;
use gaps_engine::{format_position, BoardDeal, DealSource, SolveControls, SolveOptions};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// `gaps review`: the first step after which a played game could no longer be won.
#[derive(Args, Debug)]
pub struct ReviewCmd {
    #[command(flatten)]
    search: SearchArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Redeals the game allows in all (default: the game's own for `--pysol`, else 0).
    #[arg(long)]
    redeals: Option<u8>,
    /// The steps played since the deal: a JSON array of solution steps (moves
    /// `{"card","from","to"}`, redeals `{"redeal": k}`), or an object with `played`;
    /// `-` reads standard input.
    #[arg(long)]
    played: PathBuf,
    #[command(flatten)]
    input: PositionInput,
}

/// A played-steps file: the steps, or an object that holds them (a job's request).
#[derive(Deserialize)]
#[serde(untagged)]
enum PlayedFile {
    Steps(Vec<StepJson>),
    Request { played: Vec<StepJson> },
}

/// The steps in `path` (`-`: the caller's standard input).
pub fn read_played(path: &Path, caller: &Caller) -> anyhow::Result<Vec<StepJson>> {
    let text = if path == Path::new("-") {
        caller.read_stdin("the played steps")?
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| refused(Subject::Steps, format!("--played {}: {e}", path.display())))?
    };
    let file: PlayedFile = serde_json::from_str(&text).map_err(|_| {
        refused(Subject::Steps, format!(
            "--played {}: not a JSON array of steps ({{\"card\", \"from\", \"to\"}} or {{\"redeal\": k}}), nor an object with `played`",
            path.display()
        ))
    })?;
    Ok(match file {
        PlayedFile::Steps(steps) | PlayedFile::Request { played: steps } => steps,
    })
}

/// The game in progress the arguments name, with the options of its searches.
fn game_of(
    search: &SearchArgs,
    input: &PositionInput,
    redeals: Option<u8>,
    played: &Path,
    caller: &Caller,
) -> anyhow::Result<(GameInProgress, SolveOptions)> {
    if let Some((game, number)) = super::board::board_game(input.pysol_text())? {
        // Played on its own board: its rule and the board search (docs/pysol.md).
        let (options, redeals) = super::board::board_options(
            search,
            game,
            &format!("pysol {game}:{number}"),
            crate::machine::default_search_memory_bytes(),
            redeals,
            true,
        )?;
        let deal = BoardDeal::new(game, number)
            .map_err(|e| refused(Subject::Game, format!("--pysol: {e}")))?;
        let steps = read_played(played, caller)?;
        let in_progress = GameInProgress::replay_board(deal, redeals, &steps)
            .map_err(|e| refused(Subject::Steps, format!("--played: {e}")))?;
        return Ok((in_progress, options));
    }
    let source = input.source(caller)?;
    let variant = match source {
        DealSource::Pysol(deal) => search.variant_of(deal)?,
        _ => search.variant()?,
    };
    let options = search.lone_options(variant)?;
    let count = redeal_count(redeals, &source, variant)?;
    let steps = read_played(played, caller)?;
    let game = GameInProgress::replay(source, variant, count, &steps)
        .map_err(|e| refused(Subject::Steps, format!("--played: {e}")))?;
    Ok((game, options))
}

/// A search of a game in progress that failed: never bad input (the steps were
/// checked), an engine error.
fn answer_error(e: AnswerError) -> anyhow::Error {
    match e {
        AnswerError::Engine(e) => engine_error(e),
        AnswerError::Board(e) => anyhow::Error::new(e),
    }
}

/// `gaps solve --played FILE`: the answer about the rest of the game.
pub fn run_solve(cmd: SolveCmd) -> anyhow::Result<()> {
    let json = answer(&cmd, &Caller::TERMINAL)?;
    print_answer(&json, cmd.json)
}

/// The answer of `gaps solve --played FILE` about the rest of the game the arguments
/// name: what `--json` prints.
pub fn answer(cmd: &SolveCmd, caller: &Caller) -> anyhow::Result<SolveJson> {
    let played = cmd.played.as_deref().expect("dispatched with --played");
    let (search, input) = (&cmd.search, &cmd.input);
    let (game, options) = game_of(search, input, cmd.redeals, played, caller)?;
    let mut solver = search.solver()?;
    let steps = game.steps().len();
    let controls = SolveControls {
        cancel: caller.cancel,
        ..SolveControls::default()
    };
    let rest = game
        .solve_after(steps, &mut solver, &options, controls)
        .map_err(answer_error)?;
    let mut json = match (&game, &rest) {
        (GameInProgress::Engine { source, .. }, Rest::Engine(r)) => {
            let mut json = SolveJson::new(&source.start(), options.variant, &r.report);
            if let DealSource::Pysol(deal) = source {
                json.pysol = Some(PysolJson::new(*deal, &r.report));
            }
            json
        }
        (GameInProgress::Board { deal, .. }, Rest::Board(r)) => {
            SolveJson::of_board(deal.game, deal.number, &r.report)
        }
        _ => unreachable!("a game's rest is solved by its own kind of search"),
    };
    let (played, solution, on_board) = played_json(&game, &rest);
    json.solution = solution;
    if let Some(pysol) = json.pysol.as_mut() {
        pysol.board_solution = on_board.filter(|_| !json.solution.is_empty());
    }
    json.rounds = game.rounds_json(&rest);
    json.played = Some(played);
    Ok(json)
}

/// What `gaps review --json` prints. A PySolFC game's number is written as the number
/// itself, up to 10^20, as `gaps solve --json` writes it.
#[derive(Serialize)]
pub struct ReviewAnswer {
    position: String,
    variant: &'static str,
    pysol: Option<ReviewedGame>,
    played_steps: usize,
    played_position: String,
    redeals_left: u8,
    review: crate::played::ReviewJson,
    stats: StatsJson,
}

/// The PySolFC game a review is about, as PySolFC shows it.
#[derive(Serialize)]
struct ReviewedGame {
    game: &'static str,
    number: u128,
    board: String,
}

/// A played game reviewed: the game, and the answer about it.
pub struct Reviewed {
    game: GameInProgress,
    pub answer: ReviewAnswer,
}

/// `gaps review`.
pub fn run_review(cmd: ReviewCmd) -> anyhow::Result<()> {
    let Reviewed { game, answer } = review(&cmd, &Caller::TERMINAL)?;
    if cmd.json {
        outln!("{}", serde_json::to_string(&answer)?);
        return Ok(());
    }
    print_review(&game, &answer.review)
}

/// The review `gaps review` asks for.
pub fn review(cmd: &ReviewCmd, caller: &Caller) -> anyhow::Result<Reviewed> {
    let (game, options) = game_of(&cmd.search, &cmd.input, cmd.redeals, &cmd.played, caller)?;
    let mut solver = cmd.search.solver()?;
    let controls = SolveControls {
        cancel: caller.cancel,
        ..SolveControls::default()
    };
    let (review, stats) =
        review_game(&game, &mut solver, &options, controls).map_err(answer_error)?;
    let (position, variant, pysol) = match &game {
        GameInProgress::Engine { source, .. } => (
            format_position(&source.start()),
            options.variant.name(),
            match source {
                DealSource::Pysol(deal) => Some(ReviewedGame {
                    game: deal.game.name(),
                    number: deal.number,
                    board: deal.board().to_string(),
                }),
                _ => None,
            },
        ),
        GameInProgress::Board { deal, .. } => {
            let board = deal.board().to_string();
            (
                board.clone(),
                board_variant(deal.game),
                Some(ReviewedGame {
                    game: deal.game.name(),
                    number: deal.number,
                    board,
                }),
            )
        }
    };
    let answer = ReviewAnswer {
        position,
        variant,
        pysol,
        played_steps: game.steps().len(),
        played_position: game.position_text(),
        redeals_left: game.redeals_left(),
        review,
        stats: StatsJson::from(&stats),
    };
    Ok(Reviewed { game, answer })
}

/// A review as text: the verdict, the fatal step and the winning line, counted from 1.
fn print_review(game: &GameInProgress, review: &crate::played::ReviewJson) -> anyhow::Result<()> {
    outln!("played: {} steps", game.steps().len());
    outln!("played_position: {}", game.position_text());
    // The played steps on the board the game is shown on (PySolFC's, for its games).
    let (steps, on_board) = game.steps_json(0, game.steps());
    let shown = on_board.unwrap_or(steps);
    let fatal = review.fatal_step.filter(|_| !review.still_winnable);
    let verdict = if review.still_winnable {
        "can still be won".to_string()
    } else if review.lost_from_start {
        "lost from the deal".to_string()
    } else if let Some(index) = fatal {
        // Steps are counted from 1 here, as `gaps solve` counts a line's moves; the
        // JSON's `fatal_step` is the same step's index from 0.
        let step = shown.get(index).map(step_words).unwrap_or_default();
        format!(
            "lost at step {} of {}: {step} (`fatal_step` {index} in --json)",
            index + 1,
            shown.len()
        )
    } else {
        "not known within the limits".to_string()
    };
    outln!("review: {verdict} ({} searches)", review.searches);
    if let Some(line) = review
        .board_winning_line
        .as_ref()
        .or(review.winning_line.as_ref())
    {
        let from = match fatal {
            Some(index) => format!("before step {}", index + 1),
            None => "now".to_string(),
        };
        let moves = line.iter().filter(|s| matches!(s, StepJson::Move(_)));
        outln!("winning line from {from}: {} moves", moves.count());
        let mut number = 0;
        for step in line {
            if matches!(step, StepJson::Move(_)) {
                number += 1;
            }
            outln!("{}", numbered_step(number, step));
        }
    }
    if !review.unknown_steps.is_empty() {
        let counted: Vec<usize> = review.unknown_steps.iter().map(|i| i + 1).collect();
        outln!("unknown after steps: {counted:?} (counted from 1)");
    }
    Ok(())
}
