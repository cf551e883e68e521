//! The exact search of `search::exact` on several threads sharing one visited set.
//!
//! Every thread searches depth first from the root; a thread expands exactly the
//! positions it inserted into the shared set (one insert of a key is told `New`), and
//! threads take the moves of every position in different orders (thread `t` of `N`
//! starts at move `t * moves / N`), so they split the space between them as they go,
//! with no work queue.
//!
//! Why an exhausted parallel search proves the deal lost: a thread ends without being
//! stopped only when every move of every position it inserted has been tried, each
//! leading to a position it inserted (and expands) or one already in the set. When all
//! threads end so, every position in the set has had all its moves tried and all their
//! results are in the set: the set is closed under moves and holds the root, so it is
//! the whole reachable space, and no position in it was won. Any stop (a limit, a full
//! set, a win in verdict mode) halts every thread and the outcome is then never
//! `Exhausted`. Collisions: as in `search::exact`, plus the merging of keys with a zero
//! word described in `shared_key_set`.

use super::exact::ExactOptions;
use crate::moves::{Move, MoveList};
use crate::position::{Position, MAX_MOVES};
use crate::search::budget::{Budget, StopReason, CHECK_INTERVAL};
use crate::search::key_set::Insert;
use crate::search::outcome::Outcome;
use crate::search::shared_key_set::SharedKeySet;
use crate::search::stats::SearchStats;
use crate::variant::Variant;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

struct Frame {
    position: Position,
    moves: MoveList<MAX_MOVES>,
    tried: usize,
    first: usize,
    via: Move,
}

/// How one thread ended: the first win it found, and the limit that stopped it.
struct ThreadEnd {
    win: Option<Vec<Move>>,
    stop: Option<StopReason>,
    stats: SearchStats,
}

/// Smallest shared set tried first (bytes).
const FIRST_SET_BYTES: usize = 64 << 20;

/// Searches `start` on `threads` threads sharing one visited set of at most
/// `options.memory_bytes`. The set cannot grow while threads use it, and a set much
/// larger than the space costs time (its pages are zeroed as they are touched, and
/// lookups miss the TLB: 4x13 `common` deal 0, 8.6M positions, took 11.5-13.8 s with
/// a 4 GiB set and 2.4-2.7 s with 256 MiB), so the search starts with 64 MiB and, when
/// that fills, starts again with four times as much, up to the budget: every attempt is
/// a complete search of its own, and the attempts before the last cost about a third
/// of it. Returns the outcome and, when a limit ended the search (also after a win
/// found first in complete mode), which; `stats` gain the counts of the last attempt
/// (each attempt may enter the budget's nodes).
pub fn search(
    start: &Position,
    variant: Variant,
    options: ExactOptions,
    threads: usize,
    budget: &Budget,
    stats: &mut SearchStats,
) -> (Outcome, Option<StopReason>) {
    let mut bytes = FIRST_SET_BYTES.min(options.memory_bytes);
    loop {
        let set = SharedKeySet::with_budget(bytes);
        let mut attempt = SearchStats::default();
        let (outcome, stopped) =
            search_with_set(start, variant, options, threads, &set, budget, &mut attempt);
        let larger = bytes.saturating_mul(4).min(options.memory_bytes);
        if stopped == Some(StopReason::MemoryLimit) && larger > bytes && !outcome.is_won() {
            bytes = larger;
            continue;
        }
        stats.absorb(&attempt);
        return (outcome, stopped);
    }
}

