//! PySolFC's games played on their own boards: a gap may take several cards (Galary's
//! and Free Parking's right-neighbour rule, Jungle's any-suit successor, Spaces and
//! Aces' any higher card), so these games are searched on the board itself, with the
//! rule as data ([`BoardRules`]), rather than mapped onto the engine's `basic` and
//! `common` positions.
//!
//! Front door: [`BoardDeal`] for a numbered game (its board, its verdict),
//! [`BoardRules::of`] and [`BoardPosition`] for a game's board,
//! [`BoardSearcher::solve`] for a verdict, [`replay_board`] to check a line; a game in
//! progress by [`BoardDeal::game_state`], `PlayedLine::replay_board` and
//! [`solve_board_rest`] (`played.rs`).
//!
//! Invariants:
//! - Cards keep PySolFC's ranks (0 = Ace) and this crate's suits; a board's cells are
//!   PySolFC's, so a move here is a move on the board PySolFC shows.
//! - The rules are PySolFC's `acceptsCards` and `isGameWon` (`pysollib/games/montana.py`;
//!   docs/pysol.md): column 0 takes the base rank of any suit and nothing else; another
//!   gap takes what [`Accepts`] says of its left neighbour (and, for
//!   [`Accepts::SuccessorOrBelowRight`], of its right one, a row's last cell having the
//!   next row's first as right neighbour); a board is won when every row holds the
//!   base rank and the next ones of one suit in all its cells but the last.
//! - A redeal is `Montana_Talon.dealCards` with the game's stream (`crate::redeal`).
//! - `Lost` is exact: the search behind it is a reachability search over every
//!   position of every round (see `search.rs`).

mod best_first;
mod exhaustive;
mod frozen;
mod played;
mod portfolio;
mod position;
mod restarts;
mod search;

pub use played::{solve_board_rest, BoardGameState};
pub use position::{BoardError, BoardPosition, BOARD_MAX_MOVES};
pub use search::{BoardOutcome, BoardSearcher};

use crate::card::Card;
use crate::moves::Step;
use crate::pysol::{
    check_game_number, parse_game_number, Accepts, DealShape, PysolBoard, PysolError, PysolGame,
};
use crate::redeal::RedealStream;
use crate::search::budget::{Budget, StopReason};
use crate::search::stats::SearchStats;
use crate::solve::{Algorithm, SolveControls, SolveOptions, Verdict};
use std::fmt;
use std::str::FromStr;
use std::time::Instant;

/// A numbered game of PySolFC played on its own board: `galary:17`.
///
/// Invariant: `number` is one PySolFC accepts and `game` is played on its board
/// ([`PysolGame::is_board_played`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoardDeal {
    /// The game.
    pub game: PysolGame,
    /// Its number, in `1..=PYSOL_MAX_NUMBER`.
    pub number: u128,
}

impl BoardDeal {
    /// The deal, if `number` is one PySolFC deals and `game` is played on its board.
    pub fn new(game: PysolGame, number: u128) -> Result<BoardDeal, PysolError> {
        check_game_number(number)?;
        if !game.is_board_played() {
            return Err(PysolError::NotOnBoard(game));
        }
        Ok(BoardDeal { game, number })
    }

    /// The starting board, as PySolFC deals it.
    pub fn board(self) -> PysolBoard {
        PysolBoard::deal(self.game, self.number)
    }

    /// [`solve_pysol_board`] of this game.
    pub fn solve(
        self,
        redeals: u8,
        options: &SolveOptions,
        controls: SolveControls<'_>,
    ) -> Result<BoardReport, BoardSolveError> {
        solve_pysol_board(self.game, self.number, redeals, options, controls)
    }
}

impl fmt::Display for BoardDeal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.game, self.number)
    }
}

impl FromStr for BoardDeal {
    type Err = PysolError;
    fn from_str(s: &str) -> Result<BoardDeal, PysolError> {
        let (game, number) = parse_game_number(s)?;
        BoardDeal::new(game, number)
    }
}

/// A game's rules as the board search plays them: `suits` rows of
/// [`BoardRules::row_len`] cells, the ranks `base..=top` of each suit in play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardRules {
    /// Suits, and rows (1..=4).
    pub suits: u8,
    /// The highest rank (0 = Ace).
    pub top: u8,
    /// The lowest rank in play, which column 0 takes and every won row starts with
    /// (0: the Aces are in play; 1: they are out, as in Montana).
    pub base: u8,
    /// What a gap outside column 0 takes.
    pub accepts: Accepts,
}

impl BoardRules {
    /// Cells a row: one more than a suit's cards in play.
    pub const fn row_len(self) -> usize {
        (self.top - self.base) as usize + 2
    }

    /// Whether `card` is in play.
    pub const fn in_play(self, card: Card) -> bool {
        card.suit() < self.suits && card.rank() >= self.base && card.rank() <= self.top
    }

