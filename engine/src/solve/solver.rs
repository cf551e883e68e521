//! The [`Solver`]: one per thread, owning every table and buffer its searches use, and
//! [`Solver::solve`], which checks the request, runs one algorithm within the limits and
//! replays every won line before it reports it.
//!
//! Invariants: see `super` (every `solvable` replayed, `unsolvable` only from an
//! exhaustive search that ended, tables allocated once and reused).

use super::limits::{runs_on_threads, Limit};
use super::names::Algorithm;
use super::names::Verdict;
use super::options::{resolve_algorithm, SolveError, SolveOptions, SolveReport};
use crate::deal::SplitMix64;
use crate::position::Position;
use crate::redeal::Redeals;
use crate::replay::verify_solution;
use crate::search::blocks::BlockSolver;
use crate::search::budget::Budget;
use crate::search::dfs::gaps_game::{AisleriotGame, BasicGame, CommonGame};
use crate::search::dfs::table::TranspositionTable;
use crate::search::dfs::DepthFirst;
use crate::search::exact::ExactSearch;
use crate::search::hybrid::HybridSearch;
use crate::search::outcome::Outcome;
use crate::search::pause::PauseGate;
use crate::search::sampling::Sampler;
use crate::search::stats::SearchStats;
use crate::search::visited::spill::SpillStore;
use crate::tuning::{DEFAULT_PROBES, DEFAULT_TABLE_BYTES};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::time::Instant;

/// How a caller steers a running solve: all optional.
#[derive(Clone, Copy, Debug, Default)]
pub struct SolveControls<'a> {
    /// Raised to stop the solve (it ends `unknown`, stopped `cancelled`).
    pub cancel: Option<&'a AtomicBool>,
    /// Receives the nodes searched so far, about every 1024 nodes.
    pub progress: Option<&'a AtomicU64>,
    /// Parks the solve while paused; the time limit does not count that time.
    pub pause: Option<&'a PauseGate>,
    /// Where an exact search on one thread (a variant's, or a board game's exhaustive
    /// search) moves its full visited set and goes on (`search::visited::spill`); a
    /// [`Solver`] without it uses its own ([`Solver::spill_to`]), if any.
    pub spill: Option<&'a Arc<dyn SpillStore>>,
}

