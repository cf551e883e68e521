//! The loop of the exact search, one move at a time ([`Walk::step`]), and the entering
//! of a new position ([`Walk::enter_spare`]): the one place where both exact searches
//! admit a child, decide a settled one, count it and expand it. The search on one
//! thread (`single`) runs a walk over its own [`KeySet`] (or a [`SpillingSet`]); each thread of the parallel
//! search (`parallel`) runs one over the shared set. What differs between them is
//! outside the walk: the visited set ([`Visited`]), where a frame starts trying its
//! moves ([`Lane`]), what happens when the set is full (`single` stops, `parallel`
//! grows it and goes on), how the root is entered and how work is handed over.
//!
//! Invariants: a step tries at most one move of the top frame or pops it; a move that
//! finds the set full is given back (tried again if the walk goes on); `win` holds the
//! first won line (the moves from the root, the work's `prefix` included) and `stop`
//! the limit that halted the walk, if any; limits are checked every
//! [`CHECK_INTERVAL`] positions entered.

use crate::moves::Move;
use crate::search::budget::{Budget, StopReason};
use crate::search::exact::classes::{Admit, FrameEntry, FrameRules, OpenClasses};
use crate::search::exact::options::{left_unexpanded, settled, settles, ExactOptions};
use crate::search::exact::settled::SettledSearch;
use crate::search::exact::stack::ExactStack;
use crate::search::stats::SearchStats;
use crate::search::visited::key_set::{Insert, KeySet};
use crate::search::visited::shared_key_set::SharedKeySet;
use crate::search::visited::spill::{Spilled, SpillingSet};
use crate::tuning::CHECK_INTERVAL;
use crate::variant::Variant;
use crate::zobrist::Key;

/// The visited set a walk inserts into: a thread's own, or one shared by threads.
pub(crate) trait Visited {
    /// Inserts `key` unless it is present or there is no room for it.
    fn insert(&mut self, key: Key) -> Insert;
    /// Starts loading the slot of `key` into cache.
    fn prefetch(&self, key: Key);
    /// Makes room after an insertion found the set full, if it can (a set that spills
    /// to a store); false leaves it full.
    fn make_room(&mut self) -> bool {
        false
    }
}

impl Visited for SpillingSet {
    #[inline(always)]
    fn insert(&mut self, key: Key) -> Insert {
        SpillingSet::insert(self, key)
    }

    #[inline(always)]
    fn prefetch(&self, key: Key) {
        SpillingSet::prefetch(self, key);
    }

    fn make_room(&mut self) -> bool {
        self.spill() == Spilled::Moved
    }
}

impl Visited for KeySet {
    #[inline(always)]
    fn insert(&mut self, key: Key) -> Insert {
        KeySet::insert(self, key)
    }

    #[inline(always)]
    fn prefetch(&self, key: Key) {
        KeySet::prefetch(self, key);
    }
}

impl Visited for &SharedKeySet {
    #[inline(always)]
    fn insert(&mut self, key: Key) -> Insert {
        SharedKeySet::insert(self, key)
    }

    #[inline(always)]
    fn prefetch(&self, key: Key) {
        SharedKeySet::prefetch(self, key);
    }
}

/// Which thread of how many a walk is: thread `thread` of `threads` tries the moves of
/// every frame it expands from index `thread * moves / threads` on, round the list, so
/// that threads sharing a set start apart (`parallel`'s module doc).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lane {
    pub thread: usize,
    pub threads: usize,
}

impl Lane {
    /// The only thread of a search.
    pub const ALONE: Lane = Lane {
        thread: 0,
        threads: 1,
    };

    /// The index of the first move to try in a list of `len`.
    #[inline(always)]
    fn first_move(self, len: usize) -> usize {
        if self.thread == 0 {
            0
        } else {
            self.thread * len / self.threads
        }
    }
}

/// What a step did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Step {
    /// Tried a move or popped a frame: the walk goes on.
    Went,
    /// The stack is empty: every move of this walk's work was tried.
    Done,
    /// The visited set had no room for the child's key: the move was given back.
    Full,
    /// The walk must stop: a win in verdict mode or by a settled child (in `win`), or a
    /// limit (in `stop`).
    Halt,
}

/// How an entered position ended without being expanded.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Entered {
    Won,
    Leaf,
}

/// One thread's exact search: its stack, its open classes, the search deciding its
/// settled children, and what it found (see the module doc).
pub(crate) struct Walk {
    pub variant: Variant,
    pub options: ExactOptions,
    pub lane: Lane,
    pub stack: ExactStack,
    /// This walk's open Two-shuffle classes.
    pub classes: OpenClasses,
    /// Decides settled children (`ExactOptions::settled_table_bytes`), with this walk's
    /// table.
    pub settled: Option<SettledSearch>,
    /// The moves from the root to the bottom frame (work taken from another thread
    /// starts there; empty for a walk from the root).
    pub prefix: Vec<Move>,
    /// The first won line found.
    pub win: Option<Vec<Move>>,
    /// The limit that halted the walk.
    pub stop: Option<StopReason>,
    /// The node count at which limits are checked next.
    next_check: u64,
}

