//! The small game interface that the generic depth-first search is written against.
//!
//! It is what Helmstetter and Cazenave's (2004) `dfs_it` needs: legal moves, play / unplay, a commutation test
//! and a position key. Implementations are monomorphised into the search, so the Gaps
//! hot path pays nothing for the abstraction, and another one-player game (Morpion
//! Solitaire, the paper's second domain) can reuse the same search.
//!
//! Contract for implementors:
//! - `generate` lists at most 64 entries (the search keeps the incremental-transposition
//!   set as a 64-bit mask over the list); the moves are the entries named by
//!   [`MoveSet::legal`].
//! - [`MoveSet::index_of`]`(t, j)`: where move `t`, entry `j` of a parent's list, stands in
//!   the list of a child reached by a move that commutes with `t`.
//! - `unplay(m)` exactly undoes `play(m)`, key included.
//! - `commute(a, b)` is called with two distinct moves legal in one position and
//!   returns true only if `b` is legal after `a`, `a` is legal after `b`, and both orders
//!   reach the same position (and each move is then found, equal, in the move list).
//! - `ACYCLIC` is true only if no sequence of moves can return to a position.
//! - `settled()` is true only if the positions reachable from the current one (itself
//!   included) are all settled and no cycle passes through any of them: the settled
//!   positions form a region closed under moves and acyclic. It is constant `true` on
//!   acyclic games; `SETTLES` says whether it can be true at all.

use crate::zobrist::Key;

/// A deterministic one-player game for [`super`].
pub trait Game {
    /// A move; equality identifies the same move in a later position.
    type Move: Copy + Eq + Default;
    /// A fixed-capacity list of moves (at most 64 entries).
    type Moves: MoveSet<Self::Move>;
    /// Whether the move graph has no cycles (no path set is then needed).
    const ACYCLIC: bool;
    /// Whether some positions can be settled ([`Game::settled`]).
    const SETTLES: bool = Self::ACYCLIC;

    /// Key of the current position (equal positions have equal keys).
    fn key(&self) -> Key;
    /// The key recomputed from scratch; debug builds compare it with [`Game::key`]
    /// every [`CHECK_INTERVAL`](crate::tuning::CHECK_INTERVAL) nodes.
    fn key_from_scratch(&self) -> Key {
        self.key()
    }
    /// Whether the current position is settled: everything reachable from it is
    /// settled and acyclic (see the module contract). Incremental transpositions and
    /// stubborn sets are used in settled positions only.
    #[inline(always)]
    fn settled(&self) -> bool {
        Self::ACYCLIC
    }
    /// Whether the current position is a goal (goal positions have no moves).
    fn is_won(&self) -> bool;
    /// Fills `out` with the legal moves.
    fn generate(&self, out: &mut Self::Moves);
    /// The key of the position after the legal move `m`, without playing it.
    fn key_after(&self, m: Self::Move) -> Key;
    /// Plays a legal move.
    fn play(&mut self, m: Self::Move);
    /// Undoes the last move `m`.
    fn unplay(&mut self, m: Self::Move);
    /// Whether two moves legal in one position commute (see the module contract).
    fn commute(a: Self::Move, b: Self::Move) -> bool;
    /// Whether no goal is reachable from the current position (a sound but incomplete
    /// test: `false` when unsure). Searches that only want a verdict skip such positions;
    /// `false` (the default) never prunes.
    #[inline(always)]
    fn is_dead(&self) -> bool {
        false
    }
    /// [`Game::is_dead`] of the current position, just reached by `m` from a position
    /// that is not dead: the same answer, possibly found faster (the default asks
    /// [`Game::is_dead`]). From a dead parent it may miss a dead child, but it must
    /// never call a live position dead.
    #[inline(always)]
    fn is_dead_after(&self, m: Self::Move) -> bool {
        let _ = m;
        self.is_dead()
    }
    /// Called on entering the current position (the root included), for games that
    /// remember lost positions themselves: the game may narrow the position to a part
    /// not known lost (a position that stands for several, as a joint search's state
    /// stands for a board under several assignments), and returns `false` if all of it
    /// is known lost, when the search skips it as a table hit. A narrowed position
    /// must stand for a subset of the positions it stood for, and `unplay` of the move
    /// that entered it must undo the narrowing too. The default keeps every position.
    #[inline(always)]
    fn recall(&mut self) -> bool {
        true
    }
    /// Called when the current position, settled, has been searched to the end without
    /// a win (every kept move tried, skipped or cut): the game may remember it lost,
    /// for [`Game::recall`]. Not called in complete mode once a win was found.
    #[inline(always)]
    fn remember_lost(&mut self) {}
    /// Starts loading what [`Game::recall`] will read after the legal move `m`.
    #[inline(always)]
    fn prefetch_recall(&self, m: Self::Move) {
        let _ = m;
    }
    /// A stubborn subset of the legal moves `moves` of the current position, as a bit
    /// mask over the list: every terminal position reachable from here stays reachable
    /// through those moves alone (goals are terminal). Only used in settled positions;
    /// `None` (the default) keeps them all.
    #[inline(always)]
    fn stubborn(&self, moves: &Self::Moves) -> Option<u64> {
        let _ = moves;
        None
    }
}

/// A game's list of moves: at most 64 entries, some of which may be placeholders.
pub trait MoveSet<M: Copy + Eq>: Copy + Default + AsRef<[M]> {
    /// Bit `i` set: entry `i` is a legal move. The default: every entry.
    #[inline(always)]
    fn legal(&self) -> u64 {
        low_bits(self.as_ref().len())
    }
    /// Where the move `t` stands in this list, the list of a child reached by a move
    /// that commutes with `t`, given that `t` was entry `j` of the parent's list (so `t`
    /// is legal here). The default searches the list; lists that keep a commuting
    /// move's index answer `j` at once.
    #[inline(always)]
    fn index_of(&self, t: M, j: usize) -> Option<usize> {
        let _ = j;
        self.as_ref().iter().position(|&x| x == t)
    }
}

/// A mask of the `n` lowest bits (`n <= 64`).
#[inline(always)]
pub fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}
