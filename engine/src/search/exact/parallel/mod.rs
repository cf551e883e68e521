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

use crate::moves::Move;
use crate::position::{is_shuffle_move, Position};
use crate::search::budget::{Budget, StopReason, CHECK_INTERVAL};
use crate::search::exact::classes::{
    class_key, Admit, FrameEntry, FrameRules, OpenClasses, NO_CLASS,
};
use crate::search::exact::options::{left_unexpanded, settled, settles, ExactOptions};
use crate::search::exact::settled::SettledSearch;
use crate::search::exact::sharing::{Donation, Exchange, Wait};
use crate::search::exact::stack::ExactStack;
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use crate::search::visited::key_set::Insert;
use crate::search::visited::shared_key_set::SharedKeySet;
use crate::variant::Variant;
use std::sync::atomic::{AtomicBool, Ordering};

/// Slots of the first shared set, over all its shards (16 bytes each: 4 MiB). Each
/// growth stops the threads, but a larger start costs more: its shards are too small
/// for huge pages, and each 4 KiB page of them faults twice when first touched (read,
/// then written). With 64 MiB, a small proof took 0.77-0.89 s where the one-thread
/// search takes 0.57-0.61 s (`common` deal 27, one thread of the parallel search);
/// with 4 MiB 0.61-0.63 s, and a large one (deal 24, two threads) the same time.
const FIRST_SLOTS: usize = 1 << 18;

/// Moves a thread looks at before it looks again for work to give, after it had none
/// to spare (each look takes the exchange's lock).
const GIVE_RETRY: u64 = 1024;

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
            first_slots: FIRST_SLOTS,
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
    let tables_bytes = options.settled_tables_bytes(variant);
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
        .map(|t| Run::new(start, variant, options, t, threads, t >= early, table_bytes))
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
    // Every thread that starts at once starts from the root; it is one position.
    stats.nodes += 1;
    stats.settled += u64::from(settled(start, variant));
    stats.expanded = stats.expanded.saturating_sub(early as u64 - 1);
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

