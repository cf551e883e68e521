//! Work sharing between the threads of the parallel exact search
//! (`search::exact::parallel`): a thread whose stack is empty asks for work, and a
//! working thread hands it part of the untried moves of its lowest frame that has any.
//!
//! Invariants:
//! - A [`Donation`] holds a position on the donor's line, the path to it from the root
//!   and moves of that position which the donor has not tried and took out of its
//!   frame; whoever takes it tries exactly those moves from that position (or the
//!   whole search stops). So every move is still tried once, by one thread, and the
//!   argument of `search::exact::parallel` holds with "a thread, or one it handed the
//!   move to" for "a thread".
//! - Shuffle moves inside an open Two-shuffle class are never handed over: the donor's
//!   open classes record which members were entered, and only the thread that opened a
//!   class enters its members (`search::exact`).
//! - `working` counts the threads that hold work (a non-empty stack) or are about to
//!   (a donation taken); donations are pushed by working threads, under the lock. So
//!   when, under the lock, `working` is zero and no donation waits, no thread holds or
//!   can create work: the search is over.
//! - A gated thread ([`Exchange::new`]'s `gated`) holds no work and asks for none until
//!   its gate opens: it stands for a thread whose core is busy elsewhere (the finders of
//!   `auto`) and joins the search when that core is free.

use crate::moves::{Move, MoveList};
use crate::position::{Position, MAX_MOVES};
use crate::tuning::{GATE_NAP, WORK_NAP};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Moves handed from one thread to another (see the module doc).
pub(crate) struct Donation {
    /// The position the moves are tried from.
    pub position: Position,
    /// The moves to try, all legal in `position`.
    pub moves: MoveList<MAX_MOVES>,
    /// The moves from the root to `position`.
    pub line: Vec<Move>,
}

/// What a thread with no work gets from [`Exchange::wait`].
pub(crate) enum Wait {
    /// Work to do: the thread counts as working again.
    Work(Box<Donation>),
    /// Every thread is out of work and nothing waits: the search is over.
    Done,
    /// `interrupted` said so (a growth phase, a stop): ask again later.
    Interrupted,
}

struct State {
    donations: Vec<Donation>,
    working: usize,
}

/// The threads' meeting point for work sharing.
pub(crate) struct Exchange<'a> {
    /// Threads waiting for work that no donation answers yet (changed under the lock;
    /// read on every move by the working threads, so kept apart from it).
    wanted: AtomicUsize,
    state: Mutex<State>,
    gate: Option<&'a AtomicBool>,
    donations: AtomicUsize,
}

impl<'a> Exchange<'a> {
    /// An exchange for `threads` threads, every one working but `gated` of them, which
    /// wait until `gate` is raised (`gated` must be 0 without a gate).
    pub fn new(threads: usize, gated: usize, gate: Option<&'a AtomicBool>) -> Self {
        debug_assert!(gated == 0 || gate.is_some(), "gated threads need a gate");
        Exchange {
            wanted: AtomicUsize::new(0),
            state: Mutex::new(State {
                donations: Vec::new(),
                working: threads - gated,
            }),
            gate,
            donations: AtomicUsize::new(0),
        }
    }

    /// Whether a thread is waiting for work that no donation answers yet (a relaxed
    /// read: a working thread looks at every move).
    #[inline(always)]
    pub fn wanted(&self) -> bool {
        self.wanted.load(Ordering::Relaxed) > 0
    }