impl Walk {
    /// A walk with an empty stack on `lane`, deciding settled children with a table of
    /// `table_bytes` when `options` settle by depth-first search under
    /// `variant`; its first check of limits comes `CHECK_INTERVAL` positions after
    /// `nodes`.
    pub fn new(
        variant: Variant,
        options: ExactOptions,
        lane: Lane,
        table_bytes: usize,
        nodes: u64,
    ) -> Walk {
        Walk {
            variant,
            options,
            lane,
            stack: ExactStack::default(),
            classes: OpenClasses::default(),
            settled: options
                .settles_by_dfs(variant)
                .then(|| SettledSearch::with_table_bytes(table_bytes, options.settled_reductions)),
            prefix: Vec::new(),
            win: None,
            stop: None,
            next_check: nodes + CHECK_INTERVAL,
        }
    }

    /// Bytes of this walk's settled positions' table.
    pub fn settled_bytes_held(&self) -> usize {
        self.settled.as_ref().map_or(0, SettledSearch::table_bytes)
    }

    /// Tries the next move of the top frame, or pops it (see [`Step`]).
    #[inline(always)]
    pub fn step(
        &mut self,
        set: &mut impl Visited,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Step {
        let Some(top) = self.stack.top_mut() else {
            return Step::Done;
        };
        let Some(m) = top.next_move() else {
            if top.entry.opens_class {
                self.classes.close_last();
            }
            self.stack.pop();
            return Step::Went;
        };
        let from = top.entry;
        let parent = &top.position;
        let (variant, options) = (self.variant, self.options);
        if let Some(search) = self
            .settled
            .as_mut()
            .filter(|_| settles(parent, m, variant))
        {
            let child = self.stack.play_child(m);
            debug_assert!(settled(child, variant));
            return match search.decide(child, budget, stats) {
                Ok(None) => Step::Went,
                Ok(Some(rest)) => {
                    let mut line = line_to(&self.prefix, &self.stack, m);
                    line.extend(rest);
                    self.win.get_or_insert(line);
                    Step::Halt
                }
                Err(reason) => {
                    self.stop = Some(reason);
                    Step::Halt
                }
            };
        }
        // Admitted before it is played (see `OpenClasses::admit`).
        let admitted = self.classes.admit(from, m, parent, variant, options);
        match admitted {
            Admit::Seen => {
                stats.tt_hits += 1;
                return Step::Went;
            }
            Admit::Member(_) => {}
            Admit::Keyed(key, _) => match set.insert(key) {
                Insert::Present => {
                    stats.tt_hits += 1;
                    return Step::Went;
                }
                Insert::Full => {
                    if let Some(top) = self.stack.top_mut() {
                        top.tried -= 1;
                    }
                    return Step::Full;
                }
                Insert::New => stats.stored += 1,
            },
        }
        let child = self.stack.play_child(m);
        debug_assert!(self.settled.is_none() || !settled(child, variant));
        let entry = self
            .classes
            .enter(admitted, m, from, child, variant, options);
        if let Some(Entered::Won) = self.enter_spare(entry, set, stats) {
            let line = self.line(m);
            self.win.get_or_insert(line);
            if !options.complete {
                return Step::Halt;
            }
        }
        if stats.nodes >= self.next_check {
            if let Some(reason) = budget.exhausted(stats.nodes) {
                self.stop = Some(reason);
                return Step::Halt;
            }
            self.next_check = stats.nodes + CHECK_INTERVAL;
        }
        Step::Went
    }

    /// Counts the newly entered position in the stack's spare slot and pushes it as a
    /// frame entered as `entry` if it is to be expanded; says if it was won or left
    /// unexpanded. A class it opened (`entry.opens_class`) closes at once when it is
    /// not expanded.
    #[inline(always)]
    pub fn enter_spare(
        &mut self,
        entry: FrameEntry,
        set: &impl Visited,
        stats: &mut SearchStats,
    ) -> Option<Entered> {
        stats.nodes += 1;
        let position = self.stack.spare();
        let is_settled = settled(position, self.variant);
        stats.settled += u64::from(is_settled);
        stats.max_depth = stats.max_depth.max(self.stack.len() as u64);
        let ended = if position.is_won(self.variant) {
            stats.wins += 1;
            Some(Entered::Won)
        } else if left_unexpanded(position, is_settled, self.variant, self.options, stats) {
            Some(Entered::Leaf)
        } else {
            None
        };
        if ended.is_some() {
            if entry.opens_class {
                self.classes.close_last();
            }
            return ended;
        }
        // Start loading every child's slot now, so that the children's lookups overlap
        // their cache misses instead of paying them one after another; settling moves
        // first, so that their table buckets are still cached when they are decided
        // (a thread that starts further along the list reaches them last, when their
        // buckets may have left the cache).
        let rules = FrameRules {
            variant: self.variant,
            options: self.options,
            settled: self.settled.as_ref(),
        };
        let lane = self.lane;
        self.stack.push_expanded(
            entry,
            &mut self.classes,
            rules,
            |key| set.prefetch(key),
            |len| lane.first_move(len),
        );
        stats.expanded += 1;
        None
    }

    /// The moves from the root to the top frame's position, then `last`.
    fn line(&self, last: Move) -> Vec<Move> {
        line_to(&self.prefix, &self.stack, last)
    }
}

/// The moves from the root to the top frame of `stack`, whose bottom frame `prefix`
/// leads to, then `last`.
fn line_to(prefix: &[Move], stack: &ExactStack, last: Move) -> Vec<Move> {
    let mut line = prefix.to_vec();
    line.extend(stack.line(last));
    line
}
