//! A search that gives way: a [`PauseGate`] lets the caller park every thread of a
//! running search at its next budget check and let it go on later, exactly where it
//! was (same tables, same stack, same node count), with the time it spent parked
//! added to its deadline.
//!
//! Invariants:
//! - A search checks its gate where it checks its cancel flag (about every
//!   [`CHECK_INTERVAL`](crate::tuning::CHECK_INTERVAL) nodes), so a pause takes
//!   effect within that many nodes on every thread of the search; between checks
//!   nothing changes, so a paused search ends with the verdict it would have reached
//!   unpaused, given the same node limit and a deadline moved by the pause.
//! - The time a search was paused is measured once, by the gate (from
//!   [`PauseGate::pause`] to [`PauseGate::resume`]), however many threads waited.
//! - A parked thread wakes for a cancel or halt as well as for a resume (it looks
//!   at its flags at least every [`RECHECK`]), so a paused search can always be
//!   stopped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How often a parked thread looks at its own stop flags.
pub const RECHECK: Duration = Duration::from_millis(20);

/// The switch a caller holds to pause a running search (see the module doc).
#[derive(Debug, Default)]
pub struct PauseGate {
    /// Raised while the search must stay parked (read at every budget check).
    paused: AtomicBool,
    state: Mutex<GateState>,
    resumed: Condvar,
}

#[derive(Debug, Default)]
struct GateState {
    /// When the current pause began.
    since: Option<Instant>,
    /// Length of the pauses that have ended.
    total: Duration,
    /// Pauses asked so far.
    count: u64,
}

impl PauseGate {
    /// A gate that is open (the search runs).
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Parks the search at its next check; nothing if it is paused already.
    pub fn pause(&self) {
        let mut state = self.lock();
        if state.since.is_none() {
            state.since = Some(Instant::now());
            state.count += 1;
            self.paused.store(true, Ordering::SeqCst);
        }
    }

    /// Lets the search go on; nothing if it is not paused.
    pub fn resume(&self) {
        let mut state = self.lock();
        if let Some(since) = state.since.take() {
            state.total += since.elapsed();
            self.paused.store(false, Ordering::SeqCst);
            self.resumed.notify_all();
        }
    }

    /// True while a pause is asked.
    #[inline]
    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::Relaxed)
    }

    /// Time paused so far, the current pause included.
    pub fn paused_for(&self) -> Duration {
        let state = self.lock();
        state.total + state.since.map_or(Duration::ZERO, |since| since.elapsed())
    }

    /// Pauses asked so far.
    pub fn pauses(&self) -> u64 {
        self.lock().count
    }

    /// Blocks the calling search thread while the gate is paused, or until `stop`
    /// says it must stop (looked at every [`RECHECK`]).
    pub(crate) fn wait(&self, stop: impl Fn() -> bool) {
        let mut state = self.lock();
        while state.since.is_some() && !stop() {
            state = match self.resumed.wait_timeout(state, RECHECK) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_parked_thread_waits_for_resume_and_the_pause_is_counted_once() {
        let gate = Arc::new(PauseGate::new());
        gate.pause();
        gate.pause(); // one pause, however often asked
        let waiters: Vec<_> = (0..3)
            .map(|_| {
                let gate = gate.clone();
                std::thread::spawn(move || {
                    let began = Instant::now();
                    gate.wait(|| false);
                    began.elapsed()
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(60));
        gate.resume();
        for waiter in waiters {
            assert!(waiter.join().unwrap() >= Duration::from_millis(50));
        }
        let paused = gate.paused_for();
        assert!(paused >= Duration::from_millis(60) && paused < Duration::from_secs(5));
        assert_eq!(gate.pauses(), 1);
        assert!(!gate.is_paused());
        // A stop flag frees a parked thread without a resume.
        gate.pause();
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let parked = s.spawn(|| gate.wait(|| stop.load(Ordering::SeqCst)));
            std::thread::sleep(Duration::from_millis(30));
            stop.store(true, Ordering::SeqCst);
            parked.join().unwrap();
        });
        assert!(gate.is_paused(), "the gate itself stays paused");
    }
}
