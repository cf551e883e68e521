//! A game in progress: the steps played since the deal (moves and redeals), checked
//! one by one under the game's rules, and the state each prefix reaches: the position,
//! the redeals used and the generator where the played redeals left it
//! (docs/engine.md, "A game in progress").
//!
//! Front door: [`PlayedLine::replay`] checks the steps and keeps the state after every
//! prefix; [`GameState::redeals`] is what a solve of the rest of the game passes to the
//! solver, and [`solve_rest`] is that solve (a winning continuation with as few further
//! redeals as the limits let it establish); [`review`] finds the first step after which
//! the game could no longer be won, asking about as few prefixes as it can.
//!
//! Invariants:
//! - A step is accepted only if it is legal where it is played: a move the rules
//!   generate there (same card, same cells), a redeal only while one is left and the
//!   game is not won, numbered one more than the redeals played before it.
//! - The state after a redeal is the one the game's own redeal deals, its generator
//!   continued (`crate::redeal`): the rest of the game is searched with the shuffles
//!   the player would get.
//! - Steps given on a PySolFC board are mapped to the engine's position by the game's
//!   [`BoardMap`]; errors name the board's cells and cards, as they were given.

mod rest;
mod review;

pub use rest::{solve_rest, RestReport};
pub(crate) use rest::{with_fewest_redeals, RoundsAnswer};
pub use review::{review, Answer, Review};

use crate::card::{cell, Card};
use crate::moves::{Move, MoveList, Step};
use crate::position::{Position, MAX_MOVES};
use crate::pysol::BoardMap;
use crate::redeal::Redeals;
use crate::redeal::{redeal, run_length, RedealStream};
use crate::variant::Variant;

/// A played step as the player gives it: a move between two cells of the board the
/// game is shown on, or redeal number `number` (1, then 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayedStep {
    /// `card` from cell `from` into the gap at `to`, `(row, col)`, 0-based.
    Move {
        /// The card moved.
        card: Card,
        /// Where it stands.
        from: (usize, usize),
        /// The gap it fills.
        to: (usize, usize),
    },
    /// A redeal.
    Redeal {
        /// Which redeal it says it is (from 1).
        number: u8,
    },
}

/// Why a played step cannot be played where it comes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalStep {
    /// A cell outside the board.
    #[error("({row},{col}) is outside the board")]
    OutsideBoard {
        /// Row given.
        row: usize,
        /// Column given.
        col: usize,
    },
    /// The card is not at the cell the move takes it from.
    #[error("{card} is not at ({row},{col}): {found} is")]
    NotThere {
        /// The card named.
        card: Card,
        /// Row given.
        row: usize,
        /// Column given.
        col: usize,
        /// What is there (`--` for a gap).
        found: String,
    },
    /// The cell a move goes to holds a card.
    #[error("({row},{col}) is not a gap: {found} is there")]
    NotAGap {
        /// Row given.
        row: usize,
        /// Column given.
        col: usize,
        /// The card there.
        found: Card,
    },
    /// The gap does not take the card.
    #[error("the gap at ({row},{col}) does not take {card}: it takes {takes}")]
    Refused {
        /// The card named.
        card: Card,
        /// The gap's row.
        row: usize,
        /// The gap's column.
        col: usize,
        /// What it takes, in words (`only 5H`, `one of 2S, 2H`, `nothing: ...`).
        takes: String,
    },
    /// Under `aisleriot`, a card of its row's run from column 0 never moves.
    #[error("{card} is in its row's run from column 0, which never moves under aisleriot")]
    Locked {
        /// The card named.
        card: Card,
    },
    /// A Blue Moon board's Aces column never changes.
    #[error("column 0 holds the Aces, which never move")]
    AcesColumn,
    /// A redeal when every redeal allowed is used.
    #[error("no redeal is left (the game allows {allowed})")]
    NoRedealLeft {
        /// Redeals the game allows.
        allowed: u8,
    },
    /// A redeal of a won game (PySolFC deals nothing then).
    #[error("the game is won: there is nothing to redeal")]
    Won,
    /// A redeal numbered out of turn.
    #[error("this is redeal {expected}, not redeal {got}")]
    RedealNumber {
        /// The number it would be.
        expected: u8,
        /// The number given.
        got: u8,
    },
}

/// A played step that cannot be played: its 0-based index in the steps, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("played step {index}: {why}")]
pub struct PlayedError {
    /// 0-based index of the step.
    pub index: usize,
    /// Why it cannot be played there.
    pub why: IllegalStep,
}

