//! `gaps-engine`: a pure, exact engine for the solitaire card game Gaps (Montana).
//!
//! Rules and notation are those of docs/notation.md; the search follows
//! Helmstetter & Cazenave (2003, 2004). The crate does no I/O, no logging and keeps no
//! global mutable state: randomness comes only from explicit seeds, tables are owned by
//! their [`Solver`], and limits are passed in as a [`Budget`](search::budget::Budget).
//!
//! ```
//! use gaps_engine::{deal, Layout, Solver, SolveOptions, Verdict};
//! let start = deal(1, Layout::new(4, 6).unwrap());
//! let report = Solver::with_table_bytes(1 << 20).solve(&start, &SolveOptions::default(), None).unwrap();
//! assert_ne!(report.verdict, Verdict::Unknown);
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod card;
pub mod deal;
pub mod exhaustive;
pub mod moves;
pub mod notation;
pub mod position;
pub mod replay;
pub mod search;
pub mod solve;
pub mod variant;
pub mod zobrist;

pub use card::{Card, Layout, SizeError};
pub use deal::{deal, deal_cards, SplitMix64};
pub use moves::Move;
pub use notation::{format_position, parse_position, ParseError};
pub use position::Position;
pub use replay::{verify_solution, ReplayError};
pub use search::budget::StopReason;
pub use search::dfs::DfsOptions;
pub use search::stats::SearchStats;
pub use solve::{
    resolve_algorithm, Algorithm, SolveError, SolveOptions, SolveReport, Solver, Verdict,
};
pub use variant::Variant;
