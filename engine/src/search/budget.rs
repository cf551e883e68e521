//! Search limits: a node limit, a deadline, a cooperative cancel flag and a pause
//! gate.
//!
//! Invariant: searches call [`Budget::exhausted`] about every
//! [`CHECK_INTERVAL`](crate::tuning::CHECK_INTERVAL) nodes, so a cancel, deadline or
//! pause is noticed within that many nodes (well under a millisecond);
//! reaching a limit is an outcome (`unknown`), never an error. A paused search waits
//! inside that call, and its deadline moves by the time it waited
//! ([`PauseGate`]).

use super::pause::PauseGate;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Most threads of one search, for every algorithm that runs on several (the box
/// table of parallel block search keeps a slot per thread and depth).
pub const MAX_THREADS: usize = 64;

/// Why a search stopped before its end.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StopReason {
    /// The node limit was reached.
    NodeLimit,
    /// The time limit was reached.
    TimeLimit,
    /// The caller raised the cancel flag.
    Cancelled,
    /// The algorithm's own resource bound (a memory budget) was reached.
    MemoryLimit,
    /// Every allowed random probe was made without a win (sampling proves no loss).
    ProbeLimit,
    /// Every suit assignment was searched without a win (`assign` proves no loss).
    AssignmentsLost,
}

impl StopReason {
    /// A stable lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            StopReason::NodeLimit => "node_limit",
            StopReason::TimeLimit => "time_limit",
            StopReason::Cancelled => "cancelled",
            StopReason::MemoryLimit => "memory_limit",
            StopReason::ProbeLimit => "probe_limit",
            StopReason::AssignmentsLost => "assignments_lost",
        }
    }

    /// Every reason, each once.
    pub const ALL: [StopReason; 6] = [
        StopReason::NodeLimit,
        StopReason::TimeLimit,
        StopReason::Cancelled,
        StopReason::MemoryLimit,
        StopReason::ProbeLimit,
        StopReason::AssignmentsLost,
    ];
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The limits of one search.
#[derive(Clone, Copy, Debug)]
pub struct Budget<'a> {
    max_nodes: u64,
    deadline: Option<Instant>,
    cancel: Option<&'a AtomicBool>,
    progress: Option<&'a AtomicU64>,
    /// Parks the search while paused; its paused time moves the deadline.
    pause: Option<&'a PauseGate>,
    /// The gate's paused time when this budget's deadline was set: only pauses after
    /// it move the deadline.
    paused_before: Duration,
    /// Raised by a sibling thread when it stops the whole search: the innermost
    /// search's flag first, then the flag of the search around it (a parallel exact
    /// search inside the `auto` portfolio). Two levels are all the engine nests.
    halts: [Option<&'a AtomicBool>; 2],
}

