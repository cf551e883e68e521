//! Exhaustive depth-first search with an exact visited set: every position reachable from
//! the root is entered once and its key kept until the search ends. It decides a deal
//! whenever its whole space fits in the memory budget, and counts spaces exactly.
//!
//! Invariants, and why [`Outcome::Exhausted`] is a proof of loss:
//! - The visited set ([`KeySet`]) holds full 128-bit Zobrist keys and never evicts. A
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
//!   child is not put in the visited set: a [`DepthFirst`] search with a transposition
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
//!   every [`CHECK_INTERVAL`] positions.

use crate::moves::Move;
use crate::position::Position;
use crate::search::budget::{Budget, StopReason, CHECK_INTERVAL};
use crate::search::exact_classes::{class_key, Admit, FrameEntry, FrameRules, OpenClasses};
pub use crate::search::exact_settled::SettledReductions;
use crate::search::exact_settled::SettledSearch;
use crate::search::exact_stack::ExactStack;
use crate::search::key_set::{Insert, KeySet};
use crate::search::outcome::Outcome;
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

    /// Bytes of the settled positions' tables under `variant` (all threads together, at
    /// most half the budget; 0 when settled positions are stored); the visited set gets
    /// the rest of `memory_bytes`.
    pub fn settled_tables_bytes(&self, variant: Variant) -> usize {
        if self.settles_by_dfs(variant) {
            self.settled_table_bytes.min(self.memory_bytes / 2)
        } else {
            0
        }
    }
}

