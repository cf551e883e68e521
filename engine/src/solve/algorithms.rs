//! Each algorithm run on the solver's own tables and buffers, with the limits of one
//! solve: the parts [`Solver::solve`](super::Solver::solve) dispatches to.
//!
//! Invariants: a depth-first search clears the table (limited to the solve's share)
//! before it starts; suit assignments each clear it too and search with the `basic`
//! rules under the renamed suits, and a win is renamed back before it is returned;
//! nothing here reports a verdict: the caller replays every won line first.

use super::{default_dfs_table_bytes, Algorithm, SolveOptions, Solver};
use crate::deal::SplitMix64;
use crate::moves::Move;
use crate::position::Position;
use crate::search::assign::{assignments, AssignmentCaps};
use crate::search::blocks::BlockOptions;
use crate::search::budget::{Budget, StopReason};
use crate::search::dfs::gaps_game::{AisleriotGame, BasicGame, CommonGame, GapsGame, Rules};
use crate::search::dfs::table::TranspositionTable;
use crate::search::dfs::{DepthFirst, DfsOptions};
use crate::search::exact::{self, ExactOptions, ExactSearch, SettledReductions};
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use crate::tuning::{LONG_SEARCH, SETTLED_TABLE_MAX, SETTLED_TABLE_MAX_LONG, SETTLED_TABLE_SHARE};
use crate::variant::Variant;
use std::sync::atomic::AtomicBool;

/// The bytes of the solver's table a depth-first search under `variant`'s rules uses:
/// the request's memory limit, or the variant's default.
fn dfs_table_bytes(options: &SolveOptions, variant: Variant) -> usize {
    options
        .memory_limit
        .unwrap_or_else(|| default_dfs_table_bytes(variant))
}

/// The depth-first options of the `basic` searches of suit assignments: a verdict
/// search (a complete count would answer another question).
fn assignment_dfs(options: DfsOptions) -> DfsOptions {
    DfsOptions {
        complete: false,
        ..options
    }
}

/// Bytes for the settled positions' tables of an exact search on `threads` threads
/// with `memory_bytes` in all (split equally between the threads), `long` if it has
/// more than [`LONG_SEARCH`] to run.
fn settled_tables_budget(memory_bytes: usize, threads: usize, long: bool) -> usize {
    let per_thread = if long {
        SETTLED_TABLE_MAX_LONG
    } else {
        SETTLED_TABLE_MAX
    };
    (memory_bytes / SETTLED_TABLE_SHARE).min(per_thread.saturating_mul(threads.max(1)))
}

/// The depth-first options a search of `variant` really uses.
fn effective_dfs(options: DfsOptions, variant: Variant) -> DfsOptions {
    match variant {
        Variant::Basic => options.effective::<BasicGame>(),
        Variant::Common => options.effective::<CommonGame>(),
        Variant::Aisleriot => options.effective::<AisleriotGame>(),
    }
}

/// The depth-first options that the algorithm which gave the verdict really used
/// (incremental transpositions are off on cyclic variants; suit assignments search
/// `basic` games to a verdict).
pub(super) fn dfs_used(algorithm: Algorithm, options: &SolveOptions) -> DfsOptions {
    match algorithm {
        Algorithm::Assign => effective_dfs(assignment_dfs(options.dfs), Variant::Basic),
        _ => effective_dfs(options.dfs, options.variant),
    }
}

/// Runs `search` from `start` under the rules `R`.
fn run_dfs<R: Rules>(
    search: &mut DepthFirst<GapsGame<R>>,
    start: &Position,
    table: &mut TranspositionTable,
    options: DfsOptions,
    budget: &Budget,
    stats: &mut SearchStats,
) -> Outcome<Move> {
    let mut game = GapsGame::<R>::new(*start);
    search.search(&mut game, Some(table), options, budget, stats)
}

/// [`Solver::exact_search`] on `searcher` alone (so that another thread may use the
/// rest of the solver meanwhile), for a solver whose table has `table_bytes`.
/// `late`: the last of `options.threads` threads (two or more) waits for this gate
/// before it joins the search (`exact::search_joined`).
pub(super) fn run_exact(
    searcher: &mut ExactSearch,
    table_bytes: usize,
    start: &Position,
    options: &SolveOptions,
    late: Option<&AtomicBool>,
    budget: &Budget,
    stats: &mut SearchStats,
) -> Outcome {
    let memory_bytes = options.memory_limit.unwrap_or(table_bytes);
    let exact = ExactOptions {
        complete: options.dfs.complete,
        stop_at_settled: false,
        prune_dead: options.dfs.prune_dead,
        // Two-shuffle classes are a reduction too: `dfs.reduce` off turns them off with
        // the stubborn sets, so that a loss can be checked by a search without either.
        shuffle_classes: options.dfs.reduce,
        // Settled positions by depth-first search with a table (verdicts on `common`),
        // unless the table is turned off (`dfs.table`).
        settled_table_bytes: if options.dfs.table {
            let long = budget.time_left().is_none_or(|left| left > LONG_SEARCH);
            settled_tables_budget(memory_bytes, options.threads, long)
        } else {
            0
        },
        settled_reductions: SettledReductions {
            stubborn: options.dfs.reduce,
            incremental: options.dfs.incremental,
            // A cut like the stubborn sets: `--no-reduce` turns it off with them.
            dead_roots: options.dfs.reduce,
            // Sharing a board's search among its assignments changes what is searched
            // together, not what is decided: `--no-reduce` searches each alone.
            joint: options.dfs.reduce,
        },
        memory_bytes,
    };
    match late {
        Some(gate) if options.threads > 1 => exact::search_joined(
            start,
            options.variant,
            exact,
            options.threads,
            1,
            gate,
            budget,
            stats,
        ),
        _ => exact::search(
            searcher,
            start,
            options.variant,
            exact,
            options.threads,
            budget,
            stats,
        ),
    }
    .0
}

