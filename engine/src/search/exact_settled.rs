//! Settled `common` positions decided by depth-first search for the exact search
//! (`ExactOptions::settled_table_bytes`; the argument is in `search::exact`).
//!
//! Invariants: the table is owned here, sized once, and never cleared while the exact
//! search runs; every key in it is a settled position entered by a depth-first search
//! that ended exhausted (a search that won or stopped ends the exact search), so a key
//! found there is a position known lost. `stored` in the statistics counts the exact
//! search's visited set only.

use crate::moves::Move;
use crate::position::Position;
use crate::search::budget::{Budget, StopReason};
use crate::search::dfs::{DepthFirst, DfsOptions};
use crate::search::gaps_game::CommonGame;
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use crate::search::table::TranspositionTable;

/// The depth-first search of settled children and its table of lost settled positions.
pub(crate) struct SettledSearch {
    dfs: DepthFirst<CommonGame>,
    table: TranspositionTable,
}

impl SettledSearch {
    /// A searcher whose table holds at most `bytes`.
    pub fn with_table_bytes(bytes: usize) -> SettledSearch {
        SettledSearch {
            dfs: DepthFirst::default(),
            table: TranspositionTable::with_budget(bytes),
        }
    }

    /// Bytes of the table in use.
    pub fn table_bytes(&self) -> usize {
        self.table.active_bytes()
    }

    /// Decides a settled root: the whole exact search is this one depth-first search.
    /// Returns the outcome and the limit that stopped it, as the exact searches do.
    pub fn decide_root(
        &mut self,
        start: &Position,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (Outcome, Option<StopReason>) {
        match self.decide(start, budget, stats) {
            Ok(None) => (Outcome::Exhausted, None),
            Ok(Some(line)) => (Outcome::Won(line), None),
            Err(reason) => (Outcome::Stopped(reason), Some(reason)),
        }
    }

    /// Decides the settled `child`: `Ok(None)` if it is lost (or known lost),
    /// `Ok(Some(line))` if it is won (the line from `child`), else the limit that
    /// stopped the search.
    pub fn decide(
        &mut self,
        child: &Position,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Result<Option<Vec<Move>>, StopReason> {
        // The depth-first search adds its table's totals since the last clear to
        // `stored`, `replaced` and `table_bytes`; here `stored` counts the visited set's
        // keys only, this table is never cleared (count the entries it lost since the
        // last search) and `run` sets `table_bytes` for the whole memory.
        let before = (stats.stored, stats.replaced, stats.table_bytes);
        let replaced = self.table.replaced();
        if self.table.probe_or_insert(child.key()) {
            stats.tt_hits += 1;
            return Ok(None);
        }
        let mut game = CommonGame::new(*child);
        let options = DfsOptions::default();
        let outcome = self
            .dfs
            .search(&mut game, Some(&mut self.table), options, budget, stats);
        stats.stored = before.0;
        stats.replaced = before.1 + (self.table.replaced() - replaced);
        stats.table_bytes = before.2;
        match outcome {
            Outcome::Exhausted => Ok(None),
            Outcome::Won(line) => Ok(Some(line)),
            Outcome::Stopped(reason) => Err(reason),
            Outcome::NoWin(reason) => unreachable!("a depth-first search ended NoWin({reason:?})"),
        }
    }
}
