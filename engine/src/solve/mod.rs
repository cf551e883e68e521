//! The engine's front door: pick an algorithm, run it within limits, check the answer.
//!
//! Invariants:
//! - Every `solvable` report carries a solution that was replayed with
//!   [`verify_solution`] before being returned; a solution that fails the replay is an
//!   engine bug and comes back as [`SolveError::InvalidSolution`], never as a verdict.
//! - `unsolvable` is only reported by exhaustive algorithms that ran to the end.
//! - A [`Solver`] allocates its table once, at construction, and reuses it; the buffers
//!   of hybrid search grow on first use up to the same byte budget and are reused too.
//!   An exact search's set (at most the solve's table budget, or the request's) is
//!   freed when that search ends. So a solver holds at most twice its table budget.
//! - A verdict is `unsolvable` only when the search that produced it ended
//!   [`Outcome::Exhausted`]; searches that only find wins (sampling, suit assignments)
//!   end [`Outcome::NoWin`], which reports `unknown`.
//!
//! This module only chooses and checks: each algorithm's run on the solver's own tables
//! is in `algorithms`, and the `auto` portfolio in `auto`.

mod algorithms;
mod auto;
mod count;
mod names;

pub use auto::{AssignmentCaps, AUTO_ASSIGNMENT_CAPS, AUTO_PROBES};
pub use count::{count_reachable, CountOptions, CountReport};
pub use names::{Algorithm, UnknownAlgorithm, UnknownName, Verdict};

use crate::deal::SplitMix64;
use crate::moves::Move;
use crate::position::Position;
use crate::replay::{verify_solution, ReplayError};
use crate::search::blocks::{BlockSolver, MAX_THREADS};
use crate::search::budget::{Budget, StopReason};
use crate::search::dfs::gaps_game::{BasicGame, CommonGame};
use crate::search::dfs::table::TranspositionTable;
use crate::search::dfs::{DepthFirst, DfsOptions};
use crate::search::exact::ExactSearch;
use crate::search::hybrid::HybridSearch;
use crate::search::outcome::Outcome;
use crate::search::sampling::Sampler;
use crate::search::stats::SearchStats;
use crate::variant::Variant;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::{Duration, Instant};

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
    /// How much of the solver's table this solve may use (`None`: the variant's default,
    /// [`default_table_limit`]).
    pub table_limit: Option<usize>,
    /// Most random probes of `sampling` (`None`: [`DEFAULT_PROBES`]); in `auto` on
    /// `common`, the probes of the sampling phase (`None`: [`AUTO_PROBES`]).
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
            table_limit: None,
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

/// Default transposition-table budget of a solver: 64 MiB.
pub const DEFAULT_TABLE_BYTES: usize = 64 << 20;

/// How much table a solve uses by default. `basic`: 2 MiB, because with incremental
/// transpositions a small table loses little (Helmstetter and Cazenave 2004, Fig. 7)
/// and stays in cache: on 4x13, 2 MiB beats 4 MiB (10,000 deals on two threads: 74-76 s
/// against 80-86 s, for 6% more nodes) and 4 MiB beats 64 MiB (36.4 against 25.5 deals/s
/// on deals 0..199; figures in docs/performance.md).
/// `common`: the whole budget (incremental transpositions only in settled positions,
/// and a table-only search explodes when the table is small).
pub fn default_table_limit(variant: Variant) -> usize {
    match variant {
        Variant::Basic => 2 << 20,
        Variant::Common => usize::MAX,
    }
}

/// Probes of `sampling` when the request names none.
pub const DEFAULT_PROBES: u64 = 1_000_000;