    /// The rules of `game`, for every game whose ranks follow each other (all but
    /// Paganini, whose Six follows its Ace).
    pub fn of(game: PysolGame) -> Option<BoardRules> {
        let spec = game.spec();
        let consecutive = spec.ranks.iter().enumerate().all(|(i, &r)| r as usize == i);
        if !consecutive {
            return None;
        }
        let last = *spec.ranks.last()?;
        // Montana's deal takes the space rank out: the Aces (base 1), or Line Up's
        // Sixes (the top rank).
        let (base, top) = match (spec.shape, spec.space_rank) {
            (DealShape::Montana, Some(0)) => (1, last),
            (DealShape::Montana, Some(space)) if space == last => (0, last - 1),
            (DealShape::Montana, _) => return None,
            _ => (0, last),
        };
        let rules = BoardRules {
            suits: 4,
            top,
            base,
            accepts: spec.accepts,
        };
        debug_assert_eq!(rules.row_len(), spec.row_len);
        debug_assert_eq!(base, spec.base);
        Some(rules)
    }
}

impl BoardPosition {
    /// The position of a game's board (`None` for Paganini, see [`BoardRules::of`]).
    pub fn of_board(board: &PysolBoard) -> Option<BoardPosition> {
        let rules = BoardRules::of(board.game)?;
        let rows: Vec<&[Option<Card>]> = (0..4).map(|r| board.row(r)).collect();
        Some(BoardPosition::new(rules, &rows).expect("a dealt board is a position of its game"))
    }

    /// The board PySolFC shows for this position of `game`.
    pub fn to_board(&self, game: PysolGame) -> PysolBoard {
        let mut board = PysolBoard {
            game,
            rows: [[None; crate::pysol::MAX_ROW_LEN]; 4],
        };
        for (r, row) in board.rows.iter_mut().enumerate() {
            for (c, slot) in row.iter_mut().enumerate().take(self.rules().row_len()) {
                *slot = self.at(r, c);
            }
        }
        board
    }
}

/// Why a line does not win a board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardReplayError {
    /// Step `step` is not a legal move there.
    #[error("step {step}: {card} from ({from_row},{from_col}) to ({to_row},{to_col}) is not a legal move")]
    Illegal {
        /// 0-based step index.
        step: usize,
        /// The card.
        card: Card,
        /// Its row.
        from_row: usize,
        /// Its column.
        from_col: usize,
        /// The gap's row.
        to_row: usize,
        /// The gap's column.
        to_col: usize,
    },
    /// Step `step` redeals when no redeal is left (or the game is won).
    #[error("step {step}: no redeal is left")]
    NoRedealLeft {
        /// 0-based step index.
        step: usize,
    },
    /// The line ends on a board that is not won.
    #[error("the line ends before the game is won")]
    NotWon,
}

/// Replays `steps` from `start` with at most `redeals` redeals from `stream` (`None`:
/// none allowed); returns the won board, or the first step that breaks the rules.
pub fn replay_board(
    start: &BoardPosition,
    stream: Option<&RedealStream>,
    redeals: u8,
    steps: &[Step],
) -> Result<BoardPosition, BoardReplayError> {
    let mut pos = *start;
    let mut stream = stream.cloned();
    let mut used = 0;
    for (step, &s) in steps.iter().enumerate() {
        match s {
            Step::Move(m) => {
                let legal = pos.find_legal(m.card, m.from, m.to);
                let Some(legal) = legal else {
                    let (from_row, from_col) = m.from_rc();
                    let (to_row, to_col) = m.to_rc();
                    return Err(BoardReplayError::Illegal {
                        step,
                        card: m.card,
                        from_row,
                        from_col,
                        to_row,
                        to_col,
                    });
                };
                pos.play(legal);
            }
            Step::Redeal => {
                let next = match stream.as_mut() {
                    Some(stream) if used < redeals && !pos.is_won() => pos.redeal(stream),
                    _ => None,
                };
                pos = next.ok_or(BoardReplayError::NoRedealLeft { step })?;
                used += 1;
            }
        }
    }
    if pos.is_won() {
        Ok(pos)
    } else {
        Err(BoardReplayError::NotWon)
    }
}

/// The stream a game's redeals draw from: its generator after the deal (the caller
/// has checked `number`).
pub fn board_stream(game: PysolGame, number: u128) -> RedealStream {
    RedealStream::pysol_game(game, number)
}

/// What [`solve_pysol_board`] found.
#[derive(Clone, Debug)]
pub struct BoardReport {
    /// The verdict: `Solvable` only with a line that replayed.
    pub verdict: Verdict,
    /// The winning line on PySolFC's board (moves and redeals), else empty.
    pub steps: Vec<Step>,
    /// Search statistics (all rounds).
    pub stats: SearchStats,
    /// Why the search stopped, for `Unknown`.
    pub stopped: Option<StopReason>,
    /// Redeals allowed.
    pub redeals: u8,
    /// What the search of the first round alone found.
    pub first_round: Verdict,
    /// The seed of the restarts' tie-breaks (`SolveOptions::seed`).
    pub seed: u64,
    /// The search that ran: `Auto` (the board search, best first) or `Exact` (the
    /// exhaustive search of a round without redeals).
    pub algorithm: Algorithm,
}

