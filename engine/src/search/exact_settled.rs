//! Settled `common` positions decided by depth-first search for the exact search
//! (`ExactOptions::settled_table_bytes`; the argument is in `search::exact`).
//!
//! Invariants: the table is owned here, sized once, and never cleared while the exact
//! search runs; every key in it is a settled position entered by a depth-first search
//! that ended exhausted (a search that won or stopped ends the exact search), so a key
//! found there is a position known lost. `stored` in the statistics counts the exact
//! search's visited set only.

use crate::moves::{Move, MoveList};
use crate::position::{Position, MAX_MOVES};
use crate::search::budget::{Budget, StopReason};
use crate::search::dfs::{DepthFirst, DfsOptions};
use crate::search::gaps_game::CommonGame;
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use crate::search::table::{Hashed, TranspositionTable};
use crate::zobrist::Key;

/// The reductions and cuts the depth-first searches of settled children use. Each is
/// sound on its own (`search::dfs`, `position::dead`), so any combination decides the
/// same children; turning them off makes a slower search that checks a loss without
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SettledReductions {
    /// Stubborn sets (`DfsOptions::reduce`).
    pub stubborn: bool,
    /// Incremental transpositions (`DfsOptions::incremental`).
    pub incremental: bool,
    /// A settled child that is dead (`Position::is_dead_common`) is lost without a
    /// table lookup or a search. Many settled children of a 4x13 loss are (deal 301:
    /// 3.1M cut, where the search without the test ran 4.8M depth-first searches), and
    /// the test, computed on the position alone, costs less than the cache miss of the
    /// lookup it saves.
    pub dead_roots: bool,
}

impl SettledReductions {
    /// Every reduction: what verdict searches use.
    pub const ALL: SettledReductions = SettledReductions {
        stubborn: true,
        incremental: true,
        dead_roots: true,
    };

    /// None: what the tests compare with (`--no-reduce --no-it` builds its own).
    #[cfg(test)]
    pub const NONE: SettledReductions = SettledReductions {
        stubborn: false,
        incremental: false,
        dead_roots: false,
    };
}

/// The depth-first search of settled children and its table of lost settled positions.
pub(crate) struct SettledSearch {
    dfs: DepthFirst<CommonGame>,
    table: TranspositionTable,
    options: DfsOptions,
    dead_roots: bool,
}

impl SettledSearch {
    /// A searcher whose table holds at most `bytes`, with `reductions`.
    pub fn with_table_bytes(bytes: usize, reductions: SettledReductions) -> SettledSearch {
        SettledSearch {
            dfs: DepthFirst::prefetching_children(),
            table: TranspositionTable::with_budget(bytes),
            dead_roots: reductions.dead_roots,
            options: DfsOptions {
                reduce: reductions.stubborn,
                incremental: reductions.incremental,
                ..DfsOptions::default()
            },
        }
    }

    /// Starts loading the table's bucket for the settled position `key`, which
    /// [`SettledSearch::decide`] will look up next.
    #[inline(always)]
    pub fn prefetch(&self, key: Key) {
        self.table.prefetch(Hashed::new(key));
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

    /// Decides the settled `child`: `Ok(None)` if it is lost (known lost, dead, or
    /// searched and exhausted),
    /// `Ok(Some(line))` if it is won (the line from `child`), else the limit that
    /// stopped the search.
    pub fn decide(
        &mut self,
        child: &Position,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Result<Option<Vec<Move>>, StopReason> {
        // A settled position's Twos never move again (no column-0 gap can open), so the
        // `common` dead test is the `basic` one under the rows' suits: a dead child has
        // no won position below it. Not stored: the test is cheaper than the lookup.
        if self.dead_roots && child.is_dead_common() {
            stats.dead_cuts += 1;
            return Ok(None);
        }
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
        let outcome = self.dfs.search(
            &mut game,
            Some(&mut self.table),
            self.options,
            budget,
            stats,
        );
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

/// Puts the moves of `moves` that settle `position` first and starts loading their
/// table buckets in `settled`; hands every other move to `prefetch_other`, which starts
/// loading the child's slot in the visited set. Returns how many moves it put first
/// (0 without a settled search; at most one: the one Two outside column 0 into its one
/// gap).
/// The settled children are then decided before any other child is searched, while
/// their buckets are still in the cache (a child searched first could evict them). The
/// order of a frame's moves is free: every move is tried whatever the order.
#[inline(always)]
pub(crate) fn settling_moves_first(
    position: &Position,
    moves: &mut MoveList<MAX_MOVES>,
    settled: Option<&SettledSearch>,
    mut prefetch_other: impl FnMut(Move),
) -> usize {
    let Some(settled) = settled else {
        for &m in moves.as_slice() {
            prefetch_other(m);
        }
        return 0;
    };
    let twos = position.column0_twos();
    let mut front = 0;
    let list = moves.as_mut_slice();
    for i in 0..list.len() {
        let m = list[i];
        if position.settles_by(m, twos) {
            settled.prefetch(position.key_after(m));
            list.swap(front, i);
            front += 1;
        } else {
            prefetch_other(m);
        }
    }
    front
}
