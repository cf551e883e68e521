//! Settled `common` positions decided by depth-first search for the exact search
//! (`ExactOptions::settled_table_bytes`; the argument is in `search::exact`).
//!
//! Invariants: the tables are owned here, sized once, and never cleared while the exact
//! search runs. Every key in the one-child table is a settled position entered by a
//! depth-first search that ended exhausted (a search that won or stopped ends the exact
//! search), so a key found there is a position known lost. The joint searches keep
//! only what they proved: assignments lost by board (searched to the end, or dead) and
//! assignments won (a line found). `stored` in the statistics counts the exact
//! search's visited set only; `replaced` also counts the entries that the one-child
//! table and the table of lost boards forgot (not the memo's).

use crate::moves::{Move, MoveList};
use crate::position::{Position, MAX_MOVES};
use crate::search::budget::{Budget, StopReason};
use crate::search::dfs::gaps_game::CommonGame;
use crate::search::dfs::table::{Hashed, TranspositionTable};
use crate::search::dfs::{DepthFirst, DfsOptions};
use crate::search::exact::joint::memo::BoardMemo;
use crate::search::exact::joint::table::BoardTable;
use crate::search::exact::joint::{Assignments, JointGame};
use crate::search::exact::options::SettledReductions;
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use crate::tuning::ONE_CHILD_TABLE_MAX;

/// The depth-first search of settled children and its table of lost settled positions.
pub(crate) struct SettledSearch {
    dfs: DepthFirst<CommonGame>,
    table: TranspositionTable,
    options: DfsOptions,
    dead_roots: bool,
    /// The joint searches (`SettledReductions::joint`), made at the first settled
    /// child of a board of at most four rows; `None` searches each child alone.
    joint: Option<Box<JointSettled>>,
    /// Whether joint searches are wanted, and their share of the budget.
    joint_bytes: Option<usize>,
}

/// The joint searches of settled children and what they remember: the game keeps the
/// assignments known lost by board for every state searched to the end (its
/// `BoardTable`, in place of a transposition table), the memo what is known of each
/// child's board.
struct JointSettled {
    game: JointGame,
    dfs: DepthFirst<JointGame>,
    memo: BoardMemo,
    assignments: Assignments,
}

impl SettledSearch {
    /// A searcher whose tables hold at most `bytes`, with `reductions`.
    pub fn with_table_bytes(bytes: usize, reductions: SettledReductions) -> SettledSearch {
        // With joint searches the one-child table only serves boards of more than four
        // rows: both are sized from the budget (the one-child table capped), and only
        // the one in use touches memory (tables map their pages as they grow).
        SettledSearch {
            dfs: DepthFirst::prefetching_children(),
            table: TranspositionTable::with_budget(bytes.min(ONE_CHILD_TABLE_MAX)),
            dead_roots: reductions.dead_roots,
            options: DfsOptions {
                reduce: reductions.stubborn,
                incremental: reductions.incremental,
                ..DfsOptions::default()
            },
            joint: None,
            joint_bytes: reductions.joint.then_some(bytes),
        }
    }

    /// Starts loading what [`SettledSearch::decide`] will look up first for the
    /// settled child that the settling move `m` makes from `parent`.
    #[inline(always)]
    pub fn prefetch_child(&self, parent: &Position, m: Move) {
        let key = parent.key_after(m);
        match &self.joint {
            Some(j) => {
                let p = j.assignments.after_settling(parent, m);
                let board = j.assignments.board_key(key, p);
                j.memo.prefetch(board);
                j.game.lost_boards().prefetch(board);
            }
            None => self.table.prefetch(Hashed::new(key)),
        }
    }

    /// Bytes of the tables in use.
    pub fn table_bytes(&self) -> usize {
        self.table.active_bytes()
            + self
                .joint
                .as_ref()
                .map_or(0, |j| j.game.lost_boards().bytes() + j.memo.bytes())
    }

