//! `gaps-engine`: a pure, exact engine for the solitaire card game Gaps (Montana), and
//! in [`morpion`] endgame proofs of Morpion Solitaire (the paper's second game).
//!
//! Rules and notation are those of docs/notation.md; the search follows
//! Helmstetter & Cazenave (2003, 2004). The crate does no I/O, no logging and keeps no
//! global mutable state: randomness comes only from explicit seeds, tables are owned by
//! their [`Solver`], and limits are passed in with the [`SolveOptions`].
//!
//! ```
//! use gaps_engine::{deal, Layout, Solver, SolveOptions, Verdict};
//! let start = deal(1, Layout::new(4, 6).unwrap());
//! let report = Solver::with_table_bytes(1 << 20).solve(&start, &SolveOptions::default(), None).unwrap();
//! assert_ne!(report.verdict, Verdict::Unknown);
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]

mod board;
mod card;
mod deal;
mod exhaustive;
pub mod morpion;
mod moves;
mod notation;
mod odds;
mod played;
mod position;
mod pysol;
mod redeal;
mod replay;
mod search;
mod solve;
mod source;
mod tuning;
mod variant;
mod zobrist;

pub use board::{
    board_stream, replay_board, solve_board_from, solve_board_rest, solve_pysol_board, BoardDeal,
    BoardError, BoardGameState, BoardOutcome, BoardPosition, BoardReplayError, BoardReport,
    BoardRules, BoardSearcher, BoardSolveError, BOARD_MAX_MOVES,
};
pub use card::{Card, Cell, Layout, SizeError, MAX_RANKS, MAX_SUITS, MIN_RANKS};
pub use deal::{deal, deal_cards, SplitMix64};
pub use exhaustive::{reachable, winnable_with_redeals, Reachable};
pub use moves::{Move, MoveList, Step};
pub use notation::{format_cells, format_position, parse_card, parse_position, ParseError};
pub use odds::{
    odds, wilson, wilson_95, Advice, ExactOdds, ExactOddsError, OddsOptions, OddsReport, Tally,
    DEFAULT_FIRST_ROUND_NODES, DEFAULT_ROUND_NODES, DEFAULT_ROUND_POINTS, DEFAULT_SAMPLE_NODES,
    MAX_GATHERED, Z_95,
};
pub use played::{
    review, solve_rest, steps_of, Answer, GameState, IllegalStep, PlayedError, PlayedLine,
    PlayedStep, RestReport, Review,
};
pub use position::{Position, MAX_MOVES};
pub use pysol::{
    check_game_number, parse_game_number, parse_game_number_digits, pysol_board, pysol_talon,
    Accepts, BoardMap, DealShape, EngineForm, GameSpec, PysolBoard, PysolDeal, PysolError,
    PysolGame, RedealGaps, MAX_ROW_LEN, PYSOL_MAX_NUMBER, PYSOL_MT_FROM,
};
pub use redeal::{
    kept_cards, redeal, redeal_allowed_at, redeal_shown, run_length, RedealStream, Redeals,
    RedealsError, Redealt, MAX_REDEALS,
};
pub use replay::{replay_with_redeals, verify_solution, verify_with_redeals, ReplayError};
pub use search::assign::AssignmentCaps;
pub use search::budget::StopReason;
pub use search::budget::MAX_THREADS as MAX_SEARCH_THREADS;
pub use search::dfs::DfsOptions;
pub use search::pause::PauseGate;
pub use search::stats::SearchStats;
pub use search::visited::spill::{MemoryStore, SpillError, SpillStore};
pub use solve::{
    check_request, count_reachable, default_dfs_table_bytes, resolve_algorithm, runs_on_threads,
    sized_memory, sizes_memory, Algorithm, CountOptions, CountReport, Limit, OptionError,
    RoundsReport, SolveControls, SolveError, SolveOptions, SolveReport, Solver, UnknownAlgorithm,
    UnknownName, Verdict, MAX_TABLE_MB, MIN_SIZED_BYTES,
};
pub use source::DealSource;
pub use tuning::{AUTO_ASSIGNMENT_CAPS, AUTO_PROBES, DEFAULT_PROBES, DEFAULT_TABLE_BYTES};
pub use variant::Variant;

/// The searches' own parts, for the engine's integration tests and measurement
/// examples only: not a stable interface, and nothing outside this crate's `tests/`
/// and `examples/` uses it.
#[doc(hidden)]
pub mod internals {
    pub use crate::search::assign::{assignments, Assignment};
    pub use crate::search::blocks::{
        search_parallel, BlockObserver, BlockOptions, BlockSearch, BlockView, BoxTable,
        SharedBoxTable,
    };
    pub use crate::search::budget::Budget;
    pub use crate::search::outcome::Outcome;
}