/// What `algorithm` runs on `variant` (`auto` stays `auto` on `common`, where it is a
/// portfolio), or why it cannot run. Lets callers (the service) refuse a request before
/// queueing it.
pub fn resolve_algorithm(algorithm: Algorithm, variant: Variant) -> Result<Algorithm, SolveError> {
    match (algorithm, variant) {
        (Algorithm::Auto, Variant::Basic) | (Algorithm::Dfs, _) => Ok(Algorithm::Dfs),
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

/// Whether an algorithm, as [`resolve_algorithm`] gives it, can use several threads on
/// one solve: `blocks` (parallel block search), `exact` (threads sharing one visited
/// set), `hybrid` (probes on helper threads) and `auto` on `common` (module `auto`;
/// `auto` resolves to `dfs` on `basic`).
pub fn runs_on_threads(resolved: Algorithm) -> bool {
    matches!(
        resolved,
        Algorithm::Blocks | Algorithm::Exact | Algorithm::Hybrid | Algorithm::Auto
    )
}

/// A reusable solver: one per thread. Owns its transposition table, sampler, hybrid
/// search buffers and block search (with its box tables).
pub struct Solver {
    table: TranspositionTable,
    basic: DepthFirst<BasicGame>,
    common: DepthFirst<CommonGame>,
    sampler: Sampler,
    hybrid: HybridSearch,
    blocks: BlockSolver,
    exact: ExactSearch,
}

impl Default for Solver {
    fn default() -> Self {
        Solver::with_table_bytes(DEFAULT_TABLE_BYTES)
    }
}

impl Solver {
    /// A solver whose table uses at most `bytes` bytes (block search's box tables, made
    /// on first use, get the same budget).
    pub fn with_table_bytes(bytes: usize) -> Self {
        let table = TranspositionTable::with_budget(bytes);
        let blocks = BlockSolver::with_table_bytes(table.capacity_bytes());
        Solver {
            table,
            basic: DepthFirst::default(),
            common: DepthFirst::default(),
            sampler: Sampler::default(),
            hybrid: HybridSearch::default(),
            blocks,
            exact: ExactSearch::default(),
        }
    }

    /// The table's budget in bytes.
    pub fn table_bytes(&self) -> usize {
        self.table.capacity_bytes()
    }

    /// Solves `start` under `options`, stopping early if `cancel` becomes true.
    ///
    /// `auto` on `common` is a portfolio (sampling, suit assignments, breadth-first
    /// search with a probe per node, then depth-first search; see [`AUTO_PROBES`] and
    /// [`AUTO_ASSIGNMENT_CAPS`]); the report names the algorithm that gave the verdict.
    pub fn solve(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        cancel: Option<&AtomicBool>,
    ) -> Result<SolveReport, SolveError> {
        self.solve_watched(start, options, cancel, None)
    }

    /// [`Solver::solve`], also storing the number of nodes searched so far in `progress`
    /// about every 1024 nodes (for a caller that shows a running search).
    pub fn solve_watched(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        cancel: Option<&AtomicBool>,
        progress: Option<&AtomicU64>,
    ) -> Result<SolveReport, SolveError> {
        let began = Instant::now();
        let budget =
            Budget::new(options.max_nodes, options.time_limit, cancel).with_progress(progress);
        let resolved = resolve_algorithm(options.algorithm, options.variant)?;
        let parallel = runs_on_threads(resolved);
        if options.threads == 0 || options.threads > MAX_THREADS || !parallel && options.threads > 1
        {
            return Err(SolveError::Threads {
                threads: options.threads,
                algorithm: options.algorithm,
            });
        }
        let mut stats = SearchStats::default();
        let mut rng = SplitMix64::new(options.seed);
        let (outcome, algorithm) = match resolved {
            // Counting the whole space is a depth-first search's job.
            Algorithm::Auto if options.dfs.complete => (
                self.depth_first(start, options, &budget, &mut stats),
                Algorithm::Dfs,
            ),
            Algorithm::Auto => self.auto(start, options, &mut rng, &budget, &mut stats),
            Algorithm::Sampling => {
                let probes = options.probes.unwrap_or(DEFAULT_PROBES);
                let outcome = self.sample(
                    start,
                    options.variant,
                    probes,
                    &mut rng,
                    &budget,
                    &mut stats,
                );
                (outcome, Algorithm::Sampling)
            }
            Algorithm::Hybrid => (
                self.hybrid_search(start, options, &mut rng, &budget, &mut stats),
                Algorithm::Hybrid,
            ),
            Algorithm::Blocks => (
                self.block_search(start, options, &budget, &mut stats),
                Algorithm::Blocks,
            ),
            Algorithm::Assign => (
                self.assignment_search(start, options, None, &budget, &mut stats),
                Algorithm::Assign,
            ),
            Algorithm::Dfs => (
                self.depth_first(start, options, &budget, &mut stats),
                Algorithm::Dfs,
            ),
            Algorithm::Exact => (
                self.exact_search(start, options, &budget, &mut stats),
                Algorithm::Exact,
            ),
        };
        stats.elapsed = began.elapsed();
        let (verdict, solution, stopped) = match outcome {
            Outcome::Won(line) => {
                verify_solution(start, options.variant, &line)
                    .map_err(SolveError::InvalidSolution)?;
                (Verdict::Solvable, line, None)
            }
            Outcome::Exhausted => (Verdict::Unsolvable, Vec::new(), None),
            Outcome::NoWin(reason) | Outcome::Stopped(reason) => {
                (Verdict::Unknown, Vec::new(), Some(reason))
            }
        };
        Ok(SolveReport {
            verdict,
            solution,
            stats,
            algorithm,
            stopped,
            seed: options.seed,
            dfs: algorithms::dfs_used(algorithm, options),
            threads: options.threads,
        })
    }
}
