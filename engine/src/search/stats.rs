//! Statistics of one search.
//!
//! Invariant: `nodes` counts every position entered by a move (plus the root), whether
//! or not a transposition cut it afterwards; `expanded = nodes - tt_hits - path_cuts -
//! wins - dead_cuts` for depth-first search.

use std::time::Duration;

/// Counters filled in by every algorithm (fields it does not use stay 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Positions entered (root included).
    pub nodes: u64,
    /// Positions whose moves were generated and searched.
    pub expanded: u64,
    /// Keys stored in the transposition table.
    pub stored: u64,
    /// Table entries overwritten because its budget was full.
    pub replaced: u64,
    /// Children cut because the table had seen them.
    pub tt_hits: u64,
    /// Moves skipped by incremental transpositions (known to transpose).
    pub it_cuts: u64,
    /// Positions whose moves were cut to a stubborn subset.
    pub reduced: u64,
    /// Positions cut because they were dead: no win reachable (see `Game::is_dead`).
    pub dead_cuts: u64,
    /// Children cut because they were already on the current path (cycles).
    pub path_cuts: u64,
    /// Won positions reached (complete mode counts them all).
    pub wins: u64,
    /// Deepest ply reached.
    pub max_depth: u64,
    /// Bytes of transposition table in use at the end.
    pub table_bytes: u64,
    /// Blocks entered (block search; its `nodes` are the positions of those blocks).
    pub blocks: u64,
    /// Positions entered whose column 0 holds only Twos (`common`, exact search).
    pub settled: u64,
    /// Random probes made (sampling algorithms).
    pub probes: u64,
    /// Keys the exact search's visited set moved to its store when full (they stay in
    /// the set: `search::visited::spill`).
    pub spilled: u64,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl SearchStats {
    /// Adds the counters of `other`, a part of the same search run beside this one (a
    /// thread of a parallel search): counts add up, the deepest ply and the table bytes
    /// take the larger value, the elapsed time is left alone.
    pub fn absorb(&mut self, other: &SearchStats) {
        self.nodes = self.nodes.saturating_add(other.nodes);
        self.expanded += other.expanded;
        self.stored += other.stored;
        self.replaced += other.replaced;
        self.tt_hits += other.tt_hits;
        self.it_cuts += other.it_cuts;
        self.reduced += other.reduced;
        self.dead_cuts += other.dead_cuts;
        self.path_cuts += other.path_cuts;
        self.wins += other.wins;
        self.max_depth = self.max_depth.max(other.max_depth);
        self.table_bytes = self.table_bytes.max(other.table_bytes);
        self.blocks += other.blocks;
        self.probes += other.probes;
        self.settled += other.settled;
        self.spilled += other.spilled;
    }

    /// Nodes per second over the elapsed time.
    pub fn nodes_per_second(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.nodes as f64 / secs
        } else {
            0.0
        }
    }
}