impl<'a> Budget<'a> {
    /// A budget of at most `max_nodes` nodes and `time` (both optional), cancelled when
    /// `cancel` becomes true.
    pub fn new(
        max_nodes: Option<u64>,
        time: Option<Duration>,
        cancel: Option<&'a AtomicBool>,
    ) -> Self {
        Budget {
            max_nodes: max_nodes.unwrap_or(u64::MAX),
            deadline: time.map(|t| Instant::now() + t),
            cancel,
            progress: None,
            pause: None,
            paused_before: Duration::ZERO,
            halts: [None, None],
        }
    }
    /// No limits at all.
    pub fn unlimited() -> Budget<'static> {
        Budget {
            max_nodes: u64::MAX,
            deadline: None,
            cancel: None,
            progress: None,
            pause: None,
            paused_before: Duration::ZERO,
            halts: [None, None],
        }
    }
    /// The same budget, also publishing the node count to `progress` at every check
    /// (so another thread can watch a running search).
    pub fn with_progress(self, progress: Option<&'a AtomicU64>) -> Self {
        Budget { progress, ..self }
    }

    /// The same budget, also parking the search while `pause` is paused (and moving
    /// its deadline by that time).
    pub fn with_pause(self, pause: Option<&'a PauseGate>) -> Self {
        Budget {
            pause,
            paused_before: pause.map_or(Duration::ZERO, PauseGate::paused_for),
            ..self
        }
    }

    /// The deadline, moved by the time the search was paused.
    fn effective_deadline(&self) -> Option<Instant> {
        let deadline = self.deadline?;
        Some(match self.pause {
            Some(gate) => deadline + gate.paused_for().saturating_sub(self.paused_before),
            None => deadline,
        })
    }

    /// The most nodes this budget allows.
    pub fn max_nodes(&self) -> u64 {
        self.max_nodes
    }

    /// The same budget with at most `max_nodes` nodes (counted like the original's).
    pub fn capped(&self, max_nodes: u64) -> Self {
        Budget {
            max_nodes: self.max_nodes.min(max_nodes),
            ..*self
        }
    }

    /// The same budget for a search counting from zero after `spent` nodes were
    /// searched under it.
    pub fn after(&self, spent: u64) -> Self {
        Budget {
            max_nodes: self.max_nodes.saturating_sub(spent),
            ..*self
        }
    }

    /// The budget of one of `threads` threads sharing this budget, after `spent` nodes:
    /// each may search an equal share of the nodes left, all keep the deadline and the
    /// cancel flag, and each also stops (as `Cancelled`) when `halt` is raised by a
    /// sibling. Progress is not published (the threads' counts are separate).
    pub fn shared_by(&self, threads: usize, spent: u64, halt: &'a AtomicBool) -> Self {
        let left = self.max_nodes.saturating_sub(spent);
        Budget {
            max_nodes: left.div_ceil(threads.max(1) as u64),
            progress: None,
            ..self.halted_by(halt)
        }
    }

    /// The budgets of two searches run side by side from here, each counting its nodes
    /// from zero: each may search half the nodes, both stop (as `Cancelled`) when
    /// `halt` is raised, and the first keeps publishing its progress.
    pub fn split_in_two(&self, halt: &'a AtomicBool) -> (Self, Self) {
        let second = self.shared_by(2, 0, halt);
        let first = Budget {
            progress: self.progress,
            ..second
        };
        (first, second)
    }

    /// The same budget, also stopping (as `Cancelled`) when `halt` is raised; the flags
    /// it already watches stay watched.
    pub fn halted_by(&self, halt: &'a AtomicBool) -> Self {
        debug_assert!(self.halts[1].is_none(), "halt flags nest two deep at most");
        Budget {
            halts: [Some(halt), self.halts[0]],
            ..*self
        }
    }

    /// The time left before the deadline (`None`: no deadline).
    pub fn time_left(&self) -> Option<Duration> {
        self.effective_deadline()
            .map(|deadline| deadline.saturating_duration_since(Instant::now()))
    }

    /// Whether the search must stop after `nodes` nodes, and why.
    #[inline]
    pub fn exhausted(&self, nodes: u64) -> Option<StopReason> {
        if let Some(p) = self.progress {
            p.store(nodes, Ordering::Relaxed);
        }
        if nodes >= self.max_nodes {
            return Some(StopReason::NodeLimit);
        }
        if self.stop_raised() {
            return Some(StopReason::Cancelled);
        }
        if let Some(gate) = self.pause.filter(|gate| gate.is_paused()) {
            gate.wait(|| self.stop_raised());
            if self.stop_raised() {
                return Some(StopReason::Cancelled);
            }
        }
        if let Some(deadline) = self.deadline {
            // The gate's lock is taken only once the unmoved deadline has passed.
            if Instant::now() >= deadline
                && self
                    .effective_deadline()
                    .is_some_and(|d| Instant::now() >= d)
            {
                return Some(StopReason::TimeLimit);
            }
        }
        None
    }

    /// Whether the cancel flag or a halt flag is raised.
    #[inline]
    fn stop_raised(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
            || self
                .halts
                .iter()
                .any(|h| h.is_some_and(|h| h.load(Ordering::Relaxed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paused_budget_waits_and_its_deadline_moves_by_the_pause() {
        let gate = PauseGate::new();
        let budget =
            Budget::new(None, Some(Duration::from_millis(100)), None).with_pause(Some(&gate));
        gate.pause();
        std::thread::scope(|s| {
            let check = s.spawn(|| {
                let began = Instant::now();
                (budget.exhausted(1), began.elapsed())
            });
            std::thread::sleep(Duration::from_millis(300));
            gate.resume();
            let (stop, waited) = check.join().unwrap();
            assert_eq!(stop, None, "300 ms paused do not count against 100 ms");
            assert!(waited >= Duration::from_millis(250));
        });
        assert!(budget.time_left().unwrap() > Duration::from_millis(10));
        std::thread::sleep(Duration::from_millis(150));
        assert_eq!(budget.exhausted(2), Some(StopReason::TimeLimit));
        // A budget made after a pause is not moved by it.
        let later =
            Budget::new(None, Some(Duration::from_millis(100)), None).with_pause(Some(&gate));
        let left = later.time_left().unwrap();
        assert!(left <= Duration::from_millis(100), "{left:?}");
        // A cancel stops a parked search.
        let cancel = AtomicBool::new(false);
        let budget = Budget::new(None, None, Some(&cancel)).with_pause(Some(&gate));
        gate.pause();
        std::thread::scope(|s| {
            let check = s.spawn(|| budget.exhausted(1));
            std::thread::sleep(Duration::from_millis(30));
            cancel.store(true, Ordering::SeqCst);
            assert_eq!(check.join().unwrap(), Some(StopReason::Cancelled));
        });
    }

    #[test]
    fn a_budget_stops_when_either_of_its_halt_flags_is_raised() {
        let (outer, inner) = (AtomicBool::new(false), AtomicBool::new(false));
        let base = Budget::new(Some(1000), None, None);
        let (first, second) = base.split_in_two(&outer);
        assert_eq!(first.exhausted(499), None);
        assert_eq!(first.exhausted(500), Some(StopReason::NodeLimit));
        let nested = second.shared_by(2, 0, &inner);
        assert_eq!(nested.exhausted(249), None);
        assert_eq!(nested.exhausted(250), Some(StopReason::NodeLimit));
        inner.store(true, Ordering::Relaxed);
        assert_eq!(nested.exhausted(0), Some(StopReason::Cancelled));
        assert_eq!(
            second.exhausted(0),
            None,
            "the inner flag halts only the inner search"
        );
        inner.store(false, Ordering::Relaxed);
        outer.store(true, Ordering::Relaxed);
        assert_eq!(nested.exhausted(0), Some(StopReason::Cancelled));
        assert_eq!(first.exhausted(0), Some(StopReason::Cancelled));
        assert_eq!(base.exhausted(0), None);
    }
}
