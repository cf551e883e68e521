//! A reusable block searcher that owns its box tables, as [`crate::Solver`] owns its
//! depth-first table.
//!
//! Invariants: each table is allocated on first use with the solver's byte budget and
//! kept for later searches (cleared, never reallocated, while its size fits); a search
//! uses at most its limit of that budget. Incremental transpositions between faces run
//! on one thread only: each skip must rest on a subtree searched before it, which the
//! threads of a parallel search do not guarantee.

use super::parallel::search_parallel;
use super::search::{BlockOptions, BlockSearch};
use super::shared_table::SharedBoxTable;
use super::table::BoxTable;
use crate::position::Position;
use crate::search::budget::Budget;
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;

/// Block search with its tables (one for a single thread, one shared by the threads of
/// a parallel search), allocated once from a byte budget.
pub struct BlockSolver {
    search: BlockSearch,
    budget_bytes: usize,
    table: Option<BoxTable>,
    shared: Option<SharedBoxTable>,
}

impl BlockSolver {
    /// A block searcher whose box tables use at most `bytes` bytes (allocated on first
    /// use).
    pub fn with_table_bytes(bytes: usize) -> Self {
        BlockSolver {
            search: BlockSearch::default(),
            budget_bytes: bytes,
            table: None,
            shared: None,
        }
    }

    /// Searches `start` on `threads` threads (1 ..= `MAX_THREADS`) with at most
    /// `memory_limit` bytes of the solver's table (`None`: all of it: boxes are what keeps blocks
    /// from overlapping, and with a 4 MiB table one 4x13 deal grew to 885M positions).
    /// `options.transpositions` is honoured on one thread only.
    pub fn search(
        &mut self,
        start: &Position,
        options: BlockOptions,
        threads: usize,
        memory_limit: Option<usize>,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Outcome {
        let limit = memory_limit.unwrap_or(usize::MAX);
        let options = BlockOptions {
            transpositions: options.transpositions && threads == 1,
            ..options
        };
        if threads > 1 {
            let bytes = limit.min(self.budget_bytes);
            let table = match self.shared.take() {
                Some(mut t) if t.capacity_bytes() == SharedBoxTable::size_for(bytes) => {
                    t.clear();
                    t
                }
                _ => SharedBoxTable::with_budget(bytes),
            };
            let mut observers = vec![(); threads];
            let outcome = search_parallel(start, &table, options, budget, stats, &mut observers);
            self.shared = Some(table);
            outcome
        } else {
            let budget_bytes = self.budget_bytes;
            let table = self
                .table
                .get_or_insert_with(|| BoxTable::with_budget(budget_bytes));
            table.clear_with_limit(limit);
            self.search
                .search(start, Some(table), options, budget, stats, &mut ())
        }
    }
}