impl BoardReport {
    /// Rounds the line plays (1 + its redeals).
    pub fn rounds_used(&self) -> usize {
        1 + self.steps.iter().filter(|s| **s == Step::Redeal).count()
    }
}

/// A request [`solve_pysol_board`] refuses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardSolveError {
    /// Paganini's ranks do not follow each other (the engine plays it as `basic`).
    #[error("{0} is not played on its board")]
    NotOnBoard(PysolGame),
    /// More redeals than the game allows.
    #[error("{game} allows {allowed} redeal(s), not {asked}")]
    TooManyRedeals {
        /// The game.
        game: PysolGame,
        /// Its own number.
        allowed: u8,
        /// Asked for.
        asked: u8,
    },
    /// The exhaustive search (`exact`) asked for a search with redeals: it searches a
    /// round without redeals, whose positions it does not keep.
    #[error("exact searches a round without redeals (ask for 0 redeals, or auto)")]
    ExactWithRedeals,
    /// An algorithm other than `auto` (the board search) and `exact` (its exhaustive
    /// search of a round without redeals).
    #[error("{0} is not a search of a board game (auto or exact)")]
    NotABoardAlgorithm(crate::solve::Algorithm),
    /// A line found by the search did not replay (an engine bug, never expected).
    #[error("engine bug: a winning line did not replay: {0}")]
    InvalidLine(BoardReplayError),
}

/// Solves game `number` of `game` (checked by the caller) on its board with at most
/// `redeals` redeals, within `options`' node, time and memory limits (the rest of the
/// options do not apply: the search is the one of `search.rs`, on one thread), steered
/// by `controls` (cancel, progress, pause). Every winning line is replayed before it
/// is returned.
pub fn solve_pysol_board(
    game: PysolGame,
    number: u128,
    redeals: u8,
    options: &SolveOptions,
    controls: SolveControls<'_>,
) -> Result<BoardReport, BoardSolveError> {
    let board = PysolBoard::deal(game, number);
    let start = BoardPosition::of_board(&board).ok_or(BoardSolveError::NotOnBoard(game))?;
    if redeals > game.own_redeals() {
        return Err(BoardSolveError::TooManyRedeals {
            game,
            allowed: game.own_redeals(),
            asked: redeals,
        });
    }
    let stream = board_stream(game, number);
    solve_board_from(&start, Some(&stream), redeals, options, controls)
}

/// Solves the board `start` with at most `redeals` redeals drawn from `stream` (`None`:
/// none), as [`solve_pysol_board`] does from a game's deal: the start of a numbered
/// game, or where a game in progress stands. `options.algorithm` is `auto` (the board
/// search, `search.rs`) or `exact` (the exhaustive search of a round without redeals,
/// `exhaustive.rs`). Every winning line is replayed from `start` before it is returned.
pub fn solve_board_from(
    start: &BoardPosition,
    stream: Option<&RedealStream>,
    redeals: u8,
    options: &SolveOptions,
    controls: SolveControls<'_>,
) -> Result<BoardReport, BoardSolveError> {
    let redeals = if stream.is_some() { redeals } else { 0 };
    let exhaustive = match options.algorithm {
        Algorithm::Auto => false,
        Algorithm::Exact if redeals == 0 => true,
        Algorithm::Exact => return Err(BoardSolveError::ExactWithRedeals),
        other => return Err(BoardSolveError::NotABoardAlgorithm(other)),
    };
    let memory = options
        .memory_limit
        .unwrap_or(crate::tuning::DEFAULT_TABLE_BYTES);
    let mut searcher = BoardSearcher::with_memory(memory)
        .with_seed(options.seed)
        .with_spill(controls.spill.cloned());
    let budget = Budget::new(options.max_nodes, options.time_limit, controls.cancel)
        .with_progress(controls.progress)
        .with_pause(controls.pause);
    let began = Instant::now();
    let mut stats = SearchStats::default();
    let (outcome, first_round) = if exhaustive {
        let outcome = searcher.solve_exhaustively(start, &budget, &mut stats);
        let first_round = outcome.verdict();
        (outcome, first_round)
    } else {
        searcher.solve_rounds(start, stream, redeals, &budget, &mut stats)
    };
    stats.elapsed = began.elapsed();
    let (verdict, steps, stopped) = match outcome {
        BoardOutcome::Won(steps) => {
            replay_board(start, stream, redeals, &steps).map_err(BoardSolveError::InvalidLine)?;
            (Verdict::Solvable, steps, None)
        }
        BoardOutcome::Lost => (Verdict::Unsolvable, Vec::new(), None),
        BoardOutcome::Unknown(reason) => (Verdict::Unknown, Vec::new(), Some(reason)),
    };
    Ok(BoardReport {
        verdict,
        steps,
        stats,
        stopped,
        redeals,
        first_round,
        seed: options.seed,
        algorithm: options.algorithm,
    })
}
