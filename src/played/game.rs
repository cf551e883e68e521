//! The two kinds of game in progress ([`GameInProgress`]): a deal played on the engine's
//! positions (a numbered deal, a position, or a PySolFC game the engine plays as a
//! variant, its steps given on PySolFC's board through the game's `BoardMap`), and a
//! PySolFC game played on its own board (Galary, Free Parking, Jungle, Spaces and Aces:
//! its steps are the board's). Each is replayed, solved and shown through the same
//! methods, so the answers, the review and the service do not tell them apart.
//!
//! Invariant: `steps()` are the engine's steps of the game's own positions (for a board
//! game, the board's), and every line a [`Rest`] holds was replayed by the engine from
//! the state it was solved from.

use super::{played_steps, PlayedInputError};
use crate::report::{redeals_shown, steps_on_board, MoveJson, RoundsJson, StepJson};
use gaps_engine::{
    format_position, solve_board_rest, solve_rest, Algorithm, BoardDeal, BoardMap, BoardPosition,
    BoardReport, BoardSolveError, DealSource, GameState, MoveList, PlayedLine, PlayedStep,
    Position, RestReport, SearchStats, SolveControls, SolveError, SolveOptions, SolveReport,
    Solver, Step, StopReason, Variant, Verdict, BOARD_MAX_MOVES, MAX_MOVES,
};

/// Why a search of a game in progress failed (never bad input: the steps were checked).
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    /// The engine's solver refused or failed.
    #[error(transparent)]
    Engine(#[from] SolveError),
    /// The board search failed (a line that did not replay: an engine bug).
    #[error(transparent)]
    Board(#[from] BoardSolveError),
}

/// A game in progress: where it comes from, its rules, and the states its steps reach.
// One per request, its states on the heap: the size of its larger variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum GameInProgress {
    /// A deal played on the engine's positions.
    Engine {
        /// The deal.
        source: DealSource,
        /// The rules its positions are played under.
        variant: Variant,
        /// A PySolFC game's board map (steps are given on its board).
        map: Option<BoardMap>,
        /// The checked steps and the state after each prefix.
        line: PlayedLine,
    },
    /// A PySolFC game played on its own board.
    Board {
        /// The game.
        deal: BoardDeal,
        /// The checked steps and the board after each prefix.
        line: PlayedLine<BoardPosition>,
    },
}