    /// Called by a working thread when [`Exchange::wanted`]: if a waiting thread is still
    /// unanswered, `split` is asked for a donation for it (`None`: nothing to give).
    /// Returns whether a donation was made or none was needed.
    pub fn give(&self, split: impl FnOnce() -> Option<Donation>) -> bool {
        let mut state = self.lock();
        if self.wanted.load(Ordering::Relaxed) == 0 {
            return true;
        }
        let Some(donation) = split() else {
            return false;
        };
        state.donations.push(donation);
        self.wanted.fetch_sub(1, Ordering::Relaxed);
        self.donations.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// Donations made so far.
    pub fn donations(&self) -> usize {
        self.donations.load(Ordering::Relaxed)
    }

    /// Called once by a working thread whose stack has just emptied, before it waits.
    pub fn stop_working(&self) {
        let mut state = self.lock();
        state.working -= 1;
        self.wanted.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether the gate is open (always, without one).
    pub fn gate_open(&self) -> bool {
        self.gate.is_none_or(|g| g.load(Ordering::Relaxed))
    }

    /// Called by a gated thread once its gate is open, before it waits.
    pub fn arrive(&self) {
        let _state = self.lock();
        self.wanted.fetch_add(1, Ordering::Relaxed);
    }

    /// Waits for work, as a thread that has stopped working (or arrived through its
    /// gate), until a donation comes, the search is over, or `interrupted` says to stop
    /// waiting (checked between naps).
    pub fn wait(&self, mut interrupted: impl FnMut() -> bool) -> Wait {
        loop {
            if let Some(end) = self.look(true) {
                return end;
            }
            if interrupted() {
                return Wait::Interrupted;
            }
            std::thread::sleep(WORK_NAP);
        }
    }

    /// Waits, as a gated thread, until the gate opens (`None`: then call
    /// [`Exchange::arrive`] and [`Exchange::wait`]), the search is over without it
    /// ([`Wait::Done`]) or `interrupted` says to stop waiting.
    pub fn wait_at_gate(&self, mut interrupted: impl FnMut() -> bool) -> Option<Wait> {
        loop {
            if self.gate_open() {
                return None;
            }
            if let Some(end) = self.look(false) {
                return Some(end);
            }
            if interrupted() {
                return Some(Wait::Interrupted);
            }
            std::thread::sleep(GATE_NAP);
        }
    }

    /// Under the lock: a donation for a waiting thread (if `take`), or the end of the
    /// search.
    fn look(&self, take: bool) -> Option<Wait> {
        let mut state = self.lock();
        if take {
            if let Some(donation) = state.donations.pop() {
                state.working += 1;
                return Some(Wait::Work(Box::new(donation)));
            }
        }
        (state.working == 0 && state.donations.is_empty()).then_some(Wait::Done)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A thread that panicked holding the lock ends the whole search with that panic
        // (the scope rethrows it); the state is plain counts and a list, never torn.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Layout;
    use crate::deal::deal;

    fn donation() -> Donation {
        Donation {
            position: deal(0, Layout::new(3, 4).unwrap()),
            moves: MoveList::default(),
            line: Vec::new(),
        }
    }

    #[test]
    fn the_search_is_over_only_when_no_thread_works_and_nothing_waits() {
        let exchange = Exchange::new(2, 0, None);
        assert!(!exchange.wanted());
        exchange.stop_working();
        assert!(exchange.wanted());
        // The other thread still works: an interrupted wait, not the end.
        assert!(matches!(exchange.wait(|| true), Wait::Interrupted));
        assert!(exchange.give(|| Some(donation())));
        // Only one thread waits: a second donation is not asked for.
        assert!(exchange.give(|| panic!("one donation answers one waiting thread")));
        assert_eq!(exchange.donations(), 1);
        assert!(matches!(exchange.wait(|| true), Wait::Work(_)));
        assert!(!exchange.wanted());
        exchange.stop_working();
        exchange.stop_working();
        assert!(matches!(exchange.wait(|| false), Wait::Done));
    }

    #[test]
    fn a_gated_thread_waits_for_its_gate_or_the_end() {
        let gate = AtomicBool::new(false);
        let exchange = Exchange::new(2, 1, Some(&gate));
        assert!(matches!(
            exchange.wait_at_gate(|| true),
            Some(Wait::Interrupted)
        ));
        gate.store(true, Ordering::Relaxed);
        assert!(exchange.wait_at_gate(|| true).is_none());
        exchange.arrive();
        assert!(exchange.wanted());
        // The working thread finishes with nothing to give: the search is over.
        assert!(!exchange.give(|| None));
        exchange.stop_working();
        assert!(matches!(exchange.wait(|| false), Wait::Done));

        let closed = AtomicBool::new(false);
        let exchange = Exchange::new(2, 1, Some(&closed));
        exchange.stop_working();
        assert!(matches!(exchange.wait_at_gate(|| false), Some(Wait::Done)));
    }
}
