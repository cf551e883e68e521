//! The exact search of `search::exact` on several threads sharing one visited set.
//!
//! Every thread searches depth first from the root; a thread expands exactly the
//! positions it inserted into the shared set (one insert of a key is told `New`), and
//! threads take the moves of every position in different orders (thread `t` of `N`
//! starts at move `t * moves / N`), so they split the space between them as they go,
//! with no work queue.
//!
//! The set grows between phases: when an insert finds its shard full, that thread
//! gives the move back (it will be tried again) and raises a flag; every thread stops at
//! its next move with its stack intact; the fullest shards are copied into larger ones
//! (`shared_key_set`: one shard per thread at a time, so the set fills its budget); and
//! the threads go on where they were. A full shard that cannot grow ends the search
//! with `memory_limit`.
//!
//! Two-shuffle classes (`shuffle_classes`) work as in `search::exact`: the thread
//! whose insert of a class's key is told `New` opens the class on its own stack and
//! enters every member; thread 0 alone opens the root's class.
//!
//! Settled positions (`settled_table_bytes`, verdicts on `common`) work as in
//! `search::exact`, per thread: each thread decides the settled children of the
//! positions it expands by its own depth-first search, whose table (an equal share of
//! `settled_table_bytes`) holds only settled positions that search proved lost. A
//! settled child reached by two threads may be searched by both (their tables are
//! separate): more work, never a wrong skip. Such a search runs under the thread's
//! budget, which stops it when a sibling halts; a growth phase waits for it to end.
//!
//! Why an exhausted parallel search proves the deal lost: a thread ends without being
//! stopped only when every move of every position it inserted (or of every member of
//! a class it inserted) has been tried, each leading to a position it inserted (and
//! expands) or one already in the set; a growth
//! phase loses no key and no move. A class member other than the one that opened its
//! class leaves out the moves into classes that every member reaches (as in
//! `search::exact`): the opening member, on the same thread, tries them. When all
//! threads end so, every position in the set has had all its moves tried (by itself or
//! by the member that opened its class) and their results are in the set: the set is closed
//! under moves and holds the root, so it is the whole reachable space, and no position
//! in it was won. Any stop (a limit, a full budget, a win in verdict mode) halts every
//! thread and the outcome is then never `Exhausted`. Collisions: as in `search::exact`,
//! plus the merging of keys with a zero word described in `shared_key_set`.

use super::exact::{left_unexpanded, settled, ExactOptions};
use super::exact_classes::{class_key, frame_moves, Admit, OpenClasses, NO_CLASS};
use super::exact_stack::ExactStack;
use crate::moves::Move;
use crate::position::Position;
use crate::search::budget::{Budget, StopReason, CHECK_INTERVAL};
use crate::search::exact_settled::SettledSearch;
use crate::search::key_set::Insert;
use crate::search::outcome::Outcome;
use crate::search::shared_key_set::SharedKeySet;
use crate::search::stats::SearchStats;
use crate::variant::Variant;
use std::sync::atomic::{AtomicBool, Ordering};

/// Slots of the first shared set, over all its shards (16 bytes each: 64 MiB; zeroing
/// it costs milliseconds, and each growth stops the threads).
const FIRST_SLOTS: usize = 1 << 22;

/// How a phase of one thread ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum PhaseEnd {
    /// Its stack is empty: everything it inserted is expanded.
    Finished,
    /// The set must grow first; the thread resumes where it stopped.
    Grow,
    /// A win in verdict mode, or a limit: the whole search stops.
    Halt,
}

/// Searches `start` on `threads` threads sharing one visited set that grows to at most
/// `options.memory_bytes` (see the module doc). Returns the outcome and, when a limit
/// ended the search (also after a win found first in complete mode), which.
pub fn search(
    start: &Position,
    variant: Variant,
    options: ExactOptions,
    threads: usize,
    budget: &Budget,
    stats: &mut SearchStats,
) -> (Outcome, Option<StopReason>) {
    search_from(start, variant, options, threads, FIRST_SLOTS, budget, stats)
}