/// Where a game stands: its position (the engine's [`Position`], or a PySolFC game's
/// board), the redeals it used of those it allows, and the generator where its redeals
/// left it.
#[derive(Clone, Debug)]
pub struct GameState<P = Position> {
    /// The position reached.
    pub position: P,
    /// Redeals played.
    pub redeals_used: u8,
    /// Redeals the game allows.
    pub redeals_allowed: u8,
    /// The generator a next redeal continues; `None` when the game has no shuffle.
    stream: Option<RedealStream>,
}

impl<P: Clone> GameState<P> {
    /// The state at the deal: `start`, with `redeals` (`None`: a game played without
    /// rounds, a plain position).
    pub fn start(start: P, redeals: Option<&Redeals>) -> GameState<P> {
        GameState {
            position: start,
            redeals_used: 0,
            redeals_allowed: redeals.map_or(0, |r| r.count),
            stream: redeals.map(|r| r.stream.clone()),
        }
    }

    /// Redeals not used yet.
    pub fn redeals_left(&self) -> u8 {
        self.redeals_allowed - self.redeals_used
    }

    /// The generator a next redeal continues (`None`: a game without rounds).
    pub fn stream(&self) -> Option<&RedealStream> {
        self.stream.as_ref()
    }

    /// What a solve of the rest of the game passes to the solver: the redeals left
    /// with the generator where the played ones left it (`None`: a game without rounds).
    pub fn redeals(&self) -> Option<Redeals> {
        self.stream.as_ref().map(|stream| Redeals {
            count: self.redeals_left(),
            stream: stream.clone(),
        })
    }

    /// The same state allowed `count` more redeals at most (a solve that looks for a
    /// line with fewer).
    pub(crate) fn redeals_capped(&self, count: u8) -> Option<Redeals> {
        self.redeals().map(|mut r| {
            r.count = r.count.min(count);
            r
        })
    }

    /// The state after the player's redeal numbered `number` from this one, dealt by
    /// `deal` (the game's own redeal, continuing the generator), or why it cannot be
    /// played; `won` says whether this state's position is won.
    pub(crate) fn after_redeal(
        &self,
        number: u8,
        won: bool,
        deal: impl FnOnce(&P, &mut RedealStream) -> Option<P>,
    ) -> Result<GameState<P>, IllegalStep> {
        let expected = self.redeals_used + 1;
        if number != expected {
            return Err(IllegalStep::RedealNumber {
                expected,
                got: number,
            });
        }
        let no_redeal = IllegalStep::NoRedealLeft {
            allowed: self.redeals_allowed,
        };
        if self.redeals_left() == 0 {
            return Err(no_redeal);
        }
        let mut next = self.clone();
        let stream = next.stream.as_mut().ok_or(no_redeal)?;
        if won {
            return Err(IllegalStep::Won);
        }
        next.position = deal(&self.position, stream).ok_or(IllegalStep::Won)?;
        next.redeals_used += 1;
        Ok(next)
    }
}

/// A checked game in progress: the state after each prefix of its steps (`states[k]`
/// after the first `k`; `states[0]` is the deal), and the steps as the engine plays them.
#[derive(Clone, Debug)]
pub struct PlayedLine<P = Position> {
    /// `steps.len() + 1` states.
    pub states: Vec<GameState<P>>,
    /// The steps, in the engine's terms.
    pub steps: Vec<Step>,
}

impl<P: Clone> PlayedLine<P> {
    /// Plays `steps` from `start`, each by `play` (the state after it and the step in
    /// the engine's terms, or why it cannot be played); the first refused step is
    /// named by its index.
    pub(crate) fn replay_with(
        start: GameState<P>,
        steps: &[PlayedStep],
        mut play: impl FnMut(&GameState<P>, PlayedStep) -> Result<(GameState<P>, Step), IllegalStep>,
    ) -> Result<PlayedLine<P>, PlayedError> {
        let mut states = Vec::with_capacity(steps.len() + 1);
        let mut played = Vec::with_capacity(steps.len());
        states.push(start);
        for (index, &step) in steps.iter().enumerate() {
            let state = states.last().expect("the deal is there");
            let (next, step) = play(state, step).map_err(|why| PlayedError { index, why })?;
            states.push(next);
            played.push(step);
        }
        Ok(PlayedLine {
            states,
            steps: played,
        })
    }

    /// The state the steps reach.
    pub fn last(&self) -> &GameState<P> {
        self.states.last().expect("the deal is there")
    }
}

impl PlayedLine {
    /// Plays `steps` from `start` under `variant`, mapping them from the board of
    /// `map` when given (a PySolFC game); the first step that cannot be played is
    /// refused with its index and why.
    pub fn replay(
        start: GameState,
        variant: Variant,
        map: Option<&BoardMap>,
        steps: &[PlayedStep],
    ) -> Result<PlayedLine, PlayedError> {
        PlayedLine::replay_with(start, steps, |state, step| {
            play_step(state, variant, map, step)
        })
    }
}

