//! Depth-first search over any [`Game`], with a transposition table, incremental
//! transpositions (Helmstetter and Cazenave 2004, `dfs_it`), or both, and a path set for cyclic games.
//!
//! Invariants and why they make `unsolvable` exact:
//! - The search is a graph reachability search. A position's key goes into the table
//!   when the position is entered (after its frame is built, so the bucket's cache miss
//!   overlaps that work; a position found there is dropped again). A child is skipped
//!   only if (a) the table holds its key: it was entered before; (b) it is on the
//!   current path; or (c) the move is in the incremental-transposition set `T`, so it
//!   reaches a position that is covered anyway (Helmstetter and Cazenave 2004, 2.2: `T` holds moves whose
//!   child was completely searched, kept for a child only when they commute with the
//!   move to it). `T` is built from the moves already played from the frame, its
//!   table hits and the moves it inherited. A table hit may join `T` because keys are
//!   stored on entry, never earlier: the child was entered before, and in a settled
//!   (acyclic) region it cannot be on the stack, so its search is finished. Were keys
//!   stored when the parent is expanded, a hit could be a child still waiting in a
//!   frame below, and handing such hits on would make positions justify each other's
//!   skips (settled `common` 4x4 deals 155, 181, 186 and 299 then lose 2-3 reachable
//!   positions each in complete mode; the cross-check covers them). Every entered
//!   position has all its kept moves tried before the search ends, so when the root is
//!   exhausted every position reachable from it has been entered: none was won.
//! - A game may remember lost positions itself ([`Game::remember_lost`], called when a
//!   settled frame is popped with no win found: its search ended, so it is lost) and
//!   drop positions known lost on entry ([`Game::recall`]). A dropped child counts as a
//!   table hit and joins `T` like one: it is lost, so every position reachable from
//!   it is lost, the covered ones included.
//! - In settled positions ([`Game::settled`]: everything reachable from them is settled
//!   and acyclic; on acyclic games, every position) the moves may be cut to a stubborn
//!   set ([`Game::stubborn`]): every terminal position reachable from it stays reachable
//!   through the kept moves (Valmari), and goals are terminal, so the previous point
//!   holds for terminal positions, which is all a verdict needs. It composes with (a) and
//!   (c) because their cuts only skip positions whose reachable terminal positions are
//!   found anyway. Left-out moves stay in the frame's list, marked `skip`, so the set `T`
//!   (which may name them) still reaches the children: a left-out `t` in `T` that
//!   commutes with the move played still leads to a covered position.
//! - With cycles a table hit may be a position on the current path, which is being
//!   searched, so (a) stays safe; the path set (b) keeps cyclic games finite even when
//!   table entries are replaced or there is no table.
//! - Incremental transpositions (c) are only used in settled positions, whose
//!   reachable region is closed and acyclic, so the acyclic proof holds there (a frame's
//!   set `T` is only handed to children of settled frames; the first settled frame on a
//!   line starts with an empty one). Their completeness proof needs "the child was
//!   completely searched", which with cycles only holds up to positions still on the
//!   stack; two positions can then each be skipped on the strength of the other. This
//!   happens: plain `common` 3x5 deal 757 loses two reachable positions that way (see
//!   the `it_is_only_used_where_no_cycle_passes` test). A game with no settled positions
//!   ignores the option, and [`DfsOptions::effective`] reports it off.
//! - Settled positions never go on the path set: none of them lies on a cycle.
//! - The stack and move lists are preallocated; no allocation per node.
//! - On return the game is back at the root position.

pub mod game;
pub mod gaps_game;
pub mod path;
pub mod table;

use self::game::{Game, MoveSet};
use self::path::PathSet;
use self::table::{Hashed, TranspositionTable};
use crate::search::budget::Budget;
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use crate::tuning::CHECK_INTERVAL;

