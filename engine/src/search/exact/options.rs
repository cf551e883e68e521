//! What an exact search is asked to do ([`ExactOptions`], [`SettledReductions`]) and
//! which positions it leaves unexpanded: the rules every exact search reads, on one
//! thread or several (the argument that makes them sound is in `super`).
//!
//! Invariant: these functions look at a position and the options only; they decide the
//! same for every search that calls them, so the single-thread and parallel searches
//! enter and expand the same positions.

use crate::moves::Move;
use crate::position::Position;
use crate::search::stats::SearchStats;
use crate::variant::Variant;

/// What to search for and with how much memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactOptions {
    /// Enter every reachable position instead of stopping at the first win.
    pub complete: bool,
    /// Do not expand settled `common` positions (column 0 all Twos): they are counted,
    /// as the frontier of the part of the space before column 0 settles.
    pub stop_at_settled: bool,
    /// Most bytes the visited set may use (peak, while a shard grows).
    pub memory_bytes: usize,
    /// Do not expand dead positions (`position::dead`: a frozen card off its place, so
    /// no win is reachable). A verdict stays exact; a count is then of the live space.
    pub prune_dead: bool,
    /// Store one key for each Two-shuffle class of `common` positions instead of one for
    /// each member (see the module doc).
    pub shuffle_classes: bool,
    /// When nonzero, in a verdict search (not `complete`) on `common`, settled positions
    /// are not stored in the visited set: each is decided by a depth-first search
    /// (stubborn sets, incremental transpositions) with a transposition table of this
    /// many bytes, taken out of `memory_bytes` and kept across those searches (see the
    /// module doc). The parallel search splits it equally between its threads.
    pub settled_table_bytes: usize,
    /// The reductions of those depth-first searches (both on by default; a search
    /// without them checks a loss by other means).
    pub settled_reductions: SettledReductions,
}

impl ExactOptions {
    /// Whether settled positions go to the depth-first search under `variant`.
    pub fn settles_by_dfs(&self, variant: Variant) -> bool {
        self.settled_table_bytes > 0 && !self.complete && variant == Variant::Common
    }

    /// A count of every reachable position in `memory_bytes`: complete, nothing cut,
    /// one key a position. Tests start from it and change what they test.
    #[cfg(test)]
    pub fn counting(memory_bytes: usize) -> ExactOptions {
        ExactOptions {
            complete: true,
            stop_at_settled: false,
            memory_bytes,
            prune_dead: false,
            shuffle_classes: false,
            settled_table_bytes: 0,
            settled_reductions: SettledReductions::ALL,
        }
    }

    /// Bytes of the settled positions' tables under `variant` (all threads together, at
    /// most half the budget; 0 when settled positions are stored); the visited set gets
    /// the rest of `memory_bytes`.
    pub fn settled_share(&self, variant: Variant) -> usize {
        if self.settles_by_dfs(variant) {
            self.settled_table_bytes.min(self.memory_bytes / 2)
        } else {
            0
        }
    }
}

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
    /// The children that share a board (the same settled position but for column 0's
    /// arrangement of Twos) are decided by one joint search (`search::exact::joint`),
    /// whose verdicts per arrangement are remembered by board. Boards of at most four
    /// rows; larger ones are searched one child at a time.
    pub joint: bool,
}

impl SettledReductions {
    /// Every reduction: what verdict searches use.
    pub const ALL: SettledReductions = SettledReductions {
        stubborn: true,
        incremental: true,
        dead_roots: true,
        joint: true,
    };

    /// None: what the tests compare with (`--no-reduce --no-it` builds its own).
    #[cfg(test)]
    pub const NONE: SettledReductions = SettledReductions {
        stubborn: false,
        incremental: false,
        dead_roots: false,
        joint: false,
    };
}

/// Whether `position` is settled under `variant`'s rules: `common` with column 0 all
/// Twos (counted apart, and not expanded when the search stops at settled positions).
#[inline]
pub fn settled(position: &Position, variant: Variant) -> bool {
    variant == Variant::Common && position.column0_all_twos()
}

/// Whether the legal move `m` from the unsettled `position` gives a [`settled`] child
/// under `variant`'s rules, without playing it: the test both searches make before
/// handing a child to the settled search.
#[inline(always)]
pub fn settles(position: &Position, m: Move, variant: Variant) -> bool {
    variant == Variant::Common && position.settles_by(m, position.column0_twos())
}

/// Whether an entered, not won position is left unexpanded: a settled one when the
/// search stops at settled positions, a dead one (counted in `dead_cuts`) when it prunes
/// them. Both searches, on one thread or several, decide through this.
pub fn left_unexpanded(
    position: &Position,
    is_settled: bool,
    variant: Variant,
    options: ExactOptions,
    stats: &mut SearchStats,
) -> bool {
    if is_settled && options.stop_at_settled {
        return true;
    }
    let dead = options.prune_dead && position.is_dead_under(variant);
    stats.dead_cuts += u64::from(dead);
    dead
}
