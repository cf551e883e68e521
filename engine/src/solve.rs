//! The engine's front door: pick an algorithm, run it within limits, check the answer.
//!
//! Invariants:
//! - Every `solvable` report carries a solution that was replayed with
//!   [`verify_solution`] before being returned; a solution that fails the replay is an
//!   engine bug and comes back as [`SolveError::InvalidSolution`], never as a verdict.
//! - `unsolvable` is only reported by exhaustive algorithms that ran to the end.
//! - A [`Solver`] allocates its table once, at construction, and reuses it; the buffers
//!   of hybrid search grow on first use up to the same byte budget and are reused too,
//!   so a solver holds at most twice its table budget.
//! - `auto` on `common` runs sampling, then suit assignments, then hybrid, then
//!   depth-first search; a verdict is only ever `unsolvable` from an exhausted hybrid or
//!   depth-first search (sampling and assignments only find wins).

mod names;
pub use names::{Algorithm, UnknownAlgorithm, Verdict};

use crate::deal::SplitMix64;
use crate::moves::Move;
use crate::position::Position;
use crate::replay::{verify_solution, ReplayError};
use crate::search::assign::assignments;
use crate::search::blocks::parallel::{search_parallel, MAX_THREADS};
use crate::search::blocks::shared_table::SharedBoxTable;
use crate::search::blocks::table::BoxTable;
use crate::search::blocks::{BlockOptions, BlockOutcome, BlockSearch};
use crate::search::budget::{Budget, StopReason};
use crate::search::dfs::{DepthFirst, DfsOptions, DfsOutcome};
use crate::search::gaps_game::{BasicGame, CommonGame, GapsGame, Rules};
use crate::search::hybrid::{HybridOutcome, HybridSearch};
use crate::search::sampling::{Sampler, SamplingOutcome};
use crate::search::stats::SearchStats;
use crate::search::table::TranspositionTable;
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
    /// (parallel block search, `search::blocks::parallel`).
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
    #[error("threads must be between 1 and {MAX_THREADS}, and 1 unless the algorithm is blocks (got {threads} for {algorithm})")]
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
/// transpositions a small table loses little (Helmstetter and Cazenave 2004, Fig. 7) and stays in cache:
/// measured on 4x13 deals 0..199, one core, 4 MiB ran 36.4 deals/s against 25.5 with
/// 64 MiB, for 5% more nodes (session 4); since session 7's one-bucket table, 2 MiB
/// beats 4 MiB (10,000 deals on two threads: 74-76 s against 80-86 s, 6% more nodes).
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

/// Probes of the sampling phase of `auto` on `common` when the request names none.
pub const AUTO_PROBES: u64 = 100_000;

/// Node limits of a suit-assignment search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AssignmentCaps {
    /// Most nodes for one assignment.
    pub per_assignment: u64,
    /// Most nodes for all of them.
    pub total: u64,
}

/// The assignment phase of `auto` on `common`: on 4x13 deals 0..99 an uncapped search
/// of all 24 assignments took a median 0.6M nodes and at most 25M; these caps keep the
/// phase under about two seconds, leaving the rest to breadth-first search.
pub const AUTO_ASSIGNMENT_CAPS: AssignmentCaps = AssignmentCaps {
    per_assignment: 1 << 20,
    total: 24 << 20,
};

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
        // In `basic` each row's suit is fixed: the only assignment is the game itself.
        (Algorithm::Assign, Variant::Basic) => Err(SolveError::UnsupportedVariant {
            algorithm: Algorithm::Assign,
            variant: Variant::Basic,
        }),
    }
}

/// The table budget of a depth-first search under `variant`'s rules: the request's, or
/// the variant's default.
fn table_limit(options: &SolveOptions, variant: Variant) -> usize {
    options
        .table_limit
        .unwrap_or_else(|| default_table_limit(variant))
}