/// Which transposition detectors a depth-first search uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DfsOptions {
    /// Use the transposition table.
    pub table: bool,
    /// Use incremental transpositions.
    pub incremental: bool,
    /// Search the whole space instead of stopping at the first win.
    pub complete: bool,
    /// Expand only a stubborn subset of the moves where the game has one
    /// (`Game::stubborn`); settled positions only, and off in complete mode, which
    /// counts the whole space.
    pub reduce: bool,
    /// Skip dead positions (`Game::is_dead`): no win is reachable from them. Off in
    /// complete mode, which counts the whole space. Off by default: on `basic` 4x13 it
    /// cuts 12% of the nodes but makes each node about three times as expensive.
    pub prune_dead: bool,
}

impl DfsOptions {
    /// The options a search of `G` really uses (incremental transpositions need an
    /// acyclic game, see the module invariants).
    pub fn effective<G: Game>(self) -> DfsOptions {
        DfsOptions {
            incremental: self.incremental && G::SETTLES,
            reduce: self.reduce && G::SETTLES && !self.complete,
            prune_dead: self.prune_dead && !self.complete,
            ..self
        }
    }
}

impl Default for DfsOptions {
    fn default() -> Self {
        DfsOptions {
            table: true,
            incremental: true,
            complete: false,
            reduce: true,
            prune_dead: false,
        }
    }
}

struct Frame<G: Game> {
    moves: G::Moves,
    /// Bit `i`: move `i` is searched or known to transpose (the set `T` plus tried moves).
    done: u64,
    /// Bit `i`: move `i` is left out by the stubborn-set reduction. Not searched, and not
    /// in `T` either; kept in the list so that `T` survives reduced positions.
    skip: u64,
    via: G::Move,
    /// The position is settled ([`Game::settled`]): not on the path set, and its set
    /// `T` may be handed to its children.
    settled: bool,
}

/// Reusable depth-first searcher: owns its stack and path set between searches.
pub struct DepthFirst<G: Game> {
    stack: Stack<G>,
    path: PathSet,
    /// Start loading the table buckets of a settled position's children as soon as its
    /// moves are built ([`DepthFirst::prefetching_children`]).
    prefetch_children: bool,
}

/// The frames of the current path: `frames[..depth]`. Frames above `depth` are spare
/// and are overwritten in place when the path grows again, so pushing a frame writes
/// no placeholder move list (its default value, stored and read back at once, stalled
/// store forwarding).
struct Stack<G: Game> {
    frames: Vec<Frame<G>>,
    depth: usize,
    /// The search's `reduce` option (stubborn sets in settled frames).
    reduce: bool,
}

impl<G: Game> Default for DepthFirst<G> {
    fn default() -> Self {
        DepthFirst {
            stack: Stack {
                frames: Vec::with_capacity(512),
                depth: 0,
                reduce: false,
            },
            path: PathSet::default(),
            prefetch_children: false,
        }
    }
}

impl<G: Game> DepthFirst<G> {
    /// A searcher that starts loading the table buckets of a settled position's
    /// children to be tried as soon as its moves are built, before the position's own
    /// lookup, so that the two misses overlap. That pays where a table
    /// far larger than the caches is probed and most children are found there or end
    /// at once, so that they are probed while their lines are still cached: the exact
    /// search's many small searches of settled children (5-11% faster on `common` deals
    /// 24, 56 and 301). A search whose children have large subtrees loses those lines
    /// before it gets to them (the whole `common` search of deal 0 with a 1 GiB table
    /// was about 7% slower), so it is off by default. It never changes what is searched.
    pub fn prefetching_children() -> Self {
        DepthFirst {
            prefetch_children: true,
            ..DepthFirst::default()
        }
    }
}

