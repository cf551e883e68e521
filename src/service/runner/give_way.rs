//! Single jobs never wait for a batch (docs/http.md, "Who runs first"): while every
//! solver thread is busy and a batch job runs on this node, a *single lane* claims a
//! single job and runs it on the threads of a batch job that gives way. Here too: the
//! threads any claimed job runs on ([`Runner::take_threads`]: its own, or lent).
//!
//! Invariants:
//! - A batch job that gives way is paused, not stopped: its search parks at its next
//!   budget check (within about 1024 nodes, well under a millisecond) through its
//!   [`PauseGate`], keeps its tables, its memory and its lease (the heartbeat goes
//!   on), and goes on where it was when the single job ends; its time limit does not
//!   count the pause, so it ends with the verdict it reaches uninterrupted.
//! - The single job runs on at most as many threads as the paused job held, so the
//!   node never runs more searches at once than the pool has threads; no permit of the
//!   pool changes hands ([`Lent`] holds none and resumes the batch job when dropped).
//! - A batch job lends its threads to one single job at a time.
//! - There is one single lane per solver thread. Its solver is made for each job and
//!   dropped after it, and its table (twice `solver.table_mb`, as a lane's thread
//!   holds) is drawn from the node's memory for searches while it runs, so the node's
//!   memory budget holds with single lanes too; a single lane claims only when that
//!   much is free.

use super::wait::wait_for;
use super::{RunStatus, Runner};
use gaps_engine::PauseGate;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::SemaphorePermit;

/// A batch job running on this node that can give way.
pub(super) struct Giver {
    gate: Arc<PauseGate>,
    /// Threads it runs on.
    threads: usize,
    /// True while a single job runs on its threads.
    lent: bool,
}

/// The batch jobs running on this node, by id.
#[derive(Default)]
pub(super) struct Givers(std::sync::Mutex<HashMap<String, Giver>>);

impl Givers {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Giver>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers batch job `id`, running on `threads` threads; its search must watch
    /// the returned gate.
    pub(super) fn add(&self, id: &str, threads: usize) -> Arc<PauseGate> {
        let gate = Arc::new(PauseGate::new());
        self.lock().insert(
            id.to_string(),
            Giver {
                gate: gate.clone(),
                threads,
                lent: false,
            },
        );
        gate
    }

    /// Forgets batch job `id` (its search ended).
    pub(super) fn remove(&self, id: &str) {
        self.lock().remove(id);
    }

    /// True when some batch job here could give way now.
    pub(super) fn any_free(&self) -> bool {
        self.lock().values().any(|giver| !giver.lent)
    }
}

/// The threads of a batch job that gave way; dropping it lets the batch job go on.
pub struct Lent<'a> {
    runner: &'a Runner,
    id: String,
    gate: Arc<PauseGate>,
    /// Threads the paused job held.
    pub(super) threads: usize,
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Some(giver) = self.runner.givers.lock().get_mut(&self.id) {
            giver.lent = false;
        }
        self.runner.set_status(&self.id, RunStatus::Searching);
        self.gate.resume();
    }
}

impl Runner {
    /// Pauses the batch job here that holds the most threads and is not lent already,
    /// and lends its threads; `None` when there is none.
    pub(super) fn borrow_from_batch(&self) -> Option<Lent<'_>> {
        let (id, gate, threads) = {
            let mut givers = self.givers.lock();
            let (id, giver) = givers
                .iter_mut()
                .filter(|(_, giver)| !giver.lent)
                .max_by_key(|(_, giver)| giver.threads)?;
            giver.lent = true;
            giver.gate.pause();
            (id.clone(), giver.gate.clone(), giver.threads)
        };
        self.set_status(&id, RunStatus::GivingWay);
        self.metrics.gave_way.inc();
        tracing::debug!(job = %id, threads, "a batch job gives way to a single job");
        Some(Lent {
            runner: self,
            id,
            gate,
            threads,
        })
    }

    /// True when a single lane should claim: no solver thread is free (a free one
    /// takes single jobs first anyway), a batch job here can give way, and the memory
    /// for the lane's table is free.
    fn single_lane_may_claim(&self) -> bool {
        self.cores.available_permits() == 0
            && self.memory.available_permits() >= self.single_lane_mb
            && self.givers.any_free()
    }
}

/// How long a single lane sleeps between two looks when nothing wakes it.
const SINGLE_LANE_POLL: Duration = Duration::from_millis(500);

/// One single lane: when a batch job can give way, claim a single job and run it on
/// the batch job's threads; sleep until woken (or [`SINGLE_LANE_POLL`]) otherwise.
pub(super) async fn single_lane(runner: Arc<Runner>, solver: super::SolverThread) {
    while !runner.is_shutting_down() {
        let woken = runner.wake.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        if runner.single_lane_may_claim() {
            match runner.run_next(&solver, super::LaneKind::Single).await {
                Ok(true) => continue,
                Ok(false) => {}
                Err(e) => {
                    tracing::error!(error = %e, "the job store failed; retrying in 1 s");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            }
        }
        let _ = tokio::time::timeout(SINGLE_LANE_POLL, woken).await;
    }
}

/// The threads a solve runs on (held until it ends).
pub enum Threads<'a> {
    /// Permits of the pool (none when a cancel came while waiting for them).
    Own(Vec<SemaphorePermit<'a>>),
    /// Those of a batch job that gave way.
    Lent(Lent<'a>),
}

impl Runner {
    /// The threads a claimed job runs on, with how many it runs on and how many of
    /// them count as busy: on a single lane, those of a batch job that gives way (if
    /// one still can: they stay counted busy under its name); else one of the pool's,
    /// waited for, and up to `asked - 1` more that are idle now. Without threads when
    /// `flag` rose while it waited (the search then stops at its first check).
    pub(crate) async fn take_threads(
        &self,
        single_lane: bool,
        asked: usize,
        flag: &AtomicBool,
    ) -> (Threads<'_>, usize, usize) {
        let lent = match single_lane {
            true => self.borrow_from_batch(),
            false => None,
        };
        let cores = match lent {
            Some(lent) => Threads::Lent(lent),
            None => {
                let own = wait_for(&self.cores, 1, flag, &|| self.preempt_deepening()).await;
                let mut permits: Vec<_> = own.into_iter().collect();
                permits.extend(self.idle_cores(asked.max(1) - 1));
                Threads::Own(permits)
            }
        };
        let (threads, busy) = match &cores {
            Threads::Own(permits) => (permits.len().max(1), permits.len()),
            Threads::Lent(lent) => (lent.threads.min(asked.max(1)), 0),
        };
        (cores, threads, busy)
    }
}