/// A reusable solver: one per thread. Owns its transposition table, sampler, hybrid
/// search buffers and block search (with its box tables).
pub struct Solver {
    pub(super) table: TranspositionTable,
    pub(super) basic: DepthFirst<BasicGame>,
    pub(super) common: DepthFirst<CommonGame>,
    pub(super) aisleriot: DepthFirst<AisleriotGame>,
    pub(super) sampler: Sampler,
    pub(super) hybrid: HybridSearch,
    pub(super) blocks: BlockSolver,
    pub(super) exact: ExactSearch,
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
            aisleriot: DepthFirst::default(),
            sampler: Sampler::default(),
            hybrid: HybridSearch::default(),
            blocks,
            exact: ExactSearch::default(),
        }
    }

    /// From now on, the exact search on one thread moves its visited set's keys to
    /// `store` when the set fills its budget and goes on, instead of stopping at
    /// `memory_limit` (`search::visited::spill`); `None` turns that off. The parallel
    /// exact search (two threads or more) does not spill.
    pub fn spill_to(&mut self, store: Option<Arc<dyn SpillStore>>) {
        self.exact.spill_to(store);
    }

    /// The table's budget in bytes.
    pub fn table_bytes(&self) -> usize {
        self.table.capacity_bytes()
    }

    /// Solves `start` under `options`, stopping early if `cancel` becomes true.
    ///
    /// `auto` on `common` is a portfolio (sampling, suit assignments, breadth-first
    /// search with a probe per node, the exact search, then depth-first search: module
    /// `auto`); the report names the algorithm that gave the verdict.
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
        let controls = SolveControls {
            cancel,
            progress,
            ..SolveControls::default()
        };
        self.solve_controlled(start, options, None, controls)
    }

    /// The one entry every solve goes through: the first round of `start`, or with
    /// `redeals` its rounds (see `rounds`), under `options`, stopped, watched and
    /// paused through `controls`.
    pub fn solve_controlled(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        redeals: Option<&Redeals>,
        controls: SolveControls<'_>,
    ) -> Result<SolveReport, SolveError> {
        let own = controls
            .spill
            .map(|store| self.exact.swap_spill(Some(store.clone())));
        let report = match redeals {
            Some(redeals) => self.solve_rounds(start, options, redeals, controls),
            None => self.solve_first_round(start, options, controls),
        };
        if let Some(own) = own {
            self.exact.swap_spill(own);
        }
        report
    }

    /// The first round of `start` (no redeals).
    pub(super) fn solve_first_round(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        controls: SolveControls<'_>,
    ) -> Result<SolveReport, SolveError> {
        let began = Instant::now();
        let budget = Budget::new(options.max_nodes, options.time_limit, controls.cancel)
            .with_progress(controls.progress)
            .with_pause(controls.pause);
        let resolved = resolve_algorithm(options.algorithm, options.variant)?;
        // The thread rules of the request checks (`limits`), so the two cannot drift.
        let threads = options.threads as u64;
        if Limit::Threads.check(threads, None).is_err() || threads > 1 && !runs_on_threads(resolved)
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
        // Breadth-first buffers grown under a memory limit above the table are the
        // solve's: give them back, so that between solves a solver holds at most twice
        // its table (a service counts that much a thread, and the rest by solve).
        if options
            .memory_limit
            .is_some_and(|limit| limit > self.table.capacity_bytes())
        {
            self.hybrid = HybridSearch::default();
        }
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
            dfs: super::algorithms::dfs_used(algorithm, options),
            threads: options.threads,
            rounds: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Layout;
    use crate::deal::deal;
    use crate::search::dfs::DfsOptions;
    use crate::solve::limits::check_request;
    use crate::variant::Variant;

    #[test]
    fn the_solver_runs_what_the_request_checks_accept_and_names_what_ran() {
        let start = deal(5, Layout::new(3, 4).unwrap());
        let mut solver = Solver::with_table_bytes(1 << 20);
        for variant in Variant::ALL {
            for algorithm in Algorithm::ALL {
                for threads in [1, 2] {
                    let options = SolveOptions {
                        variant,
                        algorithm,
                        threads,
                        max_nodes: Some(200_000),
                        ..SolveOptions::default()
                    };
                    let accepted = check_request(algorithm, variant, None, threads as u64);
                    let report = solver.solve(&start, &options, None);
                    assert_eq!(
                        accepted.is_ok(),
                        report.is_ok(),
                        "{algorithm} on {variant}, {threads} threads: {report:?}"
                    );
                    let (Ok(resolved), Ok(report)) = (accepted, report) else {
                        continue;
                    };
                    assert_eq!(report.threads, threads);
                    // `auto` names the phase that decided; every other algorithm itself.
                    if resolved != Algorithm::Auto {
                        assert_eq!(report.algorithm, resolved, "{algorithm} on {variant}");
                    }
                    if report.verdict == Verdict::Solvable {
                        verify_solution(&start, variant, &report.solution).unwrap();
                    }
                }
            }
        }
    }

    #[test]
    fn a_complete_auto_search_is_a_depth_first_count() {
        let start = deal(2, Layout::new(3, 4).unwrap());
        let options = SolveOptions {
            variant: Variant::Common,
            dfs: DfsOptions {
                complete: true,
                ..DfsOptions::default()
            },
            ..SolveOptions::default()
        };
        let report = Solver::with_table_bytes(1 << 20)
            .solve(&start, &options, None)
            .unwrap();
        assert_eq!(report.algorithm, Algorithm::Dfs);
        assert_ne!(report.verdict, Verdict::Unknown);
    }
}
