//! The exact search: exhaustive depth-first search with an exact visited set. Every
//! position reachable from the root is entered once and its key kept until the search
//! ends. It decides a deal whenever its whole space fits in the memory budget, and
//! counts spaces exactly.
//!
//! Invariants, and why `Outcome::Exhausted` is a proof of loss:
//! - The visited set (`search::visited`) holds full 128-bit Zobrist keys and never evicts. A
//!   child is skipped only if its key is stored, that is (up to a coincidence of two
//!   128-bit keys, probability below `n^2 / 2^129` for `n` positions stored) only if it
//!   was entered before. Every entered position has all its legal moves tried before
//!   the search ends (but the moves a class member leaves to its class's opening frame,
//!   below), so an exhausted search has entered every reachable position and none was
//!   won. Cycles (`common`) need no path set: a position on the current line is
//!   in the set.
//! - When the set would outgrow its budget the search stops with `memory_limit`; it never
//!   forgets a position, so it never searches one twice.
//! - Nothing is reduced (no stubborn sets, no transpositions skipped by commutation): a
//!   count must see every position, and a verdict search only differs by stopping at
//!   the first win. The one opt-in cut is `prune_dead`: a dead position is entered but
//!   not expanded, which loses no win (`position::dead`), so `Exhausted` stays a proof.
//! - Two-shuffle classes (`shuffle_classes`, `common`): the set stores one
//!   key for a whole class (`position::shuffle`: while column 0 holds a gap and a Two,
//!   its Twos can be put in any arrangement and back, so the arrangements are strongly
//!   connected), and the position that enters a class opens it: every other member is
//!   then entered through a shuffle move from a member on the stack, once (the open
//!   class lists the members entered), and expanded. A class closes
//!   when the frame that opened it is popped, after all its members; its key stays in
//!   the set. Members agree outside column 0, so most moves lead from every member
//!   into one same class (`Position::leads_to_a_shared_class`, tested against the
//!   classes every member reaches): the opening frame tries all its moves, the other
//!   members only the rest, whose children differ from member to member. A child
//!   class a member leaves out is one the opening frame enters or finds stored. A move
//!   of a card to a column-1 gap leads into one class from every member that has it
//!   (the successor of the same column-0 card), so only the first frame of the class
//!   that has it tries it (`OpenClasses::claim`). So every position of an entered
//!   class is entered exactly once, counts
//!   stay exact (the tests compare them with the reference search), and the argument
//!   above holds with "class" for "position" where the set is concerned.
//! - Settled positions by depth-first search (`settled_table_bytes`, verdicts on
//!   `common`): a settled position (column 0 all Twos) only leads to settled positions,
//!   and the settled game is acyclic (`basic` moves under a fixed suit per row). Such a
//!   child is not put in the visited set: a `DepthFirst` search with a transposition
//!   table of its own decides it. A win ends the search with the line to the child and
//!   the child's line. A loss lets the search go on; the table keeps the keys of every
//!   settled position entered, each of them lost (every earlier depth-first search
//!   ended exhausted, or the exact search would have ended too), so a child found there
//!   is skipped, and the depth-first search's own proof (`search::dfs`) holds for each
//!   child. The table may forget a key when full: that child is searched again, never
//!   skipped wrongly. A dead settled child (`position::dead`) is lost without a lookup
//!   or a search (`SettledReductions::dead_roots`). So `Exhausted` stays a proof, while
//!   memory holds only the part before column 0 settles; `nodes` then counts settled
//!   positions once per search that entered them (not the dead children, counted in
//!   `dead_cuts`), and `stored` only the visited set's keys.
//! - Memory: the set (16 bytes a slot, at most 7/8 full, sharded so that it grows one
//!   shard at a time up to the whole budget: about 18 bytes a position at its limit,
//!   938M positions in 16 GiB) and the stack of the current line. Limits are checked
//!   every `CHECK_INTERVAL` positions.

//!
//! The family, bottom up (each file imports only from the ones above it):
//! - `options`: what a search is asked to do, and which positions it leaves unexpanded;
//! - `joint` (with its board `table` and `memo`) and `settled`: the depth-first
//!   searches that decide settled children;
//! - `classes` (Two-shuffle classes: class keys, admitting and entering children) and
//!   `stack` (the frames of the current line);
//! - `walk`: the loop itself, one move at a time, over any visited set;
//! - `single` (one thread: a walk over its own set), `sharing` (work handed between
//!   threads) and `parallel` (several threads, each a walk over one shared set);
//! - this module: [`search`], which runs one or the other.

mod classes;
mod joint;
pub(crate) mod options;
pub(crate) mod parallel;
mod settled;
mod sharing;
pub(crate) mod single;
mod stack;
mod walk;

pub use options::{ExactOptions, SettledReductions};
pub use parallel::search_joined;
pub use single::ExactSearch;

use crate::position::Position;
use crate::search::budget::{Budget, StopReason};
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use crate::variant::Variant;

/// The exact search on `threads` threads: the growing set of `single` on one thread, a
/// shared set on several. Returns the outcome and the limit that ended it, if any.
pub fn search(
    single: &mut ExactSearch,
    start: &Position,
    variant: Variant,
    options: ExactOptions,
    threads: usize,
    budget: &Budget,
    stats: &mut SearchStats,
) -> (Outcome, Option<StopReason>) {
    if threads > 1 {
        parallel::search(start, variant, options, threads, budget, stats)
    } else {
        single.run(start, variant, options, budget, stats)
    }
}