/// The answer about the rest of a game from one of its states.
#[derive(Clone, Debug)]
pub enum Rest {
    /// The engine's solve.
    Engine(RestReport),
    /// The board search's.
    Board(RestReport<BoardReport>),
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
        Ok(GameInProgress::Engine {
            source,
            variant,
            map,
            line,
        })
    }

    /// Plays `steps` on the board of `deal`, a game played on its own board, with
    /// `redeals` allowed in all (at most the game's own).
    pub fn replay_board(
        deal: BoardDeal,
        redeals: u8,
        steps: &[StepJson],
    ) -> Result<GameInProgress, PlayedInputError> {
        let start = deal.game_state(redeals)?;
        let line = PlayedLine::replay_board(start, &played_steps(steps)?)?;
        Ok(GameInProgress::Board { deal, line })
    }

    /// The played steps, as the engine played them.
    pub fn steps(&self) -> &[Step] {
        match self {
            GameInProgress::Engine { line, .. } => &line.steps,
            GameInProgress::Board { line, .. } => &line.steps,
        }
    }

    /// Redeals played in the first `steps` steps.
    pub fn redeals_used(&self, steps: usize) -> u8 {
        match self {
            GameInProgress::Engine { line, .. } => line.states[steps].redeals_used,
            GameInProgress::Board { line, .. } => line.states[steps].redeals_used,
        }
    }

    /// The engine's position the steps reach (`None` for a game on its own board).
    pub fn position_now(&self) -> Option<Position> {
        match self {
            GameInProgress::Engine { line, .. } => Some(line.last().position),
            GameInProgress::Board { .. } => None,
        }
    }

    /// Redeals left after every played step.
    pub fn redeals_left(&self) -> u8 {
        match self {
            GameInProgress::Engine { line, .. } => line.last().redeals_left(),
            GameInProgress::Board { line, .. } => line.last().redeals_left(),
        }
    }

    /// The position the steps reach, canonical: the engine's notation, or a board
    /// game's board.
    pub fn position_text(&self) -> String {
        match self {
            GameInProgress::Engine { line, .. } => format_position(&line.last().position),
            GameInProgress::Board { deal, line } => {
                line.last().position.to_board(deal.game).to_string()
            }
        }
    }

    /// The same on PySolFC's board (`None`: not a PySolFC game).
    pub fn board_text(&self) -> Option<String> {
        match self {
            GameInProgress::Engine { map, line, .. } => map
                .as_ref()
                .map(|m| m.board(&line.last().position).to_string()),
            GameInProgress::Board { .. } => Some(self.position_text()),
        }
    }

    /// `steps` (in the engine's cells) on PySolFC's board (`None`: not a PySolFC game).
    pub fn on_board(&self, steps: &[StepJson]) -> Option<Vec<StepJson>> {
        match self {
            GameInProgress::Engine { map, .. } => map.as_ref().map(|m| steps_on_board(m, steps)),
            GameInProgress::Board { .. } => Some(steps.to_vec()),
        }
    }

    /// Whether `rest` (steps in the engine's cells, redeals numbered on) is legal from
    /// the state the played steps reach and ends on a won position.
    pub fn wins_from_last(&self, rest: &[PlayedStep]) -> bool {
        match self {
            GameInProgress::Engine { variant, line, .. } => {
                PlayedLine::replay(line.last().clone(), *variant, None, rest)
                    .is_ok_and(|l| l.last().position.is_won(*variant))
            }
            GameInProgress::Board { line, .. } => {
                PlayedLine::replay_board(line.last().clone(), rest)
                    .is_ok_and(|l| l.last().position.is_won())
            }
        }
    }

    /// Solves the rest of the game from the state after `steps` of them (`solver` is
    /// the engine's; a board game's search keeps its own memory, `options.memory_limit`).
    pub fn solve_after(
        &self,
        steps: usize,
        solver: &mut Solver,
        options: &SolveOptions,
        controls: SolveControls<'_>,
    ) -> Result<Rest, AnswerError> {
        Ok(match self {
            GameInProgress::Engine { line, .. } => {
                Rest::Engine(solve_rest(solver, &line.states[steps], options, controls)?)
            }
            GameInProgress::Board { line, .. } => {
                Rest::Board(solve_board_rest(&line.states[steps], options, controls)?)
            }
        })
    }

    /// The rounds of `rest`, solved from the state after every played step (`None`:
    /// a search without redeals), with what each redeal of its line dealt.
    pub fn rounds_json(&self, rest: &Rest) -> Option<RoundsJson> {
        match (self, rest) {
            (GameInProgress::Engine { source, .. }, Rest::Engine(r)) => {
                let pysol = match source {
                    DealSource::Pysol(deal) => Some(*deal),
                    _ => None,
                };
                RoundsJson::of(&r.report).map(|mut rounds| {
                    rounds.redealt = redeals_shown(&r.report, pysol);
                    rounds
                })
            }
            (GameInProgress::Board { deal, line }, Rest::Board(r)) => {
                let last = line.last();
                RoundsJson::of_board_from(deal.game, &last.position, last.stream()?, &r.report)
            }
            _ => None,
        }
    }

    /// The moves legal from the position the steps reach, in solution-step form on the
    /// board the game is shown on (PySolFC's, for its games), in the engine's order:
    /// what the player may play next besides a redeal.
    pub fn legal_moves_json(&self) -> Vec<StepJson> {
        let moves: Vec<Step> = match self {
            GameInProgress::Engine { variant, line, .. } => {
                let mut list = MoveList::<MAX_MOVES>::default();
                line.last().position.legal_moves(*variant, &mut list);
                list.as_slice().iter().map(|&m| Step::Move(m)).collect()
            }
            GameInProgress::Board { line, .. } => {
                let mut list = MoveList::<BOARD_MAX_MOVES>::default();
                line.last().position.moves(&mut list);
                list.as_slice().iter().map(|&m| Step::Move(m)).collect()
            }
        };
        let (json, on_board) = self.steps_json(self.steps().len(), &moves);
        on_board.unwrap_or(json)
    }

    /// Steps of the engine from the state after `steps` played ones, in solution-step
    /// form (redeals numbered on from the ones played), and on the game's board.
    pub fn steps_json(
        &self,
        steps: usize,
        line: &[Step],
    ) -> (Vec<StepJson>, Option<Vec<StepJson>>) {
        let mut redeal = self.redeals_used(steps);
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
        let on_board = self.on_board(&json);
        (json, on_board)
    }
}

impl Rest {
    /// The verdict.
    pub fn verdict(&self) -> Verdict {
        match self {
            Rest::Engine(r) => r.report.verdict,
            Rest::Board(r) => r.report.verdict,
        }
    }

    /// Its winning line (empty unless `solvable`).
    pub fn line(&self) -> Vec<Step> {
        match self {
            Rest::Engine(r) => line_of(&r.report),
            Rest::Board(r) => r.report.steps.clone(),
        }
    }

    /// Whether the line's redeals are proved the fewest that win (a solvable answer).
    pub fn fewest_redeals(&self) -> bool {
        let fewest = match self {
            Rest::Engine(r) => r.fewest_redeals,
            Rest::Board(r) => r.fewest_redeals,
        };
        fewest && self.verdict() == Verdict::Solvable
    }

    /// Every search's statistics, added up.
    pub fn stats(&self) -> SearchStats {
        match self {
            Rest::Engine(r) => r.report.stats,
            Rest::Board(r) => r.report.stats,
        }
    }

    /// Why it stopped, for `unknown`.
    pub fn stopped(&self) -> Option<StopReason> {
        match self {
            Rest::Engine(r) => r.report.stopped,
            Rest::Board(r) => r.report.stopped,
        }
    }

    /// The engine's algorithm that answered (`auto` for the board search, its only one).
    pub fn algorithm(&self) -> Algorithm {
        match self {
            Rest::Engine(r) => r.report.algorithm,
            Rest::Board(_) => Algorithm::Auto,
        }
    }

    /// The engine's solve report (`None` for a board game).
    pub fn engine_report(&self) -> Option<&SolveReport> {
        match self {
            Rest::Engine(r) => Some(&r.report),
            Rest::Board(_) => None,
        }
    }
}

/// The steps of a solve's line, in the engine's terms.
pub fn line_of(report: &SolveReport) -> Vec<Step> {
    let redeal_at = report.rounds.as_ref().map_or(&[][..], |r| &r.redeal_at[..]);
    gaps_engine::steps_of(&report.solution, redeal_at)
}