/// One thread's search, kept between phases. Aligned to two cache lines, so that the
/// counters one thread writes at every move never share a line with what its
/// neighbour in the list of runs reads.
#[repr(align(128))]
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
    /// The moves from the root to the bottom frame (work taken from another thread
    /// starts there; empty for a search from the root).
    prefix: Vec<Move>,
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
    fn new(
        start: &Position,
        variant: Variant,
        options: ExactOptions,
        thread: usize,
        threads: usize,
        late: bool,
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
            settled: options.settles_by_dfs(variant).then(|| {
                SettledSearch::with_table_bytes(settled_table_bytes, options.settled_reductions)
            }),
            prefix: Vec::new(),
            idle: late,
            late,
            looked: 0,
            give_after: 0,
        };
        if late {
            return run;
        }
        let is_settled = settled(start, variant);
        let mut root_stats = SearchStats::default();
        if start.is_won(variant) {
            run.stats.wins += u64::from(thread == 0);
            run.win = Some(Vec::new());
        } else if !left_unexpanded(start, is_settled, variant, options, &mut root_stats) {
            // Every thread expands the root; thread 0 alone opens its class, if it has
            // one (for the others the class's key is in the set), so that each member
            // is entered once.
            let root_class = class_key(start, variant, options);
            let class = run.classes.open(start, root_class.filter(|_| thread == 0));
            run.stack.set_spare(start);
            run.push_spare(FrameEntry::root(class, root_class), None);
        }
        run.stats.dead_cuts += u64::from(thread == 0) * root_stats.dead_cuts;
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
        if self.win.is_some() && !self.options.complete {
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
                self.stop = budget.exhausted(nodes);
                Some(PhaseEnd::Halt)
            }
        }
    }

    /// Starts on work handed over by another thread: its moves from its position.
    fn take(&mut self, donation: Box<Donation>) {
        debug_assert_eq!(self.stack.len(), 0, "work is taken with an empty stack");
        self.idle = false;
        self.classes.clear();
        self.prefix = donation.line;
        self.stack.set_spare(&donation.position);
        let moves = donation.moves;
        let class_key = class_key(&donation.position, self.variant, self.options);
        let entry = FrameEntry::root(NO_CLASS, class_key);
        self.stack.push_spare(entry, |_, list| *list = moves, |_| 0);
    }

    /// Hands part of this thread's work to a waiting thread, if it has some to spare;
    /// if not, does not look again for a while (each look takes the lock).
    fn give(&mut self, exchange: &Exchange) {
        if self.looked < self.give_after {
            return;
        }
        let (stack, prefix) = (&mut self.stack, &self.prefix);
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
        set: &SharedKeySet,
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
            let top = self.stack.top_mut()?;
            let Some(m) = top.next_move() else {
                if top.entry.opens_class {
                    self.classes.close_last();
                }
                self.stack.pop();
                continue;
            };
            let from = top.entry;
            let parent = &top.position;
            let variant = self.variant;
            let to_settled = self.settled.is_some() && settles(parent, m, variant);
            let admitted = if to_settled {
                None
            } else {
                let admitted = self.classes.admit(from, m, parent, variant, self.options);
                match admitted {
                    Admit::Seen => {
                        self.stats.tt_hits += 1;
                        continue;
                    }
                    Admit::Member(_) => {}
                    Admit::Keyed(key, _) => match set.insert(key) {
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
                            return Some(PhaseEnd::Grow);
                        }
                        Insert::New => self.stats.stored += 1,
                    },
                }
                Some(admitted)
            };
            let depth = self.stack.len() as u64;
            let child = self.stack.play_child(m);
            debug_assert_eq!(
                to_settled,
                self.settled.is_some() && settled(child, variant)
            );
            let Some(admitted) = admitted else {
                let search = self.settled.as_mut().expect("settles only with a search");
                match search.decide(child, budget, &mut self.stats) {
                    Ok(None) => {}
                    Ok(Some(rest)) => {
                        let mut line = self.line(m);
                        line.extend(rest);
                        self.win = Some(line);
                        return Some(PhaseEnd::Halt);
                    }
                    Err(reason) => {
                        self.stop = Some(reason);
                        return Some(PhaseEnd::Halt);
                    }
                }
                continue;
            };
            let entry = self
                .classes
                .enter(admitted, m, from, child, variant, self.options);
            self.stats.nodes += 1;
            let is_settled = settled(child, self.variant);
            self.stats.settled += u64::from(is_settled);
            self.stats.max_depth = self.stats.max_depth.max(depth);
            if child.is_won(self.variant) {
                self.stats.wins += 1;
                let line = self.line(m);
                self.win.get_or_insert(line);
                if entry.opens_class {
                    self.classes.close_last();
                }
                if !self.options.complete {
                    return Some(PhaseEnd::Halt);
                }
            } else if !left_unexpanded(
                child,
                is_settled,
                self.variant,
                self.options,
                &mut self.stats,
            ) {
                self.push_spare(entry, Some(set));
            } else if entry.opens_class {
                self.classes.close_last();
            }
            if self.stats.nodes >= self.next_check {
                if let Some(reason) = budget.exhausted(self.stats.nodes) {
                    self.stop = Some(reason);
                    return Some(PhaseEnd::Halt);
                }
                self.next_check = self.stats.nodes + CHECK_INTERVAL;
            }
        }
    }

    /// The moves from the root to the top frame's position, then `last`.
    fn line(&self, last: Move) -> Vec<Move> {
        let mut line = self.prefix.clone();
        line.extend(self.stack.line(last));
        line
    }

    /// Pushes the position in the stack's spare slot as a frame entered as `entry`; its
    /// moves are tried from this thread's share of the list on.
    fn push_spare(&mut self, entry: FrameEntry, set: Option<&SharedKeySet>) {
        // As in `search::exact`: settling moves first in the list, every child's slot
        // or bucket loading from now on (a thread that starts further along the list
        // reaches the settling moves last, when their buckets may have left the cache).
        let (thread, threads) = (self.thread, self.threads);
        let rules = FrameRules {
            variant: self.variant,
            options: self.options,
            settled: self.settled.as_ref(),
        };
        self.stack.push_expanded(
            entry,
            &mut self.classes,
            rules,
            |key| {
                if let Some(set) = set {
                    set.prefetch(key);
                }
            },
            |len| thread * len / threads,
        );
        self.stats.expanded += 1;
    }
}

#[cfg(test)]
mod tests;