/// The state after `step` from `state`, or why it cannot be played.
fn play_step(
    state: &GameState,
    variant: Variant,
    map: Option<&BoardMap>,
    step: PlayedStep,
) -> Result<(GameState, Step), IllegalStep> {
    match step {
        PlayedStep::Redeal { number } => {
            let won = state.position.is_won(variant);
            let next = state.after_redeal(number, won, |position, stream| {
                redeal(position, variant, stream)
            })?;
            Ok((next, Step::Redeal))
        }
        PlayedStep::Move { card, from, to } => {
            let m = legal_move(&state.position, variant, map, card, from, to)?;
            let mut next = state.clone();
            next.position.play(m);
            Ok((next, Step::Move(m)))
        }
    }
}

/// The legal move the player's `card`, `from`, `to` (on `map`'s board when given)
/// names in `pos`, or why there is none.
fn legal_move(
    pos: &Position,
    variant: Variant,
    map: Option<&BoardMap>,
    card: Card,
    from: (usize, usize),
    to: (usize, usize),
) -> Result<Move, IllegalStep> {
    let layout = pos.layout();
    let board_name = |c: Card| map.map_or(c, |m| m.board_card(c));
    let shown =
        |cell: Option<Card>| cell.map_or_else(|| "--".to_string(), |c| board_name(c).to_string());
    // The board's cells and card in the engine's terms.
    let engine_cell = |(row, col): (usize, usize)| -> Result<(usize, usize), IllegalStep> {
        let outside = IllegalStep::OutsideBoard { row, col };
        let (r, c) = match map {
            Some(map) => map.engine_cell(row, col).ok_or_else(|| {
                if map.in_board(row, col) {
                    IllegalStep::AcesColumn
                } else {
                    outside.clone()
                }
            })?,
            None => (row, col),
        };
        if r < layout.suits() && c < layout.ranks() {
            Ok((r, c))
        } else {
            Err(outside)
        }
    };
    let (fr, fc) = engine_cell(from)?;
    let (tr, tc) = engine_cell(to)?;
    let there = pos.at(fr, fc);
    let engine_card = match map {
        Some(map) => map.engine_card(card),
        None => layout.contains(card).then_some(card),
    };
    if engine_card.is_none() || there != engine_card {
        return Err(IllegalStep::NotThere {
            card,
            row: from.0,
            col: from.1,
            found: shown(there),
        });
    }
    let engine_card = engine_card.expect("checked");
    if let Some(found) = pos.at(tr, tc) {
        return Err(IllegalStep::NotAGap {
            row: to.0,
            col: to.1,
            found: board_name(found),
        });
    }
    if let Some(m) = pos.find_legal(variant, engine_card, cell(fr, fc), cell(tr, tc)) {
        return Ok(m);
    }
    if variant == Variant::Aisleriot && fc < run_length(pos, Variant::Common, fr) {
        return Err(IllegalStep::Locked { card });
    }
    // What the gap takes, as the rules generate it.
    let mut list = MoveList::<MAX_MOVES>::default();
    pos.legal_moves(variant, &mut list);
    let takes: Vec<String> = list
        .as_slice()
        .iter()
        .filter(|m| m.to == cell(tr, tc))
        .map(|m| board_name(m.card).to_string())
        .collect();
    let takes = match (takes.as_slice(), tc.checked_sub(1).map(|c| pos.at(tr, c))) {
        ([], Some(None)) => "nothing: the cell on its left is a gap".to_string(),
        ([], Some(Some(left))) if left.rank() == layout.top_rank() => {
            format!("nothing: {} on its left is the top rank", board_name(left))
        }
        ([], Some(Some(left))) => format!(
            "nothing: {}, the successor of {} on its left, cannot move",
            board_name(left.successor()),
            board_name(left)
        ),
        ([], None) => "nothing".to_string(),
        ([one], _) => format!("only {one}"),
        (many, _) => format!("one of {}", many.join(", ")),
    };
    Err(IllegalStep::Refused {
        card,
        row: to.0,
        col: to.1,
        takes,
    })
}

/// The engine's steps of a solution: `moves`, redeal `k + 1` after the first
/// `redeal_at[k]` of them.
pub fn steps_of(moves: &[Move], redeal_at: &[usize]) -> Vec<Step> {
    let mut steps = Vec::with_capacity(moves.len() + redeal_at.len());
    let mut next = 0;
    for (i, &m) in moves.iter().enumerate() {
        while next < redeal_at.len() && redeal_at[next] == i {
            steps.push(Step::Redeal);
            next += 1;
        }
        steps.push(Step::Move(m));
    }
    steps.extend((next..redeal_at.len()).map(|_| Step::Redeal));
    steps
}

#[cfg(test)]
mod tests;
