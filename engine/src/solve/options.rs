//! What a solve is asked ([`SolveOptions`]), what it answers ([`SolveReport`]), how a
//! request can fail ([`SolveError`]), the defaults of its limits, and which algorithm a
//! request resolves to on a variant.
//!
//! Invariant: [`resolve_algorithm`] is the one place that says which algorithm plays
//! which variant; the solver and the request checks (`limits`) both ask it.

use super::names::{Algorithm, Verdict};
use crate::moves::Move;
use crate::replay::ReplayError;
use crate::search::budget::StopReason;
use crate::search::budget::MAX_THREADS;
use crate::search::dfs::DfsOptions;
use crate::search::stats::SearchStats;
use crate::tuning::BASIC_TABLE_BYTES;
use crate::variant::Variant;
use std::time::Duration;

/// What to run and within which limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveOptions {
    /// The rules.
    pub variant: Variant,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Transposition detectors and complete mode for depth-first search.
    pub dfs: DfsOptions,
    /// Node limit.
    pub max_nodes: Option<u64>,
    /// Time limit.
    pub time_limit: Option<Duration>,
    /// Seed of randomised algorithms (recorded in the report).
    pub seed: u64,
    /// Most bytes this solve's tables and sets may use (the request's `table_mb`): the
    /// depth-first and block tables and breadth-first search's buffers take at most
    /// this much of the solver's table; the exact search's set and settled tables take
    /// this much even beyond it. `None`: the depth-first table takes
    /// [`default_dfs_table_bytes`], the others the solver's table size.
    pub memory_limit: Option<usize>,
    /// Most random probes of `sampling` (`None`:
    /// [`DEFAULT_PROBES`](crate::tuning::DEFAULT_PROBES)); in `auto` on `common`, the
    /// probes of the sampling phase (`None`: [`AUTO_PROBES`](crate::tuning::AUTO_PROBES)).
    pub probes: Option<u64>,
    /// Threads of this one solve (1..=[`MAX_THREADS`]); more than one only for `blocks`
    /// (parallel block search), `exact` (threads sharing one visited set), `hybrid`
    /// (probes on helper threads) and `auto` on `common` (module `auto`).
    pub threads: usize,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            variant: Variant::Basic,
            algorithm: Algorithm::Auto,
            dfs: DfsOptions::default(),
            max_nodes: None,
            time_limit: None,
            seed: 0,
            memory_limit: None,
            probes: None,
            threads: 1,
        }
    }
}

/// The result of one solve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveReport {
    /// The verdict.
    pub verdict: Verdict,
    /// A replayed solution when `verdict` is `Solvable`, else empty.
    pub solution: Vec<Move>,
    /// Search statistics.
    pub stats: SearchStats,
    /// The algorithm that produced the verdict (`auto` resolved to a concrete one).
    pub algorithm: Algorithm,
    /// Why the search stopped early, for `unknown`.
    pub stopped: Option<StopReason>,
    /// The seed used.
    pub seed: u64,
    /// The depth-first options really used (incremental transpositions are off on cyclic
    /// variants, see `search::dfs`).
    pub dfs: DfsOptions,
    /// Threads the search ran on (the request's `threads`).
    pub threads: usize,
    /// For a solve with redeals ([`Solver::solve_with_redeals`](super::Solver)): where
    /// the solution redeals and what the rounds' search found; `None` otherwise.
    pub rounds: Option<super::RoundsReport>,
}

/// A request the engine cannot carry out, or an engine bug caught by the replay check.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum SolveError {
    /// The algorithm exists but not for this variant.
    #[error("algorithm {algorithm} does not support the {variant} variant")]
    UnsupportedVariant {
        /// The algorithm.
        algorithm: Algorithm,
        /// The variant.
        variant: Variant,
    },
    /// The thread count is out of range, or more than one for an algorithm that runs on
    /// one thread.
    #[error("threads must be between 1 and {MAX_THREADS}, and 1 unless the algorithm is blocks, exact, hybrid or auto on common (got {threads} for {algorithm})")]
    Threads {
        /// The requested thread count.
        threads: usize,
        /// The algorithm.
        algorithm: Algorithm,
    },
    /// A found solution did not replay: an engine bug, never returned as a verdict.
    #[error("internal error: solution failed its replay check: {0}")]
    InvalidSolution(ReplayError),
}

/// How much of the solver's table a depth-first search uses when the request sets no
/// [`SolveOptions::memory_limit`]: `basic`, 2 MiB (`tuning::BASIC_TABLE_BYTES`: with
/// incremental transpositions a small table loses little, Helmstetter and Cazenave
/// 2004, Fig. 7, and stays in cache); `common`, the whole budget (incremental
/// transpositions only in settled positions, and a table-only search explodes when the
/// table is small).
pub fn default_dfs_table_bytes(variant: Variant) -> usize {
    match variant {
        Variant::Basic => BASIC_TABLE_BYTES,
        Variant::Common | Variant::Aisleriot => usize::MAX,
    }
}

/// What `algorithm` runs on `variant` (`auto` stays `auto` on `common`, where it is a
/// portfolio), or why it cannot run. Lets callers (the service) refuse a request before
/// queueing it.
pub fn resolve_algorithm(algorithm: Algorithm, variant: Variant) -> Result<Algorithm, SolveError> {
    match (algorithm, variant) {
        // `aisleriot` is searched depth-first only: the other searches' reductions
        // assume `common`'s moves (docs/engine.md, "Aisleriot").
        (Algorithm::Auto, Variant::Aisleriot) => Ok(Algorithm::Dfs),
        (Algorithm::Dfs, _) => Ok(Algorithm::Dfs),
        (algorithm, Variant::Aisleriot) => Err(SolveError::UnsupportedVariant {
            algorithm,
            variant: Variant::Aisleriot,
        }),
        (Algorithm::Auto, Variant::Basic) => Ok(Algorithm::Dfs),
        (Algorithm::Auto, Variant::Common) => Ok(Algorithm::Auto),
        (Algorithm::Sampling, _) => Ok(Algorithm::Sampling),
        (Algorithm::Hybrid, _) => Ok(Algorithm::Hybrid),
        (Algorithm::Blocks, Variant::Basic) => Ok(Algorithm::Blocks),
        (Algorithm::Blocks, Variant::Common) => Err(SolveError::UnsupportedVariant {
            algorithm: Algorithm::Blocks,
            variant: Variant::Common,
        }),
        (Algorithm::Assign, Variant::Common) => Ok(Algorithm::Assign),
        (Algorithm::Exact, _) => Ok(Algorithm::Exact),
        // In `basic` each row's suit is fixed: the only assignment is the game itself.
        (Algorithm::Assign, Variant::Basic) => Err(SolveError::UnsupportedVariant {
            algorithm: Algorithm::Assign,
            variant: Variant::Basic,
        }),
    }
}
