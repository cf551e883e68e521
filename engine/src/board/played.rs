//! A PySolFC game played on its own board, in progress: its played steps checked on
//! the board under the game's rule ([`BoardRules`]), and the rest of the game solved
//! by the board search from the state they reach (docs/engine.md, "A game in
//! progress").
//!
//! Invariants:
//! - A move is accepted only if the board's move generator makes it where it is played
//!   (same card, same cells); a redeal only while one is left and the board is not
//!   won, numbered one more than the redeals before it ([`GameState::after_redeal`]).
//! - A redeal is the board's own ([`BoardPosition::redeal`]), its generator continued
//!   from where the game's deal and earlier redeals left it: the rest of the game is
//!   searched with the shuffles the player gets.
//! - Every line the rest's solve returns was replayed from the state it starts from
//!   ([`solve_board_from`]).

use super::position::BoardPosition;
use super::{solve_board_from, BoardDeal, BoardReport, BoardSolveError};
use crate::card::{cell, col_of, Card};
use crate::moves::Step;
use crate::moves::{Move, MoveList};
use crate::played::RoundsAnswer;
use crate::played::{GameState, IllegalStep, PlayedError, PlayedLine, PlayedStep, RestReport};
use crate::redeal::Redeals;
use crate::search::stats::SearchStats;
use crate::solve::{SolveControls, SolveOptions, Verdict};

/// Where a board game stands.
pub type BoardGameState = GameState<BoardPosition>;

impl BoardDeal {
    /// The state at this game's deal, with `redeals` (at most the game's own).
    pub fn game_state(self, redeals: u8) -> Result<BoardGameState, BoardSolveError> {
        let allowed = self.game.own_redeals();
        if redeals > allowed {
            return Err(BoardSolveError::TooManyRedeals {
                game: self.game,
                allowed,
                asked: redeals,
            });
        }
        let start =
            BoardPosition::of_board(&self.board()).ok_or(BoardSolveError::NotOnBoard(self.game))?;
        let redeals = Redeals {
            count: redeals,
            stream: super::board_stream(self.game, self.number),
        };
        Ok(GameState::start(start, Some(&redeals)))
    }
}

impl PlayedLine<BoardPosition> {
    /// Plays `steps` on the board from `start`; the first step that cannot be played is
    /// refused with its index and why.
    pub fn replay_board(
        start: BoardGameState,
        steps: &[PlayedStep],
    ) -> Result<PlayedLine<BoardPosition>, PlayedError> {
        PlayedLine::replay_with(start, steps, |state, step| match step {
            PlayedStep::Redeal { number } => {
                let next = state.after_redeal(number, state.position.is_won(), |pos, stream| {
                    pos.redeal(stream)
                })?;
                Ok((next, Step::Redeal))
            }
            PlayedStep::Move { card, from, to } => {
                let m = legal_board_move(&state.position, card, from, to)?;
                let mut next = state.clone();
                next.position.play(m);
                Ok((next, Step::Move(m)))
            }
        })
    }
}

/// The legal move of `card` from `from` into the gap `to` on `pos`, or why there is none.
fn legal_board_move(
    pos: &BoardPosition,
    card: Card,
    from: (usize, usize),
    to: (usize, usize),
) -> Result<Move, IllegalStep> {
    let rules = pos.rules();
    let inside = |(row, col): (usize, usize)| {
        if row < rules.suits as usize && col < rules.row_len() {
            Ok(())
        } else {
            Err(IllegalStep::OutsideBoard { row, col })
        }
    };
    inside(from)?;
    inside(to)?;
    let there = pos.at(from.0, from.1);
    if there != Some(card) {
        return Err(IllegalStep::NotThere {
            card,
            row: from.0,
            col: from.1,
            found: there.map_or_else(|| "--".to_string(), |c| c.to_string()),
        });
    }
    if let Some(found) = pos.at(to.0, to.1) {
        return Err(IllegalStep::NotAGap {
            row: to.0,
            col: to.1,
            found,
        });
    }
    let (from_cell, to_cell) = (cell(from.0, from.1), cell(to.0, to.1));
    if let Some(m) = pos.find_legal(card, from_cell, to_cell) {
        return Ok(m);
    }
    // What the gap takes, as the rule generates it.
    let mut list = MoveList::default();
    pos.moves(&mut list);
    let takes: Vec<String> = list
        .as_slice()
        .iter()
        .filter(|m| m.to == to_cell)
        .map(|m| m.card.to_string())
        .collect();
    let takes = match takes.as_slice() {
        [] if col_of(to_cell) > 0 && pos.at(to.0, to.1 - 1).is_none() => {
            "nothing: the cell on its left is a gap".to_string()
        }
        [] => "nothing under the game's rule".to_string(),
        [one] => format!("only {one}"),
        many => format!("one of {}", many.join(", ")),
    };
    Err(IllegalStep::Refused {
        card,
        row: to.0,
        col: to.1,
        takes,
    })
}

impl RoundsAnswer for BoardReport {
    fn verdict(&self) -> Verdict {
        self.verdict
    }
    fn redeals_used(&self) -> u8 {
        self.steps.iter().filter(|s| **s == Step::Redeal).count() as u8
    }
    fn first_round(&self) -> Option<Verdict> {
        (self.redeals > 0).then_some(self.first_round)
    }
    fn stats_mut(&mut self) -> &mut SearchStats {
        &mut self.stats
    }
}

/// Solves the rest of a board game from `state` under `options`' node, time and memory
/// limits (for the whole answer), steered by `controls`: a winning line with as few
/// further redeals as the limits let the search establish, as `solve_rest` does for
/// the engine's positions. Every line is replayed before it is returned.
///
/// The look for fewer redeals skips, as for the engine, a retry of a first round the
/// first solve left undecided; the board search gives that round its passes rather
/// than a share of the time, so here the skip saves time without the engine's argument
/// that the retry could not decide it. Either way `fewest_redeals` is claimed only
/// when proved (no redeal, or one after the round alone was searched out and lost).
pub fn solve_board_rest(
    state: &BoardGameState,
    options: &SolveOptions,
    controls: SolveControls<'_>,
) -> Result<RestReport<BoardReport>, BoardSolveError> {
    crate::played::with_fewest_redeals(options, |limits, cap| {
        let left = state.redeals_left();
        let redeals = cap.map_or(left, |cap| cap.min(left));
        solve_board_from(&state.position, state.stream(), redeals, limits, controls)
    })
}