/// A reusable exact searcher (keeps its stack between searches; its set is freed at
/// the end of each).
#[derive(Default)]
pub struct ExactSearch {
    visited: KeySet,
    stack: ExactStack,
    classes: OpenClasses,
    /// Decides settled children (`settled_table_bytes`), with its table.
    settled: Option<SettledSearch>,
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

impl ExactSearch {
    /// Searches from `start`. `stats.nodes` counts distinct positions entered (the root
    /// included), `stats.settled` those whose column 0 holds only Twos (`common`),
    /// `stats.tt_hits` the moves that led to a position already entered. Returns the
    /// outcome and, when a limit ended the search (also after a win found first in
    /// complete mode, where the outcome is that win), which: as the parallel search.
    pub fn run(
        &mut self,
        start: &Position,
        variant: Variant,
        options: ExactOptions,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (Outcome, Option<StopReason>) {
        let table_bytes = options.settled_tables_bytes(variant);
        if options.settles_by_dfs(variant) {
            self.settled = Some(SettledSearch::with_table_bytes(
                table_bytes,
                options.settled_reductions,
            ));
        }
        self.visited.reset(options.memory_bytes - table_bytes);
        self.stack.clear();
        let ended = self.search(start, variant, options, budget, stats);
        let table_bytes = self.settled.as_ref().map_or(0, SettledSearch::table_bytes);
        stats.table_bytes = stats
            .table_bytes
            .max((self.visited.bytes() + table_bytes) as u64);
        // The set may have grown to gigabytes: give them back now rather than hold them
        // in an idle solver until its next exact search.
        self.visited = KeySet::default();
        self.settled = None;
        ended
    }

    fn search(
        &mut self,
        start: &Position,
        variant: Variant,
        options: ExactOptions,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (Outcome, Option<StopReason>) {
        let mut first_win: Option<Vec<Move>> = None;
        self.classes.clear();
        if let Some(search) = self.settled.as_mut() {
            if settled(start, variant) {
                return search.decide_root(start, budget, stats);
            }
        }
        let root_class = class_key(start, variant, options);
        let _ = self.visited.insert(root_class.unwrap_or(start.key()));
        let class = self.classes.open(start, root_class);
        self.stack.set_spare(start);
        let root = FrameEntry::root(class, root_class);
        if let Some(end) = self.enter_spare(root, variant, options, stats) {
            match end {
                Entered::Won if !options.complete => return (Outcome::Won(Vec::new()), None),
                Entered::Won => first_win = Some(Vec::new()),
                Entered::Leaf => {}
            }
        }
        let mut next_check = stats.nodes + CHECK_INTERVAL;
        while let Some(top) = self.stack.top_mut() {
            let Some(m) = top.next_move() else {
                if top.entry.opens_class {
                    self.classes.close_last();
                }
                self.stack.pop();
                continue;
            };
            let from = top.entry;
            let parent = &top.position;
            if let Some(search) = self
                .settled
                .as_mut()
                .filter(|_| settles(parent, m, variant))
            {
                let child = self.stack.play_child(m);
                debug_assert!(settled(child, variant));
                match search.decide(child, budget, stats) {
                    Ok(None) => continue,
                    Ok(Some(rest)) => {
                        let mut line = self.stack.line(m);
                        line.extend(rest);
                        return (Outcome::Won(line), None);
                    }
                    Err(reason) => return stopped(first_win, reason),
                }
            }
            // Admitted before it is played (see `OpenClasses::admit`).
            let admitted = self.classes.admit(from, m, parent, variant, options);
            match admitted {
                Admit::Seen => {
                    stats.tt_hits += 1;
                    continue;
                }
                Admit::Member(_) => {}
                Admit::Keyed(key, _) => match self.visited.insert(key) {
                    Insert::Present => {
                        stats.tt_hits += 1;
                        continue;
                    }
                    Insert::Full => return stopped(first_win, StopReason::MemoryLimit),
                    Insert::New => stats.stored += 1,
                },
            }
            let child = self.stack.play_child(m);
            debug_assert!(self.settled.is_none() || !settled(child, variant));
            let entry = self
                .classes
                .enter(admitted, m, from, child, variant, options);
            if let Some(Entered::Won) = self.enter_spare(entry, variant, options, stats) {
                let line = self.stack.line(m);
                if !options.complete {
                    return (Outcome::Won(line), None);
                }
                first_win.get_or_insert(line);
            }
            if stats.nodes >= next_check {
                if let Some(reason) = budget.exhausted(stats.nodes) {
                    return stopped(first_win, reason);
                }
                next_check = stats.nodes + CHECK_INTERVAL;
            }
        }
        (first_win.map_or(Outcome::Exhausted, Outcome::Won), None)
    }

    /// Counts the newly entered position in the stack's spare slot and pushes it as a
    /// frame entered as `entry` if it is to be expanded; says if it was won or left
    /// unexpanded. A class it opened (`entry.opens_class`) closes at once when it is
    /// not expanded.
    fn enter_spare(
        &mut self,
        entry: FrameEntry,
        variant: Variant,
        options: ExactOptions,
        stats: &mut SearchStats,
    ) -> Option<Entered> {
        stats.nodes += 1;
        let position = self.stack.spare();
        let is_settled = settled(position, variant);
        stats.settled += u64::from(is_settled);
        stats.max_depth = stats.max_depth.max(self.stack.len() as u64);
        if position.is_won(variant) {
            stats.wins += 1;
            if entry.opens_class {
                self.classes.close_last();
            }
            return Some(Entered::Won);
        }
        if left_unexpanded(position, is_settled, variant, options, stats) {
            if entry.opens_class {
                self.classes.close_last();
            }
            return Some(Entered::Leaf);
        }
        // Start loading every child's slot now, so that the children's lookups overlap
        // their cache misses instead of paying them one after another; settling moves
        // first, so that their table buckets are still cached when they are decided.
        let visited = &self.visited;
        let rules = FrameRules {
            variant,
            options,
            settled: self.settled.as_ref(),
        };
        self.stack.push_expanded(
            entry,
            &mut self.classes,
            rules,
            |key| visited.prefetch(key),
            |_| 0,
        );
        stats.expanded += 1;
        None
    }
}

/// The end of a search stopped by `reason`: the win found first, if any, else the stop.
fn stopped(first_win: Option<Vec<Move>>, reason: StopReason) -> (Outcome, Option<StopReason>) {
    (
        first_win.map_or(Outcome::Stopped(reason), Outcome::Won),
        Some(reason),
    )
}

/// How an entered position ended without being expanded.
enum Entered {
    Won,
    Leaf,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Layout;
    use crate::deal::deal;
    use crate::exhaustive::reachable;
    use crate::replay::verify_solution;

    fn run(start: &Position, variant: Variant, options: ExactOptions) -> (Outcome, SearchStats) {
        let mut stats = SearchStats::default();
        let (outcome, _) =
            ExactSearch::default().run(start, variant, options, &Budget::unlimited(), &mut stats);
        (outcome, stats)
    }

    #[test]
    fn counts_and_verdicts_equal_the_reference_search() {
        for variant in [Variant::Basic, Variant::Common] {
            for (suits, ranks) in [(2, 5), (3, 4), (4, 4), (3, 5)] {
                for seed in 0..40 {
                    let start = deal(seed, Layout::new(suits, ranks).unwrap());
                    let reference = reachable(&start, variant, usize::MAX);
                    let complete = ExactOptions {
                        complete: true,
                        stop_at_settled: false,
                        prune_dead: false,
                        shuffle_classes: false,
                        settled_table_bytes: 0,
                        settled_reductions: SettledReductions::ALL,
                        memory_bytes: 64 << 20,
                    };
                    let (outcome, stats) = run(&start, variant, complete);
                    assert_eq!(stats.nodes, reference.positions as u64);
                    // One key a class: every position is still entered exactly once.
                    let classes = ExactOptions {
                        shuffle_classes: true,
                        ..complete
                    };
                    let (_, by_class) = run(&start, variant, classes);
                    assert_eq!(by_class.nodes, reference.positions as u64);
                    assert!(by_class.stored <= stats.stored);
                    // Settled positions decided by depth-first search: with an ample
                    // table, and with one of 4 KiB that forgets most of what it held;
                    // with and without that search's reductions.
                    let none = SettledReductions::NONE;
                    for (prune_dead, shuffle_classes, settled_table_bytes, settled_reductions) in [
                        (false, false, 0, SettledReductions::ALL),
                        (true, false, 0, SettledReductions::ALL),
                        (false, true, 0, SettledReductions::ALL),
                        (true, true, 0, SettledReductions::ALL),
                        (false, true, 1 << 20, SettledReductions::ALL),
                        (false, false, 4096, SettledReductions::ALL),
                        (true, true, 4096, SettledReductions::ALL),
                        (false, false, 1 << 20, none),
                        (false, true, 4096, none),
                    ] {
                        let verdict = ExactOptions {
                            complete: false,
                            prune_dead,
                            shuffle_classes,
                            settled_table_bytes,
                            settled_reductions,
                            ..complete
                        };
                        match run(&start, variant, verdict).0 {
                            Outcome::Won(line) => {
                                assert_eq!(reference.winnable, Some(true));
                                verify_solution(&start, variant, &line).unwrap();
                                assert!(outcome.is_won());
                            }
                            Outcome::Exhausted => {
                                assert_eq!(reference.winnable, Some(false));
                                assert_eq!(outcome, Outcome::Exhausted);
                            }
                            other => panic!("{variant} {suits}x{ranks} {seed}: {other:?}"),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn settled_positions_decided_by_depth_first_search_stay_out_of_the_set() {
        let mut lost = 0;
        // Settled children found dead and so neither looked up nor searched.
        let mut dead_roots = 0;
        for seed in 0..60 {
            let start = deal(seed, Layout::new(3, 5).unwrap());
            let stored = ExactOptions {
                complete: false,
                stop_at_settled: false,
                prune_dead: false,
                shuffle_classes: true,
                settled_table_bytes: 0,
                settled_reductions: SettledReductions::ALL,
                memory_bytes: 64 << 20,
            };
            let (outcome, all) = run(&start, Variant::Common, stored);
            if outcome != Outcome::Exhausted || all.settled == 0 {
                continue;
            }
            lost += 1;
            let by_dfs = ExactOptions {
                settled_table_bytes: 1 << 20,
                ..stored
            };
            let (again, part) = run(&start, Variant::Common, by_dfs);
            assert_eq!(again, Outcome::Exhausted, "deal {seed}");
            // The same unsettled positions (or classes) are stored, and no settled one
            // (settled positions have no class: each took a key of its own).
            assert_eq!(part.stored, all.stored - all.settled, "deal {seed}");
            dead_roots += part.dead_cuts;
            // On two threads, each unsettled key is inserted once into the shared set.
            let mut shared = SearchStats::default();
            let (outcome, _) = crate::search::exact_parallel::search(
                &start,
                Variant::Common,
                by_dfs,
                2,
                &Budget::unlimited(),
                &mut shared,
            );
            assert_eq!(outcome, Outcome::Exhausted, "deal {seed}");
            assert_eq!(shared.stored, part.stored, "deal {seed}");
        }
        assert!(
            lost > 5,
            "too few lost deals with settled positions: {lost}"
        );
        assert!(dead_roots > 0, "no settled child was dead");
    }

    #[test]
    fn a_full_memory_budget_stops_and_never_claims_a_loss() {
        // 187,197 positions (tests/data/reachable.csv) do not fit in 4 KiB.
        let start = deal(3, Layout::new(4, 4).unwrap());
        let options = ExactOptions {
            complete: true,
            stop_at_settled: false,
            prune_dead: false,
            shuffle_classes: false,
            settled_table_bytes: 0,
            settled_reductions: SettledReductions::ALL,
            memory_bytes: 4096,
        };
        let (outcome, stats) = run(&start, Variant::Common, options);
        assert!(matches!(
            outcome,
            Outcome::Stopped(StopReason::MemoryLimit) | Outcome::Won(_)
        ));
        assert!(stats.nodes < 187_197);
        assert!(stats.table_bytes <= 4096);
    }

    #[test]
    fn stopping_at_settled_positions_counts_the_unsettled_part_and_its_frontier() {
        let start = deal(2, Layout::new(3, 5).unwrap());
        let whole = ExactOptions {
            complete: true,
            stop_at_settled: false,
            prune_dead: false,
            shuffle_classes: false,
            settled_table_bytes: 0,
            settled_reductions: SettledReductions::ALL,
            memory_bytes: 64 << 20,
        };
        let (_, all) = run(&start, Variant::Common, whole);
        let split = ExactOptions {
            stop_at_settled: true,
            prune_dead: false,
            ..whole
        };
        let (_, part) = run(&start, Variant::Common, split);
        // Unsettled positions are the same in both; the frontier is part of the settled.
        assert_eq!(all.nodes - all.settled, part.nodes - part.settled);
        assert!(part.settled <= all.settled);
        assert!(all.settled > 0);
    }
}