    /// Decides a settled root: the whole exact search is this one depth-first search.
    /// Returns the outcome and the limit that stopped it, as the exact searches do.
    pub fn decide_root(
        &mut self,
        start: &Position,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (Outcome, Option<StopReason>) {
        // One position, not the children of a class: its own assignment alone, by the
        // one-child search (a joint search would decide every assignment of its board).
        match self.decide_alone(start, budget, stats) {
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
        if let Some(bytes) = self.joint_bytes {
            if self.joint.is_none() {
                self.joint = JointSettled::new(child, bytes).map(Box::new);
                if self.joint.is_none() {
                    self.joint_bytes = None;
                }
            }
            if let Some(joint) = self.joint.as_deref_mut() {
                // The boards its table forgets count as replaced entries.
                let replaced = joint.game.lost_boards().replaced();
                let decided = joint.decide(child, self.options, self.dead_roots, budget, stats);
                stats.replaced += joint.game.lost_boards().replaced() - replaced;
                return decided;
            }
        }
        self.decide_alone(child, budget, stats)
    }

    /// [`SettledSearch::decide`] of `child` by a search of its own assignment alone.
    fn decide_alone(
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
        if self.table.probe_or_insert(child.key()) {
            stats.tt_hits += 1;
            return Ok(None);
        }
        let mut game = CommonGame::new(*child);
        // The search adds its table's totals since the last clear to `stored`,
        // `replaced` and `table_bytes`; here `stored` counts the visited set's keys
        // only, `replaced` the entries the table lost during this search, and `run`
        // sets `table_bytes` for the whole memory.
        let before = (stats.stored, stats.replaced, stats.table_bytes);
        let replaced = self.table.replaced();
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
            settled.prefetch_child(position, m);
            list.swap(front, i);
            front += 1;
        } else {
            prefetch_other(m);
        }
    }
    front
}

impl JointSettled {
    /// The joint searcher for the layout of the settled `child`, `None` beyond four
    /// rows. The memo gets an eighth of `bytes` (at most 16 MiB: a board's children
    /// come close together), the table of lost boards the rest.
    fn new(child: &Position, bytes: usize) -> Option<JointSettled> {
        let assignments = Assignments::new(child.layout().suits())?;
        let memo_bytes = (bytes / 8).min(16 << 20);
        let lost = BoardTable::with_budget(bytes - memo_bytes);
        Some(JointSettled {
            game: JointGame::new(*child, assignments, lost),
            dfs: DepthFirst::prefetching_children(),
            memo: BoardMemo::with_budget(memo_bytes),
            assignments,
        })
    }

    /// [`SettledSearch::decide`] by board: the memo answers for the child's
    /// assignment, or one joint search decides every assignment of its board that is
    /// not known yet (the dead ones by the dead test) and the memo keeps the result.
    fn decide(
        &mut self,
        child: &Position,
        options: DfsOptions,
        dead_roots: bool,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Result<Option<Vec<Move>>, StopReason> {
        let own = self.assignments.of(child);
        let bit = 1u32 << own;
        let board = self.assignments.board_key(child.key(), own);
        let (known, mut won) = self.memo.get(board);
        if known & bit != 0 {
            stats.tt_hits += 1;
            return Ok(None);
        }
        // Joint searches from other boards may have found more of this one lost.
        let mut lost = known | self.game.lost_boards().lost(board);
        if dead_roots && known | won == 0 {
            // A board not seen as a child before (or forgotten): its dead assignments
            // are lost at once, and the joint search leaves them out. (Searching them
            // too, so that every root starts from all assignments and more states are
            // shared across boards, entered 71% more nodes on deal 887.)
            let dead = self.assignments.dead(child) & !lost;
            stats.dead_cuts += u64::from(dead.count_ones());
            lost |= dead;
            // Lost is lost: states of other searches that reach this board skip them.
            if dead != 0 {
                self.game.remember_lost_board(board, dead);
            }
            self.memo.put(board, lost, won);
        }
        if lost & bit != 0 {
            stats.tt_hits += 1;
            return Ok(None);
        }
        loop {
            // The child's own assignment alone if it is known won (the search then finds
            // its line), else every assignment not known either way.
            let mask = if won & bit != 0 {
                bit
            } else {
                self.assignments.all() & !lost & !won
            };
            self.game.reset(child, mask);
            // The game's table of lost boards stands in for a transposition table.
            let options = DfsOptions {
                table: false,
                ..options
            };
            let outcome = self
                .dfs
                .search(&mut self.game, None, options, budget, stats);
            match outcome {
                Outcome::Exhausted => {
                    lost |= mask;
                    self.memo.put(board, lost, won);
                    return Ok(None);
                }
                Outcome::Won(line) => {
                    // Only states searched to the end were remembered, so what the
                    // table holds stays true after a win.
                    let winner = self.game.won_assignment_after(child, &line);
                    won |= 1 << winner;
                    self.memo.put(board, lost, won);
                    if winner == own {
                        return Ok(Some(line.iter().map(|j| j.m).collect()));
                    }
                    // Another child of this board is won: its line is found again when
                    // that child is decided.
                }
                Outcome::Stopped(reason) => return Err(reason),
                Outcome::NoWin(reason) => {
                    unreachable!("a depth-first search ended NoWin({reason:?})")
                }
            }
        }
    }
}