impl<G: Game> DepthFirst<G> {
    /// Searches from the current position of `game`. `table` must be cleared by the
    /// caller when a fresh search is wanted (it is only used if `options.table`).
    pub fn search(
        &mut self,
        game: &mut G,
        mut table: Option<&mut TranspositionTable>,
        options: DfsOptions,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Outcome<G::Move> {
        let options = options.effective::<G>();
        if !options.table {
            table = None;
        }
        let DepthFirst {
            stack,
            path,
            prefetch_children,
        } = self;
        let prefetch_children = *prefetch_children;
        stack.depth = 0;
        stack.reduce = options.reduce;
        path.clear();
        stats.nodes += 1;
        let mut first_win: Option<Vec<G::Move>> = None;
        if game.is_won() {
            stats.wins += 1;
            return Outcome::Won(Vec::new());
        }
        if !game.recall() {
            stats.tt_hits += 1;
            return Outcome::Exhausted;
        }
        if let Some(t) = table.as_deref_mut() {
            t.probe_or_insert(game.key());
        }
        let settled = game.settled();
        if !settled {
            path.push(game.key());
        }
        stack.push(game, settled, G::Move::default());
        // A position without moves is a leaf either way: no dead test.
        if options.prune_dead && stack.top_has_moves() && game.is_dead() {
            stats.dead_cuts += 1;
            return Outcome::Exhausted;
        }
        stack.count_top(stats);
        if prefetch_children {
            stack.prefetch_children(game, table.as_deref());
        }

        let outcome = loop {
            let top = &mut stack.frames[stack.depth - 1];
            // The first move neither tried, known to transpose nor left out (tried moves
            // are in `done`); a mask instead of a scan, whose exit was mispredicted.
            let open = top.moves.legal() & !(top.done | top.skip);
            if open == 0 {
                let (via, was_settled) = (top.via, top.settled);
                // Searched to the end in an acyclic region: lost (with a cycle, a frame
                // can end early on a position of the path that still reaches a win).
                if was_settled && first_win.is_none() {
                    game.remember_lost();
                }
                stack.depth -= 1;
                if stack.depth == 0 {
                    break match first_win.take() {
                        Some(w) => Outcome::Won(w),
                        None => Outcome::Exhausted,
                    };
                }
                game.unplay(via);
                if !was_settled {
                    path.pop();
                }
                continue;
            }
            let i = open.trailing_zeros() as usize;
            let m = top.moves.as_ref()[i];
            // The child's T is made of the moves of `done` that commute with m (paper
            // 000, 2.1), read once the child's list exists.
            let hand_on = options.incremental && top.settled;
            top.done |= 1 << i;

            game.play(m);
            if !game.recall() {
                game.unplay(m);
                stats.tt_hits += 1;
                continue;
            }
            let key = game.key();
            // The child's bucket loads while its frame is built; the table is probed
            // only afterwards, so the miss overlaps that work. A child found there is
            // dropped again.
            let hashed = table.as_deref().map(|t| {
                let h = Hashed::new(key);
                t.prefetch(h);
                h
            });
            let settled = game.settled();
            stack.push(game, settled, m);
            if hand_on {
                stack.inherit_top(i);
            }
            // Its children's buckets start loading before its own is probed, so that
            // the two misses overlap (a child found in the table wastes them).
            if prefetch_children {
                stack.prefetch_children(game, table.as_deref());
            }
            if let (Some(t), Some(h)) = (table.as_deref_mut(), hashed) {
                if t.probe_or_insert_hashed(h) {
                    stack.drop_child(game, m);
                    stats.tt_hits += 1;
                    continue;
                }
            }
            stats.nodes += 1;
            // Positions on the path are in the table too, unless their entry was replaced.
            if !settled && path.contains(key) {
                stack.drop_child(game, m);
                stats.path_cuts += 1;
                continue;
            }
            if stats.nodes.is_multiple_of(CHECK_INTERVAL) {
                debug_assert_eq!(game.key(), game.key_from_scratch(), "incremental key");
                if let Some(reason) = budget.exhausted(stats.nodes) {
                    stack.drop_child(game, m);
                    break Outcome::Stopped(reason);
                }
            }
            if game.is_won() {
                stack.drop_child(game, m);
                stats.wins += 1;
                let mut line: Vec<G::Move> =
                    stack.frames[1..stack.depth].iter().map(|f| f.via).collect();
                line.push(m);
                if !options.complete {
                    break Outcome::Won(line);
                }
                first_win.get_or_insert(line);
                continue;
            }
            // The parent was entered alive (tested on entry, or the root; a position
            // without moves is not tested, but it has no children), as the test after a
            // move needs. A position without moves is a leaf either way: no test.
            if options.prune_dead && stack.top_has_moves() && game.is_dead_after(m) {
                stack.drop_child(game, m);
                stats.dead_cuts += 1;
                continue;
            }
            if !settled {
                path.push(key);
            }
            stack.count_top(stats);
        };
        // Back to the root.
        while stack.depth > 1 {
            stack.depth -= 1;
            game.unplay(stack.frames[stack.depth].via);
        }
        stack.depth = 0;
        path.clear();
        if let Some(t) = table {
            stats.stored += t.stored();
            stats.replaced += t.replaced();
            stats.table_bytes = stats.table_bytes.max(t.active_bytes() as u64);
        }
        outcome
    }
}

impl<G: Game> Stack<G> {
    /// Whether the top frame's position has a legal move.
    #[inline(always)]
    fn top_has_moves(&self) -> bool {
        self.frames[self.depth - 1].moves.legal() != 0
    }