/// The depth-first options of the `basic` searches of suit assignments: a verdict
/// search (a complete count would answer another question).
fn assignment_dfs(options: DfsOptions) -> DfsOptions {
    DfsOptions {
        complete: false,
        ..options
    }
}

/// The depth-first options a search of `variant` really uses.
fn effective_dfs(options: DfsOptions, variant: Variant) -> DfsOptions {
    match variant {
        Variant::Basic => options.effective::<BasicGame>(),
        Variant::Common => options.effective::<CommonGame>(),
    }
}

/// Runs `search` from `start` and returns the outcome and the options really used.
fn run_dfs<R: Rules>(
    search: &mut DepthFirst<GapsGame<R>>,
    start: &Position,
    table: &mut TranspositionTable,
    options: DfsOptions,
    budget: &Budget,
    stats: &mut SearchStats,
) -> (DfsOutcome<Move>, DfsOptions) {
    let mut game = GapsGame::<R>::new(*start);
    let outcome = search.search(&mut game, Some(table), options, budget, stats);
    (outcome, options.effective::<GapsGame<R>>())
}

/// A reusable solver: one per thread. Owns its transposition table, sampler and hybrid
/// search buffers.
pub struct Solver {
    table: TranspositionTable,
    basic: DepthFirst<BasicGame>,
    common: DepthFirst<CommonGame>,
    sampler: Sampler,
    hybrid: HybridSearch,
    blocks: BlockSearch,
    /// The box table of block search, allocated on its first use with the same budget
    /// as `table`.
    box_table: Option<BoxTable>,
    /// The box table of parallel block search (`threads > 1`), kept while its size fits.
    shared_box_table: Option<SharedBoxTable>,
}

impl Default for Solver {
    fn default() -> Self {
        Solver::with_table_bytes(DEFAULT_TABLE_BYTES)
    }
}

/// What one algorithm concluded, before the replay check.
enum Found {
    Won(Vec<Move>),
    Lost,
    /// Finished without a verdict (sampling, assignments): nothing proven.
    Open(StopReason),
    Stopped(StopReason),
}

impl Solver {
    /// A solver whose table uses at most `bytes` bytes.
    pub fn with_table_bytes(bytes: usize) -> Self {
        Solver {
            table: TranspositionTable::with_budget(bytes),
            basic: DepthFirst::default(),
            common: DepthFirst::default(),
            sampler: Sampler::default(),
            hybrid: HybridSearch::default(),
            blocks: BlockSearch::default(),
            box_table: None,
            shared_box_table: None,
        }
    }

    /// The table's budget in bytes.
    pub fn table_bytes(&self) -> usize {
        self.table.capacity_bytes()
    }