/// [`search`] with a first set of `first_slots` slots (tests make it tiny, so that the
/// set grows many times).
fn search_from(
    start: &Position,
    variant: Variant,
    options: ExactOptions,
    threads: usize,
    first_slots: usize,
    budget: &Budget,
    stats: &mut SearchStats,
) -> (Outcome, Option<StopReason>) {
    let tables_bytes = options.settled_tables_bytes(variant);
    if options.settles_by_dfs(variant) && settled(start, variant) {
        // Nothing before column 0 settles to share: one search on this thread.
        let mut search = SettledSearch::with_table_bytes(tables_bytes);
        let ended = search.decide_root(start, budget, stats);
        stats.table_bytes = stats.table_bytes.max(search.table_bytes() as u64);
        return ended;
    }
    let table_bytes = tables_bytes / threads;
    let mut set = SharedKeySet::new(options.memory_bytes - tables_bytes, threads, first_slots);
    let _ = set.insert(class_key(start, variant, options).unwrap_or(start.key()));
    let spent = stats.nodes;
    let mut runs: Vec<Run> = (0..threads)
        .map(|t| Run::new(start, variant, options, t, threads, table_bytes))
        .collect();
    let halt = AtomicBool::new(false);
    loop {
        let grow = AtomicBool::new(false);
        let ends: Vec<PhaseEnd> = std::thread::scope(|scope| {
            let workers: Vec<_> = runs
                .iter_mut()
                .map(|run| {
                    let (set, grow, halt) = (&set, &grow, &halt);
                    scope.spawn(move || {
                        let budget = budget.shared_by(threads, spent, halt);
                        let end = run.phase(set, &budget, grow);
                        if end == PhaseEnd::Halt {
                            halt.store(true, Ordering::Relaxed);
                        }
                        end
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("an exact search thread panicked"))
                .collect()
        });
        if ends.contains(&PhaseEnd::Halt) || !ends.contains(&PhaseEnd::Grow) {
            break;
        }
        if !set.grow(threads) {
            for run in &mut runs {
                run.stop.get_or_insert(StopReason::MemoryLimit);
            }
            break;
        }
    }
    let mut won = None;
    let mut stopped = None;
    let mut settled_bytes = 0;
    for run in runs {
        stats.absorb(&run.stats);
        settled_bytes += run.settled.as_ref().map_or(0, SettledSearch::table_bytes);
        if let Some(line) = run.win {
            won.get_or_insert(line);
        }
        if let Some(reason) = run.stop {
            // A sibling's halt reads as `Cancelled` in the others: prefer a real reason.
            if stopped.is_none() || stopped == Some(StopReason::Cancelled) {
                stopped = Some(reason);
            }
        }
    }
    // Every thread starts from the root; it is one position.
    stats.nodes += 1;
    stats.settled += u64::from(settled(start, variant));
    stats.expanded = stats.expanded.saturating_sub(threads as u64 - 1);
    stats.table_bytes = stats.table_bytes.max((set.bytes() + settled_bytes) as u64);
    // Halted by a sibling's win in verdict mode: not a limit.
    if won.is_some() && !options.complete {
        stopped = None;
    }
    let outcome = match (won, stopped) {
        (Some(line), _) => Outcome::Won(line),
        (None, Some(reason)) => Outcome::Stopped(reason),
        (None, None) => Outcome::Exhausted,
    };
    (outcome, stopped)
}

/// One thread's search, kept between phases.
struct Run {
    variant: Variant,
    options: ExactOptions,
    thread: usize,
    threads: usize,
    stack: ExactStack,
    /// This thread's open Two-shuffle classes.
    classes: OpenClasses,
    stats: SearchStats,
    win: Option<Vec<Move>>,
    stop: Option<StopReason>,
    next_check: u64,
    /// Decides settled children (`settled_table_bytes`), with this thread's table.
    settled: Option<SettledSearch>,
}

impl Run {
    fn new(
        start: &Position,
        variant: Variant,
        options: ExactOptions,
        thread: usize,
        threads: usize,
        settled_table_bytes: usize,
    ) -> Run {
        let mut run = Run {
            variant,
            options,
            thread,
            threads,
            stack: ExactStack::default(),
            classes: OpenClasses::default(),
            stats: SearchStats::default(),
            win: None,
            stop: None,
            next_check: CHECK_INTERVAL,
            settled: options
                .settles_by_dfs(variant)
                .then(|| SettledSearch::with_table_bytes(settled_table_bytes)),
        };
        let is_settled = settled(start, variant);
        let mut root_stats = SearchStats::default();
        if start.is_won(variant) {
            run.stats.wins += u64::from(thread == 0);
            run.win = Some(Vec::new());
        } else if !left_unexpanded(start, is_settled, variant, options, &mut root_stats) {
            // Every thread expands the root; thread 0 alone opens its class, if it has
            // one (for the others the class's key is in the set), so that each member
            // is entered once.
            let root_class = class_key(start, variant, options).filter(|_| thread == 0);
            let class = run.classes.open(start, root_class);
            run.stack.set_spare(start);
            run.push_spare(Move::default(), class, class != NO_CLASS, None);
        }
        run.stats.dead_cuts += u64::from(thread == 0) * root_stats.dead_cuts;
        run
    }

    /// Searches until the stack is empty, the set must grow, or the search must stop.
    fn phase(&mut self, set: &SharedKeySet, budget: &Budget, grow: &AtomicBool) -> PhaseEnd {
        if self.win.is_some() && !self.options.complete {
            return PhaseEnd::Halt;
        }
        while let Some(top) = self.stack.top_mut() {
            if grow.load(Ordering::Relaxed) {
                return PhaseEnd::Grow;
            }
            let Some(m) = top.next_move() else {
                if top.opens_class {
                    self.classes.close_last();
                }
                self.stack.pop();
                continue;
            };
            let from_class = top.class;
            let depth = self.stack.len() as u64;
            let child = self.stack.play_child(m);
            let variant = self.variant;
            if let Some(search) = self.settled.as_mut().filter(|_| settled(child, variant)) {
                match search.decide(child, budget, &mut self.stats) {
                    Ok(None) => {}
                    Ok(Some(rest)) => {
                        let mut line = self.stack.line(m);
                        line.extend(rest);
                        self.win = Some(line);
                        return PhaseEnd::Halt;
                    }
                    Err(reason) => {
                        self.stop = Some(reason);
                        return PhaseEnd::Halt;
                    }
                }
                continue;
            }
            let admitted = self
                .classes
                .admit(from_class, m, child, self.variant, self.options);
            let (class, opens) = match admitted {
                Admit::Seen => {
                    self.stats.tt_hits += 1;
                    continue;
                }
                // A member of a class this thread opened (see `search::exact`).
                Admit::Member(class) => (class, false),
                Admit::Keyed(key, child_class) => {
                    match set.insert(key) {
                        Insert::Present => {
                            self.stats.tt_hits += 1;
                            continue;
                        }
                        Insert::Full => {
                            // Tried again once the set has grown.
                            if let Some(top) = self.stack.top_mut() {
                                top.tried -= 1;
                            }
                            grow.store(true, Ordering::Relaxed);
                            return PhaseEnd::Grow;
                        }
                        Insert::New => {}
                    }
                    self.stats.stored += 1;
                    let class = self.classes.open(child, child_class);
                    (class, class != NO_CLASS)
                }
            };
            self.stats.nodes += 1;
            let is_settled = settled(child, self.variant);
            self.stats.settled += u64::from(is_settled);
            self.stats.max_depth = self.stats.max_depth.max(depth);
            if child.is_won(self.variant) {
                self.stats.wins += 1;
                let line = self.stack.line(m);
                self.win.get_or_insert(line);
                if opens {
                    self.classes.close_last();
                }
                if !self.options.complete {
                    return PhaseEnd::Halt;
                }
            } else if !left_unexpanded(
                child,
                is_settled,
                self.variant,
                self.options,
                &mut self.stats,
            ) {
                self.push_spare(m, class, opens, Some(set));
            } else if opens {
                self.classes.close_last();
            }
            if self.stats.nodes >= self.next_check {
                if let Some(reason) = budget.exhausted(self.stats.nodes) {
                    self.stop = Some(reason);
                    return PhaseEnd::Halt;
                }
                self.next_check = self.stats.nodes + CHECK_INTERVAL;
            }
        }
        PhaseEnd::Finished
    }

    /// Pushes the position in the stack's spare slot as a frame, entered by `via` in
    /// `class` (opened by it if `opens_class`); its moves are tried from this thread's
    /// share of the list on.
    fn push_spare(&mut self, via: Move, class: u32, opens_class: bool, set: Option<&SharedKeySet>) {
        // As in `search::exact`: settling moves first in the list, every child's slot
        // or bucket loading from now on (a thread that starts further along the list
        // reaches the settling moves last, when their buckets may have left the cache).
        let (variant, options) = (self.variant, self.options);
        let settled_search = self.settled.as_ref();
        let (thread, threads) = (self.thread, self.threads);
        self.stack.push_spare(
            via,
            class,
            opens_class,
            |position, moves| {
                frame_moves(
                    position,
                    class,
                    opens_class,
                    variant,
                    options,
                    settled_search,
                    moves,
                    |key| {
                        if let Some(set) = set {
                            set.prefetch(key);
                        }
                    },
                )
            },
            |len| thread * len / threads,
        );
        self.stats.expanded += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Layout;
    use crate::deal::deal;
    use crate::exhaustive::reachable;
    use crate::replay::verify_solution;

    #[test]
    fn a_set_grown_many_times_loses_nothing() {
        for variant in [Variant::Basic, Variant::Common] {
            for seed in 0..25 {
                let start = deal(seed, Layout::new(3, 5).unwrap());
                let reference = reachable(&start, variant, usize::MAX);
                // The last three decide settled positions by depth-first search, one
                // with tables so small (4 KiB a thread) that they forget most keys.
                for (threads, complete, prune_dead, shuffle_classes, settled_table_bytes) in [
                    (2, true, false, false, 0),
                    (3, true, false, true, 0),
                    (2, true, false, true, 0),
                    (2, false, false, false, 0),
                    (2, false, true, true, 0),
                    (3, false, false, true, 0),
                    (2, false, false, true, 1 << 20),
                    (3, false, true, true, 1 << 20),
                    (2, false, false, false, 8 << 10),
                ] {
                    let options = ExactOptions {
                        complete,
                        stop_at_settled: false,
                        prune_dead,
                        shuffle_classes,
                        settled_table_bytes,
                        memory_bytes: 64 << 20,
                    };
                    let mut stats = SearchStats::default();
                    let (outcome, stopped) = search_from(
                        &start,
                        variant,
                        options,
                        threads,
                        8,
                        &Budget::unlimited(),
                        &mut stats,
                    );
                    assert_eq!(stopped, None, "{variant} {seed}");
                    if complete {
                        assert_eq!(stats.nodes, reference.positions as u64, "{variant} {seed}");
                    }
                    match outcome {
                        Outcome::Won(line) => {
                            assert_eq!(reference.winnable, Some(true));
                            verify_solution(&start, variant, &line).unwrap();
                        }
                        Outcome::Exhausted => assert_eq!(reference.winnable, Some(false)),
                        other => panic!("{variant} {seed}: {other:?}"),
                    }
                }
            }
        }
    }

    #[test]
    fn a_budget_too_small_ends_memory_limit() {
        // 187,197 positions (tests/data/reachable.csv) do not fit in 64 KiB.
        let start = deal(3, Layout::new(4, 4).unwrap());
        let options = ExactOptions {
            complete: true,
            stop_at_settled: false,
            prune_dead: false,
            shuffle_classes: false,
            settled_table_bytes: 0,
            memory_bytes: 64 << 10,
        };
        let mut stats = SearchStats::default();
        let (outcome, stopped) = search_from(
            &start,
            Variant::Common,
            options,
            2,
            8,
            &Budget::unlimited(),
            &mut stats,
        );
        assert_eq!(stopped, Some(StopReason::MemoryLimit));
        assert!(matches!(outcome, Outcome::Stopped(_) | Outcome::Won(_)));
        assert!(stats.table_bytes <= 64 << 10);
    }
}