    /// Pushes the frame of the position just entered by `via` (`settled`: its
    /// [`Game::settled`], computed once by the caller): its moves, reduced to a stubborn
    /// set if the search asks and the position is settled. The caller may still drop it
    /// (a table hit).
    #[inline(always)]
    fn push(&mut self, game: &G, settled: bool, via: G::Move) {
        // Built in place: a frame assembled in a local and then copied was read back with
        // wide loads right after the move generator's byte stores, a store-forwarding
        // stall on every node (`perf annotate`: 8% of the samples on that copy).
        if self.depth == self.frames.len() {
            self.frames.push(Frame::<G> {
                moves: G::Moves::default(),
                done: 0,
                skip: 0,
                via,
                settled,
            });
        }
        let frame = &mut self.frames[self.depth];
        self.depth += 1;
        frame.done = 0;
        frame.skip = 0;
        frame.via = via;
        frame.settled = settled;
        game.generate(&mut frame.moves);
        if self.reduce && settled {
            if let Some(keep) = game.stubborn(&frame.moves) {
                frame.skip = !keep;
            }
        }
    }

    /// Marks done in the frame just pushed the incremental transpositions it inherits
    /// from its parent, which entered it by its move `i`: the parent's other done moves
    /// that commute with move `i`. They are legal in the child ([`Game::commute`]).
    #[inline(always)]
    fn inherit_top(&mut self, i: usize) {
        let [.., parent, child] = &mut self.frames[..self.depth] else {
            unreachable!("a child frame has a parent");
        };
        let list = parent.moves.as_ref();
        let m = list[i];
        let mut bits = parent.done & !(1 << i);
        let mut inherited = 0u64;
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if G::commute(m, list[j]) {
                if let Some(k) = child.moves.index_of(list[j], j) {
                    inherited |= 1 << k;
                }
            }
        }
        child.done = inherited;
    }

    /// Starts loading the table buckets of the children of the top frame (the current
    /// position) that are still to be tried, and what the game's [`Game::recall`] reads
    /// for them, if it is settled.
    #[inline(always)]
    fn prefetch_children(&self, game: &G, table: Option<&TranspositionTable>) {
        let top = &self.frames[self.depth - 1];
        if !top.settled {
            return;
        }
        let list = top.moves.as_ref();
        let mut open = top.moves.legal() & !(top.done | top.skip);
        while open != 0 {
            let i = open.trailing_zeros() as usize;
            open &= open - 1;
            if let Some(t) = table {
                t.prefetch(Hashed::new(game.key_after(list[i])));
            }
            game.prefetch_recall(list[i]);
        }
    }

    /// Drops the frame just pushed for the child entered by `m` and takes `m` back.
    #[inline(always)]
    fn drop_child(&mut self, game: &mut G, m: G::Move) {
        self.depth -= 1;
        game.unplay(m);
    }

    /// Counts the top frame, now kept, in the statistics.
    #[inline(always)]
    fn count_top(&self, stats: &mut SearchStats) {
        let top = &self.frames[self.depth - 1];
        stats.reduced += u64::from(top.skip != 0);
        stats.it_cuts += u64::from((top.done & !top.skip).count_ones());
        stats.expanded += 1;
        stats.max_depth = stats.max_depth.max(self.depth as u64 - 1);
    }
}