/// One attempt of [`search`] on `set` (which must be empty).
fn search_with_set(
    start: &Position,
    variant: Variant,
    options: ExactOptions,
    threads: usize,
    set: &SharedKeySet,
    budget: &Budget,
    stats: &mut SearchStats,
) -> (Outcome, Option<StopReason>) {
    let halt = AtomicBool::new(false);
    let first_stop: Mutex<Option<StopReason>> = Mutex::new(None);
    let spent = stats.nodes;
    let _ = set.insert(start.key());
    let ends: Vec<ThreadEnd> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (halt, first_stop) = (&halt, &first_stop);
                scope.spawn(move || {
                    let budget = budget.shared_by(threads, spent, halt);
                    let mut run = Run {
                        variant,
                        options,
                        thread: t,
                        threads,
                        set,
                        stack: Vec::new(),
                        stats: SearchStats::default(),
                    };
                    let (win, stop) = run.search(start, &budget);
                    let stops_all = stop.is_some() || win.is_some() && !options.complete;
                    if stops_all && !halt.swap(true, Ordering::Relaxed) {
                        *first_stop.lock().expect("stop reason") = stop;
                    }
                    ThreadEnd {
                        win,
                        stop,
                        stats: run.stats,
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("an exact search thread panicked"))
            .collect()
    });
    let mut won = None;
    let mut stopped = first_stop.into_inner().expect("stop reason");
    for end in ends {
        stats.absorb(&end.stats);
        if let Some(line) = end.win {
            won.get_or_insert(line);
        }
        if let Some(reason) = end.stop {
            stopped.get_or_insert(reason);
        }
    }
    // Every thread starts from the root; it is one position.
    stats.nodes += 1;
    stats.settled += u64::from(variant == Variant::Common && start.column0_all_twos());
    stats.expanded = stats.expanded.saturating_sub(threads as u64 - 1);
    stats.table_bytes = stats.table_bytes.max(set.bytes() as u64);
    let outcome = match (won, stopped) {
        (Some(line), _) => Outcome::Won(line),
        (None, Some(reason)) => Outcome::Stopped(reason),
        (None, None) => Outcome::Exhausted,
    };
    (outcome, stopped)
}

struct Run<'a> {
    variant: Variant,
    options: ExactOptions,
    thread: usize,
    threads: usize,
    set: &'a SharedKeySet,
    stack: Vec<Frame>,
    stats: SearchStats,
}

impl Run<'_> {
    /// This thread's search: its first win, and the limit that stopped it, if any.
    fn search(
        &mut self,
        start: &Position,
        budget: &Budget,
    ) -> (Option<Vec<Move>>, Option<StopReason>) {
        let mut first_win: Option<Vec<Move>> = None;
        if start.is_won(self.variant) {
            self.stats.wins += u64::from(self.thread == 0);
            return (Some(Vec::new()), None);
        }
        let settled = self.variant == Variant::Common && start.column0_all_twos();
        if settled && self.options.stop_at_settled {
            return (None, None);
        }
        self.push(start, Move::default());
        let mut next_check = CHECK_INTERVAL;
        while let Some(top) = self.stack.last_mut() {
            if top.tried == top.moves.len() {
                self.stack.pop();
                continue;
            }
            let m = top.moves[(top.first + top.tried) % top.moves.len()];
            top.tried += 1;
            let mut child = top.position;
            child.play(m);
            match self.set.insert(child.key()) {
                Insert::Present => {
                    self.stats.tt_hits += 1;
                    continue;
                }
                Insert::Full => return (first_win, Some(StopReason::MemoryLimit)),
                Insert::New => {}
            }
            self.stats.nodes += 1;
            self.stats.stored += 1;
            let settled = self.variant == Variant::Common && child.column0_all_twos();
            self.stats.settled += u64::from(settled);
            self.stats.max_depth = self.stats.max_depth.max(self.stack.len() as u64);
            if child.is_won(self.variant) {
                self.stats.wins += 1;
                let mut line: Vec<Move> = self.stack.iter().skip(1).map(|f| f.via).collect();
                line.push(m);
                if !self.options.complete {
                    return (Some(line), None);
                }
                first_win.get_or_insert(line);
            } else if !(settled && self.options.stop_at_settled) {
                self.push(&child, m);
            }
            if self.stats.nodes >= next_check {
                if let Some(reason) = budget.exhausted(self.stats.nodes) {
                    return (first_win, Some(reason));
                }
                next_check = self.stats.nodes + CHECK_INTERVAL;
            }
        }
        (first_win, None)
    }

    fn push(&mut self, position: &Position, via: Move) {
        let mut moves = MoveList::default();
        position.legal_moves(self.variant, &mut moves);
        for &m in moves.as_slice() {
            self.set.prefetch(position.key_after(m));
        }
        self.stats.expanded += 1;
        let first = self.thread * moves.len() / self.threads;
        self.stack.push(Frame {
            position: *position,
            moves,
            tried: 0,
            first,
            via,
        });
    }
}
