//! Counting a reachable space: how many positions a proof of loss must visit.
//!
//! Invariant: the count is exact (every position entered once, by the exhaustive search
//! with an exact visited set of `search::exact`) when `complete` is true; otherwise the
//! search stopped at a limit and the counts are lower bounds.

use crate::position::Position;
use crate::search::budget::{Budget, StopReason};
use crate::search::exact::{self, ExactOptions, ExactSearch, SettledReductions};
use crate::search::stats::SearchStats;
use crate::variant::Variant;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// What to count, within which limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountOptions {
    /// The rules.
    pub variant: Variant,
    /// Most bytes for the visited set.
    pub memory_bytes: usize,
    /// `common`: count only the part before column 0 settles, and the settled positions
    /// one move beyond it (not expanded).
    pub unsettled_only: bool,
    /// Most positions.
    pub max_nodes: Option<u64>,
    /// Most time.
    pub time_limit: Option<Duration>,
    /// Threads sharing one visited set (1: the growing set of one thread).
    pub threads: usize,
}

/// The size of a space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountReport {
    /// Distinct positions entered (the start included).
    pub positions: u64,
    /// Of those, positions whose column 0 holds only Twos (`common`; 0 on `basic`).
    pub settled: u64,
    /// Won positions among them.
    pub wins: u64,
    /// True when every reachable position (of the part asked for) was counted.
    pub complete: bool,
    /// Why the count stopped early.
    pub stopped: Option<StopReason>,
    /// Largest size of the visited set, in bytes.
    pub set_bytes: u64,
    /// All counters of the search.
    pub stats: SearchStats,
}

/// Counts the positions reachable from `start` (see [`CountOptions`]).
pub fn count_reachable(
    start: &Position,
    options: &CountOptions,
    cancel: Option<&AtomicBool>,
) -> CountReport {
    let began = Instant::now();
    let budget = Budget::new(options.max_nodes, options.time_limit, cancel);
    let mut stats = SearchStats::default();
    let exact = ExactOptions {
        complete: true,
        stop_at_settled: options.unsettled_only,
        prune_dead: false,
        shuffle_classes: true,
        settled_table_bytes: 0,
        settled_reductions: SettledReductions::ALL,
        memory_bytes: options.memory_bytes,
    };
    // In complete mode a win does not end the search: only a limit leaves it short, and
    // the search says which even when the outcome is the win it found first.
    let (_, stopped) = exact::search(
        &mut ExactSearch::default(),
        start,
        options.variant,
        exact,
        options.threads,
        &budget,
        &mut stats,
    );
    stats.elapsed = began.elapsed();
    CountReport {
        positions: stats.nodes,
        settled: stats.settled,
        wins: stats.wins,
        complete: stopped.is_none(),
        stopped,
        set_bytes: stats.table_bytes,
        stats,
    }
}