    /// Solves `start` under `options`, stopping early if `cancel` becomes true.
    ///
    /// `auto` on `common` is a portfolio: iterative sampling first (wins are frequent
    /// and sampling finds them fast), then the `basic` search under each suit assignment
    /// (within [`AUTO_ASSIGNMENT_CAPS`]; it finds wins whose random probes are rare),
    /// then breadth-first search with a probe per node (which also proves small spaces
    /// lost), and if that fills its memory, the exact depth-first search with the rest
    /// of the limits; the report names the algorithm that gave the verdict.
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
        let parallel = resolved == Algorithm::Blocks;
        if options.threads == 0 || options.threads > MAX_THREADS || !parallel && options.threads > 1
        {
            return Err(SolveError::Threads {
                threads: options.threads,
                algorithm: options.algorithm,
            });
        }
        let plan = match resolved {
            // Counting the whole space is a depth-first search's job.
            Algorithm::Auto if options.dfs.complete => Algorithm::Dfs,
            plan => plan,
        };
        let mut stats = SearchStats::default();
        let mut dfs_used = effective_dfs(options.dfs, options.variant);
        let mut rng = SplitMix64::new(options.seed);
        let (found, algorithm) = match plan {
            Algorithm::Sampling => {
                let probes = options.probes.unwrap_or(DEFAULT_PROBES);
                let found = self.sample(
                    start,
                    options.variant,
                    probes,
                    &mut rng,
                    &budget,
                    &mut stats,
                );
                (found, Algorithm::Sampling)
            }
            Algorithm::Hybrid => {
                let found = self.hybrid_search(start, options, &mut rng, &budget, &mut stats);
                (found, Algorithm::Hybrid)
            }
            Algorithm::Blocks => {
                let found = self.block_search(start, options, &budget, &mut stats);
                (found, Algorithm::Blocks)
            }
            Algorithm::Assign => {
                let (found, used) =
                    self.assignment_search(start, options, None, &budget, &mut stats);
                dfs_used = used;
                (found, Algorithm::Assign)
            }
            Algorithm::Auto => {
                let probes = options.probes.unwrap_or(AUTO_PROBES);
                let sampled = self.sample(
                    start,
                    options.variant,
                    probes,
                    &mut rng,
                    &budget,
                    &mut stats,
                );
                let caps = Some(AUTO_ASSIGNMENT_CAPS);
                if !matches!(sampled, Found::Open(_)) {
                    (sampled, Algorithm::Sampling)
                } else {
                    match self.assignment_search(start, options, caps, &budget, &mut stats) {
                        (Found::Open(_), _) => {
                            match self.hybrid_search(start, options, &mut rng, &budget, &mut stats)
                            {
                                Found::Stopped(StopReason::MemoryLimit) => {
                                    let (found, used) =
                                        self.depth_first(start, options, &budget, &mut stats);
                                    dfs_used = used;
                                    (found, Algorithm::Dfs)
                                }
                                other => (other, Algorithm::Hybrid),
                            }
                        }
                        (assigned, used) => {
                            dfs_used = used;
                            (assigned, Algorithm::Assign)
                        }
                    }
                }
            }
            _ => {
                let (found, used) = self.depth_first(start, options, &budget, &mut stats);
                dfs_used = used;
                (found, Algorithm::Dfs)
            }
        };
        stats.elapsed = began.elapsed();
        let (verdict, solution, stopped) = match found {
            Found::Won(line) => {
                verify_solution(start, options.variant, &line)
                    .map_err(SolveError::InvalidSolution)?;
                (Verdict::Solvable, line, None)
            }
            Found::Lost => (Verdict::Unsolvable, Vec::new(), None),
            Found::Open(reason) => (Verdict::Unknown, Vec::new(), Some(reason)),
            Found::Stopped(reason) => (Verdict::Unknown, Vec::new(), Some(reason)),
        };
        Ok(SolveReport {
            verdict,
            solution,
            stats,
            algorithm,
            stopped,
            seed: options.seed,
            dfs: dfs_used,
        })
    }

    /// Breadth-first search with a probe per node, storing as many positions as the
    /// table budget of this solve pays for.
    fn hybrid_search(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        rng: &mut SplitMix64,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Found {
        let bytes = options
            .table_limit
            .unwrap_or(self.table.capacity_bytes())
            .min(self.table.capacity_bytes());
        match self
            .hybrid
            .run(start, options.variant, bytes, rng, budget, stats)
        {
            HybridOutcome::Won(line) => Found::Won(line),
            HybridOutcome::Lost => Found::Lost,
            HybridOutcome::Stopped(reason) => Found::Stopped(reason),
        }
    }

    /// Block search (`basic`), with the box table limited like the depth-first table.
    fn block_search(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Found {
        let budget_bytes = self.table.capacity_bytes();
        // The whole budget by default: boxes are what keeps blocks from overlapping,
        // and with a 4 MiB table one 4x13 deal grew to 885M positions.
        let limit = options.table_limit.unwrap_or(usize::MAX);
        let block_options = BlockOptions {
            complete: options.dfs.complete,
            table: options.dfs.table,
            first_face: 0,
            transpositions: options.dfs.incremental && options.threads == 1,
        };
        let outcome = if options.threads > 1 {
            let bytes = limit.min(budget_bytes);
            let table = match self.shared_box_table.take() {
                Some(mut t) if t.capacity_bytes() == SharedBoxTable::size_for(bytes) => {
                    t.clear();
                    t
                }
                _ => SharedBoxTable::with_budget(bytes),
            };
            let mut observers = vec![(); options.threads];
            let outcome =
                search_parallel(start, &table, block_options, budget, stats, &mut observers);
            self.shared_box_table = Some(table);
            outcome
        } else {
            let table = self
                .box_table
                .get_or_insert_with(|| BoxTable::with_budget(budget_bytes));
            table.clear_with_limit(limit);
            self.blocks
                .search(start, Some(table), block_options, budget, stats, &mut ())
        };
        match outcome {
            BlockOutcome::Won(line) => Found::Won(line),
            BlockOutcome::Exhausted => Found::Lost,
            BlockOutcome::Stopped(reason) => Found::Stopped(reason),
        }
    }

    /// The `basic` search of `start` under each suit assignment in turn
    /// (`search::assign`), within `caps` if given; the first win, renamed back and
    /// replayed on `start`, is the answer. Also returns the depth-first options used.
    fn assignment_search(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        caps: Option<AssignmentCaps>,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (Found, DfsOptions) {
        let phase_end = caps.map(|c| stats.nodes.saturating_add(c.total));
        let dfs = assignment_dfs(options.dfs);
        let used = effective_dfs(dfs, Variant::Basic);
        let mut capped = false;
        for assignment in assignments(start) {
            if phase_end.is_some_and(|end| stats.nodes >= end) {
                capped = true;
                break;
            }
            let renamed = assignment.rename(start);
            self.table
                .clear_with_limit(table_limit(options, Variant::Basic));
            let cap = caps.zip(phase_end).map(|(c, end)| {
                budget.capped(stats.nodes.saturating_add(c.per_assignment).min(end))
            });
            let outcome = run_dfs(
                &mut self.basic,
                &renamed,
                &mut self.table,
                dfs,
                cap.as_ref().unwrap_or(budget),
                stats,
            )
            .0;
            match outcome {
                DfsOutcome::Won(line) => {
                    return (Found::Won(assignment.line_back(start, &line)), used)
                }
                DfsOutcome::Exhausted => {}
                DfsOutcome::Stopped(reason) => {
                    if budget.exhausted(stats.nodes).is_some() {
                        return (Found::Stopped(reason), used);
                    }
                    capped = true;
                }
            }
        }
        let reason = if capped {
            StopReason::NodeLimit
        } else {
            StopReason::AssignmentsLost
        };
        (Found::Open(reason), used)
    }

    fn sample(
        &mut self,
        start: &Position,
        variant: Variant,
        probes: u64,
        rng: &mut SplitMix64,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Found {
        match self.sampler.run(start, variant, probes, rng, budget, stats) {
            SamplingOutcome::Won { line, .. } => Found::Won(line),
            SamplingOutcome::NoWin => Found::Open(StopReason::ProbeLimit),
            SamplingOutcome::Stopped(reason) => Found::Stopped(reason),
        }
    }

    fn depth_first(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (Found, DfsOptions) {
        self.table
            .clear_with_limit(table_limit(options, options.variant));
        let table = &mut self.table;
        let (outcome, used) = match options.variant {
            Variant::Basic => run_dfs(&mut self.basic, start, table, options.dfs, budget, stats),
            Variant::Common => run_dfs(&mut self.common, start, table, options.dfs, budget, stats),
        };
        let found = match outcome {
            DfsOutcome::Won(line) => Found::Won(line),
            DfsOutcome::Exhausted => Found::Lost,
            DfsOutcome::Stopped(reason) => Found::Stopped(reason),
        };
        (found, used)
    }
}
