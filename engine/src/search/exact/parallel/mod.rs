//! The exact search of `search::exact` on several threads sharing one visited set.
//!
//! Every thread searches depth first from the root; a thread expands exactly the
//! positions it inserted into the shared set (one insert of a key is told `New`), and
//! threads take the moves of every position in different orders (thread `t` of `N`
//! starts at move `t * moves / N`), so they split the space between them as they go.
//! A thread that runs out of work asks for some and waits; a working thread then hands
//! it half the untried moves of its lowest frame that has any (`search::exact::sharing`),
//! so no thread idles while another still works. Threads can also start late
//! ([`search_joined`]): they hold nothing until their gate opens, then take work so.
//!
//! The set grows between phases: when an insert finds its shard full, that thread
//! gives the move back (it will be tried again) and raises a flag; every thread stops at
//! its next move with its stack intact; the fullest shards are copied into larger ones
//! (`search::visited::shared_key_set`: one shard per thread at a time, so the set fills its budget); and
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
//! Why an exhausted parallel search proves the deal lost: the threads end without being
//! stopped only when every move of every position inserted (or of every member of a
//! class inserted) has been tried, by the thread that inserted it or by one it handed
//! the move to, each leading to a position that thread inserted (and expands) or one
//! already in the set; a growth
//! phase loses no key and no move. A class member other than the one that opened its
//! class leaves out the moves into classes that every member reaches (as in
//! `search::exact`): the opening member tries them, or the thread it hands them to. When all
//! threads end so, every position in the set has had all its moves tried (by itself or
//! by the member that opened its class) and their results are in the set: the set is closed
//! under moves and holds the root, so it is the whole reachable space, and no position
//! in it was won. Any stop (a limit, a full budget, a win in verdict mode) halts every
//! thread and the outcome is then never `Exhausted`. Collisions: as in `search::exact`,
//! plus the merging of keys with a zero word described in `search::visited::shared_key_set`.

use crate::position::{is_shuffle_move, Position};
use crate::search::budget::{Budget, StopReason};
use crate::search::exact::classes::{class_key, FrameEntry, NO_CLASS};
use crate::search::exact::options::{settled, ExactOptions};
use crate::search::exact::settled::SettledSearch;
use crate::search::exact::sharing::{Donation, Exchange, Wait};
use crate::search::exact::walk::{Entered, Lane, Step, Walk};
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use crate::search::visited::shared_key_set::SharedKeySet;
use crate::tuning::{GIVE_RETRY, PARALLEL_FIRST_SLOTS};
use crate::variant::Variant;
use std::sync::atomic::{AtomicBool, Ordering};

/// How a phase of one thread ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum PhaseEnd {
    /// Every thread is out of work: everything inserted is expanded.
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
    let sharing = Sharing::default();
    search_from(start, variant, options, threads, &sharing, budget, stats).0
}

/// [`search`] on `threads` threads of which the last `late` hold no work and wait until
/// `gate` is raised, then join the others by taking part of their work
/// (`search::exact::sharing`): a thread whose core is busy elsewhere when the search
/// starts (`auto`'s finders) joins it when the core is free, instead of the search
/// starting again. At least one thread starts at once.
#[allow(clippy::too_many_arguments)]
pub fn search_joined(
    start: &Position,
    variant: Variant,
    options: ExactOptions,
    threads: usize,
    late: usize,
    gate: &AtomicBool,
    budget: &Budget,
    stats: &mut SearchStats,
) -> (Outcome, Option<StopReason>) {
    let sharing = Sharing {
        late: late.min(threads - 1),
        gate: Some(gate),
        ..Sharing::default()
    };
    search_from(start, variant, options, threads, &sharing, budget, stats).0
}

/// How the threads of one search share their work.
struct Sharing<'a> {
    /// Threads that start holding no work, waiting for `gate`.
    late: usize,
    gate: Option<&'a AtomicBool>,
    /// Slots of the first set (tests make it tiny, so that the set grows many times).
    first_slots: usize,
}

impl Default for Sharing<'_> {
    fn default() -> Self {
        Sharing {
            late: 0,
            gate: None,
            first_slots: PARALLEL_FIRST_SLOTS,
        }
    }
}

