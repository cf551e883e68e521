//! The engine's front door: pick an algorithm, run it within limits, check the answer.
//!
//! Invariants:
//! - Every `solvable` report carries a solution that was replayed with
//!   [`verify_solution`](crate::verify_solution) before being returned; a solution that
//!   fails the replay is an engine bug and comes back as
//!   [`SolveError::InvalidSolution`], never as a verdict.
//! - `unsolvable` is only reported by exhaustive algorithms that ran to the end.
//! - A [`Solver`] allocates its table once, at construction, and reuses it; the buffers
//!   of hybrid search grow on first use up to the solve's memory limit (else the table
//!   size) and are reused too. An exact search's set and tables (at most the solve's
//!   memory limit, else the table size) are freed when that search ends, and buffers
//!   grown beyond the table size when the solve ends. So a solver holds at most its
//!   table and one solve's memory limit while it solves, and twice its table between
//!   solves.
//! - A verdict is `unsolvable` only when the search that produced it ended
//!   [`Outcome::Exhausted`](crate::search::outcome::Outcome::Exhausted); searches that
//!   only find wins (sampling, suit assignments) end
//!   [`Outcome::NoWin`](crate::search::outcome::Outcome::NoWin), which reports `unknown`.
//!
//! This module only chooses and checks: each algorithm's run on the solver's own tables
//! is in `algorithms`, and the `auto` portfolio in `auto`.
//!
//! The files, bottom up: `names` (verdicts, algorithms, stop reasons as text),
//! `options` (request, report, errors, defaults), `limits` (each limit's range and the
//! rules that tie limits to algorithms), `sizing` (the memory of a solve that names
//! none), `solver` (the dispatch and the replay check), `algorithms` (each algorithm on
//! the solver's tables), `auto` (the portfolio), `rounds` (a search over rounds, with
//! redeals) and `count` (reachable-space counts).

mod algorithms;
mod auto;
mod count;
mod limits;
mod names;
mod options;
mod rounds;
mod sizing;
mod solver;

pub use count::{count_reachable, CountOptions, CountReport};
pub use limits::{check_request, runs_on_threads, Limit, OptionError, MAX_TABLE_MB};
pub use names::{Algorithm, UnknownAlgorithm, UnknownName, Verdict};
pub use options::{
    default_dfs_table_bytes, resolve_algorithm, SolveError, SolveOptions, SolveReport,
};
pub use rounds::RoundsReport;
pub use sizing::{sized_memory, sizes_memory, MIN_SIZED_BYTES};
pub use solver::{SolveControls, Solver};