impl Solver {
    /// Exact depth-first search with the table, limited to the solve's share.
    pub(super) fn depth_first(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Outcome {
        self.table
            .clear_with_limit(dfs_table_bytes(options, options.variant));
        let table = &mut self.table;
        match options.variant {
            Variant::Basic => run_dfs(&mut self.basic, start, table, options.dfs, budget, stats),
            Variant::Common => run_dfs(&mut self.common, start, table, options.dfs, budget, stats),
            Variant::Aisleriot => run_dfs(
                &mut self.aisleriot,
                start,
                table,
                options.dfs,
                budget,
                stats,
            ),
        }
    }

    /// Iterative sampling: at most `probes` random probes.
    pub(super) fn sample(
        &mut self,
        start: &Position,
        variant: Variant,
        probes: u64,
        rng: &mut SplitMix64,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Outcome {
        self.sampler.run(start, variant, probes, rng, budget, stats)
    }

    /// Breadth-first search with a probe per node, storing as many positions as the
    /// solve's memory limit pays for (else the solver's table size): its buffers are
    /// its own, beside the table.
    pub(super) fn hybrid_search(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        rng: &mut SplitMix64,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Outcome {
        let bytes = options.memory_limit.unwrap_or(self.table.capacity_bytes());
        self.hybrid.run(
            start,
            options.variant,
            bytes,
            options.threads,
            rng,
            budget,
            stats,
        )
    }

    /// Exhaustive search with an exact visited set of at most the solve's memory limit
    /// (else the solver's table size): memory for a verdict on any space that fits, the
    /// stop `memory_limit` otherwise. On several threads they
    /// share one set of that budget.
    pub(super) fn exact_search(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Outcome {
        let table_bytes = self.table.capacity_bytes();
        run_exact(
            &mut self.exact,
            table_bytes,
            start,
            options,
            None,
            budget,
            stats,
        )
    }

    /// Block search (`basic`) on the block solver's own box tables.
    pub(super) fn block_search(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Outcome {
        let block_options = BlockOptions {
            complete: options.dfs.complete,
            table: options.dfs.table,
            first_face: 0,
            transpositions: options.dfs.incremental,
        };
        self.blocks.search(
            start,
            block_options,
            options.threads,
            options.memory_limit,
            budget,
            stats,
        )
    }

    /// The `basic` search of `start` under each suit assignment in turn
    /// (`search::assign`), within `caps` if given; the first win, renamed back, is the
    /// answer. Ends [`Outcome::NoWin`] when every assignment is lost
    /// (`assignments_lost`) or a cap cut one short (`node_limit`).
    pub(super) fn assignment_search(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        caps: Option<AssignmentCaps>,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Outcome {
        let phase_end = caps.map(|c| stats.nodes.saturating_add(c.total));
        let dfs = assignment_dfs(options.dfs);
        let mut capped = false;
        for assignment in assignments(start) {
            if phase_end.is_some_and(|end| stats.nodes >= end) {
                capped = true;
                break;
            }
            let renamed = assignment.rename(start);
            self.table
                .clear_with_limit(dfs_table_bytes(options, Variant::Basic));
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
            );
            match outcome {
                Outcome::Won(line) => return Outcome::Won(assignment.line_back(start, &line)),
                Outcome::Exhausted | Outcome::NoWin(_) => {}
                Outcome::Stopped(reason) => {
                    if budget.exhausted(stats.nodes).is_some() {
                        return Outcome::Stopped(reason);
                    }
                    capped = true;
                }
            }
        }
        Outcome::NoWin(if capped {
            StopReason::NodeLimit
        } else {
            StopReason::AssignmentsLost
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settled_tables_take_a_quarter_up_to_a_cap_a_thread() {
        const MIB: usize = 1 << 20;
        for long in [false, true] {
            assert_eq!(settled_tables_budget(128 * MIB, 1, long), 32 * MIB);
            assert_eq!(settled_tables_budget(256 * MIB, 2, long), 64 * MIB);
        }
        assert_eq!(settled_tables_budget(16 << 30, 1, false), 64 * MIB);
        assert_eq!(settled_tables_budget(16 << 30, 2, false), 128 * MIB);
        assert_eq!(settled_tables_budget(16 << 30, 0, false), 64 * MIB);
        assert_eq!(settled_tables_budget(16 << 30, 2, true), 1056 * MIB);
        assert_eq!(settled_tables_budget(1 << 30, 2, true), 256 * MIB);
    }
}