/// [`search`] as `sharing` says; also returns how many times work was handed over.
fn search_from(
    start: &Position,
    variant: Variant,
    options: ExactOptions,
    threads: usize,
    sharing: &Sharing,
    budget: &Budget,
    stats: &mut SearchStats,
) -> ((Outcome, Option<StopReason>), usize) {
    let tables_bytes = options.settled_share(variant);
    if options.settles_by_dfs(variant) && settled(start, variant) {
        // Nothing before column 0 settles to share: one search on this thread.
        let mut search = SettledSearch::with_table_bytes(tables_bytes, options.settled_reductions);
        let ended = search.decide_root(start, budget, stats);
        stats.table_bytes = stats.table_bytes.max(search.table_bytes() as u64);
        return (ended, 0);
    }
    let table_bytes = tables_bytes / threads;
    let mut set = SharedKeySet::new(
        options.memory_bytes - tables_bytes,
        threads,
        sharing.first_slots,
    );
    let early = threads - sharing.late;
    let exchange = Exchange::new(threads, sharing.late, sharing.gate);
    let _ = set.insert(class_key(start, variant, options).unwrap_or(start.key()));
    let spent = stats.nodes;
    let mut runs: Vec<Run> = (0..threads)
        .map(|thread| {
            let lane = Lane { thread, threads };
            let walk = Walk::new(variant, options, lane, table_bytes, 0);
            Run::new(walk, start, &set, thread >= early)
        })
        .collect();
    let halt = AtomicBool::new(false);
    loop {
        let grow = AtomicBool::new(false);
        let ends: Vec<PhaseEnd> = std::thread::scope(|scope| {
            let workers: Vec<_> = runs
                .iter_mut()
                .map(|run| {
                    let (set, grow, halt, exchange) = (&set, &grow, &halt, &exchange);
                    scope.spawn(move || {
                        let budget = budget.shared_by(threads, spent, halt);
                        let end = run.phase(set, &budget, grow, exchange);
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
                run.walk.stop.get_or_insert(StopReason::MemoryLimit);
            }
            break;
        }
    }
    let mut won = None;
    let mut stopped = None;
    let mut settled_bytes = 0;
    for run in runs {
        stats.absorb(&run.stats);
        settled_bytes += run.walk.settled_bytes_held();
        if let Some(line) = run.walk.win {
            won.get_or_insert(line);
        }
        if let Some(reason) = run.walk.stop {
            // A sibling's halt reads as `Cancelled` in the others: prefer a real reason.
            if stopped.is_none() || stopped == Some(StopReason::Cancelled) {
                stopped = Some(reason);
            }
        }
    }
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
    ((outcome, stopped), exchange.donations())
}

/// One thread's search, kept between phases: its walk over the shared set, its
/// counters and its part in the handing over of work. Aligned to two cache lines, so
/// that the counters one thread writes at every move never share a line with what its
/// neighbour in the list of runs reads.
#[repr(align(128))]
struct Run {
    walk: Walk,
    stats: SearchStats,
    /// Holds no work: waits for some (`search::exact::sharing`).
    idle: bool,
    /// Waits for the gate before it may take work.
    late: bool,
    /// Moves looked at (tried, or skipped as seen), and the count before which this
    /// thread does not look again for work to give after it had none.
    looked: u64,
    give_after: u64,
}

impl Run {
    /// A thread's run on `walk`: from the root `start` (whose key is in `set`), or
    /// holding no work if it starts `late`.
    fn new(walk: Walk, start: &Position, set: &SharedKeySet, late: bool) -> Run {
        let mut run = Run {
            walk,
            stats: SearchStats::default(),
            idle: late,
            late,
            looked: 0,
            give_after: 0,
        };
        if late {
            return run;
        }
        // Every thread that starts at once enters the root and expands it; thread 0
        // alone counts it (it is one position) and opens its class, if it has one (for
        // the others the class's key is in the set), so that each member is entered once.
        let walk = &mut run.walk;
        let first = walk.lane.thread == 0;
        let root_class = class_key(start, walk.variant, walk.options);
        let class = walk.classes.open(start, root_class.filter(|_| first));
        walk.stack.set_spare(start);
        let mut others = SearchStats::default();
        let counted = if first { &mut run.stats } else { &mut others };
        if walk.enter_spare(FrameEntry::root(class, root_class), &set, counted)
            == Some(Entered::Won)
        {
            walk.win = Some(Vec::new());
        }
        run
    }

    /// Searches until the search is over, the set must grow, or the search must stop;
    /// a thread out of work meanwhile waits for work from the others.
    fn phase(
        &mut self,
        set: &SharedKeySet,
        budget: &Budget,
        grow: &AtomicBool,
        exchange: &Exchange,
    ) -> PhaseEnd {
        if self.walk.win.is_some() && !self.walk.options.complete {
            return PhaseEnd::Halt;
        }
        loop {
            if self.idle {
                if let Some(end) = self.wait_for_work(budget, grow, exchange) {
                    return end;
                }
            }
            if let Some(end) = self.work(set, budget, grow, exchange) {
                return end;
            }
            exchange.stop_working();
            self.idle = true;
        }
    }

    /// Waits, holding no work, until some comes (`None`) or the phase ends.
    fn wait_for_work(
        &mut self,
        budget: &Budget,
        grow: &AtomicBool,
        exchange: &Exchange,
    ) -> Option<PhaseEnd> {
        let nodes = self.stats.nodes;
        let interrupted = || grow.load(Ordering::Relaxed) || budget.exhausted(nodes).is_some();
        let waited = if self.late {
            match exchange.wait_at_gate(interrupted) {
                None => {
                    exchange.arrive();
                    self.late = false;
                    exchange.wait(interrupted)
                }
                Some(waited) => waited,
            }
        } else {
            exchange.wait(interrupted)
        };
        match waited {
            Wait::Work(donation) => {
                self.take(donation);
                None
            }
            Wait::Done => Some(PhaseEnd::Finished),
            Wait::Interrupted if grow.load(Ordering::Relaxed) => Some(PhaseEnd::Grow),
            Wait::Interrupted => {
                self.walk.stop = budget.exhausted(nodes);
                Some(PhaseEnd::Halt)
            }
        }
    }

    /// Starts on work handed over by another thread: its moves from its position.
    fn take(&mut self, donation: Box<Donation>) {
        let walk = &mut self.walk;
        debug_assert_eq!(walk.stack.len(), 0, "work is taken with an empty stack");
        self.idle = false;
        walk.classes.clear();
        walk.prefix = donation.line;
        walk.stack.set_spare(&donation.position);
        let moves = donation.moves;
        let class_key = class_key(&donation.position, walk.variant, walk.options);
        let entry = FrameEntry::root(NO_CLASS, class_key);
        walk.stack.push_spare(entry, |_, list| *list = moves, |_| 0);
    }

    /// Hands part of this thread's work to a waiting thread, if it has some to spare;
    /// if not, does not look again for a while (each look takes the lock).
    fn give(&mut self, exchange: &Exchange) {
        if self.looked < self.give_after {
            return;
        }
        let (stack, prefix) = (&mut self.walk.stack, &self.walk.prefix);
        let gave = exchange.give(|| {
            // Shuffle moves inside an open class stay: see `search::exact::sharing`.
            let (position, moves, line) = stack
                .split_lowest(|frame, m| frame.entry.class == NO_CLASS || !is_shuffle_move(m))?;
            let line = prefix.iter().copied().chain(line).collect();
            Some(Donation {
                position,
                moves,
                line,
            })
        });
        if !gave {
            self.give_after = self.looked + GIVE_RETRY;
        }
    }

    /// Searches this thread's stack until it is empty (`None`), the set must grow, or
    /// the search must stop.
    fn work(
        &mut self,
        mut set: &SharedKeySet,
        budget: &Budget,
        grow: &AtomicBool,
        exchange: &Exchange,
    ) -> Option<PhaseEnd> {
        loop {
            if grow.load(Ordering::Relaxed) {
                return Some(PhaseEnd::Grow);
            }
            if exchange.wanted() {
                self.give(exchange);
            }
            self.looked += 1;
            match self.walk.step(&mut set, budget, &mut self.stats) {
                Step::Went => {}
                Step::Done => return None,
                Step::Full => {
                    // The move is tried again once the set has grown.
                    grow.store(true, Ordering::Relaxed);
                    return Some(PhaseEnd::Grow);
                }
                Step::Halt => return Some(PhaseEnd::Halt),
            }
        }
    }
}

#[cfg(test)]
mod tests;
